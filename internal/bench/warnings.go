package bench

import "github.com/kvbench/kvbench/internal/results"

// Warnings are the reasons to doubt this measurement taken alone
// (results.CellWarnings: two modes, a p50 far above the minimum, a swing
// in its per-second rates, RNR NAKs or retransmissions on the RDMA
// device). The checks that compare cells of a run need
// the whole run; its writer adds them (results.AddWarnings).
func (m *Measurement) Warnings() []results.Warning {
	c, err := m.Cell()
	if err != nil {
		return nil // no histogram: nothing to judge
	}
	hs, err := DecodeIntervals(m.Intervals)
	if err != nil {
		hs = nil // the rates get no verdict; the rest still does
	}
	return results.CellWarnings(c, m.Start, hs)
}
