package tune

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kvbench/kvbench/rdmakv"
)

// Config is what to sweep and how to judge it.
type Config struct {
	// Ops are the operations to tune, get and/or set, each measured alone.
	Ops []rdmakv.Op `json:"ops"`
	// Sizes are the value sizes in bytes; sorted and deduplicated by Run.
	Sizes []int `json:"sizes"`
	// Repeats is how many times each (op, size, protocol) is measured. Each
	// repetition measures the two protocols back to back, a pair, and the
	// pairs decide which protocol is better (see Alpha). At least 2, but a
	// winner needs 0.5^Repeats <= Alpha: 5 at the default Alpha, where all
	// five pairs must agree; 8 or more lets one pair out of line (a hiccup
	// on a loaded machine) pass. A capacity search (SLO) may run once:
	// with fewer repeats than a sign test needs, the capacities decide by
	// SLOMargin.
	Repeats int `json:"repeats"`
	// Alpha is the one-sided significance level of the sign test over the
	// pairs; 0 means DefaultAlpha.
	Alpha float64 `json:"alpha"`
	// KeySize is added to the value size when placing the threshold, since
	// the threshold counts key plus value bytes.
	KeySize int `json:"key_size"`
	// Objective is what a protocol wins by: p50 (empty), p99, throughput
	// or cpu. Ignored with SLO, which compares capacities.
	Objective Objective `json:"objective,omitempty"`
	// CPUSide is the side whose CPU the cpu objective compares: server
	// (empty) or client.
	CPUSide string `json:"cpu_side,omitempty"`
	// SLO, if set, compares the protocols by capacity: the highest
	// open-loop rate whose latency meets the goal.
	SLO *SLO `json:"slo,omitempty"`
	// Loads are the loads to compare at, each on its own; empty means one
	// connection at depth 1.
	Loads []Load `json:"loads"`
	// Workload, when set, tunes on a distribution of sizes: whole-workload
	// runs at candidate thresholds decide, and Sizes, when given, are
	// measured as ever to say what single sizes would have predicted.
	Workload *Workload `json:"workload,omitempty"`
	// Adaptive, on fixed sizes, also measures the adaptive policy at every
	// (op, size), one more entry in each round's rotation beside the two
	// protocols, and compares it with the protocol the recommended
	// threshold, the profile and the winner give the size (Point.Adaptive).
	// On a distribution Workload.Adaptive asks for it instead.
	Adaptive bool `json:"adaptive,omitempty"`
	// Measure is the measure phase's length in seconds (0 when counted in
	// operations); it bounds how long a capacity search's measurements may
	// stretch to collect enough operations.
	Measure float64 `json:"measure_s,omitempty"`
	// Progress, if set, is called after each measurement.
	Progress func(Progress) `json:"-"`
}

// Progress is what Config.Progress is told after each measurement.
type Progress struct {
	// Done counts measurements; Total is their number when known (0 in a
	// capacity search, whose length depends on what it finds).
	Done, Total int
	Req         Request
}

// DefaultRepeats is the repetition count when none is given.
const DefaultRepeats = 5

// DefaultAlpha is the sign test's significance level when none is given.
const DefaultAlpha = 0.05

// SLOMargin is how far apart two capacities must be to decide a size
// when the searches are too few for a sign test: twice the search's
// tolerance, beyond what two searches of one protocol can differ by
// through the bisection alone.
const SLOMargin = 2 * SearchTolerance

func (c *Config) alpha() float64 {
	if c.Alpha == 0 {
		return DefaultAlpha
	}
	return c.Alpha
}

// objective is what the comparison uses: capacity under an SLO, else the
// objective chosen (p50 by default).
func (c *Config) objective() Objective {
	switch {
	case c.SLO != nil:
		return ObjCapacity
	case c.Objective == "":
		return ObjP50
	}
	return c.Objective
}

func (c *Config) cpuSide() string {
	if c.CPUSide == "" {
		return CPUServer
	}
	return c.CPUSide
}

