package cli

import (
	"fmt"
	"io"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/benchmetrics"
	"github.com/kvbench/kvbench/internal/metricsrv"
)

// runMetrics is run's --metrics listener, shared by every repeat; nil
// when the flag is unset.
type runMetrics struct {
	srv *metricsrv.Server
	m   *benchmetrics.Metrics
}

// listenRunMetrics binds addr before anything runs, so a bad address
// fails the command at once.
func listenRunMetrics(addr string) (*runMetrics, error) {
	srv, err := metricsrv.Listen("metrics", addr)
	if srv == nil {
		return nil, err
	}
	return &runMetrics{srv: srv}, nil
}

// observe makes cfg's observer report to the metrics too, serving them
// from the first run on (and saying where on out), which name the kind
// of store driven.
func (r *runMetrics) observe(cfg *bench.Config, kind string, out io.Writer) {
	if r == nil {
		return
	}
	var target float64
	if cfg.Load.Mode == "open" && cfg.Load.Ramp == nil {
		target = cfg.Load.Rate
	}
	if r.m == nil {
		r.m = benchmetrics.New(target)
		r.m.Store = kind
		reg := metricsrv.NewRegistry()
		r.m.Register(reg)
		r.srv.Serve(reg)
		fmt.Fprintf(out, "kvbench metrics on http://%s/metrics\n", r.srv.Addr())
	}
	cfg.Observer = r.m.Then(cfg.Observer)
}

func (r *runMetrics) close() error {
	if r == nil {
		return nil
	}
	return r.srv.Close()
}
