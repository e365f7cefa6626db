package bench

import (
	"context"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// ServerCPU is the Config.ServerCPU of a run against this harness's
// server: the server's process CPU time, which it reports on a STATS
// request. It is nil with an embedded server, whose CPU is this
// process's (Config.CPUProcess).
func (s *Harness) ServerCPU() func(ctx context.Context) (user, sys time.Duration, err error) {
	if s.Baseline != nil {
		return s.Baseline.CPU
	}
	if s.Embedded != nil {
		return nil
	}
	return s.serverCPU
}

// serverCPU asks over a control connection of its own, dialed on first
// use and kept for the run, so that no measured connection carries the
// request and no phase pays for a handshake. A connection that fails is
// dropped and dialed again at the next call.
func (s *Harness) serverCPU(ctx context.Context) (time.Duration, time.Duration, error) {
	s.ctlMu.Lock()
	defer s.ctlMu.Unlock()
	if s.ctl == nil {
		c, err := s.Rdmakv.dial(ctx, 0)
		if err != nil {
			return 0, 0, err
		}
		s.ctl = c
	}
	st, err := s.ctl.ServerStats(ctx)
	if err != nil {
		s.ctl.Close()
		s.ctl = nil
		return 0, 0, err
	}
	return st.CPUUser, st.CPUSys, nil
}

// keepControl keeps c as the control connection against an external
// server, else closes it.
func (s *Harness) keepControl(c *rdmakv.Client) {
	s.ctlMu.Lock()
	defer s.ctlMu.Unlock()
	if s.Embedded != nil || s.ctl != nil {
		c.Close()
		return
	}
	s.ctl = c
}
