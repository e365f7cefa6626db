package bench

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// Warnings are the reasons to doubt this measurement taken alone
// (results.CellWarnings: two modes, a p50 far above the minimum, a swing
// in its per-second rates, RNR NAKs or retransmissions on the RDMA
// device) and its failed checks (AllChecks), as a run's writer would
// record them. The warnings that compare cells of a run need the whole
// run; its writer adds them (results.AddWarnings).
func (m *Measurement) Warnings() []results.Warning {
	c, hs, ok := m.judged()
	if !ok {
		return nil // no histogram: nothing to judge
	}
	return append(results.CellWarnings(c, m.Start, hs), results.CheckWarnings(allChecks(c, m.Start, hs))...)
}

// AllChecks are every check of this measurement taken alone, as a run's
// writer records them in its cell: the harness's and the host's (Cell)
// and those its own figures decide (results.CellChecks: stationarity,
// precision). None without a histogram.
func (m *Measurement) AllChecks() []results.Check {
	c, hs, ok := m.judged()
	if !ok {
		return nil
	}
	return allChecks(c, m.Start, hs)
}

// judged is m's cell and per-interval histograms, as its checks and
// warnings judge them; ok is false without a histogram.
func (m *Measurement) judged() (results.Cell, []*hdrhistogram.Histogram, bool) {
	c, err := m.Cell()
	if err != nil {
		return c, nil, false
	}
	hs, err := DecodeIntervals(m.Intervals)
	if err != nil {
		hs = nil // the rates get no verdict; the rest still does
	}
	return c, hs, true
}

func allChecks(c results.Cell, start time.Time, hs []*hdrhistogram.Histogram) []results.Check {
	return results.SetChecks(c.Checks, results.CellChecks(c, start, hs))
}

// PhaseWarnings are the warnings of one phase's measurements judged
// together (results.AddWarnings), as a run's writer judges them: an
// adaptive cell's rate is then its op's, both protocols' together.
func PhaseWarnings(ms []Measurement) []results.Warning {
	var logs []results.CellLog
	for i := range ms {
		m := &ms[i]
		c, err := m.Cell()
		if err != nil || m.Count == 0 {
			continue
		}
		hs, err := DecodeIntervals(m.Intervals)
		if err != nil {
			hs = nil // the rates get no verdict; the rest still does
		}
		logs = append(logs, results.CellLog{Cell: c, Start: m.Start, Intervals: hs})
	}
	results.AddWarnings(logs)
	var out []results.Warning
	for _, l := range logs {
		out = append(out, l.Cell.Warnings...)
	}
	return out
}
