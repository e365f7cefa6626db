package rdmakv

// ChosenThreshold is the eager threshold that op's classes in classes
// (AdaptiveState) amount to: the class boundary their choices disagree
// with least (eager classes above it, rendezvous ones below), the classes
// that carried requests deciding and the others, which keep their first
// choice, only breaking ties (boundary). For gets it is the threshold the
// server answers them by. Where the choices rise with size it is the
// Lower of the smallest class chosen rendezvous; one class out of line
// does not drag it down. ok is false when classes has none of op's.
func ChosenThreshold(classes []AdaptiveClass, op Op) (threshold int, ok bool) {
	var mine []AdaptiveClass
	for _, c := range classes {
		if c.Op == op {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return 0, false
	}
	b := boundary(len(mine), func(k int) bool { return mine[k].Choice == Eager },
		func(k int) bool { return mine[k].EagerRequests+mine[k].RendezvousRequests > 0 })
	if b == len(mine) {
		return mine[b-1].Upper, true
	}
	return mine[b].Lower, true
}

// boundary is the boundary b in 0..n (classes below b eager, from b up
// rendezvous) that the classes' choices, eager(k), disagree with least,
// the lowest of equals. The classes that carried requests decide; the
// others, which keep their first choice and say nothing of what the
// traffic found, only break the carrying classes' ties, so that a
// boundary the traffic has not moved stays where it started.
func boundary(n int, eager, carried func(k int) bool) int {
	weight := func(k int) int {
		if carried(k) {
			return n + 1 // more than every other class together
		}
		return 1
	}
	bad := 0 // disagreements with the boundary at 0: every eager class
	for k := range n {
		if eager(k) {
			bad += weight(k)
		}
	}
	best, at := bad, 0
	for b := 1; b <= n; b++ {
		if eager(b - 1) {
			bad -= weight(b - 1)
		} else {
			bad += weight(b - 1)
		}
		if bad < best {
			best, at = bad, b
		}
	}
	return at
}