// MinOps is the fewest operations one measurement needs for what the
// comparison reads of it: enough beyond the compared percentile (p99, or
// the SLO's), else none.
func (c *Config) MinOps() int64 {
	if c.SLO != nil {
		return c.SLO.MinOps()
	}
	if p := c.objective().percentile(); p > 50 {
		return MinOps(p)
	}
	return 0
}

// CheckMeasureOps refuses, before anything is measured, a measure phase
// counted in fewer operations (ops, 0 when timed) than the compared
// percentile needs. A capacity search sets its own count.
func (c *Config) CheckMeasureOps(ops int64) error {
	n := c.MinOps()
	if c.SLO == nil && n > 0 && ops > 0 && ops < n {
		return fmt.Errorf("phases.measure.ops %d: a %s tune can compare needs at least %d operations per measurement (%d beyond the percentile)",
			ops, c.Objective, n, TailSamples)
	}
	return nil
}

// Validate reports every problem with c.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(c.Ops) == 0 {
		bad("no operations to tune")
	}
	for _, op := range c.Ops {
		// A delete carries no value, so it has no protocol to tune.
		if op != rdmakv.OpGet && op != rdmakv.OpSet {
			bad("op %s: want get or set", op)
		}
	}
	if len(c.Sizes) < 2 && (c.Workload == nil || len(c.Sizes) > 0) {
		bad("%d value size(s) given: need at least 2 to locate a crossover", len(c.Sizes))
	}
	if c.Workload != nil {
		errs = append(errs, c.Workload.validate()...)
	}
	if c.Adaptive && c.Workload != nil {
		bad("adaptive on fixed sizes: a distribution compares the policy with its candidates (Workload.Adaptive)")
	}
	for _, s := range c.Sizes {
		if s <= 0 {
			bad("value size %d: want > 0", s)
		}
	}
	switch {
	case c.SLO != nil && c.Repeats < 1:
		bad("repeats %d: want >= 1", c.Repeats)
	case c.SLO == nil && c.Repeats < 2:
		bad("repeats %d: want >= 2 (the repeats are compared in pairs)", c.Repeats)
	}
	if c.Alpha < 0 || c.Alpha >= 0.5 {
		bad("alpha %g: want a significance level in (0, 0.5)", c.Alpha)
	}
	if c.KeySize < 0 {
		bad("key size %d: want >= 0", c.KeySize)
	}
	errs = append(errs, c.validateJudging()...)
	return errors.Join(errs...)
}

// validateJudging checks the objective, the goal and the loads.
func (c *Config) validateJudging() []error {
	var errs []error
	if c.Objective != "" {
		if _, err := ParseObjective(string(c.Objective)); err != nil {
			errs = append(errs, err)
		}
		if c.SLO != nil {
			errs = append(errs, fmt.Errorf("objective %s and a latency goal (%s): choose one; a goal compares capacities", c.Objective, c.SLO))
		}
	}
	if c.CPUSide != "" && c.CPUSide != CPUServer && c.CPUSide != CPUClient {
		errs = append(errs, fmt.Errorf("cpu side %q: want server or client", c.CPUSide))
	}
	if c.CPUSide != "" && c.objective() != ObjCPU {
		errs = append(errs, fmt.Errorf("cpu side %s: only used with the cpu objective", c.CPUSide))
	}
	if s := c.SLO; s != nil && (s.Goal <= 0 || !slices.Contains(SLOPercentiles, s.Percentile)) {
		errs = append(errs, fmt.Errorf("latency goal p%g <= %gns: want p50, p90, p99 or p99.9 and a positive goal", s.Percentile, s.Goal))
	}
	for _, l := range c.Loads {
		if err := l.validate(); err != nil {
			errs = append(errs, err)
		}
		if c.SLO != nil && l.Open() {
			errs = append(errs, fmt.Errorf("load %s: a latency goal searches the rate itself; give no rate", l))
		}
	}
	return errs
}
