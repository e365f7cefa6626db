package tune

import (
	"math"
	"math/bits"

	"github.com/kvbench/kvbench/rdmakv"
)

// OpResult is the analysis of one op.
type OpResult struct {
	Op     rdmakv.Op `json:"op"`
	Points []Point   `json:"points"`
	// EagerUnmeasured lists the value sizes at which eager could not be
	// measured because the target refused it (against an external server,
	// key + value not below its max eager, announced at the handshake).
	// Only rendezvous was measured there, so the crossover below is
	// computed over the other sizes alone, and any crossover among these
	// is unknown. EagerUnmeasuredReason is the first refusal's error.
	EagerUnmeasured       []int  `json:"eager_unmeasured,omitempty"`
	EagerUnmeasuredReason string `json:"eager_unmeasured_reason,omitempty"`
	// Found says a crossover lies inside the sizes where both protocols
	// were measured: rendezvous wins significantly from Crossover on and
	// eager is not significantly better at any larger such size.
	Found bool `json:"found"`
	// Crossover is the smallest such measured size; Below the measured size
	// before it (0 if none).
	Crossover int `json:"crossover,omitempty"`
	Below     int `json:"below,omitempty"`
	// EqualAt estimates where the median p50 curves cross, interpolating
	// in log size between Below and Crossover.
	EqualAt float64 `json:"equal_at,omitempty"`
	// Threshold is the eager threshold this op alone would want.
	Threshold int `json:"threshold,omitempty"`

	// The decision's other figures, which tune.json gives in words, as
	// the op's verdict, suggestion and decider (report.TuneJSON).

	// Outcome is what the points show, OutcomeFound when Found.
	Outcome Outcome `json:"-"`
	// From and To span the sizes both protocols were measured at (every
	// size when eager was measured at none). Limit is the smallest size
	// above them at which eager could not be measured: the target's eager
	// limit lies below it (0: none). LastEager is the largest of them
	// eager won (0: none).
	From, To  int `json:"-"`
	Limit     int `json:"-"`
	LastEager int `json:"-"`
	// DecidingPhase names the phase that decides the crossover, when one
	// was found by p50 and phases were recorded: the one whose
	// eager-minus-rendezvous difference grows most from Below to
	// Crossover, tipping the balance to rendezvous.
	DecidingPhase string `json:"-"`
	// SharedLoss is, when the load's threshold lies below Threshold, the
	// most the op loses under it: the largest 1/Ratio - 1 over the sizes
	// it sends rendezvous below the crossover (0: none).
	SharedLoss float64 `json:"-"`
}

// Analyze finds op's crossover in points (sorted by size). Points without
// eager samples, where eager could not be measured, are listed in
// EagerUnmeasured and are no evidence either way: the crossover is looked
// for only among the sizes where both protocols were measured, and a
// target's eager limit is never taken for a crossover.
func Analyze(op rdmakv.Op, all []Point, keySize int) OpResult {
	return Judge{Objective: ObjP50}.analyze(op, all, keySize)
}

// analyze is Analyze by j's objective: decide, then locate the crossover.
func (j Judge) analyze(op rdmakv.Op, all []Point, keySize int) OpResult {
	res := OpResult{Op: op, Points: all}
	d := decide(all)
	res.EagerUnmeasured = d.unmeasured
	res.Outcome, res.From, res.To, res.Limit, res.LastEager = d.outcome, d.lo, d.hi, d.limit, d.lastEager
	if d.outcome == OutcomeFound {
		c := d.pts[d.k]
		res.Found, res.Crossover, res.Below = true, c.Size, d.pts[d.k-1].Size
		res.EqualAt = equalAt(d.pts[d.k-1], c)
		res.Threshold = thresholdFor(keySize, res.Below, res.Crossover)
		if j.Objective == ObjP50 {
			// The phases are p50s: they explain a p50 crossover only.
			res.DecidingPhase = res.decidingPhase()
		}
	}
	return res
}

// Outcome is what an op's points show about its crossover.
type Outcome uint8

// Outcomes.
const (
	OutcomeEmpty           Outcome = iota // no measurements
	OutcomeNoEager                        // eager measured at no size
	OutcomeLastAtLimit                    // rendezvous ahead only at the largest size eager was measured at, below the target's limit
	OutcomeLastOnly                       // rendezvous ahead only at the largest size measured
	OutcomeEagerAhead                     // eager ahead at some size, rendezvous in no confirmed run
	OutcomeNoWinnerAtLimit                // neither ahead anywhere compared, below the target's limit
	OutcomeNoWinner                       // neither ahead anywhere
	OutcomeBelowRange                     // rendezvous ahead from the smallest size
	OutcomeFound                          // a crossover inside the compared sizes
)

