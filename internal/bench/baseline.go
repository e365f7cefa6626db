package bench

import (
	"context"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
)

// Baseline is a store other than rdmakv that a run drives with the same
// workload (store.Baseline): its driver registers with internal/store.
type Baseline = store.Baseline

// BaselineConfig is how to reach a baseline and drive its connections.
type BaselineConfig = store.Config

// OpenBaseline connects a control connection to the baseline at c.Addr,
// through the driver registered for c.Kind.
func OpenBaseline(ctx context.Context, c BaselineConfig) (Baseline, error) {
	return store.Open(ctx, c)
}

// baselineCells renames what a baseline's run measured: its cells have no
// threshold (0) and their protocol is the kind, a request and a reply.
func baselineCells(kind string, cells []results.CellLog) {
	for i := range cells {
		c := &cells[i].Cell
		c.Threshold, c.Protocol = 0, kind
		c.Hlog = results.HlogName(*c)
	}
}

// Cells is what a run of c will store, for a baseline's Check.
func (c Config) Cells() store.Cells {
	return store.Cells{KeySize: c.Keys.Size, ValueSizes: c.ValueSizes}
}
