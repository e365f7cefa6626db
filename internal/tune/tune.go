package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/units"
)

// Config is what to sweep.
type Config struct {
	// Ops are the operations to tune, "get" and/or "set", each measured
	// alone.
	Ops []string `json:"ops"`
	// Sizes are the value sizes in bytes; sorted and deduplicated by Run.
	Sizes []int `json:"sizes"`
	// Repeats is how many times each (op, size, protocol) is measured. Each
	// repetition measures the two protocols back to back, a pair, and the
	// pairs decide which protocol is faster (see Alpha). At least 2, but a
	// winner needs 0.5^Repeats <= Alpha: 5 at the default Alpha, where all
	// five pairs must agree; 8 or more lets one pair out of line (a hiccup
	// on a loaded machine) pass.
	Repeats int `json:"repeats"`
	// Alpha is the one-sided significance level of the sign test over the
	// pairs; 0 means DefaultAlpha.
	Alpha float64 `json:"alpha"`
	// KeySize is added to the value size when placing the threshold, since
	// the threshold counts key plus value bytes.
	KeySize int `json:"key_size"`
	// Progress, if set, is called after each measurement.
	Progress func(done, total int, op string, size int, p Protocol) `json:"-"`
}

// DefaultRepeats is the repetition count when none is given.
const DefaultRepeats = 5

// DefaultAlpha is the sign test's significance level when none is given.
const DefaultAlpha = 0.05

func (c *Config) alpha() float64 {
	if c.Alpha == 0 {
		return DefaultAlpha
	}
	return c.Alpha
}

// MinDecisiveRepeats is the fewest repeats whose pairs can make a winner
// at level alpha: all n pairs agreeing has probability 0.5^n by chance.
func MinDecisiveRepeats(alpha float64) int {
	n := 1
	for math.Pow(0.5, float64(n)) > alpha {
		n++
	}
	return n
}

// Validate reports every problem with c.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Ops) == 0 {
		errs = append(errs, errors.New("no operations to tune"))
	}
	for _, op := range c.Ops {
		// A delete carries no value, so it has no protocol to tune.
		if op != "get" && op != "set" {
			errs = append(errs, fmt.Errorf("op %q: want get or set", op))
		}
	}
	if len(c.Sizes) < 2 {
		errs = append(errs, fmt.Errorf("%d value size(s) given: need at least 2 to locate a crossover", len(c.Sizes)))
	}
	for _, s := range c.Sizes {
		if s <= 0 {
			errs = append(errs, fmt.Errorf("value size %d: want > 0", s))
		}
	}
	if c.Repeats < 2 {
		errs = append(errs, fmt.Errorf("repeats %d: want >= 2 (the repeats are compared in pairs)", c.Repeats))
	}
	if c.Alpha < 0 || c.Alpha >= 0.5 {
		errs = append(errs, fmt.Errorf("alpha %g: want a significance level in (0, 0.5)", c.Alpha))
	}
	if c.KeySize < 0 {
		errs = append(errs, fmt.Errorf("key size %d: want >= 0", c.KeySize))
	}
	return errors.Join(errs...)
}

// CheckEagerLimit fails, naming the sizes, when forcing eager at some size
// needs an eager threshold (key + size + 1) above maxEager, the largest the
// server can accept: eager could not be measured there. tune checks this
// up front against the embedded server, whose max eager it raises to the
// largest threshold it needs, so that eager is measured wherever
// rendezvous is.
func (c *Config) CheckEagerLimit(maxEager int) error {
	var over []int
	for _, s := range c.Sizes {
		if c.KeySize+s+1 > maxEager {
			over = append(over, s)
		}
	}
	if len(over) == 0 {
		return nil
	}
	slices.Sort(over)
	return fmt.Errorf("value size %s needs eager threshold %d (%d-byte key + value + 1) to force eager, above the server's largest max eager %d (%s), so eager could not be measured at %s: keep values at or below %d bytes",
		units.Bytes(int64(over[0])), c.KeySize+over[0]+1, c.KeySize, maxEager, units.Bytes(int64(maxEager)),
		sizeList(slices.Compact(over)), maxEager-c.KeySize-1)
}

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
	// EagerPhases and RdvPhases are, per phase, the median over the
	// repetitions of the phase's p50 (ns); absent without phases.
	EagerPhases map[string]float64 `json:"eager_phases_p50_ns,omitempty"`
	RdvPhases   map[string]float64 `json:"rdv_phases_p50_ns,omitempty"`
	// Ratio is EagerP50/RdvP50: above 1 rendezvous is faster.
	Ratio float64 `json:"ratio"`
	// RdvWins and EagerWins count the repetitions (pairs measured back to
	// back) in which that protocol had the lower p50; equal pairs count
	// for neither.
	RdvWins   int `json:"rdv_wins"`
	EagerWins int `json:"eager_wins"`
	// P is the sign test's one-sided p-value for the protocol that won
	// more pairs: the chance of at least that many wins if neither
	// protocol were faster.
	P float64 `json:"p"`
	// Winner is "eager" or "rendezvous" when P <= Alpha, else "tie";
	// "unmeasured" when eager could not be measured, so that nothing was
	// compared (this is no evidence that rendezvous is faster).
	Winner string `json:"winner"`
}

