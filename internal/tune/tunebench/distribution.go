package tunebench

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"

	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/store"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// PredictShare is the least share of the draws a power-of-two size class
// must hold for --predict to measure it on its own.
const PredictShare = 0.01

// distribution is the tune of w's distribution of sizes at loads: its
// candidates (the workload's fixed thresholds, else tune.Ladder's), the
// adaptive policy to compare with them unless p turns it off (its
// "adaptive" threshold asks for no more), what each needs in receive
// memory at each load, and, with p.Predict, the sizes to measure one by
// one for the prediction.
func (p Plan) distribution(w *workload.Workload, loads []tune.Load) (*tune.Workload, []int, error) {
	d := w.Values.Distribution
	law := d.Law()
	if law == nil {
		return nil, nil, errors.New("values.distribution: no law of sizes to draw from")
	}
	wl := &tune.Workload{Distribution: d.Spec, MaxSize: law.Max(), MaxMemory: p.MaxMemory, Adaptive: p.Adaptive == nil || *p.Adaptive,
		AdaptiveMaxThreshold: w.AdaptiveConfig().MaxThreshold, AdaptiveSettings: w.Adaptive.String()}
	for _, t := range w.SortedThresholds() {
		if t != int64(workload.AdaptiveThreshold) {
			wl.Thresholds = append(wl.Thresholds, int(t))
		}
	}
	if len(wl.Thresholds) == 0 {
		wl.Thresholds = tune.Ladder(wl.MaxSize)
	}
	var errs []error
	if err := wl.AddMemory(loads, w.Keys.Size, receiveMemory(w.AdaptiveConfig())); err != nil && p.MaxMemory > 0 {
		errs = append(errs, fmt.Errorf("--max-memory %s: %w", units.Bytes(p.MaxMemory), err))
	}
	var sizes []int
	if p.Predict {
		if sizes = classSizes(law); len(sizes) < 2 {
			errs = append(errs, fmt.Errorf("--predict: %d power-of-two size class(es) hold %g%% or more of %s's values: need 2 to locate a crossover",
				len(sizes), 100*PredictShare, d.Spec))
		}
	}
	return wl, sizes, errors.Join(errs...)
}

// receiveMemory is rdmakvstore.ReceiveMemoryOf at tune's threshold, with
// the adaptive policy's settings a.
func receiveMemory(a rdmakv.AdaptiveConfig) func(threshold, keySize, connections, depth int) (server, client int64, err error) {
	return func(threshold, keySize, connections, depth int) (int64, int64, error) {
		return rdmakvstore.ReceiveMemoryOf(a, storeThreshold(threshold), keySize, connections, depth)
	}
}

// storeThreshold is tune's threshold as the store's dialer takes it:
// tune.AdaptiveThreshold, which imports no store, is
// store.AdaptiveThreshold.
func storeThreshold(t int) int {
	if t == tune.AdaptiveThreshold {
		return store.AdaptiveThreshold
	}
	return t
}

// classSizes are the power-of-two size classes ([1, 1], [2, 3], [4, 7]
// ...) that hold at least PredictShare of law's draws, each by its
// median under law: the sizes that stand for the distribution when it is
// measured one size at a time.
func classSizes(law sizegen.Distribution) []int {
	var out []int
	for c := max(1, law.Min()); c > 0 && c <= law.Max(); c = 1 << bits.Len(uint(c)) {
		top := min(1<<bits.Len(uint(c))-1, law.Max())
		below := law.CDF(c - 1)
		if share := law.CDF(top) - below; share >= PredictShare {
			half := below + share/2
			out = append(out, c+sort.Search(top-c+1, func(i int) bool { return law.CDF(c+i) >= half }))
		}
	}
	return out
}
