package tune

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// Run measures every (op, size) under both protocols, Repeats times, at
// each load in turn. Within a load the order is repetition, then size,
// then op, and within each (op, size) the two protocols alternate which
// goes first from one repetition to the next, so slow drift (thermal,
// background load, server memory growth) lands on both protocols
// equally. Under a latency goal each measurement is a capacity search,
// the two protocols' searches run step by step side by side.
func Run(ctx context.Context, cfg Config, m Measurer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Sizes = slices.Compact(slices.Sorted(slices.Values(cfg.Sizes)))
	if w := cfg.Workload; w != nil {
		sorted := *w
		sorted.Thresholds = slices.Compact(slices.Sorted(slices.Values(w.Thresholds)))
		cfg.Workload = &sorted
	}
	cfg.Loads = cfg.loads()
	r := &runner{cfg: cfg, m: m, j: cfg.Judge()}
	if cfg.SLO == nil {
		r.total = cfg.Measurements()
	}
	res := &Result{Config: cfg, Objective: cfg.objective()}
	for _, l := range cfg.Loads {
		lr, err := r.atLoad(ctx, l)
		if err != nil {
			return nil, err
		}
		res.Loads = append(res.Loads, lr)
	}
	res.summarise()
	return res, nil
}

// Measurements is how many measurements a run of c takes, c's loads
// defaulted (none known under a latency goal, whose searches vary).
func (c *Config) Measurements() int {
	loads := c.loads()
	n := len(loads) * c.Repeats * len(c.Sizes) * len(c.Ops) * 2
	if c.Workload != nil {
		for _, l := range loads {
			n += c.Repeats * measuredCandidates(c.Workload, l)
			if c.Workload.Adaptive {
				n += c.Repeats
			}
		}
	}
	return n
}

// loads are c's loads, one connection at depth 1 when none are given.
func (c *Config) loads() []Load {
	if len(c.Loads) == 0 {
		return []Load{{Connections: 1, Depth: 1}}
	}
	return c.Loads
}

// atLoad measures at l: each size's pair of protocols, and on a
// distribution the whole workload at each candidate, whose choice is
// then the load's threshold and the sizes' the prediction of it.
func (r *runner) atLoad(ctx context.Context, l Load) (LoadResult, error) {
	lr := LoadResult{Load: l}
	if len(r.cfg.Sizes) > 0 {
		var err error
		if lr, err = r.load(ctx, l); err != nil {
			return lr, err
		}
	}
	if r.cfg.Workload == nil {
		return lr, nil
	}
	w, err := r.whole(ctx, l)
	if err != nil {
		return lr, err
	}
	w.Predicted, lr.Recommended, lr.Workload = lr.Recommended, w.Chosen, w
	return lr, nil
}

type runner struct {
	cfg   Config
	m     Measurer
	j     Judge
	done  int
	total int
}

type opSize struct {
	op   rdmakv.Op
	size int
}

// load measures every (op, size) at l and analyses each op.
func (r *runner) load(ctx context.Context, l Load) (LoadResult, error) {
	eager := map[opSize][]Sample{}
	rdv := map[opSize][]Sample{}
	noEager := map[opSize]bool{}
	refusal := map[rdmakv.Op]string{} // op: the first eager refusal
	for rep := range r.cfg.Repeats {
		order := []Protocol{Eager, Rendezvous}
		if rep%2 == 1 {
			order = []Protocol{Rendezvous, Eager}
		}
		for _, size := range r.cfg.Sizes {
			for _, op := range r.cfg.Ops {
				k := opSize{op, size}
				got, err := r.pair(ctx, Request{Op: op, Size: size, Load: l}, order, noEager[k])
				if errors.Is(err, ErrUnsupported) {
					noEager[k] = true
					if _, ok := refusal[op]; !ok {
						refusal[op] = fmt.Sprintf("at %s: %s", units.Bytes(int64(size)), unsupportedReason(err))
					}
				} else if err != nil {
					return LoadResult{}, err
				}
				if s, ok := got[Eager]; ok {
					eager[k] = append(eager[k], s)
				}
				rdv[k] = append(rdv[k], got[Rendezvous])
			}
		}
	}
	lr := LoadResult{Load: l}
	for _, op := range r.cfg.Ops {
		var pts []Point
		for _, size := range r.cfg.Sizes {
			k := opSize{op, size}
			pts = append(pts, r.j.point(size, eager[k], rdv[k]))
		}
		o := r.j.analyze(op, pts, r.cfg.KeySize)
		if len(o.EagerUnmeasured) > 0 {
			o.EagerUnmeasuredReason = refusal[op]
		}
		lr.Ops = append(lr.Ops, o)
	}
	lr.recommend(&r.cfg)
	return lr, nil
}

