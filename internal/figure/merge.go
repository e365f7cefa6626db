package figure

import (
	"github.com/kvbench/kvbench/internal/results"
)

// Merge is how kvbench merge makes a merged cell's figure from the ranks'
// figures of that cell.
type Merge struct {
	// New starts one cell's accumulator.
	New func() Merger
	// Warn turns the issues the cells' accumulators reported, each with
	// the names of the cells it came up in (in the merged run's order),
	// into the merge's warnings; nil when Put reports none.
	Warn func(issues map[string][]string) []string
}

// Merger accumulates one cell's figure over the ranks.
type Merger interface {
	// Add takes in one rank's cell, and the rank's run it came from.
	Add(rank *results.Run, c results.Cell) error
	// Put sets the merged figure in c, absent when the merge has none,
	// and names what it had to leave out (issues for Merge.Warn).
	Put(c *results.Cell, job Job) (issues []string, err error)
}

// Job is what the merge knows of the ranks it merges.
type Job struct {
	// Parts counts the ranks merged.
	Parts int
	// AllRanks: every rank of the job is merged.
	AllRanks bool
}

// Sum merges a count each rank makes on its own: the merged figure is the
// ranks' sum, a rank without it adding nothing, and absent when no rank
// has it. field is where the cell keeps it.
func Sum(field func(*results.Cell) **uint64) Merge {
	return Merge{New: func() Merger { return &sum{field: field} }}
}

type sum struct {
	field func(*results.Cell) **uint64
	n     *uint64
}

func (s *sum) Add(_ *results.Run, c results.Cell) error {
	if v := *s.field(&c); v != nil {
		n := *v
		if s.n != nil {
			n += *s.n
		}
		s.n = &n
	}
	return nil
}

func (s *sum) Put(c *results.Cell, _ Job) ([]string, error) {
	*s.field(c) = s.n
	return nil, nil
}
