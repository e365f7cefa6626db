package tune

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// EagerThreshold is the eager threshold that forces eager for a value of
// size bytes under a key of keySize bytes (rdmakv.EagerThresholdFor).
func EagerThreshold(keySize, size int) int { return rdmakv.EagerThresholdFor(keySize, size) }

// MaxEagerThreshold is the largest threshold c's measurements force,
// eager at the largest size or, on a distribution, the largest
// candidate measured at some load, or the adaptive policy's largest when
// it is compared (on a distribution or on fixed sizes): the max eager a server needs to measure eager wherever
// rendezvous is. The policy asks for as much as kvbench run gives its
// cells, so that it has the range its receive memory is shown for.
func (c *Config) MaxEagerThreshold() int {
	most := 0
	if len(c.Sizes) > 0 {
		most = EagerThreshold(c.KeySize, slices.Max(c.Sizes))
	}
	if w := c.Workload; w != nil {
		for _, t := range w.Thresholds {
			if slices.ContainsFunc(c.loads(), func(l Load) bool { return !w.ruledOut(l, t) }) {
				most = max(most, t)
			}
		}
		if w.Adaptive {
			most = max(most, cmp.Or(w.AdaptiveMaxThreshold, rdmakv.DefaultMaxEager))
		}
	}
	if c.Adaptive {
		most = max(most, rdmakv.DefaultMaxEager)
	}
	return most
}

// MaxValue is the largest value c's measurements write.
func (c *Config) MaxValue() int {
	most := 0
	if len(c.Sizes) > 0 {
		most = slices.Max(c.Sizes)
	}
	if c.Workload != nil {
		most = max(most, c.Workload.MaxSize)
	}
	return most
}

// CheckEagerLimit fails, naming the sizes, when forcing eager at some size
// needs an eager threshold (key + size + 1) above maxEager, the largest the
// server can accept: eager could not be measured there. tune checks this
// up front against the embedded server, whose max eager it raises to the
// largest threshold it needs, so that eager is measured wherever
// rendezvous is.
func (c *Config) CheckEagerLimit(maxEager int) error {
	var over []int
	for _, s := range c.Sizes {
		if EagerThreshold(c.KeySize, s) > maxEager {
			over = append(over, s)
		}
	}
	if len(over) == 0 {
		return nil
	}
	slices.Sort(over)
	return fmt.Errorf("value size %s needs eager threshold %d (%d-byte key + value + 1) to force eager, above the server's largest max eager %d (%s), so eager could not be measured at %s: keep values at or below %d bytes",
		units.Bytes(int64(over[0])), EagerThreshold(c.KeySize, over[0]), c.KeySize, maxEager, units.Bytes(int64(maxEager)),
		units.Sizes(slices.Compact(over)), rdmakv.LargestEagerValue(maxEager, c.KeySize))
}
