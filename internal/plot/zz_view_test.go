package plot

import (
	"os"
	"testing"

	"github.com/kvbench/kvbench/internal/report"
)

func TestZZView(t *testing.T) {
	out := os.Getenv("KV_VIEW")
	if out == "" {
		t.Skip()
	}
	dir := t.TempDir()
	_ = testRun(t, dir)
	run, d, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := SaveAll(run, d, Options{OutDir: out, Formats: []string{"png"}, Percentiles: true, Timelines: true}); err != nil {
		t.Fatal(err)
	}
}
