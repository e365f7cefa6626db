package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

// The harness's own cost, when measured, is one line of the run's
// report, of its summary and of a tune's report; absent, no line.
func TestHarnessCostLine(t *testing.T) {
	cost := &results.HarnessCost{OverheadNs: 480, AllocsPerOp: 0, ClockReadNs: 21}
	want := "harness cost: 480ns per operation, 0 allocations per operation, 21ns per clock read"
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer, *results.HarnessCost) error
	}{
		{"summary", func(b *bytes.Buffer, h *results.HarnessCost) error {
			return WriteSummary(b, &results.Run{Harness: h, EndReason: results.EndCompleted})
		}},
		{"tune", func(b *bytes.Buffer, h *results.HarnessCost) error {
			return Tune(b, &tune.Result{Harness: h, Loads: []tune.LoadResult{{Load: tune.Load{Connections: 1, Depth: 1}}}})
		}},
	} {
		var with, without bytes.Buffer
		if err := c.write(&with, cost); err != nil {
			t.Fatal(err)
		}
		if err := c.write(&without, nil); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(with.String(), want) || strings.Contains(without.String(), "harness cost") {
			t.Errorf("%s with the cost:\n%s\nwithout:\n%s", c.name, &with, &without)
		}
	}
}
