package benchmetrics

import (
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/internal/results"
)

// Each interval an adaptive phase's sampler closes adds its requests by
// op, class and protocol, and sets the op's threshold, which the next
// phase's start takes back; the requests stay, counted for the run.
func TestAdaptiveMetrics(t *testing.T) {
	m := New(0)
	tl := &results.AdaptiveTimeline{Thresholds: []int64{4096},
		Classes: []results.AdaptiveClass{{Lower: 2048, Upper: 4096, Eager: []uint64{30}, Rendezvous: []uint64{2}}}}
	m.Adaptive(bench.OpSet, tl)
	tl.Thresholds = append(tl.Thresholds, 1024)
	tl.Classes[0].Eager, tl.Classes[0].Rendezvous = append(tl.Classes[0].Eager, 1), append(tl.Classes[0].Rendezvous, 40)
	m.Adaptive(bench.OpSet, tl)
	fams := gather(t, m)
	for labels, want := range map[string]float64{"op=set,protocol=eager,size_class=2048": 31, "op=set,protocol=rendezvous,size_class=2048": 42} {
		if got := metricstest.Value(t, fams, "kvbench_adaptive_requests_total", labels); got != want {
			t.Errorf("kvbench_adaptive_requests_total{%s} = %v, want %v", labels, got, want)
		}
	}
	if got := metricstest.Value(t, fams, "kvbench_adaptive_threshold_bytes", "op=set"); got != 1024 {
		t.Errorf("threshold %v, want the last interval's 1024", got)
	}
	m.Observe(bench.Status{Event: bench.PhaseStart, Phase: "warmup"})
	fams = gather(t, m)
	if _, ok := fams["kvbench_adaptive_threshold_bytes"]; ok {
		t.Error("a threshold outlived its phase")
	}
	if got := metricstest.Value(t, fams, "kvbench_adaptive_requests_total", "op=set,protocol=eager,size_class=2048"); got != 31 {
		t.Errorf("after the phase, %v eager requests, want the run's 31", got)
	}
}
