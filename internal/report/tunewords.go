package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// This file puts a tune's decisions in words: each op's verdict and
// suggestion, the phase that decides its crossover, and the explanation
// of each load's threshold and of the run's.

// adj is how the verdicts say a protocol is better by the objective.
func (t *tuneReport) adj() string {
	switch t.r.Objective {
	case tune.ObjThroughput, tune.ObjCapacity:
		return "ahead"
	case tune.ObjCPU:
		return "cheaper"
	}
	return "faster"
}

// verdict explains o's outcome in one sentence.
func (t *tuneReport) verdict(o *tune.OpResult) string {
	v, _ := t.say(o)
	return v
}

// say puts o's outcome in words: its verdict and, when the crossover was
// not found, a suggestion of what to measure.
func (t *tuneReport) say(o *tune.OpResult) (verdict, suggestion string) {
	lo, hi, limit := units.Bytes(int64(o.From)), units.Bytes(int64(o.To)), units.Bytes(int64(o.Limit))
	adj := t.adj()
	switch o.Outcome {
	case tune.OutcomeEmpty:
		return "no measurements", ""
	case tune.OutcomeNoEager:
		return fmt.Sprintf("eager could not be measured at any size (%s), so the protocols were not compared and no crossover can be located",
			units.SizeSpan(o.From, o.To)), raiseLimit(o.From)
	case tune.OutcomeLastAtLimit:
		return fmt.Sprintf("rendezvous is %s only at %s, the largest size eager could be measured at, with no larger measured size to confirm it; the crossover may lie near there or at or above %s, where eager was not measured: unknown",
			adj, hi, limit), raiseLimit(o.Limit)
	case tune.OutcomeLastOnly:
		return fmt.Sprintf("rendezvous is %s only at the largest size measured, %s, with no larger size to confirm it; the crossover is likely near there", adj, hi),
			fmt.Sprintf("extend values.range.max beyond %s (try up to %s) to confirm", hi, units.Bytes(int64(o.To)*16))
	case tune.OutcomeEagerAhead:
		return t.eagerAhead(o)
	case tune.OutcomeNoWinnerAtLimit:
		return fmt.Sprintf("no protocol is consistently %s at any size both were measured at (%s, within run-to-run noise); %s",
				adj, units.SizeSpan(o.From, o.To), unknownAbove(o.Limit)),
			"raise --repeats (8 or more tolerates one disturbed repetition) or the measure phase; " + raiseLimit(o.Limit)
	case tune.OutcomeNoWinner:
		return fmt.Sprintf("no protocol is consistently %s at any size (within run-to-run noise)", adj),
			fmt.Sprintf("raise --repeats (8 or more tolerates one disturbed repetition) or the measure phase, or extend values.range.max beyond %s", hi)
	case tune.OutcomeBelowRange:
		verdict = fmt.Sprintf("rendezvous already beats eager at the smallest size, %s; the crossover lies below the measured range", lo)
		if o.From > 1 {
			suggestion = fmt.Sprintf("extend values.range.min below %s (try from %s)", lo, units.Bytes(int64(max(1, o.From/16))))
		}
		return verdict, suggestion
	case tune.OutcomeFound:
		return fmt.Sprintf("rendezvous is %s from %s on (%s); curves cross near %s",
			adj, units.Bytes(int64(o.Crossover)), t.evidence(o.Point(o.Crossover)), units.Bytes(int64(math.Round(o.EqualAt)))), ""
	}
	return "", ""
}

// unknownAbove says that what lies from limit on, where eager was not
// measured, is unknown.
func unknownAbove(limit int) string {
	return fmt.Sprintf("rendezvous did not win below the server's eager limit, and the crossover, if any, lies at or above %s, where eager was not measured: unknown",
		units.Bytes(int64(limit)))
}

