package results

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/units"
)

// HarnessCost is what the harness itself costs on the run's host,
// measured at the start of the run against a target that does nothing:
// the time and allocations of one operation's harness work, and of one
// read of the clock the harness times operations with. A latency near
// OverheadNs measures kvbench, not the store (CheckOverhead).
type HarnessCost struct {
	OverheadNs  float64 `json:"overhead_ns"`
	AllocsPerOp float64 `json:"allocs_per_op"`
	ClockReadNs float64 `json:"clock_read_ns"`
}

// String says the cost on one line, as report prints it beside the
// cells: "480ns per operation, 0 allocations per operation, 21ns per
// clock read".
func (h HarnessCost) String() string {
	return fmt.Sprintf("%s per operation, %.2g allocations per operation, %s per clock read",
		units.Duration(h.OverheadNs), h.AllocsPerOp, units.Duration(h.ClockReadNs))
}

// OverheadRatio is how many times the harness's own per-operation cost a
// cell's p50 must be for the harness's share of it to be small: at 10×,
// the harness is at most a tenth of the median, the most a reader can
// ignore when comparing two stores' medians.
const OverheadRatio = 10

// OverheadCheck sets the cell's p50 against the harness's own cost: it
// fails within OverheadRatio of it. ok is false when the cost was not
// measured or the cell has no p50.
func OverheadCheck(c Cell, h *HarnessCost) (Check, bool) {
	return P50OverheadCheck(float64(c.Latency.P50), h)
}

// P50OverheadCheck is OverheadCheck of a p50 in nanoseconds kept apart
// from any cell: a tune's measurement (tune.Sample) is judged as a run's
// cell is.
func P50OverheadCheck(p50 float64, h *HarnessCost) (Check, bool) {
	if h == nil || h.OverheadNs <= 0 || p50 <= 0 {
		return Check{}, false
	}
	r := p50 / h.OverheadNs
	return Check{Name: CheckOverhead, Method: "p50 against harness overhead", Statistic: r,
		Figure: fmt.Sprintf("p50 %s is %s the harness's own %s per operation",
			units.Duration(p50), times(r), units.Duration(h.OverheadNs)),
		Pass: r >= OverheadRatio}, true
}

// AddRunChecks gives every cell the checks that set it against what the
// run recorded of itself: its spinners against the host's CPUs
// (BusyPollCheck) and its p50 against the harness's cost (OverheadCheck).
func AddRunChecks(run *Run, cells []CellLog) {
	for i := range cells {
		c := &cells[i].Cell
		var fresh []Check
		if k, ok := BusyPollCheck(run.Transport, c.Load, run.Host.Cores); ok {
			fresh = append(fresh, k)
		}
		if k, ok := OverheadCheck(*c, run.Harness); ok {
			fresh = append(fresh, k)
		}
		c.Checks = SetChecks(c.Checks, fresh)
	}
}
