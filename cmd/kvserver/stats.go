package main

import (
	"log/slog"
	"os"
	"os/signal"
	"runtime"

	"github.com/kvbench/kvbench/rdmakv"
)

// logStatsOn logs s's figures each time sig arrives, until the returned
// stop is called: a way to watch a long-running server (and to check it
// for leaks) without a debug port.
func logStatsOn(s *rdmakv.Server, log *slog.Logger, sig os.Signal) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				st := s.Stats()
				log.Info("kvserver stats", "conns", st.Conns, "keys", st.Keys,
					"pool_used", st.PoolUsed, "pool_size", st.PoolSize,
					"goroutines", runtime.NumGoroutine(), "cpu_user", st.CPUUser, "cpu_sys", st.CPUSys)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
