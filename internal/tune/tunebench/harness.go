package tunebench

import (
	"slices"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// HarnessWorkload is the workload to open tune's harness for: w with the
// most connections and the deepest depth of c's loads, so that the
// embedded server admits the heaviest load and its staging fits it.
func HarnessWorkload(c *tune.Config, w *workload.Workload) *workload.Workload {
	hw := *w
	for _, l := range c.Loads {
		hw.Load.Connections, hw.Load.Depth = max(hw.Load.Connections, l.Connections), max(hw.Load.Depth, l.Depth)
	}
	return &hw
}

// LimitCells is what c's measurements ask of the server, as cells for
// bench.Harness.Check: every size, preloaded when get is tuned, at the
// deepest load. It has no thresholds: a size whose forced eager threshold
// the server refuses is left unmeasured by design
// (tune.Config.CheckEagerLimit), not an error.
func LimitCells(c *tune.Config, b bench.Config) bench.Config {
	b.Thresholds, b.ValueSizes = nil, c.Sizes
	b.Preload = slices.Contains(c.Ops, rdmakv.OpGet)
	for _, l := range c.Loads {
		b.Load.Depth = max(b.Load.Depth, l.Depth)
	}
	return b
}
