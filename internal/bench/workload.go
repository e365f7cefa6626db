package bench

import "github.com/kvbench/kvbench/internal/workload"

// FromWorkload plans a run of w (after overrides and validation). The
// caller adds the Dialer, Codec, Observer and FreshServer.
func FromWorkload(w *workload.Workload) Config {
	c := Config{
		Seed: w.Seed, Keys: w.Keys, Mix: w.Mix, Preload: w.Preload,
		Warmup: w.Phases.Warmup, Measure: w.Phases.Measure, Load: w.Load, Verify: w.Verify,
		OpPhases: w.OpPhases, Order: w.Order, AdaptiveMaxThreshold: w.AdaptiveConfig().MaxThreshold,
	}
	if d := w.Values.Distribution; d != nil && d.Law() != nil {
		c.Sizes, c.SizesSpec = d.Law(), d.Spec
		c.ValueSizes = []int{int(d.MeanSize())}
	}
	if t := w.Trace; t != nil {
		c.Trace, c.SizesSpec = replayOf(t), t.Spec()
		c.ValueSizes = []int{1} // ScanTrace sets it
	}
	for _, s := range w.ValueSizes() {
		c.ValueSizes = append(c.ValueSizes, int(s))
	}
	if w.Target.Baseline() {
		c.Thresholds = []int{0} // one pass: the store has no eager threshold
		return c
	}
	for _, t := range w.SortedThresholds() {
		c.Thresholds = append(c.Thresholds, int(t))
	}
	return c
}
