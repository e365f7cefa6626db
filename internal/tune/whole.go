package tune

import (
	"fmt"
	"slices"

	"github.com/kvbench/kvbench/rdmakv"
)

// Workload is a tune on a distribution of value sizes: no single size
// decides, so whole-workload runs (the workload's own mix of ops and
// sizes) are measured at each candidate eager threshold and the best is
// chosen by the objective over all ops merged, or under a latency goal
// by the capacity each candidate's search finds for the whole workload.
type Workload struct {
	// Distribution is the law the sizes are drawn from, as the workload
	// gives it ("etc, max: 1MiB").
	Distribution string `json:"distribution"`
	// MaxSize is the largest value the law draws.
	MaxSize int `json:"max_size"`
	// Thresholds are the candidates, ascending: the workload's thresholds,
	// else Ladder's.
	Thresholds []int `json:"thresholds"`
	// Memory is what each candidate needs in registered receive memory at
	// each load, as the measuring side computes it; a candidate missing
	// from it has its memory unknown.
	Memory []Memory `json:"-"`
	// MaxMemory, when positive, rules out the candidates whose server plus
	// client receive memory exceeds it: they are listed, not measured.
	MaxMemory int64 `json:"max_memory,omitempty"`
	// Adaptive measures the adaptive policy in every round beside the
	// candidates, to compare with the chosen one (WorkloadResult.Adaptive).
	Adaptive bool `json:"adaptive,omitempty"`
	// AdaptiveMaxThreshold is the largest threshold the policy may
	// choose (the workload's adaptive.max_threshold); 0:
	// rdmakv.DefaultMaxEager.
	AdaptiveMaxThreshold int `json:"adaptive_max_threshold,omitempty"`
	// AdaptiveSettings says what the workload set of the policy
	// ("adaptive: {explore: 0.05, max_threshold: 16KiB}"); "": rdmakv's
	// defaults.
	AdaptiveSettings string `json:"adaptive_settings,omitempty"`
}

// Memory is the registered receive memory a threshold needs at a load:
// the server's receive buffers and the clients' reply buffers, in bytes.
type Memory struct {
	Load           Load
	Threshold      int
	Server, Client int64
}

// LadderStart is the smallest threshold Ladder proposes.
const LadderStart = 256

// Ladder is the default candidates for a distribution whose largest
// value is maxSize: powers of 4 from LadderStart up to maxSize, at least
// two, none above rdmakv.MaxEagerLimit. It stops at the largest size
// rather than where every value goes eager (key + maxSize + 1): that
// last step costs the most receive memory for the fewest values.
func Ladder(maxSize int) []int {
	out := []int{LadderStart}
	for t := 4 * LadderStart; t <= rdmakv.MaxEagerLimit && (t <= maxSize || len(out) < 2); t *= 4 {
		out = append(out, t)
	}
	return out
}

// memory is w's entry for threshold at l, and whether it has one.
func (w *Workload) memory(l Load, threshold int) (Memory, bool) {
	i := slices.IndexFunc(w.Memory, func(m Memory) bool { return m.Load == l && m.Threshold == threshold })
	if i < 0 {
		return Memory{}, false
	}
	return w.Memory[i], true
}

// ruledOut says the memory limit rules threshold t out at l.
func (w *Workload) ruledOut(l Load, t int) bool {
	m, ok := w.memory(l, t)
	return ok && w.MaxMemory > 0 && m.Server+m.Client > w.MaxMemory
}

// validate reports what is wrong with w.
func (w *Workload) validate() []error {
	var errs []error
	if len(w.Thresholds) < 2 {
		errs = append(errs, fmt.Errorf("%d candidate threshold(s): need at least 2 to choose between", len(w.Thresholds)))
	}
	for _, t := range w.Thresholds {
		if t < 0 || t > rdmakv.MaxEagerLimit {
			errs = append(errs, fmt.Errorf("candidate threshold %d: want 0 to %d", t, rdmakv.MaxEagerLimit))
		}
	}
	if w.MaxMemory < 0 {
		errs = append(errs, fmt.Errorf("max memory %d: want > 0", w.MaxMemory))
	}
	return errs
}

// AddMemory fills w's memory for each candidate, and the adaptive policy
// when compared (AdaptiveThreshold), at each load with receive, what a
// threshold costs in registered receive memory, on keys of keySize
// bytes. On an error (a build without verbs cannot say) the memory stays
// unknown.
func (w *Workload) AddMemory(loads []Load, keySize int, receive func(threshold, keySize, connections, depth int) (server, client int64, err error)) error {
	thresholds := w.Thresholds
	if w.Adaptive {
		thresholds = append(slices.Clone(thresholds), AdaptiveThreshold)
	}
	for _, l := range loads {
		for _, t := range thresholds {
			s, c, err := receive(t, keySize, l.Connections, l.Depth)
			if err != nil {
				w.Memory = nil
				return fmt.Errorf("the receive memory of a threshold is unknown: %w", err)
			}
			w.Memory = append(w.Memory, Memory{Load: l, Threshold: t, Server: s, Client: c})
		}
	}
	return nil
}
