package tune

import "context"

// capacities searches, for req at its load, each protocol's capacity under
// the latency goal: first a closed-loop measurement per protocol, whose
// throughput starts the search, then open-loop measurements, the two
// searches taking a step each in turn (order first) until both are done.
func (r *runner) capacities(ctx context.Context, req Request, order []Protocol, noEager bool) (map[Protocol]Sample, error) {
	closed, refused := r.closedPair(ctx, req, order, noEager)
	if closed == nil {
		return nil, refused
	}
	var runs []*searchRun
	for _, p := range order {
		if s, ok := closed[p]; ok {
			q := req
			q.Protocol = p
			runs = append(runs, r.newSearchRun(q, s))
		}
	}
	if err := r.runSearches(ctx, runs); err != nil {
		return nil, err
	}
	got := map[Protocol]Sample{}
	for _, sr := range runs {
		got[sr.req.Protocol] = sr.sample()
	}
	return got, refused
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