// decision is what decide found: the outcome, the sizes both protocols
// were measured at (pts, lo to hi), the crossover's index k, the target's
// eager limit above them (0: none), the largest size eager won (0: none)
// and the sizes eager could not be measured at.
type decision struct {
	outcome    Outcome
	pts        []Point
	k          int
	lo, hi     int
	limit      int
	lastEager  int
	unmeasured []int
}

// decide finds the crossover: the first size of the final run of sizes
// where eager never wins significantly, starting at a significant
// rendezvous win that the next size confirms. Ties inside the run are
// tolerated: above the crossover the curves may run close without eager
// being better. The confirmation matters when the protocols are alike
// over a range: there a test at level alpha still calls a winner at about
// one size in twenty, and a lone chance win must not become a crossover.
// Points without eager samples are no evidence either way.
func decide(all []Point) decision {
	var d decision
	if len(all) == 0 {
		return decision{outcome: OutcomeEmpty}
	}
	for _, p := range all {
		if len(p.Eager) == 0 {
			d.unmeasured = append(d.unmeasured, p.Size)
		} else {
			d.pts = append(d.pts, p)
		}
	}
	if len(d.pts) == 0 {
		d.outcome, d.lo, d.hi = OutcomeNoEager, all[0].Size, all[len(all)-1].Size
		return d
	}
	pts := d.pts
	d.k = -1
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].Winner == WinEager {
			d.lastEager = pts[i].Size
			break
		}
		if pts[i].Winner == WinRendezvous && i+1 < len(pts) && pts[i+1].Winner == WinRendezvous {
			d.k = i
		}
	}
	d.lo, d.hi = pts[0].Size, pts[len(pts)-1].Size
	// limit is the smallest size above every compared one at which eager
	// could not be measured: the target's eager limit lies below it, and
	// what happens from there on is unknown, not a rendezvous win.
	for _, s := range d.unmeasured {
		if s > d.hi {
			d.limit = s
			break
		}
	}
	lastRdv := pts[len(pts)-1].Winner == WinRendezvous
	switch {
	case d.k < 0 && lastRdv && d.limit > 0:
		d.outcome = OutcomeLastAtLimit
	case d.k < 0 && lastRdv:
		d.outcome = OutcomeLastOnly
	case d.k < 0 && d.lastEager > 0:
		d.outcome = OutcomeEagerAhead
	case d.k < 0 && d.limit > 0:
		d.outcome = OutcomeNoWinnerAtLimit
	case d.k < 0:
		d.outcome = OutcomeNoWinner
	case d.k == 0:
		d.outcome = OutcomeBelowRange
	default:
		d.outcome = OutcomeFound
	}
	return d
}

// equalAt interpolates, in log2 size, where the ratio of a and b (above
// 1: rendezvous better) crosses 1.
func equalAt(a, b Point) float64 {
	if len(a.Eager) == 0 || len(b.Eager) == 0 || a.Ratio <= 0 || b.Ratio <= 0 {
		return float64(b.Size)
	}
	da, db := math.Log(a.Ratio), math.Log(b.Ratio)
	if da >= 0 || db <= da {
		return float64(a.Size)
	}
	la, lb := math.Log2(float64(a.Size)), math.Log2(float64(b.Size))
	return math.Exp2(la + (lb-la)*(-da)/(db-da))
}

// thresholdFor picks a power-of-two eager threshold that keeps values of
// below bytes eager and sends values of above bytes rendezvous under keys
// of keySize bytes (rdmakv.ProtocolAt), so the last eager-or-tied size
// stays eager and the crossover size goes rendezvous. The largest such
// power is used, keeping eager for as much as possible; if none fits, the
// power of two nearest to the largest threshold that sends above
// rendezvous.
func thresholdFor(keySize, below, above int) int {
	least := rdmakv.EagerThresholdFor(keySize, below)    // the least keeping below eager
	most := rdmakv.EagerThresholdFor(keySize, above) - 1 // the most sending above rendezvous
	t := 1 << (bits.Len(uint(most)) - 1)                 // largest power of two <= most
	if t >= least {
		return t
	}
	lo, hi := t, t<<1
	if most-lo <= hi-most {
		return lo
	}
	return hi
}