// pair measures req under both protocols in order (eager skipped when
// known to be refused). An eager refusal is returned wrapping
// ErrUnsupported, with rendezvous's sample.
func (r *runner) pair(ctx context.Context, req Request, order []Protocol, noEager bool) (map[Protocol]Sample, error) {
	if r.cfg.SLO != nil {
		return r.capacities(ctx, req, order, noEager)
	}
	return r.closedPair(ctx, req, order, noEager)
}

// closedPair measures req under each protocol once, at req's load.
func (r *runner) closedPair(ctx context.Context, req Request, order []Protocol, noEager bool) (map[Protocol]Sample, error) {
	got := map[Protocol]Sample{}
	var refused error
	for _, p := range order {
		if p == Eager && noEager {
			r.tick(req, p)
			continue
		}
		req.Protocol = p
		s, err := r.measure(ctx, req)
		if p == Eager && errors.Is(err, ErrUnsupported) {
			refused = err
			continue
		}
		if err != nil {
			return nil, err
		}
		got[p] = s
	}
	return got, refused
}

// measure takes one measurement and checks that it holds what the
// comparison reads.
func (r *runner) measure(ctx context.Context, req Request) (Sample, error) {
	if err := ctx.Err(); err != nil {
		return Sample{}, err
	}
	req.MinOps = r.cfg.MinOps()
	s, err := r.m.Measure(ctx, req)
	r.tick(req, req.Protocol)
	if err != nil {
		if errors.Is(err, ErrUnsupported) {
			return s, err
		}
		return s, fmt.Errorf("%s: %w", describe(req), err)
	}
	if err := r.check(req, s); err != nil {
		return s, fmt.Errorf("%s: %w", describe(req), err)
	}
	return s, nil
}

// check refuses a sample the comparison cannot use: too few operations
// for its percentile, or no figure for the objective.
func (r *runner) check(req Request, s Sample) error {
	if n := req.MinOps; r.cfg.SLO == nil && s.Count < n {
		msg := fmt.Sprintf("%d operations measured; a %s tune can compare needs at least %d per measurement (%d beyond the percentile)",
			s.Count, r.cfg.ObjectiveName(), n, TailSamples)
		if s.OpsPerSec > 0 {
			msg += fmt.Sprintf(": lengthen --duration to about %s, or set phases.measure.ops", units.Duration(1e9*float64(n)/s.OpsPerSec*1.2))
		}
		return errors.New(msg)
	}
	if r.j.Objective == ObjCapacity {
		return nil
	}
	if _, ok := r.j.Objective.value(s, r.j.Side); !ok {
		return fmt.Errorf("the measurement has no %s to compare (CPU is measured only where the target reports it)", r.cfg.ObjectiveName())
	}
	return nil
}

func (r *runner) tick(req Request, p Protocol) {
	r.done++
	if r.cfg.Progress != nil {
		req.Protocol = p
		r.cfg.Progress(Progress{Done: r.done, Total: r.total, Req: req})
	}
}

// describe names a measurement in errors: "get 64B eager at 4
// connections", "the workload at threshold 4KiB".
func describe(req Request) string {
	s := fmt.Sprintf("%s %s %s", req.Op, units.Bytes(int64(req.Size)), req.Protocol)
	switch {
	case req.Whole && req.Threshold == AdaptiveThreshold:
		s = "the workload under the adaptive threshold"
	case req.Whole:
		s = "the workload at threshold " + units.Bytes(int64(req.Threshold))
	}
	if req.Load != (Load{Connections: 1, Depth: 1}) {
		s += " at " + req.Load.String()
	}
	return s
}

// unsupportedReason is err's text without the ErrUnsupported wrapping.
func unsupportedReason(err error) string {
	s := err.Error()
	for _, affix := range []string{ErrUnsupported.Error() + ": ", ": " + ErrUnsupported.Error()} {
		s = strings.Replace(s, affix, "", 1)
	}
	return s
}
