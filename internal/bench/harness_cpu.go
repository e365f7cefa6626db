package bench

import (
	"context"
	"time"

	"github.com/kvbench/kvbench/internal/store"
)

// ServerCPU is the Config.ServerCPU of a run against this harness's
// server: the CPU time the server reports (store.CPUReporter). It is nil
// for a store that reports none, and with an embedded server, whose CPU
// is this process's (Config.CPUProcess).
func (s *Harness) ServerCPU() func(ctx context.Context) (user, sys time.Duration, err error) {
	c, ok := s.Store.(store.CPUReporter)
	if !ok || s.Embedded() {
		return nil
	}
	return c.CPU
}
