package bench

import (
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Record describes a finished run for its results directory: what
// results.json says about the run, the host and the link, and each cell
// with its interval histograms. runErr is the error Run returned, if any.
func (s *Harness) Record(w any, seed uint64, rep *Report, runErr error, version, revision string) (*results.Run, []results.CellLog, error) {
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, Workload: w, Seed: seed, Version: version, Revision: revision,
		Protocol: wire.ProtocolVersion,
		Start:    rep.Start, End: rep.End, EndReason: results.EndCompleted, Host: s.host,
		Target:    &results.Target{Kind: s.Kind(), ServerVersion: s.version},
		Transport: s.link(),
		Verify: results.VerifyCounts{Checked: rep.Verify.Checked, Mismatches: rep.Verify.Mismatches,
			Missing: rep.Verify.Missing, Torn: rep.Verify.Torn},
	}
	switch {
	case runErr != nil:
		run.EndReason = results.EndError(runErr.Error())
	case rep.Interrupted:
		run.EndReason = results.EndInterrupted
	}
	cells, err := rep.CellLogs()
	if s.Baseline != nil {
		run.Protocol = 0 // rdmakv's, not spoken
		baselineCells(s.Kind(), cells)
	}
	return run, cells, err
}

// link is results.json's transport section: the client's link as its
// first connection reported it and, for an embedded server, how it polls.
func (s *Harness) link() results.Transport {
	t := results.Transport{Name: s.Transport(), Server: s.Addr(), Embedded: s.Embedded != nil}
	if t.Name == rdmakv.TransportTCP {
		t.ClientSockets = results.SocketsPoller
		if s.blocking {
			t.ClientSockets = results.SocketsBlocking
		}
	}
	if s.Baseline != nil {
		return t
	}
	if s.Embedded != nil {
		t.ServerPoll = s.Embedded.Info().Poll.String()
	}
	info, lim, ok := s.Rdmakv.Info()
	if !ok {
		return t
	}
	t.Link = info.Link
	t.ClientPoll = info.Poll.String()
	t.Limits = &results.ServerLimits{MaxEager: lim.MaxEager, MaxKey: lim.MaxKey, MaxValue: lim.MaxValue,
		PoolSize: lim.PoolSize, LeaseNs: int64(lim.Lease), MaxInflight: lim.MaxInflight}
	return t
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
