package figure

import "github.com/kvbench/kvbench/internal/results"

// CreditWaits (rdmakv) are the clients' messages that waited for the
// server's credit over the cell's measure phase (results.Cell.CreditWaits).
// Each rank's clients wait on their own connections, so the ranks' waits
// add.
var CreditWaits = Figure{
	Name:  "credit_waits",
	Unit:  "messages",
	Has:   func(c results.Cell) bool { return c.CreditWaits != nil },
	Merge: Sum(func(c *results.Cell) **uint64 { return &c.CreditWaits }),
}

// IssueDelay (open loop) summarises how late the harness issued the
// cell's operations (results.Cell.IssueDelay). The ranks' own histograms
// of it are not in the results, so the merge keeps the worst rank's,
// figure by figure: a bound on any.
var IssueDelay = Figure{
	Name:  "issue_delay_ns",
	Unit:  NS,
	Has:   func(c results.Cell) bool { return c.IssueDelay != nil },
	Merge: Merge{New: func() Merger { return &worst{} }},
}

type worst struct{ l *results.Latency }

func (w *worst) Add(_ *results.Run, c results.Cell) error {
	b := c.IssueDelay
	switch {
	case b == nil:
		return nil
	case w.l == nil:
		v := *b
		w.l = &v
		return nil
	}
	l := w.l
	l.Min, l.Mean, l.Stdev = max(l.Min, b.Min), max(l.Mean, b.Mean), max(l.Stdev, b.Stdev)
	l.P50, l.P90, l.P99 = max(l.P50, b.P50), max(l.P90, b.P90), max(l.P99, b.P99)
	l.P999, l.P9999, l.Max = max(l.P999, b.P999), max(l.P9999, b.P9999), max(l.Max, b.Max)
	return nil
}

func (w *worst) Put(c *results.Cell, _ Job) ([]string, error) {
	c.IssueDelay = w.l
	return nil, nil
}
