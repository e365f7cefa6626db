package cli

import (
	"context"
	"io"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/internal/workload"
)

// BenchmarkRunMetrics is a closed-loop run of b.N operations against a
// fake target that stores nothing, so that ns/op is the harness's own
// per-operation cost, the smallest figure metrics could add to. One
// worker: with one per CPU the figure moved by half from run to run. The
// scrapes then run beside it, and show as what they do to its CPU's
// caches, the scheduler and the heap. off: run --quiet; on: run --quiet
// --metrics, its registry scraped every metricstest.Interval (10 ms)
// throughout, and its observer told the progress that often, where run
// does every 250 ms or 1 s.
func BenchmarkRunMetrics(b *testing.B) {
	metricstest.OffOn(b, func(b *testing.B, on bool) {
		cfg := bench.Config{
			Seed:       1,
			Keys:       workload.Keys{Count: 1000, Size: 16, Distribution: "uniform"},
			ValueSizes: []int{64},
			Thresholds: []int{4096},
			Mix:        workload.Mix{Get: 0.9, Set: 0.1},
			Measure:    workload.Phase{Ops: int64(b.N)},
			Load:       workload.Load{Mode: "closed", Connections: 1, Depth: 1},
			Dialer:     &benchtest.Fake{NoStore: true},
			Codec:      bench.Values{},
			Tick:       *metricstest.Interval,
		}
		if on {
			m, err := listenRunMetrics("127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer m.close()
			m.observe(&cfg, "", io.Discard)
			stop := metricstest.ScrapeEvery(b, m.srv.Addr(), *metricstest.Interval)
			defer func() { b.ReportMetric(float64(stop()), "scrapes") }()
		}
		b.ResetTimer()
		rep, err := bench.Run(context.Background(), cfg)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for _, m := range rep.Measurements {
			n += m.Count
		}
		if n != int64(b.N) {
			b.Fatalf("the run measured %d operations, want %d", n, b.N)
		}
	})
}
