package workload

// checkUntil checks a phase's until and its caps: an until needs a cap,
// a cap needs an until, and each precision is a percentage above 0 and
// below 100.
func checkUntil(c *checker, path string, p Phase) {
	if p.MaxDuration < 0 {
		c.add(path+".max_duration", "must not be negative, got %v", p.MaxDuration)
	}
	if p.MaxOps < 0 {
		c.add(path+".max_ops", "must not be negative, got %d", p.MaxOps)
	}
	u := p.Until
	if u == nil {
		if c.src != nil && c.src.related(path+".until") {
			return // an until that failed to decode: its caps are not the problem
		}
		for _, f := range []string{"max_duration", "max_ops"} {
			if c.has(path + "." + f) {
				c.add(path+"."+f, "caps a phase with until; add until or use duration or ops")
			}
		}
		return
	}
	if !p.Capped() && p.MaxDuration >= 0 && p.MaxOps >= 0 {
		c.add(path+".until", "needs a cap: set max_duration or max_ops")
	}
	if p.MaxDuration > 0 && p.Duration > p.MaxDuration {
		c.add(path+".duration", "with until, duration is the least the phase runs: %v is above max_duration %v", p.Duration, p.MaxDuration)
	}
	if p.MaxOps > 0 && p.Ops > p.MaxOps {
		c.add(path+".ops", "with until, ops is the least the phase runs: %d is above max_ops %d", p.Ops, p.MaxOps)
	}
	measure := path == "phases.measure"
	switch {
	case u.Stable && measure:
		c.add(path+".until", "until: %s is for the warmup; the measure phase takes a precision like {p99_ci: 5%%}", UntilStable)
	case !u.Stable && !measure:
		c.add(path+".until", "a warmup measures nothing to be precise about; use until: %s", UntilStable)
	case !u.Stable && !c.has(path+".until.p99_ci") && !c.has(path+".until.p50_ci") && u.P99CI == 0 && u.P50CI == 0:
		c.add(path+".until", "names no precision: set p99_ci or p50_ci, like {p99_ci: 5%%}")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"p99_ci", u.P99CI}, {"p50_ci", u.P50CI}} {
		if (c.has(path+".until."+f.name) || f.v != 0) && (f.v <= 0 || f.v >= 1) {
			c.add(path+".until."+f.name, "must be above 0%% and below 100%%, got %g%%", 100*f.v)
		}
	}
}

// checkUntilFits refuses an until where the phase's end is not the
// harness's to choose: a trace replay's window, and a ramp's schedule.
func (w *Workload) checkUntilFits(c *checker) {
	for _, ph := range []struct {
		path string
		p    Phase
	}{{"phases.warmup", w.Phases.Warmup}, {"phases.measure", w.Phases.Measure}} {
		if ph.p.Until == nil {
			continue
		}
		if w.Trace != nil {
			c.add(ph.path+".until", "a trace replay's phases follow its window; until is for generated workloads")
		}
		if w.Load.Ramp != nil && ph.path == "phases.measure" {
			c.add(ph.path+".until", "with load.ramp the measure phase is the whole ramp")
		}
	}
}
