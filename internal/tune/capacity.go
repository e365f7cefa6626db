package tune

import "context"

// capacities searches, for req at its load, each entry's capacity under
// the latency goal (a forced protocol's, or the adaptive policy's): first
// a closed-loop measurement per entry, whose throughput starts the
// search, then open-loop measurements, the searches taking a step each in
// turn (order first) until all are done.
func (r *runner) capacities(ctx context.Context, req Request, order []Protocol, skip map[Protocol]bool) (map[Protocol]Sample, map[Protocol]error, error) {
	closed, refused, err := r.closedPair(ctx, req, order, skip)
	if err != nil {
		return nil, nil, err
	}
	var runs []*searchRun
	for _, p := range order {
		if s, ok := closed[p]; ok {
			runs = append(runs, r.newSearchRun(req.by(p), s))
		}
	}
	if err := r.runSearches(ctx, runs); err != nil {
		return nil, nil, err
	}
	got := map[Protocol]Sample{}
	for _, sr := range runs {
		got[sr.req.Protocol] = sr.sample()
	}
	return got, refused, nil
}

// searchRun is one capacity search as the runner drives it: what it
// measures, and the sample at its latest passing rate.
type searchRun struct {
	// req is the measurement at the load; each step sets its rate.
	req  Request
	s    *search
	last Sample // the closed loop, then the latest passing step
}

// newSearchRun starts a search for req from its closed-loop sample.
func (r *runner) newSearchRun(req Request, closed Sample) *searchRun {
	return &searchRun{req: req, s: newSearch(r.cfg.SLO, closed, r.cfg.Measure), last: closed}
}

// runSearches runs the searches side by side, a step each in turn in
// their order, until all are done: drift between steps lands on every
// search alike rather than on whichever would run last.
func (r *runner) runSearches(ctx context.Context, runs []*searchRun) error {
	for busy := true; busy; {
		busy = false
		for _, sr := range runs {
			if sr.s.done {
				continue
			}
			busy = true
			q := sr.req
			q.Load.Rate = sr.s.next
			s, err := r.measure(ctx, q)
			if err != nil {
				return err
			}
			if sr.s.record(s); sr.s.steps[len(sr.s.steps)-1].Pass {
				sr.last = s
			}
		}
	}
	return nil
}

// sample is the finished search as a Sample (search.sample).
func (sr *searchRun) sample() Sample { return sr.s.sample(sr.last) }
