package bench

import "github.com/kvbench/kvbench/internal/store"

// Cells is what a run of c asks of the server, for the store's Check.
func (c Config) Cells() store.Cells {
	return store.Cells{
		Keys: c.Keys.Count, KeySize: c.Keys.Size, ValueSizes: c.ValueSizes, Thresholds: c.Thresholds,
		Depth: c.Load.Depth, Preload: c.Preload,
	}
}
