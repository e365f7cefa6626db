package tune

import (
	"maps"
	"slices"

	"github.com/kvbench/kvbench/internal/stats"
)

// Point is one (op, size) comparison.
type Point struct {
	Size int `json:"size"`
	// Eager and Rendezvous are the repetitions in measurement order. Eager
	// is empty when eager could not be measured at the size (the target
	// refused it, e.g. key + value above the server's max eager).
	Eager      []Sample `json:"eager,omitempty"`
	Rendezvous []Sample `json:"rendezvous"`
	// Medians over the repetitions (p50 in ns, throughput in bytes/s).
	EagerP50  float64 `json:"eager_p50_ns"`
	RdvP50    float64 `json:"rdv_p50_ns"`
	EagerRate float64 `json:"eager_bytes_per_sec"`
	RdvRate   float64 `json:"rdv_bytes_per_sec"`
	// EagerValue and RdvValue are the medians of what the comparison
	// judges by (Result.Objective): ns for latency and CPU, ops/s for
	// throughput and capacity.
	EagerValue float64 `json:"eager_value"`
	RdvValue   float64 `json:"rdv_value"`
	// EagerPhases and RdvPhases are, per phase, the median over the
	// repetitions of the phase's p50 (ns); absent without phases.
	EagerPhases map[string]float64 `json:"eager_phases_p50_ns,omitempty"`
	RdvPhases   map[string]float64 `json:"rdv_phases_p50_ns,omitempty"`
	// Ratio compares the medians so that above 1 rendezvous is better:
	// eager/rendezvous for latency and CPU, rendezvous/eager for
	// throughput and capacity.
	Ratio float64 `json:"ratio"`
	// RdvWins and EagerWins count the repetitions (pairs measured back to
	// back) in which that protocol was better; equal pairs count for
	// neither.
	RdvWins   int `json:"rdv_wins"`
	EagerWins int `json:"eager_wins"`
	// P is the sign test's one-sided p-value for the protocol that won
	// more pairs: the chance of at least that many wins if neither
	// protocol were better.
	P float64 `json:"p"`
	// ByMargin says the medians decided (too few repeats for the sign
	// test: a capacity search run once): a protocol wins when the ratio
	// is beyond SLOMargin.
	ByMargin bool `json:"by_margin,omitempty"`
	// Winner is what the comparison found (WinEager, WinRendezvous,
	// WinTie, WinNeither or WinUnmeasured).
	Winner Winner `json:"winner"`
	// Adaptive is the adaptive policy measured at the size in the same
	// rounds (Config.Adaptive), with its comparisons; nil when off.
	Adaptive *Adaptive `json:"adaptive,omitempty"`
	// Flags are the warnings the measurements of one protocol raise and
	// the other's do not: the pair did not measure alike, whatever the
	// winner. tune.json gives them in words (report.TuneJSON).
	Flags []Flag `json:"-"`
}

// Winner is the protocol that won a size, or why none did.
type Winner string

// Winners: a protocol when the test decides, else a tie; neither when no
// protocol met a latency goal at any rate; unmeasured when eager could
// not be measured, so that nothing was compared (this is no evidence that
// rendezvous is faster).
const (
	WinEager      Winner = "eager"
	WinRendezvous Winner = "rendezvous"
	WinTie        Winner = "tie"
	WinNeither    Winner = "neither"
	WinUnmeasured Winner = "unmeasured"
)

// Flag is a warning kind that Count of a protocol's Of measurements at a
// size raised, at least half of them, and none of the other protocol's.
type Flag struct {
	Protocol  Protocol
	Kind      string
	Count, Of int
}

// Judge is how a run decides each size: by Objective (Side's CPU for the
// cpu objective), with a one-sided sign test over the pairs at level
// Alpha or, when Margin is positive, by the medians alone, a protocol
// winning when its value is better by more than the Margin.
type Judge struct {
	Objective Objective
	Side      string
	Alpha     float64
	Margin    float64
}

// Judge is how c's points are decided: by the sign test, unless a
// capacity search is run too few times for it (SLOMargin).
func (c *Config) Judge() Judge {
	j := Judge{Objective: c.objective(), Side: c.cpuSide(), Alpha: c.alpha()}
	if c.SLO != nil && c.Repeats < stats.SignTestMinN(j.Alpha) {
		j.Margin = SLOMargin
	}
	return j
}

// Value is the figure j compares in s (0 when s lacks it).
func (j Judge) Value(s Sample) float64 {
	v, _ := j.Objective.value(s, j.Side)
	return v
}

