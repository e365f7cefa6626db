package report

import (
	"bytes"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// rampRun is a mixed run whose 4 KiB threshold ran a ramp of two steps
// (resultstest.Ramp): 100 eager gets of 100µs and 50 rendezvous of 200µs
// a second in the first, twice as many at three times the latency in the
// second.
func rampRun(t *testing.T) (*results.Run, string) {
	t.Helper()
	dir := t.TempDir()
	run, err := resultstest.Ramp(dir, resultstest.RampLine{Threshold: 4096, EagerUs: 100, Eager: 100, RdvUs: 200, Rdv: 50})
	if err != nil {
		t.Fatal(err)
	}
	return run, dir
}

// Each step of a ramp gets its own rows, at its own rate, from the
// intervals inside it, and the threshold's whole workload after them.
func TestStepsSplitARampByItsSteps(t *testing.T) {
	run, dir := rampRun(t)
	rows, err := Steps(run, dir)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		step   int
		rate   float64
		proto  string
		count  int64
		ops    float64
		p50min int64 // µs
	}
	for i, w := range []want{
		{1, 500, "eager", 200, 100, 100}, {1, 500, "rendezvous", 100, 50, 200}, {1, 500, "all", 300, 150, 100},
		{2, 1000, "eager", 400, 200, 300}, {2, 1000, "rendezvous", 200, 100, 600}, {2, 1000, "all", 600, 300, 300},
	} {
		if i >= len(rows) {
			t.Fatalf("%d rows, want 6", len(rows))
		}
		r := rows[i]
		if r.Step != w.step || r.RateOps != w.rate || r.Protocol != w.proto || r.Count != w.count || r.OpsPerSec != w.ops {
			t.Errorf("row %d: step %d rate %v %s count %d ops/s %v, want %+v", i, r.Step, r.RateOps, r.Protocol, r.Count, r.OpsPerSec, w)
		}
		if lo, hi := w.p50min*1000, w.p50min*1010; r.P50 < lo || r.P50 > hi {
			t.Errorf("row %d: p50 %dns, want %dµs", i, r.P50, w.p50min)
		}
	}
	if len(rows) != 6 {
		t.Errorf("%d rows, want 6", len(rows))
	}
}

// A run without a ramp has no steps, and says so.
func TestStepsWithoutARamp(t *testing.T) {
	run, dir := rampRun(t)
	for i := range run.Cells {
		run.Cells[i].Load.RampRatesOps = nil
	}
	var buf bytes.Buffer
	if err := WriteSteps(&buf, run, dir, "table"); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "no cell ran a ramp (load.ramp)\n" {
		t.Errorf("got %q", got)
	}
}

func TestStepsGolden(t *testing.T) {
	run, dir := rampRun(t)
	for _, format := range []string{"table", "csv"} {
		var buf bytes.Buffer
		if err := WriteSteps(&buf, run, dir, format); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, buf.String(), "report-steps."+format+".golden")
	}
}
