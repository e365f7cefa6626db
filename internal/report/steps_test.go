package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/results"
)

// rampRun is a mixed run whose one threshold ran a ramp of two 2 s steps
// (500 then 1000 ops/s) with an eager and a rendezvous cell: each logs
// four 1 s intervals, n values of lat µs a second in the first step and
// 2n of 3·lat in the second.
func rampRun(t *testing.T) (*results.Run, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, results.HlogDir), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	run := &results.Run{SchemaVersion: results.SchemaVersion, Start: start}
	for _, s := range []struct {
		proto string
		n     int
		lat   int64
	}{{"eager", 100, 100}, {"rendezvous", 50, 200}} {
		c := results.Cell{Op: "get", ValueSize: 4096, Distribution: "weighted: {64B: 1, 64KiB: 1}", Threshold: 4096,
			Protocol: s.proto, Store: results.KindRdmakv, Errors: map[string]int64{}, IntervalNs: int64(time.Second),
			Load: results.CellLoad{Mode: "open", Connections: 1, Depth: 1, RampRatesOps: []float64{500, 1000}, RampStepNs: int64(2 * time.Second)}}
		c.Hlog = results.HlogName(c)
		var hs []*hdrhistogram.Histogram
		for i := range 4 {
			h := results.NewHistogram()
			n, lat := s.n, s.lat
			if i >= 2 {
				n, lat = 2*n, 3*lat
			}
			_ = h.RecordValues(lat*1000, int64(n))
			h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
			h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
			hs = append(hs, h)
		}
		if err := results.WriteHlog(filepath.Join(dir, c.Hlog), "", start, hs); err != nil {
			t.Fatal(err)
		}
		run.Cells = append(run.Cells, c)
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
