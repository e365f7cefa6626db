package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// A saved tune's directory is drawn again by plot; with --trusted-only
// its chart leaves out the point whose repetition failed a check, and the
// caption says so.
func TestPlotTuneDirTrustedOnly(t *testing.T) {
	n := 0
	m := tune.MeasurerFunc(func(ctx context.Context, r tune.Request) (tune.Sample, error) {
		p50 := 1000 + float64(r.Size)
		if r.Protocol == tune.Rendezvous {
			p50 = 5000 + float64(r.Size)/20
		}
		s := tune.Sample{P50: p50, OpsPerSec: 1e9 / p50, BytesPerSec: float64(r.Size) * 1e9 / p50, Count: 1000}
		n++
		s.Checks = []results.Check{{Name: results.CheckPrecision, Method: "binomial order statistics", Pass: n != 1}}
		return s, nil
	})
	res, err := tune.Run(context.Background(), tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 65536}, Repeats: 2}, m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := saveTune(dir, report.TuneRan{Workload: "w"}, res); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "plots")
	stdout, stderr, err := runCLIErr(t, "plot", dir, "-o", out, "--trusted-only", "--format", "svg")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	svg := filepath.Join(out, "tune-get.svg")
	if !strings.Contains(stdout, svg) {
		t.Fatalf("plot wrote %s, not %s", stdout, svg)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "trusted points only, 1 untrusted point left out") {
		t.Error("tune-get.svg's caption does not say a point was left out")
	}
}
