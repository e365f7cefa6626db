package tune

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kvbench/kvbench/internal/units"
)

// Load is one load at which tune compares the protocols: Connections x
// Depth requests in flight in a closed loop, or an open loop at Rate
// ops/s over all connections.
type Load struct {
	Connections int     `json:"connections"`
	Depth       int     `json:"depth"`
	Rate        float64 `json:"rate_ops,omitempty"`
}

// Open says the load is an open loop.
func (l Load) Open() bool { return l.Rate > 0 }

// String names the load for people: "1 connection", "16 connections x
// depth 8", "4 connections at 5000 ops/s".
func (l Load) String() string {
	s := units.Plural(l.Connections, "connection")
	if l.Depth != 1 {
		s += " x depth " + strconv.Itoa(l.Depth)
	}
	if l.Open() {
		s += " at " + units.Rate(l.Rate) + " ops/s"
	}
	return s
}

// Label names the load in file names and map columns: "c1", "c16d8",
// "c4r5000".
func (l Load) Label() string {
	s := "c" + strconv.Itoa(l.Connections)
	if l.Depth != 1 {
		s += "d" + strconv.Itoa(l.Depth)
	}
	if l.Open() {
		s += "r" + strconv.FormatFloat(math.Round(l.Rate), 'f', -1, 64)
	}
	return s
}

// validate reports what is wrong with l.
func (l Load) validate() error {
	switch {
	case l.Connections < 1:
		return fmt.Errorf("load %s: connections %d: want >= 1", l.Label(), l.Connections)
	case l.Depth < 1:
		return fmt.Errorf("load %s: depth %d: want >= 1", l.Label(), l.Depth)
	case l.Rate < 0:
		return fmt.Errorf("load %s: rate %g: want > 0 for an open loop, 0 for a closed one", l.Label(), l.Rate)
	}
	return nil
}

// Loads is the cross product of connection counts, depths and rates (no
// rates: closed loops), in that order of nesting, connections outermost.
func Loads(connections, depths []int, rates []float64) []Load {
	if len(rates) == 0 {
		rates = []float64{0}
	}
	var out []Load
	for _, c := range connections {
		for _, d := range depths {
			for _, r := range rates {
				out = append(out, Load{Connections: c, Depth: d, Rate: r})
			}
		}
	}
	return out
}
