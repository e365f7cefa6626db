package benchmetrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
)

var (
	adaptiveReqsDesc = desc("adaptive_requests_total", "Requests of adaptive cells' measure phases that succeeded, by operation, size class "+
		"(its lower bound: key plus value from it to twice it, less one) and the protocol they went by, updated each interval.",
		"op", "size_class", "protocol")
	adaptiveThDesc = desc("adaptive_threshold_bytes", "The eager threshold the running adaptive cell's clients chose, by operation "+
		"(the median of the connections'), as its last interval ended.", "op")
)

// adaptKey is one (operation, size class, protocol) of the adaptive
// policy's requests.
type adaptKey struct {
	op    bench.Op
	lower int64
	proto bench.Protocol
}

// Adaptive implements bench.AdaptiveObserver: each interval's requests
// join the run's totals, and its threshold is the op's while the phase
// runs.
func (m *Metrics) Adaptive(op bench.Op, t *results.AdaptiveTimeline) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := len(t.Thresholds) - 1
	if i < 0 {
		return
	}
	m.threshold[op] = t.Thresholds[i]
	for _, k := range t.Classes {
		m.adaptive[adaptKey{op, k.Lower, bench.Eager}] += k.Eager[i]
		m.adaptive[adaptKey{op, k.Lower, bench.Rendezvous}] += k.Rendezvous[i]
	}
}

// collectAdaptive sends the adaptive series; m.mu is held.
func (m *Metrics) collectAdaptive(ch chan<- prometheus.Metric) {
	for k, n := range m.adaptive {
		ch <- prometheus.MustNewConstMetric(adaptiveReqsDesc, prometheus.CounterValue, float64(n),
			k.op.String(), strconv.FormatInt(k.lower, 10), k.proto.String())
	}
	for op, th := range m.threshold {
		ch <- prometheus.MustNewConstMetric(adaptiveThDesc, prometheus.GaugeValue, float64(th), op.String())
	}
}