// eagerAhead is the verdict when eager wins some size and rendezvous no
// confirmed run of them: the crossover lies above the compared sizes, or,
// against a server's eager limit, is unknown.
func (t *tuneReport) eagerAhead(o *tune.OpResult) (verdict, suggestion string) {
	adj, last, lo, hi := t.adj(), o.LastEager, o.From, o.To
	allEager := !slices.ContainsFunc(o.Points, func(p tune.Point) bool { return len(p.Eager) > 0 && p.Winner != tune.WinEager })
	switch {
	case o.Limit > 0 && allEager:
		verdict = fmt.Sprintf("eager is %s at every size both protocols were measured at (%s); %s; the best threshold this server allows is its max eager (eager for every size it accepts), a limit set by the server, not a measured crossover",
			adj, units.SizeSpan(lo, hi), unknownAbove(o.Limit))
	case o.Limit > 0 && last == hi:
		verdict = fmt.Sprintf("eager is still %s at %s, the largest size eager could be measured at; %s",
			adj, units.Bytes(int64(hi)), unknownAbove(o.Limit))
	case o.Limit > 0:
		verdict = fmt.Sprintf("eager is %s up to %s and the two are within noise from there to %s, the largest size eager could be measured at; %s",
			adj, units.Bytes(int64(last)), units.Bytes(int64(hi)), unknownAbove(o.Limit))
	case last == hi:
		verdict = fmt.Sprintf("eager is still %s at the largest size measured, %s; the crossover lies above the measured range",
			adj, units.Bytes(int64(hi)))
	default:
		verdict = fmt.Sprintf("eager is %s up to %s and the two are within noise from there to %s; the crossover lies above the measured range",
			adj, units.Bytes(int64(last)), units.Bytes(int64(hi)))
	}
	if o.Limit > 0 {
		suggestion = raiseLimit(o.Limit)
	} else {
		suggestion = fmt.Sprintf("extend values.range.max beyond %s (try up to %s)", units.Bytes(int64(hi)), units.Bytes(int64(hi)*16))
	}
	if last != hi {
		suggestion += ", or raise --repeats or the measure phase so the larger sizes separate from the noise"
	}
	return verdict, suggestion
}

// raiseLimit suggests how to measure eager from size on.
func raiseLimit(size int) string {
	return fmt.Sprintf("to measure eager from %s on, raise the server's max eager above key + value (kvserver --max-eager) or tune against the embedded server (no target.server), which raises it itself",
		units.Bytes(int64(size)))
}

// evidence is the figures behind a win at p: the medians and how the
// point was decided.
func (t *tuneReport) evidence(p *tune.Point) string {
	name := string(t.r.Objective)
	if t.r.Objective == tune.ObjCPU {
		name = t.j.Side + " CPU"
	}
	s := fmt.Sprintf("%s %s vs eager %s, ", name, t.format(p.RdvValue), t.format(p.EagerValue))
	if p.ByMargin {
		return s + fmt.Sprintf("more than %.0f%% apart", 100*t.j.Margin)
	}
	return s + fmt.Sprintf("%s in %d of %d paired repeats, sign test p=%.3g", t.adj(), p.RdvWins, p.RdvWins+p.EagerWins, p.P)
}

// decider says which phase decides o's crossover, with its p50s below
// and at it; empty when none does.
func (t *tuneReport) decider(o *tune.OpResult) string {
	best := o.DecidingPhase
	if best == "" {
		return ""
	}
	below, at := o.Point(o.Below), o.Point(o.Crossover)
	eb, ea := below.EagerPhases[best], at.EagerPhases[best]
	rb, ra := below.RdvPhases[best], at.RdvPhases[best]
	return fmt.Sprintf("%s: the %s phase decides the crossover: from %s to %s it grows %s for eager (%s to %s) against %s for rendezvous (%s to %s); rendezvous's extra steps (read/write, release/commit) cost %s at %s",
		o.Op, best, units.Bytes(int64(o.Below)), units.Bytes(int64(o.Crossover)),
		units.Duration(ea-eb), units.Duration(eb), units.Duration(ea), units.Duration(ra-rb), units.Duration(rb), units.Duration(ra),
		units.Duration(extraSteps(at.RdvPhases)), units.Bytes(int64(o.Crossover)))
}

