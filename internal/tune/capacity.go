package tune

import "context"

// capacities searches, for req at its load, each protocol's capacity under
// the latency goal: first a closed-loop measurement per protocol, whose
// throughput starts the search, then open-loop measurements, the two
// searches taking a step each in turn (order first) until both are done.
func (r *runner) capacities(ctx context.Context, req Request, order []Protocol, noEager bool) (map[Protocol]Sample, error) {
	last, refused := r.closedPair(ctx, req, order, noEager)
	if last == nil {
		return nil, refused
	}
	searches := map[Protocol]*search{}
	for p, s := range last {
		searches[p] = newSearch(r.cfg.SLO, s, r.cfg.Measure)
	}
	for busy := true; busy; {
		busy = false
		for _, p := range order {
			sr := searches[p]
			if sr == nil || sr.done {
				continue
			}
			busy = true
			q := req
			q.Protocol, q.Load.Rate = p, sr.next
			s, err := r.measure(ctx, q)
			if err != nil {
				return nil, err
			}
			if sr.record(s); sr.steps[len(sr.steps)-1].Pass {
				last[p] = s
			}
		}
	}
	got := map[Protocol]Sample{}
	for p, sr := range searches {
		got[p] = sr.sample(last[p])
	}
	return got, refused
}