// point summarises the repetitions of one (op, size): eager[i] and rdv[i]
// are the i-th pair, measured back to back. A nil eager means eager could
// not be measured at the size: the point's winner is WinUnmeasured, and
// Analyze leaves it out of the comparison.
//
// The winner comes from a sign test over the pairs rather than from the
// spread of the repeats: a pair shares the machine's state of the moment,
// so background load that slows one repetition slows both of its halves,
// and the alternating order puts slow drift on each protocol equally. One
// disturbed measurement then costs one pair's vote, however far off it
// is, instead of widening a max-min spread until no difference can beat
// it. (A signed-rank test, which weighs pairs by how far they lean, was
// tried: it gains a little power on mild noise but loses a clear winner to
// a single large hiccup, the common case on a loaded machine.)
func (j Judge) point(size int, eager, rdv []Sample) Point {
	pt := Point{Size: size, Eager: eager, Rendezvous: rdv}
	p50 := func(s Sample) float64 { return s.P50 }
	rate := func(s Sample) float64 { return s.BytesPerSec }
	pt.RdvP50, pt.RdvRate, pt.RdvValue = median(rdv, p50), median(rdv, rate), median(rdv, j.Value)
	pt.RdvPhases = medianPhases(rdv)
	if len(eager) == 0 {
		pt.Winner = WinUnmeasured
		return pt
	}
	pt.EagerP50, pt.EagerRate, pt.EagerValue = median(eager, p50), median(eager, rate), median(eager, j.Value)
	pt.EagerPhases = medianPhases(eager)
	pt.Ratio = j.Objective.ratio(pt.EagerValue, pt.RdvValue)
	pt.Flags = pairFlags(eager, rdv)
	pt.RdvWins, pt.EagerWins, pt.P = j.pairs(rdv, eager)
	if j.Margin > 0 {
		pt.ByMargin = true
		pt.Winner = j.byMargin(pt)
		return pt
	}
	pt.Winner = [...]Winner{WinEager, WinTie, WinRendezvous}[j.lead(pt.RdvWins, pt.EagerWins, pt.P)+1]
	return pt
}

// pairs counts the pairs (a[i], b[i]) a won and b won, and the sign
// test's one-sided p-value for the one that won more.
func (j Judge) pairs(a, b []Sample) (wins, losses int, p float64) {
	for i := range min(len(a), len(b)) {
		x, y := j.Value(a[i]), j.Value(b[i])
		switch {
		case j.Objective.better(x, y):
			wins++
		case j.Objective.better(y, x):
			losses++
		}
	}
	return wins, losses, stats.SignTestP(wins+losses, max(wins, losses))
}

// lead is the side the sign test favours at j's level, given the pairs
// each won and the test's p: 1 for the first, -1 for the second, 0 for
// neither (a tie).
func (j Judge) lead(wins, losses int, p float64) int {
	switch {
	case p > j.Alpha || wins == losses:
		return 0
	case wins > losses:
		return 1
	}
	return -1
}

// byMargin decides a point by its medians: capacities further apart than
// the margin, or one protocol alone meeting the goal.
func (j Judge) byMargin(pt Point) Winner {
	e, r := pt.EagerValue, pt.RdvValue
	switch {
	case e <= 0 && r <= 0:
		return WinNeither
	case j.Objective.better(r, e*(1+j.Margin)) || (e <= 0 && r > 0):
		return WinRendezvous
	case j.Objective.better(e, r*(1+j.Margin)) || (r <= 0 && e > 0):
		return WinEager
	}
	return WinTie
}

// pairFlags are the warning kinds that at least half of one protocol's
// measurements raise and none of the other's: the two did not measure
// alike, which a winner alone does not show.
func pairFlags(eager, rdv []Sample) []Flag {
	count := func(ss []Sample) map[string]int {
		n := map[string]int{}
		for _, s := range ss {
			seen := map[string]bool{}
			for _, w := range s.Warnings {
				if !seen[w.Kind] {
					seen[w.Kind] = true
					n[w.Kind]++
				}
			}
		}
		return n
	}
	ne, nr := count(eager), count(rdv)
	var flags []Flag
	for _, side := range []struct {
		p            Protocol
		mine, theirs map[string]int
		n            int
	}{{Eager, ne, nr, len(eager)}, {Rendezvous, nr, ne, len(rdv)}} {
		for _, kind := range slices.Sorted(maps.Keys(side.mine)) {
			if k := side.mine[kind]; 2*k >= side.n && side.theirs[kind] == 0 {
				flags = append(flags, Flag{Protocol: side.p, Kind: kind, Count: k, Of: side.n})
			}
		}
	}
	return flags
}

// median is the median of f over ss.
func median(ss []Sample, f func(Sample) float64) float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return stats.Median(v)
}
