package tune

import (
	"context"
	"errors"
)

// capacities searches, for req at its load, each protocol's capacity under
// the latency goal: first a closed-loop measurement per protocol, whose
// throughput starts the search, then open-loop measurements, the two
// searches taking a step each in turn (order first) until both are done.
func (r *runner) capacities(ctx context.Context, req Request, order []Protocol, noEager bool) (map[Protocol]Sample, error) {
	searches := map[Protocol]*search{}
	last := map[Protocol]Sample{}
	var refused error
	for _, p := range order {
		if p == Eager && noEager {
			continue
		}
		q := req
		q.Protocol = p
		s, err := r.measure(ctx, q)
		if p == Eager && errors.Is(err, ErrUnsupported) {
			refused = err
			continue
		}
		if err != nil {
			return nil, err
		}
		searches[p], last[p] = newSearch(r.cfg.SLO, s, r.cfg.Measure), s
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
