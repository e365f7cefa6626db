package tune

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// Objective is what a protocol wins a size by.
type Objective string

// Objectives. Capacity is the objective of a search under a latency goal
// (Config.SLO); the others are chosen with --objective.
const (
	ObjP50        Objective = "p50"
	ObjP99        Objective = "p99"
	ObjThroughput Objective = "throughput"
	ObjCPU        Objective = "cpu"
	ObjCapacity   Objective = "capacity"
)

// Objectives lists what --objective accepts.
var Objectives = []Objective{ObjP50, ObjP99, ObjThroughput, ObjCPU}

// CPU sides the cpu objective compares.
const (
	CPUServer = "server"
	CPUClient = "client"
)

// TailSamples is how many operations must lie beyond a percentile for
// tune to compare it: with fewer, one or two stray operations decide it.
// A p99 therefore needs 2000 operations per measurement.
const TailSamples = 20

// MinOps is the fewest operations a measurement needs for its percentile
// pct (e.g. 99) to be compared: TailSamples beyond it.
func MinOps(pct float64) int64 {
	// The rounding keeps 20/(1-0.999) at 20000, not 20001.
	return int64(math.Ceil(math.Round(1e6*TailSamples/(1-pct/100)) / 1e6))
}

// ParseObjective checks an --objective value.
func ParseObjective(s string) (Objective, error) {
	for _, o := range Objectives {
		if string(o) == s {
			return o, nil
		}
	}
	names := make([]string, len(Objectives))
	for i, o := range Objectives {
		names[i] = string(o)
	}
	return "", fmt.Errorf("objective %q: want one of %s", s, strings.Join(names, ", "))
}

// Higher says a larger value is better.
func (o Objective) Higher() bool { return o == ObjThroughput || o == ObjCapacity }

// percentile is the latency percentile the objective compares (0: none).
func (o Objective) percentile() float64 {
	switch o {
	case ObjP50:
		return 50
	case ObjP99:
		return 99
	}
	return 0
}

// value is o's figure in s, and whether s has it; side is the cpu
// objective's side. A process-scope sample has one CPU figure for both
// sides.
func (o Objective) value(s Sample, side string) (float64, bool) {
	switch o {
	case ObjP50:
		return s.P50, s.P50 > 0
	case ObjP99:
		return s.P99, s.P99 > 0
	case ObjThroughput:
		return s.OpsPerSec, s.OpsPerSec > 0
	case ObjCapacity:
		return s.Capacity, true
	case ObjCPU:
		switch {
		case s.CPUScope == "":
			return 0, false
		case side == CPUClient || s.CPUScope == results.CPUScopeProcess:
			return s.ClientCPU, true
		}
		return s.ServerCPU, s.ServerCPU > 0 // 0: the server did not report
	}
	return 0, false
}

// better says a beats b.
func (o Objective) better(a, b float64) bool {
	if o.Higher() {
		return a > b
	}
	return a < b
}

// ratio is eager's value against rendezvous's such that above 1
// rendezvous is better: eager/rendezvous for costs, rendezvous/eager for
// rates (0 when undefined).
func (o Objective) ratio(eager, rdv float64) float64 {
	if o.Higher() {
		eager, rdv = rdv, eager
	}
	if rdv <= 0 {
		return 0
	}
	return eager / rdv
}

// ObjectiveName says what is compared, for tables, verdicts and errors:
// "p50", "server CPU per op", "capacity at p99 <= 500µs".
func (c *Config) ObjectiveName() string {
	switch o := c.objective(); o {
	case ObjThroughput:
		return "throughput"
	case ObjCPU:
		return c.cpuSide() + " CPU per op"
	case ObjCapacity:
		return "capacity at " + c.SLO.String()
	default:
		return string(o)
	}
}
