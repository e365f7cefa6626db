package tune

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kvbench/kvbench/internal/units"
)

// SLO is a latency goal: the Percentile of latency (coordinated-omission
// corrected) at or below Goal nanoseconds.
type SLO struct {
	Percentile float64 `json:"percentile"`
	Goal       float64 `json:"goal_ns"`
}

// SLOPercentiles are the percentiles a goal may name.
var SLOPercentiles = []float64{50, 90, 99, 99.9}

// ParseSLO reads a goal written "p99=500us" (p50, p90, p99 or p99.9; a
// Go duration).
func ParseSLO(s string) (*SLO, error) {
	name, goal, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(name, "p") {
		return nil, fmt.Errorf("latency goal %q: want PERCENTILE=DURATION, e.g. p99=500us", s)
	}
	pct, err := strconv.ParseFloat(name[1:], 64)
	known := false
	for _, p := range SLOPercentiles {
		known = known || p == pct
	}
	if err != nil || !known {
		return nil, fmt.Errorf("latency goal %q: percentile %q: want p50, p90, p99 or p99.9", s, name)
	}
	d, err := time.ParseDuration(goal)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("latency goal %q: duration %q: want a positive duration such as 500us or 2ms", s, goal)
	}
	return &SLO{Percentile: pct, Goal: float64(d)}, nil
}

// String is "p99 <= 500µs".
func (s *SLO) String() string {
	return "p" + strconv.FormatFloat(s.Percentile, 'f', -1, 64) + " <= " + units.Duration(s.Goal)
}

// latency is s's percentile of sm.
func (s *SLO) latency(sm Sample) float64 {
	switch s.Percentile {
	case 50:
		return sm.P50
	case 90:
		return sm.P90
	case 99:
		return sm.P99
	}
	return sm.P999
}

// MinOps is the fewest operations a measurement needs to judge the goal.
func (s *SLO) MinOps() int64 { return MinOps(s.Percentile) }
