package tune

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/units"
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
	// Verdict explains the outcome in one sentence; Suggestion says which
	// sizes to measure when the crossover was not found.
	Verdict string `json:"verdict"`
	// Decider says which phase decides the crossover, when one was found
	// and phases were recorded.
	Decider    string `json:"decider,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
}

// Analyze finds op's crossover in points (sorted by size). Points without
// eager samples, where eager could not be measured, are listed in
// EagerUnmeasured and are no evidence either way: the crossover is looked
// for only among the sizes where both protocols were measured, and a
// target's eager limit is never taken for a crossover.
func Analyze(op rdmakv.Op, all []Point, keySize int) OpResult {
	return judge{obj: ObjP50}.analyze(op, all, keySize)
}

// analyze is Analyze in the words of j's objective: decide, then say.
func (j judge) analyze(op rdmakv.Op, all []Point, keySize int) OpResult {
	res := OpResult{Op: op, Points: all}
	d := decide(all)
	res.EagerUnmeasured = d.unmeasured
	if d.shape == shapeFound {
		c := d.pts[d.k]
		res.Found, res.Crossover, res.Below = true, c.Size, d.pts[d.k-1].Size
		res.EqualAt = equalAt(d.pts[d.k-1], c)
		res.Threshold = thresholdFor(res.Below+keySize, res.Crossover+keySize)
		if j.obj == ObjP50 {
			// The phases are p50s: they explain a p50 crossover only.
			res.Decider = res.decider()
		}
	}
	j.say(&res, d)
	return res
}

// shape is what decide found in an op's points.
type shape uint8

const (
	shapeEmpty           shape = iota // no measurements
	shapeNoEager                      // eager measured at no size
	shapeLastAtLimit                  // rendezvous ahead only at the largest size eager was measured at, below the server's limit
	shapeLastOnly                     // rendezvous ahead only at the largest size measured
	shapeEagerAhead                   // eager ahead at some size, rendezvous in no confirmed run
	shapeNoWinnerAtLimit              // neither ahead anywhere compared, below the server's limit
	shapeNoWinner                     // neither ahead anywhere
	shapeBelowRange                   // rendezvous ahead from the smallest size
	shapeFound                        // a crossover inside the compared sizes, at pts[k]
)

// decision is an op's outcome as data: its shape, the sizes both
// protocols were measured at (pts, lo to hi), the crossover's index k,
// the server's eager limit above them (0: none), and the sizes eager
// could not be measured at.
type decision struct {
	shape      shape
	pts        []Point
	k          int
	lo, hi     int
	limit      int
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
		return decision{shape: shapeEmpty}
	}
	for _, p := range all {
		if len(p.Eager) == 0 {
			d.unmeasured = append(d.unmeasured, p.Size)
		} else {
			d.pts = append(d.pts, p)
		}
	}
	if len(d.pts) == 0 {
		d.shape, d.lo, d.hi = shapeNoEager, all[0].Size, all[len(all)-1].Size
		return d
	}
	pts := d.pts
	d.k = -1
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].Winner == "eager" {
			break
		}
		if pts[i].Winner == "rendezvous" && i+1 < len(pts) && pts[i+1].Winner == "rendezvous" {
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
	lastRdv := pts[len(pts)-1].Winner == "rendezvous"
	switch {
	case d.k < 0 && lastRdv && d.limit > 0:
		d.shape = shapeLastAtLimit
	case d.k < 0 && lastRdv:
		d.shape = shapeLastOnly
	case d.k < 0 && anyWinner(pts, "eager"):
		d.shape = shapeEagerAhead
	case d.k < 0 && d.limit > 0:
		d.shape = shapeNoWinnerAtLimit
	case d.k < 0:
		d.shape = shapeNoWinner
	case d.k == 0:
		d.shape = shapeBelowRange
	default:
		d.shape = shapeFound
	}
	return d
}

// say puts d in words: res's Verdict and, when the crossover was not
// found, a Suggestion of what to measure.
func (j judge) say(res *OpResult, d decision) {
	lo, hi, limit := units.Bytes(int64(d.lo)), units.Bytes(int64(d.hi)), units.Bytes(int64(d.limit))
	unknown := fmt.Sprintf("rendezvous did not win below the server's eager limit, and the crossover, if any, lies at or above %s, where eager was not measured: unknown", limit)
	switch d.shape {
	case shapeEmpty:
		res.Verdict = "no measurements"
	case shapeNoEager:
		res.Verdict = fmt.Sprintf("eager could not be measured at any size (%s), so the protocols were not compared and no crossover can be located",
			sizeSpan(d.lo, d.hi))
		res.Suggestion = raiseLimit(d.lo)
	case shapeLastAtLimit:
		res.Verdict = fmt.Sprintf("rendezvous is %s only at %s, the largest size eager could be measured at, with no larger measured size to confirm it; the crossover may lie near there or at or above %s, where eager was not measured: unknown",
			j.adj(), hi, limit)
		res.Suggestion = raiseLimit(d.limit)
	case shapeLastOnly:
		res.Verdict = fmt.Sprintf("rendezvous is %s only at the largest size measured, %s, with no larger size to confirm it; the crossover is likely near there", j.adj(), hi)
		res.Suggestion = fmt.Sprintf("extend values.range.max beyond %s (try up to %s) to confirm", hi, units.Bytes(int64(d.hi)*16))
	case shapeEagerAhead:
		j.eagerAhead(res, d.pts, d.limit, unknown)
	case shapeNoWinnerAtLimit:
		res.Verdict = fmt.Sprintf("no protocol is consistently %s at any size both were measured at (%s, within run-to-run noise); %s",
			j.adj(), sizeSpan(d.lo, d.hi), unknown)
		res.Suggestion = "raise --repeats (8 or more tolerates one disturbed repetition) or the measure phase; " + raiseLimit(d.limit)
	case shapeNoWinner:
		res.Verdict = fmt.Sprintf("no protocol is consistently %s at any size (within run-to-run noise)", j.adj())
		res.Suggestion = fmt.Sprintf("raise --repeats (8 or more tolerates one disturbed repetition) or the measure phase, or extend values.range.max beyond %s", hi)
	case shapeBelowRange:
		res.Verdict = fmt.Sprintf("rendezvous already beats eager at the smallest size, %s; the crossover lies below the measured range", lo)
		if d.lo > 1 {
			res.Suggestion = fmt.Sprintf("extend values.range.min below %s (try from %s)", lo, units.Bytes(int64(max(1, d.lo/16))))
		}
	case shapeFound:
		c := d.pts[d.k]
		res.Verdict = fmt.Sprintf("rendezvous is %s from %s on (%s); curves cross near %s",
			j.adj(), units.Bytes(int64(c.Size)), j.evidence(c), units.Bytes(int64(math.Round(res.EqualAt))))
	}
}

// eagerAhead is Analyze's verdict when eager wins some size and rendezvous
// no confirmed run of them: the crossover lies above the compared sizes,
// or, against a server's eager limit (limit > 0), is unknown.
func (j judge) eagerAhead(res *OpResult, pts []Point, limit int, unknown string) {
	lo, hi := pts[0].Size, pts[len(pts)-1].Size
	last := 0
	for _, p := range pts {
		if p.Winner == "eager" {
			last = p.Size
		}
	}
	allEager := !slices.ContainsFunc(pts, func(p Point) bool { return p.Winner != "eager" })
	switch {
	case limit > 0 && allEager:
		res.Verdict = fmt.Sprintf("eager is %s at every size both protocols were measured at (%s); %s; the best threshold this server allows is its max eager (eager for every size it accepts), a limit set by the server, not a measured crossover",
			j.adj(), sizeSpan(lo, hi), unknown)
	case limit > 0 && last == hi:
		res.Verdict = fmt.Sprintf("eager is still %s at %s, the largest size eager could be measured at; %s",
			j.adj(), units.Bytes(int64(hi)), unknown)
	case limit > 0:
		res.Verdict = fmt.Sprintf("eager is %s up to %s and the two are within noise from there to %s, the largest size eager could be measured at; %s",
			j.adj(), units.Bytes(int64(last)), units.Bytes(int64(hi)), unknown)
	case last == hi:
		res.Verdict = fmt.Sprintf("eager is still %s at the largest size measured, %s; the crossover lies above the measured range",
			j.adj(), units.Bytes(int64(hi)))
	default:
		res.Verdict = fmt.Sprintf("eager is %s up to %s and the two are within noise from there to %s; the crossover lies above the measured range",
			j.adj(), units.Bytes(int64(last)), units.Bytes(int64(hi)))
	}
	if limit > 0 {
		res.Suggestion = raiseLimit(limit)
	} else {
		res.Suggestion = fmt.Sprintf("extend values.range.max beyond %s (try up to %s)", units.Bytes(int64(hi)), units.Bytes(int64(hi)*16))
	}
	if last != hi {
		res.Suggestion += ", or raise --repeats or the measure phase so the larger sizes separate from the noise"
	}
}

// raiseLimit suggests how to measure eager from size on.
func raiseLimit(size int) string {
	return fmt.Sprintf("to measure eager from %s on, raise the server's max eager above key + value (kvserver --max-eager) or tune against the embedded server (no target.server), which raises it itself",
		units.Bytes(int64(size)))
}

// sizeSpan is "lo to hi", or one size.
func sizeSpan(lo, hi int) string {
	if lo == hi {
		return units.Bytes(int64(lo))
	}
	return units.Bytes(int64(lo)) + " to " + units.Bytes(int64(hi))
}

// sizeList is "a, b, c".
func sizeList(sizes []int) string {
	s := make([]string, len(sizes))
	for i, v := range sizes {
		s[i] = units.Bytes(int64(v))
	}
	return strings.Join(s, ", ")
}

// UnmeasuredNote says at which sizes eager could not be measured, and why;
// empty when it was measured at every size.
func (o *OpResult) UnmeasuredNote() string {
	if len(o.EagerUnmeasured) == 0 {
		return ""
	}
	why := "key + value is not below the server's max eager"
	if o.EagerUnmeasuredReason != "" {
		why += "; first refusal " + o.EagerUnmeasuredReason
	}
	return fmt.Sprintf("%s: eager not measured at %s: the target refused eager there (%s); any crossover there is unknown, only rendezvous was measured",
		o.Op, sizeList(o.EagerUnmeasured), why)
}

func anyWinner(pts []Point, w string) bool {
	return slices.ContainsFunc(pts, func(p Point) bool { return p.Winner == w })
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

// thresholdFor picks a power-of-two threshold t with below < t <= above
// (key plus value bytes), so the last eager-or-tied size stays eager and
// the crossover size goes rendezvous. The largest such power is used,
// keeping eager for as much as possible; if none fits, the power of two
// nearest to above.
func thresholdFor(below, above int) int {
	t := 1 << (bits.Len(uint(above)) - 1) // largest power of two <= above
	if t > below {
		return t
	}
	lo, hi := t, t<<1
	if above-lo <= hi-above {
		return lo
	}
	return hi
}

// adj is how the verdicts say a protocol is better by j's objective.
func (j judge) adj() string {
	switch j.obj {
	case ObjThroughput, ObjCapacity:
		return "ahead"
	case ObjCPU:
		return "cheaper"
	}
	return "faster"
}

// evidence is the figures behind a win at p: the medians and how the
// point was decided.
func (j judge) evidence(p Point) string {
	name := string(j.obj)
	if j.obj == ObjCPU {
		name = j.side + " CPU"
	}
	s := fmt.Sprintf("%s %s vs eager %s, ", name, j.obj.format(p.RdvValue), j.obj.format(p.EagerValue))
	if p.ByMargin {
		return s + fmt.Sprintf("more than %.0f%% apart", 100*j.margin)
	}
	return s + fmt.Sprintf("%s in %d of %d paired repeats, sign test p=%.3g", j.adj(), p.RdvWins, p.RdvWins+p.EagerWins, p.P)
}
