package workload

import (
	"time"

	"github.com/kvbench/kvbench/internal/units"
)

// ParseSize reads a byte count as units.ParseBytes does.
func ParseSize(s string) (Size, error) {
	n, err := units.ParseBytes(s)
	return Size(n), err
}

// String writes the size as units.ExactBytes does: 4096 is "4KiB".
func (s Size) String() string { return units.ExactBytes(int64(s)) }

// String is the time.Duration form: "10s", "1m30s".
func (d Duration) String() string { return time.Duration(d).String() }