// extraSteps is rendezvous's time in the phases eager does not have.
func extraSteps(ph map[string]float64) float64 {
	return ph["read"] + ph["release"] + ph["write"] + ph["commit"]
}

// flagText says what a flag found: "eager warns bimodal in 4 of 4
// measurements, the other protocol in none".
func flagText(f tune.Flag) string {
	return fmt.Sprintf("%s warns %s in %d of %d measurements, the other protocol in none", f.Protocol, f.Kind, f.Count, f.Of)
}

// verdictLine is "op: verdict; suggestion".
func (t *tuneReport) verdictLine(o *tune.OpResult) string {
	verdict, suggestion := t.say(o)
	line := fmt.Sprintf("%s: %s", o.Op, verdict)
	if suggestion != "" {
		line += "; " + suggestion
	}
	return line
}

// unmeasuredNote says at which sizes eager could not be measured, and why;
// empty when it was measured at every size.
func unmeasuredNote(o *tune.OpResult) string {
	if len(o.EagerUnmeasured) == 0 {
		return ""
	}
	why := "key + value is not below the server's max eager"
	if o.EagerUnmeasuredReason != "" {
		why += "; first refusal " + o.EagerUnmeasuredReason
	}
	return fmt.Sprintf("%s: eager not measured at %s: the target refused eager there (%s); any crossover there is unknown, only rendezvous was measured",
		o.Op, units.Sizes(o.EagerUnmeasured), why)
}

// loadExplanation says how l's threshold was chosen: op by op, or on a
// distribution among the candidates.
func (t *tuneReport) loadExplanation(l *tune.LoadResult) []string {
	if l.Workload != nil {
		return t.workloadExplanation(l)
	}
	var out []string
	c := &t.r.Config
	best := l.DecidedBy()
	if best == nil {
		within := "within the measured sizes"
		if slices.ContainsFunc(l.Ops, func(o tune.OpResult) bool { return len(o.EagerUnmeasured) > 0 }) {
			within = "among the sizes where both protocols were measured"
		}
		out = append(out, "no crossover was found "+within+", so no threshold is recommended:")
		for _, o := range l.Ops {
			out = append(out, t.verdictLine(&o))
		}
		return append(append(out, unmeasuredNotes(l)...), t.sizeAdaptiveSummary(l)...)
	}
	rec := l.Recommended
	out = append(out, fmt.Sprintf(
		"recommended eager threshold: %s (%d bytes), the smallest per-op crossover (%s, rendezvous %s from %s), as a power of two",
		units.Bytes(int64(rec)), rec, best.Op, t.adj(), units.Bytes(int64(best.Crossover))))
	if c.KeySize > 0 {
		out = append(out, keyNote(c.KeySize, rec))
	}
	for _, o := range l.Ops {
		switch {
		case !o.Found:
			out = append(out, t.verdictLine(&o))
		case o.Threshold > rec:
			out = append(out, t.sharedCost(&o, rec))
		default:
			out = append(out, fmt.Sprintf("%s: %s", o.Op, t.verdict(&o)))
		}
		if d := t.decider(&o); d != "" {
			out = append(out, d)
		}
	}
	return append(append(out, unmeasuredNotes(l)...), t.sizeAdaptiveSummary(l)...)
}

// keyNote says which values go eager at threshold under keys of
// keySize bytes.
func keyNote(keySize, threshold int) string {
	return fmt.Sprintf("the threshold counts key plus value bytes: with %d-byte keys, values of up to %d bytes go eager",
		keySize, rdmakv.LargestEagerValue(threshold, keySize))
}

