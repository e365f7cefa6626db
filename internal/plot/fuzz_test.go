package plot

import (
	"os"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// FuzzFigures feeds arbitrary results files through figure building and
// drawing: odd numbers (zeros, huge values, missing histograms) must never
// panic, since log axes do on non-positive values.
func FuzzFigures(f *testing.F) {
	seed, err := os.ReadFile("testdata/results.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema_version":1,"cells":[{"op":"get","value_size":1,"threshold":0,"protocol":"eager","throughput_ops":1e300,"latency_ns":{"p50":1,"p99":9223372036854775807}}]}`))
	// Phases (PhaseBars): a pair at one size, a lone bar with an unknown
	// phase, and p50s at the extremes.
	f.Add([]byte(`{"schema_version":1,"cells":[` +
		`{"op":"get","value_size":64,"threshold":4096,"protocol":"eager","phases":{"client":{"p50":400},"network":{"p50":1500},"server":{"p50":300}}},` +
		`{"op":"get","value_size":64,"threshold":0,"protocol":"rendezvous","phases":{"client":{"p50":500},"read":{"p50":1600},"release":{"p50":1200}}},` +
		`{"op":"set","value_size":0,"threshold":0,"protocol":"rendezvous","phases":{"write":{"p50":9223372036854775807},"commit":{"p50":-5},"other":{"p50":1}}}]}`))
	// CPU: both scopes, a zero and a huge figure per operation.
	f.Add([]byte(`{"schema_version":1,"cells":[` +
		`{"op":"get","value_size":64,"threshold":4096,"protocol":"eager","count":1,"cpu":{"scope":"client","phase_ops":1,"client":{"ns_per_op":2000},"server":{"ns_per_op":0}}},` +
		`{"op":"get","value_size":65536,"threshold":4096,"protocol":"rendezvous","count":1,"cpu":{"scope":"process","phase_ops":1,"client":{"ns_per_op":1e300}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		run, err := results.Decode(b)
		if err != nil {
			return
		}
		figs, _, err := Figures(run, t.TempDir(), Options{Percentiles: true})
		if err != nil {
			return
		}
		for _, fig := range figs {
			fig.Draw(draw.New(vgimg.New(300, 200*vg.Length(len(fig.Panels)))))
		}
	})
}
