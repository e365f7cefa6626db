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
	seed, err := os.ReadFile("../report/testdata/results.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema_version":1,"cells":[{"op":"get","value_size":1,"threshold":0,"protocol":"eager","throughput_ops":1e300,"latency_ns":{"p50":1,"p99":9223372036854775807}}]}`))
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
