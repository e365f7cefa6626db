package tune

import (
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// AdaptiveThreshold is the threshold of a whole-workload Request that
// measures the adaptive policy (rdmakv.WithAdaptiveThreshold with the
// workload's adaptive settings, Workload.AdaptiveSettings) in place of a
// fixed threshold. tune imports no harness, so
// the measuring side maps it to its own.
const AdaptiveThreshold = -1

// AdaptiveName is AdaptiveThreshold as tune prints it.
const AdaptiveName = "adaptive"

// DefaultThreshold is rdmakv's default eager threshold: the adaptive
// policy is compared with it too, when it is a measured candidate, since
// it is what a client gets without tuning.
const DefaultThreshold = rdmakv.DefaultEagerThreshold

// ThresholdName is threshold t as tune prints it: "4KiB", or "adaptive".
func ThresholdName(t int) string {
	if t == AdaptiveThreshold {
		return AdaptiveName
	}
	return units.Bytes(int64(t))
}

// Adaptive is the adaptive policy measured whole on a distribution,
// once in every round's rotation beside the candidates, so that it
// shares their drift; it is not a candidate the choice can pick, but a
// comparison with what was chosen.
type Adaptive struct {
	// Candidate holds its rounds, medians and status, and its receive
	// memory: that of the largest threshold the policy may choose. Its
	// Record is unused: the comparisons below are its outcomes.
	Candidate
	// VsChosen compares it with the chosen candidate; nil when none was
	// chosen or the policy was not measured.
	VsChosen *Comparison `json:"vs_chosen,omitempty"`
	// VsDefault compares it with DefaultThreshold when that is a measured
	// candidate, chosen or not.
	VsDefault *Comparison `json:"vs_default,omitempty"`
	// At a fixed size (Point.Adaptive) VsChosen compares it with the
	// protocol the load's recommended threshold gives the size, VsProfile
	// with the one the profile gives it, and VsWinner with the protocol
	// that won the size, when one did: the cost of the policy's
	// exploring.
	VsProfile *Comparison `json:"vs_profile,omitempty"`
	VsWinner  *Comparison `json:"vs_winner,omitempty"`
}

// Comparison is the adaptive policy against one fixed threshold over the
// rounds they shared.
type Comparison struct {
	// Threshold is the fixed threshold, Value its median figure by the
	// objective (its capacity under a latency goal), beside the policy's
	// Candidate.Value.
	Threshold int     `json:"threshold"`
	Value     float64 `json:"value"`
	// Protocol, at a fixed size, is the protocol the threshold gives it,
	// whose figure Value is ("eager", "rendezvous"); VsWinner's Threshold
	// is 0.
	Protocol string `json:"protocol,omitempty"`
	// Ratio is the policy's figure over the threshold's; 0 when the
	// threshold's is 0 (a goal it met at no rate).
	Ratio float64 `json:"ratio"`
	// Record is the policy's: rounds won and lost, the sign test's p,
	// and the verdict (by the margin when the searches are too few for
	// the test).
	Record
}

// adaptive is the policy's entry at l when w compares it, else nil. It
// is measured whatever --max-memory says: it is not a candidate.
func adaptive(w *Workload, l Load) *Adaptive {
	if !w.Adaptive {
		return nil
	}
	return &Adaptive{Candidate: candidate(w, l, AdaptiveThreshold)}
}

// compareAdaptive compares w's adaptive policy, measured and summarised,
// with the chosen candidate and with the default threshold.
func (j Judge) compareAdaptive(w *WorkloadResult) {
	a := w.Adaptive
	if a == nil || a.Status != Measured {
		return
	}
	if c := w.ChosenCandidate(); c != nil {
		a.VsChosen = j.comparison(&a.Candidate, c)
	}
	if d := w.Candidate(DefaultThreshold); d != nil && d.Status == Measured {
		a.VsDefault = j.comparison(&a.Candidate, d)
	}
}

// comparison is a against the fixed candidate c.
func (j Judge) comparison(a, c *Candidate) *Comparison {
	out := &Comparison{Threshold: c.Threshold, Value: c.Value, Record: j.record(a, c)}
	if c.Value > 0 {
		out.Ratio = a.Value / c.Value
	}
	return out
}