// unmeasuredNotes are l's ops' unmeasuredNotes.
func unmeasuredNotes(l *tune.LoadResult) []string {
	var out []string
	for _, o := range l.Ops {
		if n := unmeasuredNote(&o); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// sharedCost says what the shared threshold, below o's own, costs o at
// worst: it sends o rendezvous early.
func (t *tuneReport) sharedCost(o *tune.OpResult, shared int) string {
	c := &t.r.Config
	line := fmt.Sprintf("%s alone would use %s (rendezvous %s from %s)", o.Op,
		units.Bytes(int64(o.Threshold)), t.adj(), units.Bytes(int64(o.Crossover)))
	if worst := o.SharedLoss; worst > 0 {
		loss := fmt.Sprintf("%.0f%% higher %s", 100*worst, c.ObjectiveName())
		if t.r.Objective.Higher() {
			loss = fmt.Sprintf("%.0f%% lower %s", 100*(1-1/(1+worst)), c.ObjectiveName())
		}
		line += fmt.Sprintf("; between %s and %s it pays up to %s under the shared threshold",
			units.Bytes(int64(shared)), units.Bytes(int64(o.Crossover)), loss)
	}
	return line
}

// explanation says how the run's threshold was chosen: the loads' own
// explanations, one load's alone, and whether the loads agree, after any
// note on what the run could not decide.
func (t *tuneReport) explanation() []string {
	r, c := t.r, &t.r.Config
	var out []string
	if n := stats.SignTestMinN(t.j.Alpha); c.Repeats < n && t.j.Margin == 0 {
		what := "size"
		if c.Workload != nil {
			what = "candidate or size"
		}
		out = append(out, fmt.Sprintf(
			"note: with %d repeats no %s can show a significant winner at alpha %g; use --repeats %d or more",
			c.Repeats, what, t.j.Alpha, n))
	}
	if t.processCPU() {
		out = append(out,
			"note: the server runs inside kvbench, so CPU per op is the whole process's, both sides together; give a server for each side's own")
	}
	if len(r.Loads) == 1 {
		return append(out, t.loadExplanation(&r.Loads[0])...)
	}
	for _, l := range r.Loads {
		out = append(out, "at "+l.Load.String()+":")
		for _, e := range t.loadExplanation(&l) {
			out = append(out, "  "+e)
		}
	}
	if agreed := r.Loads[0].Recommended; !slices.ContainsFunc(r.Loads, func(l tune.LoadResult) bool { return l.Recommended != agreed }) {
		if agreed > 0 {
			out = append(out, fmt.Sprintf("every load agrees: eager threshold %s", units.Bytes(int64(agreed))))
		}
		return out
	}
	return append(out, "the loads disagree: "+disagreement(r.Loads)+"; use the threshold of the load you run at")
}

// disagreement is "4KiB at 1 connection, 32KiB from 16 connections": the
// loads in order, runs of one threshold merged, a run reaching the last
// load said "from" its first.
func disagreement(loads []tune.LoadResult) string {
	var parts []string
	for i := 0; i < len(loads); {
		j := i
		for j+1 < len(loads) && loads[j+1].Recommended == loads[i].Recommended {
			j++
		}
		what := "none"
		if th := loads[i].Recommended; th > 0 {
			what = units.Bytes(int64(th))
		}
		switch {
		case j == len(loads)-1 && i > 0:
			parts = append(parts, fmt.Sprintf("%s from %s", what, loads[i].Load))
		case i == j:
			parts = append(parts, fmt.Sprintf("%s at %s", what, loads[i].Load))
		default:
			parts = append(parts, fmt.Sprintf("%s at %s to %s", what, loads[i].Load, loads[j].Load))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// processCPU says CPU decided and a sample had one figure for the process.
func (t *tuneReport) processCPU() bool {
	if t.r.Objective != tune.ObjCPU {
		return false
	}
	for _, l := range t.r.Loads {
		for _, o := range l.Ops {
			for _, p := range o.Points {
				if slices.ContainsFunc(p.Rendezvous, func(s tune.Sample) bool { return s.CPUScope == results.CPUScopeProcess }) {
					return true
				}
			}
		}
	}
	return false
}