// OpResult is the analysis of one op.
type OpResult struct {
	Op     string  `json:"op"`
	Points []Point `json:"points"`
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

// Result is a tuning run.
type Result struct {
	Config Config     `json:"config"`
	Ops    []OpResult `json:"ops"`
	// Recommended is the eager threshold for all ops (0 when no op found a
	// crossover), and Explanation says how it was chosen.
	Recommended int      `json:"recommended_threshold"`
	Explanation []string `json:"explanation"`
}

// Run measures every (op, size) under both protocols, Repeats times. The
// order is repetition, then size, then op, and within each (op, size) the
// two protocols alternate which goes first from one repetition to the next,
// so slow drift (thermal, background load, server memory growth) lands on
// both protocols equally.
func Run(ctx context.Context, cfg Config, m Measurer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Sizes = slices.Clone(cfg.Sizes)
	slices.Sort(cfg.Sizes)
	cfg.Sizes = slices.Compact(cfg.Sizes)
	type key struct {
		op   string
		size int
	}
	eager := map[key][]Sample{}
	rdv := map[key][]Sample{}
	noEager := map[key]bool{}
	refusal := map[string]string{} // op: the first eager refusal
	total := cfg.Repeats * len(cfg.Sizes) * len(cfg.Ops) * 2
	done := 0
	for r := range cfg.Repeats {
		order := []Protocol{Eager, Rendezvous}
		if r%2 == 1 {
			order = []Protocol{Rendezvous, Eager}
		}
		for _, size := range cfg.Sizes {
			for _, op := range cfg.Ops {
				k := key{op, size}
				for _, p := range order {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					done++
					if p == Eager && noEager[k] {
						if cfg.Progress != nil {
							cfg.Progress(done, total, op, size, p)
						}
						continue
					}
					s, err := m.Measure(ctx, op, size, p)
					if cfg.Progress != nil {
						cfg.Progress(done, total, op, size, p)
					}
					switch {
					case p == Eager && errors.Is(err, ErrUnsupported):
						noEager[k] = true
						if _, ok := refusal[op]; !ok {
							refusal[op] = fmt.Sprintf("at %s: %s", units.Bytes(int64(size)), unsupportedReason(err))
						}
						continue
					case err != nil:
						return nil, fmt.Errorf("%s %s %s: %w", op, units.Bytes(int64(size)), p, err)
					}
					if p == Eager {
						eager[k] = append(eager[k], s)
					} else {
						rdv[k] = append(rdv[k], s)
					}
				}
			}
		}
	}
	res := &Result{Config: cfg}
	for _, op := range cfg.Ops {
		var pts []Point
		for _, size := range cfg.Sizes {
			k := key{op, size}
			if noEager[k] {
				pts = append(pts, NewPoint(size, nil, rdv[k], cfg.alpha()))
			} else {
				pts = append(pts, NewPoint(size, eager[k], rdv[k], cfg.alpha()))
			}
		}
		o := Analyze(op, pts, cfg.KeySize)
		if len(o.EagerUnmeasured) > 0 {
			o.EagerUnmeasuredReason = refusal[op]
		}
		res.Ops = append(res.Ops, o)
	}
	if n := MinDecisiveRepeats(cfg.alpha()); cfg.Repeats < n {
		res.Explanation = append(res.Explanation, fmt.Sprintf(
			"note: with %d repeats no size can show a significant winner at alpha %g; use --repeats %d or more",
			cfg.Repeats, cfg.alpha(), n))
	}
	res.recommend(cfg.KeySize)
	return res, nil
}

// unsupportedReason is err's text without the ErrUnsupported wrapping.
func unsupportedReason(err error) string {
	s := err.Error()
	for _, affix := range []string{ErrUnsupported.Error() + ": ", ": " + ErrUnsupported.Error()} {
		s = strings.Replace(s, affix, "", 1)
	}
	return s
}

// NewPoint summarises the repetitions of one (op, size): eager[i] and
// rdv[i] are the i-th pair, measured back to back. A nil eager means eager
// could not be measured at the size: the point's winner is "unmeasured",
// and Analyze leaves it out of the comparison.
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
func NewPoint(size int, eager, rdv []Sample, alpha float64) Point {
	pt := Point{Size: size, Eager: eager, Rendezvous: rdv}
	pt.RdvP50 = median(rdv, func(s Sample) float64 { return s.P50 })
	pt.RdvRate = median(rdv, func(s Sample) float64 { return s.BytesPerSec })
	pt.RdvPhases = medianPhases(rdv)
	if len(eager) == 0 {
		pt.Winner = "unmeasured"
		return pt
	}
	pt.EagerP50 = median(eager, func(s Sample) float64 { return s.P50 })
	pt.EagerRate = median(eager, func(s Sample) float64 { return s.BytesPerSec })
	pt.EagerPhases = medianPhases(eager)
	if pt.RdvP50 > 0 {
		pt.Ratio = pt.EagerP50 / pt.RdvP50
	}
	for i := range min(len(eager), len(rdv)) {
		switch {
		case rdv[i].P50 < eager[i].P50:
			pt.RdvWins++
		case eager[i].P50 < rdv[i].P50:
			pt.EagerWins++
		}
	}
	n := pt.RdvWins + pt.EagerWins
	pt.P = SignTestP(n, max(pt.RdvWins, pt.EagerWins))
	switch {
	case pt.P > alpha || pt.RdvWins == pt.EagerWins:
		pt.Winner = "tie"
	case pt.RdvWins > pt.EagerWins:
		pt.Winner = "rendezvous"
	default:
		pt.Winner = "eager"
	}
	return pt
}

// SignTestP is the one-sided sign test p-value: the probability of k or
// more successes in n fair coin flips.
func SignTestP(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	// Sum C(n, i) / 2^n for i = k..n, the terms built by ratio so that no
	// factorial overflows.
	term := math.Pow(0.5, float64(n)) // i = n
	p := 0.0
	for i := n; i >= k; i-- {
		p += term
		term *= float64(i) / float64(n-i+1)
	}
	return math.Min(1, p)
}

func median(ss []Sample, f func(Sample) float64) float64 {
	if len(ss) == 0 {
		return 0
	}
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[n/2]
}

// Analyze finds op's crossover in points (sorted by size). Points without
// eager samples, where eager could not be measured, are listed in
// EagerUnmeasured and are no evidence either way: the crossover is looked
// for only among the sizes where both protocols were measured, and a
// target's eager limit is never taken for a crossover.
func Analyze(op string, all []Point, keySize int) OpResult {
	res := OpResult{Op: op, Points: all}
	if len(all) == 0 {
		res.Verdict = "no measurements"
		return res
	}
	var pts []Point
	for _, p := range all {
		if len(p.Eager) == 0 {
			res.EagerUnmeasured = append(res.EagerUnmeasured, p.Size)
		} else {
			pts = append(pts, p)
		}
	}
	if len(pts) == 0 {
		res.Verdict = fmt.Sprintf("eager could not be measured at any size (%s), so the protocols were not compared and no crossover can be located",
			sizeSpan(all[0].Size, all[len(all)-1].Size))
		res.Suggestion = raiseLimit(all[0].Size)
		return res
	}
	// The crossover is the first size of the final run of sizes where
	// eager never wins significantly, starting at a significant rendezvous
	// win that the next size confirms. Ties inside the run are tolerated:
	// above the crossover the curves may run close without eager being
	// better. The confirmation matters when the protocols are alike over
	// a range: there a test at level alpha still calls a winner at about
	// one size in twenty, and a lone chance win must not become a
	// crossover.
	confirmed := func(i int) bool {
		return i+1 < len(pts) && pts[i+1].Winner == "rendezvous"
	}
	k := -1
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].Winner == "eager" {
			break
		}
		if pts[i].Winner == "rendezvous" && confirmed(i) {
			k = i
		}
	}
	lo, hi := pts[0].Size, pts[len(pts)-1].Size
	// limit is the smallest size above every compared one at which eager
	// could not be measured: the target's eager limit lies below it, and
	// what happens from there on is unknown, not a rendezvous win.
	limit := 0
	for _, s := range res.EagerUnmeasured {
		if s > hi {
			limit = s
			break
		}
	}
	unknown := fmt.Sprintf("rendezvous did not win below the server's eager limit, and the crossover, if any, lies at or above %s, where eager was not measured: unknown",
		units.Bytes(int64(limit)))
	switch {
	case k < 0 && pts[len(pts)-1].Winner == "rendezvous" && limit > 0:
		res.Verdict = fmt.Sprintf("rendezvous is faster only at %s, the largest size eager could be measured at, with no larger measured size to confirm it; the crossover may lie near there or at or above %s, where eager was not measured: unknown",
			units.Bytes(int64(hi)), units.Bytes(int64(limit)))
		res.Suggestion = raiseLimit(limit)
		return res
	case k < 0 && pts[len(pts)-1].Winner == "rendezvous":
		res.Verdict = fmt.Sprintf("rendezvous is faster only at the largest size measured, %s, with no larger size to confirm it; the crossover is likely near there",
			units.Bytes(int64(hi)))
		res.Suggestion = fmt.Sprintf("extend values.range.max beyond %s (try up to %s) to confirm", units.Bytes(int64(hi)), units.Bytes(int64(hi)*16))
		return res
	case k < 0 && anyWinner(pts, "eager"):
		eagerAhead(&res, pts, limit, unknown)
		return res
	case k < 0 && limit > 0:
		res.Verdict = fmt.Sprintf("no protocol is consistently faster at any size both were measured at (%s, within run-to-run noise); %s",
			sizeSpan(lo, hi), unknown)
		res.Suggestion = "raise --repeats (8 or more tolerates one disturbed repetition) or the measure phase; " + raiseLimit(limit)
		return res
	case k < 0:
		res.Verdict = "no protocol is consistently faster at any size (within run-to-run noise)"
		res.Suggestion = fmt.Sprintf("raise --repeats (8 or more tolerates one disturbed repetition) or the measure phase, or extend values.range.max beyond %s", units.Bytes(int64(hi)))
		return res
	case k == 0:
		res.Verdict = fmt.Sprintf("rendezvous already beats eager at the smallest size, %s; the crossover lies below the measured range",
			units.Bytes(int64(lo)))
		if lo > 1 {
			res.Suggestion = fmt.Sprintf("extend values.range.min below %s (try from %s)", units.Bytes(int64(lo)), units.Bytes(int64(max(1, lo/16))))
		}
		return res
	}
	res.Found = true
	res.Crossover = pts[k].Size
	res.Below = pts[k-1].Size
	res.EqualAt = equalAt(pts[k-1], pts[k])
	res.Threshold = thresholdFor(res.Below+keySize, res.Crossover+keySize)
	c := pts[k]
	res.Verdict = fmt.Sprintf("rendezvous is faster from %s on (p50 %s vs eager %s, faster in %d of %d paired repeats, sign test p=%.3g); curves cross near %s",
		units.Bytes(int64(c.Size)), units.Duration(c.RdvP50), units.Duration(c.EagerP50), c.RdvWins, c.RdvWins+c.EagerWins, c.P,
		units.Bytes(int64(math.Round(res.EqualAt))))
	res.Decider = res.decider()
	return res
}

