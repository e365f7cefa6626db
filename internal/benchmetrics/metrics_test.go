package benchmetrics

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/internal/results"
)

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	m.Register(reg)
	fs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]*dto.MetricFamily{}
	for _, f := range fs {
		fams[f.GetName()] = f
	}
	return fams
}

// latencies is a histogram of n operations of 10 µs.
func latencies(t *testing.T, n int) *hdrhistogram.Histogram {
	t.Helper()
	h := results.NewHistogram()
	for range n {
		if err := h.RecordValue(10_000); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// Operations and latencies count as each interval arrives; the phase's
// end adds its failures and counts no operation again.
func TestIntervalsThenMeasured(t *testing.T) {
	m := New(0)
	const labels = "op=get,protocol=eager"
	m.Interval(bench.OpGet, bench.Eager, latencies(t, 3))
	if got := metricstest.Value(t, gather(t, m), "kvbench_operations_total", labels); got != 3 {
		t.Errorf("after one interval: %v operations, want 3", got)
	}
	m.Interval(bench.OpGet, bench.Eager, latencies(t, 4))
	ms := bench.Measurement{Op: bench.OpGet, Protocol: bench.Eager, Count: 7, Hist: latencies(t, 7)}
	ms.Errors[bench.KindNone], ms.Errors[bench.KindTimeout] = 5, 2
	m.Measured([]bench.Measurement{ms})
	fams := gather(t, m)
	for name, want := range map[string]float64{"kvbench_operations_total": 7, "kvbench_latency_seconds": 7, "kvbench_errors_total": 2} {
		if got := metricstest.Value(t, fams, name, labels); got != want {
			t.Errorf("at the phase end %s{%s} = %v, want %v", name, labels, got, want)
		}
	}
}

// The target rate follows the status: a ramp's current step, the
// configured rate before any phase, nothing while preloading.
func TestTargetRate(t *testing.T) {
	m := New(0)
	for _, c := range []struct {
		s    *bench.Status
		want float64
	}{
		{nil, 0},
		{&bench.Status{Phase: "preload"}, 0},
		{&bench.Status{Phase: "measure", Rate: 2000, Elapsed: time.Second}, 2000},
		{&bench.Status{Phase: "measure", Rate: 4000, Elapsed: 2 * time.Second}, 4000},
	} {
		if c.s != nil {
			m.Observe(*c.s)
		}
		if got := metricstest.Value(t, gather(t, m), "kvbench_target_rate", ""); got != c.want {
			t.Errorf("status %+v: target rate %v, want %v", c.s, got, c.want)
		}
	}
	if got := metricstest.Value(t, gather(t, New(500)), "kvbench_target_rate", ""); got != 500 {
		t.Errorf("before any phase: target rate %v, want the configured 500", got)
	}
}
