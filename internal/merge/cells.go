package merge

import (
	"bytes"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// acc accumulates one cell over the ranks: its latencies, counts and
// rates here, its optional figures as their declarations say (figs, in
// the order of figure.All).
type acc struct {
	cell      results.Cell
	hist      *hdrhistogram.Histogram
	log       results.CellLog
	intervals []*hdrhistogram.Histogram
	figs      []figure.Merger
}

func newAcc(c results.Cell, figs []figure.Figure) *acc {
	a := &acc{cell: c}
	a.cell.Count, a.cell.Errors, a.cell.ThroughputOps, a.cell.ThroughputBytes = 0, map[string]int64{}, 0, 0
	a.cell.Load.Connections = 0
	for _, f := range figs {
		a.figs = append(a.figs, f.Merge.New())
	}
	return a
}

// cells merges every cell any rank measured, in the first rank's order
// with cells only later ranks have after, and warns about the figures it
// had to leave out (figure.Merge.Warn).
func cells(parts []Part) ([]results.CellLog, []string, error) {
	figs := figure.All()
	var order []string
	byName := map[string]*acc{}
	for _, p := range parts {
		for _, c := range p.Run.Cells {
			a, ok := byName[c.Name()]
			if !ok {
				a = newAcc(c, figs)
				byName[c.Name()] = a
				order = append(order, c.Name())
			}
			if err := a.add(p, c); err != nil {
				return nil, nil, err
			}
		}
	}
	// Every rank of the job is here when check found none missing.
	job := figure.Job{Parts: len(parts), AllRanks: len(parts) == parts[0].Run.Rank.Ranks}
	issues := make([]map[string][]string, len(figs))
	out := make([]results.CellLog, 0, len(order))
	for _, name := range order {
		cl, err := byName[name].finish(job, issues)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, cl)
	}
	return out, figureWarnings(figs, issues), nil
}

// figureWarnings are the figures' warnings about what their merge left out,
// given the cells each of their issues came up in.
func figureWarnings(figs []figure.Figure, issues []map[string][]string) []string {
	var out []string
	for i, f := range figs {
		if f.Merge.Warn != nil && len(issues[i]) > 0 {
			out = append(out, f.Merge.Warn(issues[i])...)
		}
	}
	return out
}

// add takes in rank p's figures of the cell.
func (a *acc) add(p Part, c results.Cell) error {
	h, err := results.CellHistogram(c)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Dir, err)
	}
	addTo(&a.hist, h)
	a.cell.Count += c.Count
	for k, n := range c.Errors {
		a.cell.Errors[k] += n
	}
	// Each rank measured its own window; the aggregate rate is the sum.
	a.cell.ThroughputOps += c.ThroughputOps
	a.cell.ThroughputBytes += c.ThroughputBytes
	a.cell.DurationNs = max(a.cell.DurationNs, c.DurationNs)
	a.cell.Load.Connections += c.Load.Connections
	a.cell.Checks = results.MergeChecks(a.cell.Checks, c.Checks)
	for _, f := range a.figs {
		if err := f.Add(p.Run, c); err != nil {
			return fmt.Errorf("%s: %w", p.Dir, err)
		}
	}
	ivs, err := p.intervals(c)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Dir, err)
	}
	for k, iv := range ivs {
		if k == len(a.intervals) {
			m := results.NewHistogram()
			m.SetStartTimeMs(iv.StartTimeMs())
			m.SetEndTimeMs(iv.EndTimeMs())
			a.intervals = append(a.intervals, m)
		}
		// The ranks' k-th intervals cover about the same second (their
		// measure phases start together); the merged one spans them all.
		m := a.intervals[k]
		m.Merge(iv)
		m.SetStartTimeMs(min(m.StartTimeMs(), iv.StartTimeMs()))
		m.SetEndTimeMs(max(m.EndTimeMs(), iv.EndTimeMs()))
	}
	return nil
}

// finish is the merged cell and its interval log, its figures put by
// their accumulators, whose issues it adds to issues (by figure, then
// issue, the cells it came up in).
func (a *acc) finish(job figure.Job, issues []map[string][]string) (results.CellLog, error) {
	c := a.cell
	c.Latency = results.Summarize(a.hist)
	enc, err := results.EncodeHistogram(a.hist)
	if err != nil {
		return results.CellLog{}, err
	}
	c.Histogram = enc
	for i, f := range a.figs {
		found, err := f.Put(&c, job)
		if err != nil {
			return results.CellLog{}, fmt.Errorf("%s: %w", c.Name(), err)
		}
		for _, issue := range found {
			if issues[i] == nil {
				issues[i] = map[string][]string{}
			}
			issues[i][issue] = append(issues[i][issue], c.Name())
		}
	}
	cl := results.CellLog{Cell: c, Intervals: a.intervals}
	if len(a.intervals) > 0 {
		cl.Start = time.UnixMilli(a.intervals[0].StartTimeMs())
	}
	return cl, nil
}

// intervals are the part's interval histograms of cell c.
func (p Part) intervals(c results.Cell) ([]*hdrhistogram.Histogram, error) {
	if p.Hlogs == nil {
		return results.CellIntervals(p.Dir, c)
	}
	b, ok := p.Hlogs[c.Name()]
	if !ok {
		return nil, fmt.Errorf("%s: no interval log", c.Name())
	}
	return results.DecodeHlog(bytes.NewReader(b))
}
