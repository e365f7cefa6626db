package workload

import (
	"strconv"
	"time"

	"github.com/kvbench/kvbench/internal/store"

	"github.com/kvbench/kvbench/internal/units"
)

// ParseSize reads a byte count as units.ParseBytes does.
func ParseSize(s string) (Size, error) {
	n, err := units.ParseBytes(s)
	return Size(n), err
}

// String writes the size as units.ExactBytes does: 4096 is "4KiB".
func (s Size) String() string { return units.ExactBytes(int64(s)) }

// Threshold is an eager threshold in bytes, or AdaptiveThreshold.
type Threshold int64

// AdaptiveThreshold is the threshold "adaptive": its cell's clients
// choose each request's protocol per size class from the latencies they
// measure (rdmakv.WithAdaptiveThreshold).
const AdaptiveThreshold = Threshold(store.AdaptiveThreshold)

// AdaptiveName is AdaptiveThreshold in YAML and results.
const AdaptiveName = "adaptive"

// String is the size as Size writes it, or "adaptive".
func (t Threshold) String() string {
	if t == AdaptiveThreshold {
		return AdaptiveName
	}
	return Size(t).String()
}

// MarshalJSON writes the size in bytes, or "adaptive".
func (t Threshold) MarshalJSON() ([]byte, error) {
	if t == AdaptiveThreshold {
		return []byte(`"` + AdaptiveName + `"`), nil
	}
	return []byte(strconv.FormatInt(int64(t), 10)), nil
}

// String is the time.Duration form: "10s", "1m30s".
func (d Duration) String() string { return time.Duration(d).String() }
