package merge

import (
	"bytes"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// acc accumulates one cell over the ranks.
type acc struct {
	cell      results.Cell
	hist      *hdrhistogram.Histogram
	phases    map[string]*hdrhistogram.Histogram
	log       results.CellLog
	intervals []*hdrhistogram.Histogram
	cpu       cpuAcc
	hw        hwAcc
}

// cells merges every cell any rank measured, in the first rank's order
// with cells only later ranks have after, and warns about the CPU figures
// it had to leave out (cpuAcc) and the device counters it could not have
// from every host (hwAcc).
func cells(parts []Part) ([]results.CellLog, []string, error) {
	var order []string
	byName := map[string]*acc{}
	for _, p := range parts {
		for _, c := range p.Run.Cells {
			a, ok := byName[c.Name()]
			if !ok {
				a = &acc{cell: c, phases: map[string]*hdrhistogram.Histogram{}}
				a.cell.Count, a.cell.Errors, a.cell.ThroughputOps, a.cell.ThroughputBytes = 0, map[string]int64{}, 0, 0
				a.cell.Load.Connections, a.cell.Phases, a.cell.IssueDelay, a.cell.CPU = 0, nil, nil, nil
				a.cell.HWCounters, a.cell.CreditWaits = nil, nil
				byName[c.Name()] = a
				order = append(order, c.Name())
			}
			if err := a.add(p, c); err != nil {
				return nil, nil, err
			}
		}
	}
	// Every rank of the job is here when check found none missing.
	allRanks := len(parts) == parts[0].Run.Rank.Ranks
	out := make([]results.CellLog, 0, len(order))
	var uneven, partialHW []string
	var noServer bool
	for _, name := range order {
		a := byName[name]
		cpu, ok := a.cpu.merged(len(parts), allRanks)
		if !ok {
			uneven = append(uneven, name)
		}
		noServer = noServer || (cpu != nil && cpu.Server == nil && a.cpu.server != nil)
		a.cell.CPU = cpu
		hw, partial := a.hw.merged()
		if partial {
			partialHW = append(partialHW, name)
		}
		a.cell.HWCounters = hw
		cl, err := a.finish()
		if err != nil {
			return nil, nil, err
		}
		out = append(out, cl)
	}
	return out, append(cpuWarnings(uneven, noServer), hwWarnings(partialHW)...), nil
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
	a.cell.IssueDelay = worst(a.cell.IssueDelay, c.IssueDelay)
	a.cpu.add(c.CPU)
	a.hw.add(p.Run, c)
	if c.CreditWaits != nil { // each rank's clients wait on their own
		w := *c.CreditWaits
		if a.cell.CreditWaits != nil {
			w += *a.cell.CreditWaits
		}
		a.cell.CreditWaits = &w
	}
	for name, ph := range c.Phases {
		ph, err := results.DecodeHistogram(ph.Histogram)
		if err != nil {
			return fmt.Errorf("%s: %s phase %s: %w", p.Dir, c.Name(), name, err)
		}
		h := a.phases[name]
		addTo(&h, ph)
		a.phases[name] = h
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

func (a *acc) finish() (results.CellLog, error) {
	c := a.cell
	c.Latency = results.Summarize(a.hist)
	enc, err := results.EncodeHistogram(a.hist)
	if err != nil {
		return results.CellLog{}, err
	}
	c.Histogram = enc
	for name, h := range a.phases {
		enc, err := results.EncodeHistogram(h)
		if err != nil {
			return results.CellLog{}, err
		}
		if c.Phases == nil {
			c.Phases = map[string]results.OpPhase{}
		}
		c.Phases[name] = results.OpPhase{Count: h.TotalCount(), P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90),
			P99: h.ValueAtQuantile(99), Max: h.Max(), Histogram: enc}
	}
	cl := results.CellLog{Cell: c, Intervals: a.intervals}
	if len(a.intervals) > 0 {
		cl.Start = time.UnixMilli(a.intervals[0].StartTimeMs())
	}
	return cl, nil
}

// worst keeps, figure by figure, the larger issue delay: the ranks' own
// histograms of it are not in the results, so the merge reports the
// worst rank's, a bound on any.
func worst(a, b *results.Latency) *results.Latency {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	w := *a
	w.Min, w.Mean, w.Stdev = max(w.Min, b.Min), max(w.Mean, b.Mean), max(w.Stdev, b.Stdev)
	w.P50, w.P90, w.P99 = max(w.P50, b.P50), max(w.P90, b.P90), max(w.P99, b.P99)
	w.P999, w.P9999, w.Max = max(w.P999, b.P999), max(w.P9999, b.P9999), max(w.Max, b.Max)
	return &w
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
