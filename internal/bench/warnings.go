package bench

import "github.com/kvbench/kvbench/internal/results"

// Warnings are the reasons to doubt this measurement taken alone
// (results.CellWarnings: two modes, a p50 far above the minimum, a swing
// in its per-second rates, RNR NAKs or retransmissions on the RDMA
// device) and its failed checks (results.CellChecks: stationarity,
// precision), as a run's writer would record them. The warnings that
// compare cells of a run need the whole run; its writer adds them
// (results.AddWarnings).
func (m *Measurement) Warnings() []results.Warning {
	c, err := m.Cell()
	if err != nil {
		return nil // no histogram: nothing to judge
	}
	hs, err := DecodeIntervals(m.Intervals)
	if err != nil {
		hs = nil // the rates get no verdict; the rest still does
	}
	return append(results.CellWarnings(c, m.Start, hs), results.CheckWarnings(results.CellChecks(c, m.Start, hs))...)
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
