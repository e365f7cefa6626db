package rdmakvstore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// CheckLimits reports every cell of cells that a server with limits lim (what
// its HELLO reply announced) cannot run, in one error, so that a run fails
// before it measures rather than at its first impossible cell. A cell is a
// (threshold, value size); problems that rule out every cell (the key size,
// the depth) are said once. A config without thresholds has its value
// sizes checked alone (tune, which places its own thresholds). A run
// whose values' sizes follow a distribution has its largest size held
// against the server's max value, and its mean against the pool.
func CheckLimits(cells store.Cells, lim rdmakv.Limits) error {
	var errs []error
	switch {
	case cells.KeySize <= lim.MaxKey:
	case cells.KeyDistribution != "":
		errs = append(errs, fmt.Errorf("keys.size %s draws keys of up to %d bytes, above the server's max key %d, so it would refuse those: give keys.size a max of at most %dB or raise kvserver --max-key",
			cells.KeyDistribution, cells.KeySize, lim.MaxKey, lim.MaxKey))
	default:
		errs = append(errs, fmt.Errorf("keys.size %d is above the server's max key %d, so it refuses every operation: lower keys.size or raise kvserver --max-key",
			cells.KeySize, lim.MaxKey))
	}
	if d := cells.Depth; lim.MaxInflight > 0 && d > lim.MaxInflight {
		errs = append(errs, fmt.Errorf("load.depth %d is above the server's %d requests in flight per connection, so workers would queue for a free slot and every cell would measure that wait: lower load.depth (--depth) or raise kvserver --recv-depth",
			d, lim.MaxInflight))
	}
	values := "values " + byteList(cells.ValueSizes)
	if d := cells.Distribution; d != "" {
		values = "values of values.distribution " + d
	}
	for _, t := range cells.Thresholds {
		if t > lim.MaxEager {
			errs = append(errs, thresholdProblem(t, values, lim))
		}
	}
	for _, s := range cells.ValueSizes {
		if err := sizeProblem(cells, s, lim); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// thresholdProblem is a threshold the server refuses at HELLO: none of its
// cells can run.
func thresholdProblem(t int, values string, lim rdmakv.Limits) error {
	fix := fmt.Sprintf("raise kvserver --max-eager to %s or take it out of the workload's thresholds", units.Bytes(int64(t)))
	if t > rdmakv.MaxEagerLimit {
		fix = fmt.Sprintf("take it out of the workload's thresholds (no server takes a max eager above %s)", units.Bytes(rdmakv.MaxEagerLimit))
	}
	return fmt.Errorf("threshold %s is above the server's max eager %s, so the server refuses its connections and none of its cells can run (%s): %s",
		units.Bytes(int64(t)), units.Bytes(int64(lim.MaxEager)), values, fix)
}

// sizeProblem is a value size the server cannot take, or cannot hold
// keys.count of for the preload: its cells at every threshold fail.
func sizeProblem(c store.Cells, s int, lim rdmakv.Limits) error {
	cells := ""
	if len(c.Thresholds) > 0 {
		cells = fmt.Sprintf(", so its cells at thresholds %s cannot run", byteList(c.Thresholds))
	}
	if d := c.Distribution; d != "" {
		return distributionProblem(c, s, lim, cells)
	}
	if int64(s) > lim.MaxValue {
		return fmt.Errorf("value size %s is above the server's max value %s%s: lower the workload's values or raise kvserver --max-value (at most its --pool-size)",
			units.Bytes(int64(s)), units.Bytes(lim.MaxValue), cells)
	}
	// Only what cannot fit in any case: the pool's block rounding and
	// fragmentation make the real need larger.
	if need := int64(c.Keys) * int64(s); c.Preload && need > lim.PoolSize {
		return fmt.Errorf("preloading keys.count %d values of %s needs %s (%d bytes), above the server's pool of %s (%d bytes)%s: lower keys.count or the value size, or raise kvserver --pool-size",
			c.Keys, units.Bytes(int64(s)), units.Bytes(need), need, units.Bytes(lim.PoolSize), lim.PoolSize, cells)
	}
	return nil
}

// distributionProblem is sizeProblem for values whose sizes follow the
// distribution c.Distribution, up to largest: one the server refuses
// would fail wherever it is drawn, and a preload whose expected size is
// above the pool cannot fit.
func distributionProblem(c store.Cells, largest int, lim rdmakv.Limits, cells string) error {
	if int64(largest) > lim.MaxValue {
		return fmt.Errorf("values.distribution %s draws values up to %s, above the server's max value %s%s: give the distribution a lower max or raise kvserver --max-value (at most its --pool-size)",
			c.Distribution, units.Bytes(int64(largest)), units.Bytes(lim.MaxValue), cells)
	}
	if need := float64(c.Keys) * c.MeanValue; c.Preload && need > float64(lim.PoolSize) {
		return fmt.Errorf("preloading keys.count %d values of values.distribution %s, %s on average, needs about %s, above the server's pool of %s (%d bytes)%s: lower keys.count or the sizes, or raise kvserver --pool-size",
			c.Keys, c.Distribution, units.Bytes(int64(c.MeanValue)), units.Bytes(int64(need)), units.Bytes(lim.PoolSize), lim.PoolSize, cells)
	}
	return nil
}

func byteList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = units.Bytes(int64(n))
	}
	return strings.Join(s, ", ")
}
