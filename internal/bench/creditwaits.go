package bench

import "github.com/kvbench/kvbench/internal/store"

// CreditWaiter is a Conn that counts the times a message of its waited
// for the server's credit (store.CreditWaiter).
type CreditWaiter = store.CreditWaiter

// creditWaits is the waits the phase's connections have counted so far,
// each connection once however many workers share it; ok is false when
// none of them counts.
func creditWaits(ws []*worker) (n uint64, ok bool) {
	seen := map[CreditWaiter]bool{}
	for _, w := range ws {
		cw, is := w.t.(CreditWaiter)
		if !is || seen[cw] {
			continue
		}
		seen[cw] = true
		n += cw.CreditWaits()
	}
	return n, len(seen) > 0
}

// attachCreditWaits gives every Measurement of a phase the waits its
// connections counted over it: the phase's, as its CPU time is.
func attachCreditWaits(ms []Measurement, before, after uint64, ok bool) {
	if !ok {
		return
	}
	w := after - before
	for i := range ms {
		ms[i].CreditWaits = &w // shared as HWCounters is; Record copies it
	}
}
