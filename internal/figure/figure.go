// Package figure declares the optional figures of a cell (results.Cell):
// what a run measures of a cell beside its latency and throughput, such
// as the CPU time per operation, the phases of an operation, or the
// messages that waited for the server's credit. Each Figure says once
// what the figure is and how every reader treats it: how kvbench merge
// combines the ranks' figures (Merge), how compare sets two sides' side
// by side (Compare), how report prints it (Report) and whether and how
// plot draws it (Plot). Those packages iterate All and name no figure.
//
// A new figure is the code that measures it (a field of results.Cell the
// harness fills in, and its check in results if a reader could not make
// sense of every value) and its declaration here, added to declared.
package figure

import (
	"fmt"
	"slices"
	"sync"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Figure declares one optional figure of a cell.
type Figure struct {
	// Name is the figure's key in results.json ("cpu", "phases"); it also
	// names the figure in compare's JSON and in plot's file names.
	Name string
	// Unit is what the figure's numbers count: NS for nanoseconds, which
	// report and plot print as durations, or a noun ("messages").
	Unit string
	// Has says whether the cell carries the figure.
	Has func(results.Cell) bool
	// Merge is how the ranks' figures of one cell make the merged cell's.
	Merge Merge
	// Compare is how compare sets the figure of two sides side by side;
	// nil when it does not.
	Compare *Compare
	// Report is how report prints the figure; empty when it does not.
	Report Report
	// Plot is the figure plot draws of it per op; nil when none.
	Plot Plot
}

// NS is the unit of nanoseconds: report and plot print such figures as
// durations.
const NS = "ns"

// Bytes is the unit of byte counts: printed with binary prefixes (4KiB).
const Bytes = "bytes"

var (
	mu sync.RWMutex
	// declared are the figures in the order readers take them: report's
	// columns and notes, compare's, merge's warnings and plot's figures
	// follow it.
	declared = []Figure{CPU, Phases, IssueDelay, HWCounters, CreditWaits, ReceiveMemory, SizeClasses, Sizes, Adaptive, Ended}
)

// All are the declared figures, in order.
func All() []Figure {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(declared)
}

// Lookup is the declared figure named name.
func Lookup(name string) (Figure, bool) {
	for _, f := range All() {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

// Register declares f after the others, for a figure measured outside
// this package (a test's); unregister takes it back. It panics when f
// lacks a name, Has or Merge, or its name is taken.
func Register(f Figure) (unregister func()) {
	if f.Name == "" || f.Has == nil || f.Merge.New == nil {
		panic(fmt.Sprintf("figure %q: a figure needs a name, Has and Merge.New", f.Name))
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.ContainsFunc(declared, func(g Figure) bool { return g.Name == f.Name }) {
		panic(fmt.Sprintf("figure %q is declared twice", f.Name))
	}
	declared = append(slices.Clip(declared), f)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		declared = slices.DeleteFunc(slices.Clone(declared), func(g Figure) bool { return g.Name == f.Name })
	}
}

// Any says whether some cell of cells has f.
func (f Figure) Any(cells []results.Cell) bool { return slices.ContainsFunc(cells, f.Has) }

// Text prints a number in the figure's unit for people: a duration for
// NS, a size for Bytes, else three significant digits with an SI suffix
// (12.3k).
func (f Figure) Text(v float64) string {
	switch f.Unit {
	case NS:
		return units.Duration(v)
	case Bytes:
		return units.Bytes(int64(v))
	}
	return units.Rate(v)
}
