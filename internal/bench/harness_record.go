package bench

import (
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
)

// Record describes a finished run for its results directory: what
// results.json says about the run, the host and the link, and each cell
// with its interval histograms, named by the store it measured.
// runErr is the error Run returned, if any.
func (s *Harness) Record(w any, seed uint64, rep *Report, runErr error, version, revision string) (*results.Run, []results.CellLog, error) {
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, Workload: w, Seed: seed, Version: version, Revision: revision,
		Start: rep.Start, End: rep.End, EndReason: results.EndCompleted, Host: s.host, Harness: s.cost,
		Target:    &results.Target{Kind: s.Kind(), ServerVersion: s.version, Profile: s.profile},
		Transport: s.Link(),
		Verify: results.VerifyCounts{Checked: rep.Verify.Checked, Mismatches: rep.Verify.Mismatches,
			Missing: rep.Verify.Missing, Torn: rep.Verify.Torn},
	}
	if p, ok := s.Store.(store.ProtocolVersioner); ok {
		run.Protocol = p.ProtocolVersion()
	}
	switch {
	case runErr != nil:
		run.EndReason = results.EndError(runErr.Error())
	case rep.Interrupted:
		run.EndReason = results.EndInterrupted
	}
	cells, err := rep.CellLogs()
	for i := range cells {
		c := &cells[i].Cell
		c.Store = s.Kind()
		if s.profile != "" {
			c.Policy = results.PolicyProfile
		}
		c.Hlog = results.HlogName(*c)
	}
	return run, cells, err
}

// CellLogs is each measured cell with its interval histograms, in order.
func (r *Report) CellLogs() ([]results.CellLog, error) {
	out := make([]results.CellLog, 0, len(r.Measurements))
	for i := range r.Measurements {
		m := &r.Measurements[i]
		c, err := m.Cell()
		if err != nil {
			return nil, err
		}
		hs, err := DecodeIntervals(m.Intervals)
		if err != nil {
			return nil, err
		}
		out = append(out, results.CellLog{Cell: c, Start: m.Start, Intervals: hs})
	}
	return out, nil
}
