package bench

import "github.com/kvbench/kvbench/internal/store"

// Cells is what a run of c asks of the server, for the store's Check.
// With a law of sizes (Sizes) its largest size stands for the values,
// and its mean for what the preload writes; with a law of key sizes
// (Keys.SizeLaw), keys.size is its longest key.
func (c Config) Cells() store.Cells {
	cells := store.Cells{
		Keys: c.Keys.Count, KeySize: c.Keys.Size, ValueSizes: c.ValueSizes, Thresholds: c.Thresholds,
		Depth: c.Load.Depth, Preload: c.Preload,
	}
	if d := c.Keys.SizeDistribution; d != nil {
		cells.KeyDistribution = d.Spec
	}
	if c.Sizes != nil {
		cells.ValueSizes = []int{c.Sizes.Max()}
		cells.Distribution, cells.MeanValue = c.SizesSpec, c.Sizes.Mean()
	}
	if c.Trace != nil {
		// The trace's keys are not keys.count's, nor its sizes the
		// preload's: only the largest value of its checked lines is known.
		cells.ValueSizes, cells.Preload = []int{c.Trace.maxValue}, false
	}
	return cells
}