// eagerAhead is Analyze's verdict when eager wins some size and rendezvous
// no confirmed run of them: the crossover lies above the compared sizes,
// or, against a server's eager limit (limit > 0), is unknown.
func eagerAhead(res *OpResult, pts []Point, limit int, unknown string) {
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
		res.Verdict = fmt.Sprintf("eager is faster at every size both protocols were measured at (%s); %s; the best threshold this server allows is its max eager (eager for every size it accepts), a limit set by the server, not a measured crossover",
			sizeSpan(lo, hi), unknown)
	case limit > 0 && last == hi:
		res.Verdict = fmt.Sprintf("eager is still faster at %s, the largest size eager could be measured at; %s",
			units.Bytes(int64(hi)), unknown)
	case limit > 0:
		res.Verdict = fmt.Sprintf("eager is faster up to %s and the two are within noise from there to %s, the largest size eager could be measured at; %s",
			units.Bytes(int64(last)), units.Bytes(int64(hi)), unknown)
	case last == hi:
		res.Verdict = fmt.Sprintf("eager is still faster at the largest size measured, %s; the crossover lies above the measured range",
			units.Bytes(int64(hi)))
	default:
		res.Verdict = fmt.Sprintf("eager is faster up to %s and the two are within noise from there to %s; the crossover lies above the measured range",
			units.Bytes(int64(last)), units.Bytes(int64(hi)))
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

// equalAt interpolates, in log2 size, where eager p50 - rendezvous p50
// turns positive between a and b.
func equalAt(a, b Point) float64 {
	if len(a.Eager) == 0 || len(b.Eager) == 0 {
		return float64(b.Size)
	}
	da, db := a.EagerP50-a.RdvP50, b.EagerP50-b.RdvP50
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

// recommend sets the overall threshold: the smallest per-op threshold.
func (r *Result) recommend(keySize int) {
	var found []OpResult
	for _, o := range r.Ops {
		if o.Found {
			found = append(found, o)
		}
	}
	if len(found) == 0 {
		within := "within the measured sizes"
		if slices.ContainsFunc(r.Ops, func(o OpResult) bool { return len(o.EagerUnmeasured) > 0 }) {
			within = "among the sizes where both protocols were measured"
		}
		r.Explanation = append(r.Explanation, "no crossover was found "+within+", so no threshold is recommended:")
		for _, o := range r.Ops {
			line := fmt.Sprintf("%s: %s", o.Op, o.Verdict)
			if o.Suggestion != "" {
				line += "; " + o.Suggestion
			}
			r.Explanation = append(r.Explanation, line)
		}
		r.explainUnmeasured()
		return
	}
	best := slices.MinFunc(found, func(a, b OpResult) int { return a.Threshold - b.Threshold })
	r.Recommended = best.Threshold
	r.Explanation = append(r.Explanation, fmt.Sprintf(
		"recommended eager threshold: %s (%d bytes), the smallest per-op crossover (%s, rendezvous faster from %s), as a power of two",
		units.Bytes(int64(r.Recommended)), r.Recommended, best.Op, units.Bytes(int64(best.Crossover))))
	if keySize > 0 {
		r.Explanation = append(r.Explanation, fmt.Sprintf(
			"the threshold counts key plus value bytes: with %d-byte keys, values of up to %d bytes go eager",
			keySize, r.Recommended-keySize-1))
	}
	for _, o := range r.Ops {
		switch {
		case !o.Found:
			line := fmt.Sprintf("%s: %s", o.Op, o.Verdict)
			if o.Suggestion != "" {
				line += "; " + o.Suggestion
			}
			r.Explanation = append(r.Explanation, line)
		case o.Threshold > r.Recommended:
			// The shared threshold sends this op rendezvous early; say what
			// that costs at worst.
			worst := 0.0
			for _, p := range o.Points {
				if p.Size+keySize >= r.Recommended && p.Size < o.Crossover && p.Ratio > 0 && p.Ratio < 1 {
					worst = math.Max(worst, 1/p.Ratio-1)
				}
			}
			line := fmt.Sprintf("%s alone would use %s (rendezvous faster from %s)", o.Op,
				units.Bytes(int64(o.Threshold)), units.Bytes(int64(o.Crossover)))
			if worst > 0 {
				line += fmt.Sprintf("; between %s and %s it pays up to %.0f%% higher p50 under the shared threshold",
					units.Bytes(int64(r.Recommended)), units.Bytes(int64(o.Crossover)), 100*worst)
			}
			r.Explanation = append(r.Explanation, line)
		default:
			r.Explanation = append(r.Explanation, fmt.Sprintf("%s: %s", o.Op, o.Verdict))
		}
		if o.Decider != "" {
			r.Explanation = append(r.Explanation, o.Decider)
		}
	}
	r.explainUnmeasured()
}

// explainUnmeasured adds, per op, the sizes eager could not be measured at.
func (r *Result) explainUnmeasured() {
	for _, o := range r.Ops {
		if n := o.UnmeasuredNote(); n != "" {
			r.Explanation = append(r.Explanation, n)
		}
	}
}
