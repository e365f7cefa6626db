package tune

// WorkloadResult is a tune on a distribution at one load: every
// candidate threshold and the one chosen.
type WorkloadResult struct {
	Candidates []Candidate `json:"candidates"`
	// Best is the measured candidate with the best median by the
	// objective. Chosen is the recommendation: among Best and the
	// candidates Best does not beat significantly, the one needing the
	// least receive memory (the lowest threshold when memory is unknown)
	// that no candidate beats significantly.
	Best   int `json:"best_threshold"`
	Chosen int `json:"chosen_threshold"`
	// Unmet says that under a latency goal no candidate met it at any
	// rate searched: none is chosen, and Best and Chosen are 0.
	Unmet bool `json:"goal_unmet,omitempty"`
	// Predicted is the threshold the per-size crossovers give (the
	// classic tune over sizes drawn from the distribution), when they
	// were measured and found one; 0 otherwise.
	Predicted int `json:"predicted_threshold,omitempty"`
	// Refusal is the target's first refusal of a candidate, when any.
	Refusal string `json:"refusal,omitempty"`
	// Adaptive is the adaptive policy measured beside the candidates
	// (Workload.Adaptive): a comparison, never chosen. Nil when off.
	Adaptive *Adaptive `json:"adaptive,omitempty"`
}

// Candidate is one threshold of a tune on a distribution.
type Candidate struct {
	Threshold int `json:"threshold"`
	// ServerMemory and ClientMemory are the registered receive memory
	// the threshold needs at the load (Workload.Memory), in bytes;
	// MemoryKnown says whether they were computed.
	ServerMemory int64 `json:"server_receive_bytes"`
	ClientMemory int64 `json:"client_receive_bytes"`
	MemoryKnown  bool  `json:"memory_known"`
	// Status says whether it was measured.
	Status Status `json:"status"`
	// Samples are the repetitions in order, Samples[i] measured in the
	// same round as every other candidate's.
	Samples []Sample `json:"samples,omitempty"`
	// Medians over the repetitions: p50 and p99 in ns, ops/s, CPU per op
	// (the objective's side, ns), and the objective's figure (the
	// capacity under a latency goal).
	P50       float64 `json:"p50_ns,omitempty"`
	P99       float64 `json:"p99_ns,omitempty"`
	OpsPerSec float64 `json:"ops_per_sec,omitempty"`
	CPU       float64 `json:"cpu_ns_per_op,omitempty"`
	// Capacity, under a latency goal, is the median of the rounds'
	// capacity searches (each Sample's Capacity, its steps in Search), in
	// ops/s; 0 when the goal was met at no rate.
	Capacity float64 `json:"capacity_ops,omitempty"`
	Value    float64 `json:"value,omitempty"`
	// Record is how it fared against the chosen candidate.
	Record
}

// Record is how one measured threshold fared against another, round by
// round: Wins and Losses count the rounds in which it beat or lost to
// the other; P is the sign test's one-sided p-value for the one that won
// more. Versus is the verdict.
type Record struct {
	Wins   int     `json:"wins,omitempty"`
	Losses int     `json:"losses,omitempty"`
	P      float64 `json:"p,omitempty"`
	Versus Versus  `json:"versus,omitempty"`
}

// Status is whether a candidate was measured.
type Status string

// Statuses: measured; ruled out by the memory limit; refused by the
// target (a threshold above its max eager).
const (
	Measured Status = "measured"
	RuledOut Status = "ruled out"
	Refused  Status = "refused"
)

// Versus is how a candidate compares with the chosen one.
type Versus string

// Outcomes against the chosen candidate. Better can only be the best
// candidate when no candidate escapes every significant loss.
const (
	VsChosen Versus = "chosen"
	VsWorse  Versus = "worse"
	VsTie    Versus = "no significant difference"
	VsBetter Versus = "better"
)

// Name is the candidate's threshold as tune prints it: "4KiB", or
// "adaptive" (ThresholdName).
func (c *Candidate) Name() string { return ThresholdName(c.Threshold) }

// Memory is the candidate's server plus client receive memory.
func (c *Candidate) Memory() int64 { return c.ServerMemory + c.ClientMemory }

// Candidate is the candidate of threshold t (nil if none).
func (w *WorkloadResult) Candidate(t int) *Candidate {
	for i := range w.Candidates {
		if w.Candidates[i].Threshold == t {
			return &w.Candidates[i]
		}
	}
	return nil
}

// ChosenCandidate is the chosen candidate (nil when none met the goal).
func (w *WorkloadResult) ChosenCandidate() *Candidate {
	if w.Unmet {
		return nil
	}
	return w.Candidate(w.Chosen)
}
