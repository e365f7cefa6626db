package tune

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
)

// Result is a tuning run.
type Result struct {
	Config Config `json:"config"`
	// Objective is what the protocols were compared by.
	Objective Objective `json:"objective"`
	// Build names the program that measured (set by the caller).
	Build Build `json:"build"`
	// Harness is the harness's own cost on the host, measured before the
	// tune began (set by the caller); nil when not measured.
	Harness *results.HarnessCost `json:"harness,omitempty"`
	// Loads hold the comparison at each load, in Config.Loads order.
	Loads []LoadResult `json:"loads"`
	// Recommended is the eager threshold every load agrees on (0 when
	// none was found or the loads disagree).
	Recommended int `json:"recommended_threshold"`
}

// Build identifies the measuring program: its version, git revision and
// the rdmakv protocol version it speaks.
type Build struct {
	Version  string `json:"kvbench_version,omitempty"`
	Revision string `json:"git_revision,omitempty"`
	Protocol int    `json:"protocol_version,omitempty"`
}

// String is "kvbench devel 1a2b3c4, protocol 5".
func (b Build) String() string {
	s := strings.TrimSpace("kvbench " + b.Version + " " + b.Revision)
	if b.Protocol > 0 {
		s += fmt.Sprintf(", protocol %d", b.Protocol)
	}
	return s
}

// LoadResult is the comparison at one load.
type LoadResult struct {
	Load Load       `json:"load"`
	Ops  []OpResult `json:"ops"`
	// Recommended is the eager threshold for this load, the smallest
	// per-op threshold (0 when no op found a crossover); on a
	// distribution, the candidate Workload chose.
	Recommended int `json:"recommended_threshold"`
	// Workload is the tune on a distribution at this load (nil for fixed
	// sizes).
	Workload *WorkloadResult `json:"workload,omitempty"`
}

// recommend sets the load's threshold, the smallest per-op one, and what
// it costs each op whose own threshold is larger.
func (r *LoadResult) recommend(c *Config) {
	for _, o := range r.Ops {
		if o.Found && (r.Recommended == 0 || o.Threshold < r.Recommended) {
			r.Recommended = o.Threshold
		}
	}
	for i := range r.Ops {
		if o := &r.Ops[i]; o.Found && o.Threshold > r.Recommended {
			o.SharedLoss = o.sharedLoss(c.KeySize, r.Recommended)
		}
	}
}

// DecidedBy is the op whose crossover set the load's threshold: the first
// with the smallest per-op threshold (nil when none was found).
func (r *LoadResult) DecidedBy() *OpResult {
	for i := range r.Ops {
		if o := &r.Ops[i]; o.Found && o.Threshold == r.Recommended {
			return o
		}
	}
	return nil
}

// sharedLoss is the most the shared threshold, below o's own, costs o: it
// sends o rendezvous early.
func (o *OpResult) sharedLoss(keySize, shared int) float64 {
	worst := 0.0
	for _, p := range o.Points {
		early := rdmakv.ProtocolAt(shared, keySize, p.Size) == rdmakv.Rendezvous && p.Size < o.Crossover
		if early && p.Ratio > 0 && p.Ratio < 1 {
			worst = math.Max(worst, 1/p.Ratio-1)
		}
	}
	return worst
}

// summarise sets the run's recommendation from its loads': theirs when
// there is one load or all agree, else none.
func (r *Result) summarise() {
	agreed := r.Loads[0].Recommended
	if !slices.ContainsFunc(r.Loads, func(l LoadResult) bool { return l.Recommended != agreed }) {
		r.Recommended = agreed
	}
}
