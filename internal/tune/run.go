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

// Run measures every (op, size) under both protocols, and under the
// adaptive policy when Config.Adaptive asks, Repeats times, at each load
// in turn. Within a load the order is repetition, then size, then op,
// and within each (op, size) the order of the entries rotates by one from
// one repetition to the next (two protocols alternate which goes first),
// so slow drift (thermal, background load, server memory growth) lands on
// every entry equally. Under a latency goal each measurement is a
// capacity search, the entries' searches run step by step side by side.
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
	if cfg.Adaptive {
		res.compareAdaptive(r.j)
	}
	return res, nil
}

// Measurements is how many measurements a run of c takes, c's loads
// defaulted (none known under a latency goal, whose searches vary).
func (c *Config) Measurements() int {
	loads := c.loads()
	n := len(loads) * c.Repeats * len(c.Sizes) * len(c.Ops) * len(c.rotation())
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
	got := map[Protocol]map[opSize][]Sample{Eager: {}, Rendezvous: {}, adaptivePolicy: {}}
	skip := map[opSize]map[Protocol]bool{}
	refusal := map[rdmakv.Op]string{} // op: the first eager refusal
	for rep := range r.cfg.Repeats {
		order := rotate(r.cfg.rotation(), rep)
		for _, size := range r.cfg.Sizes {
			for _, op := range r.cfg.Ops {
				k := opSize{op, size}
				if skip[k] == nil {
					skip[k] = map[Protocol]bool{}
				}
				round, refused, err := r.pair(ctx, Request{Op: op, Size: size, Load: l}, order, skip[k])
				if err != nil {
					return LoadResult{}, err
				}
				for p, err := range refused {
					skip[k][p] = true
					if _, ok := refusal[op]; !ok && p == Eager {
						refusal[op] = fmt.Sprintf("at %s: %s", units.Bytes(int64(size)), unsupportedReason(err))
					}
				}
				for p, s := range round {
					got[p][k] = append(got[p][k], s)
				}
			}
		}
	}
	lr := LoadResult{Load: l}
	for _, op := range r.cfg.Ops {
		var pts []Point
		for _, size := range r.cfg.Sizes {
			k := opSize{op, size}
			pt := r.j.point(size, got[Eager][k], got[Rendezvous][k])
			if r.cfg.Adaptive {
				pt.Adaptive = r.j.sizeAdaptive(got[adaptivePolicy][k], skip[k][adaptivePolicy])
			}
			pts = append(pts, pt)
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

// pair measures req by each entry of order, a forced protocol or the
// adaptive policy, skipping those known to be refused. A refusal of
// eager or of the policy is returned by entry, beside the other entries'
// samples; rendezvous carries every size, so its refusal is an error.
func (r *runner) pair(ctx context.Context, req Request, order []Protocol, skip map[Protocol]bool) (map[Protocol]Sample, map[Protocol]error, error) {
	if r.cfg.SLO != nil {
		return r.capacities(ctx, req, order, skip)
	}
	return r.closedPair(ctx, req, order, skip)
}

// closedPair measures req by each entry of order once, at req's load.
func (r *runner) closedPair(ctx context.Context, req Request, order []Protocol, skip map[Protocol]bool) (map[Protocol]Sample, map[Protocol]error, error) {
	got, refused := map[Protocol]Sample{}, map[Protocol]error{}
	for _, p := range order {
		if skip[p] {
			r.tick(req.by(p))
			continue
		}
		s, err := r.measure(ctx, req.by(p))
		if p != Rendezvous && errors.Is(err, ErrUnsupported) {
			refused[p] = err
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		got[p] = s
	}
	return got, refused, nil
}

// measure takes one measurement and checks that it holds what the
// comparison reads.
func (r *runner) measure(ctx context.Context, req Request) (Sample, error) {
	if err := ctx.Err(); err != nil {
		return Sample{}, err
	}
	req.MinOps = r.cfg.MinOps()
	s, err := r.m.Measure(ctx, req)
	r.tick(req)
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
			msg += fmt.Sprintf(": lengthen --duration to about %s, set phases.measure.ops, or raise phases.measure.max_duration", units.Duration(1e9*float64(n)/s.OpsPerSec*1.2))
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

func (r *runner) tick(req Request) {
	r.done++
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Done: r.done, Total: r.total, Req: req})
	}
}

// describe names a measurement in errors: "get 64B eager at 4
// connections", "the workload at threshold 4KiB".
func describe(req Request) string {
	s := fmt.Sprintf("%s %s %s", req.Op, units.Bytes(int64(req.Size)), req.Policy())
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
