// Package benchmetrics exposes a running kvbench as Prometheus metrics: it
// is a bench.Observer, so it learns what the progress display learns,
// when the progress display learns it, and never runs on a worker's path.
package benchmetrics

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kvbench/kvbench/internal/bench"
)

// Metrics collects a run's progress and measurements for scraping. Its
// methods may be called from the run's observer goroutine while a scrape
// reads.
type Metrics struct {
	target float64
	// Store, if set, is the kind of store the run drives, the label of
	// kvbench_store_info.
	Store string

	mu     sync.Mutex
	status bench.Status
	seen   bool
	ops    map[key]*opStats
	// adaptive are adaptive cells' requests, the run's; threshold is the
	// running adaptive phase's threshold per op, none outside one.
	adaptive  map[adaptKey]uint64
	threshold map[bench.Op]int64
}

// key is one (operation, protocol) pair.
type key struct {
	op    bench.Op
	proto bench.Protocol
}

// New returns empty Metrics; target is the open loop's rate in
// operations per second, 0 in a closed loop.
func New(target float64) *Metrics {
	return &Metrics{target: target, ops: map[key]*opStats{}, adaptive: map[adaptKey]uint64{}, threshold: map[bench.Op]int64{}}
}

// Observe implements bench.Observer.
func (m *Metrics) Observe(s bench.Status) {
	m.mu.Lock()
	m.status, m.seen = s, true
	if s.Event == bench.PhaseStart {
		clear(m.threshold) // a threshold is the running adaptive phase's
	}
	m.mu.Unlock()
}

// Then is an observer that reports to m, then to next (nil: none), so
// metrics and the progress display hear the same run.
func (m *Metrics) Then(next bench.Observer) bench.MeasureObserver {
	return chain{m, next}
}

type chain struct {
	*Metrics
	next bench.Observer
}

func (c chain) Observe(s bench.Status) {
	c.Metrics.Observe(s)
	if c.next != nil {
		c.next.Observe(s)
	}
}

// Interval implements bench.IntervalObserver: each second of a measure
// phase, its operations and latencies join the run's totals as the
// harness merges them, so they grow while the phase runs.
func (m *Metrics) Interval(op bench.Op, p bench.Protocol, h *hdrhistogram.Histogram) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats(key{op, p}).addHist(h)
}

// Measured implements bench.MeasureObserver: a measure phase's failures
// join the run's totals when it ends, since intervals carry latencies
// only. Its operations and latencies came with its intervals, which sum
// to the figures results.json records for the cell.
func (m *Metrics) Measured(ms []bench.Measurement) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range ms {
		m.stats(key{ms[i].Op, ms[i].Protocol}).addErrors(&ms[i])
	}
}

// stats is k's totals, made on first use.
func (m *Metrics) stats(k key) *opStats {
	st := m.ops[k]
	if st == nil {
		st = newOpStats()
		m.ops[k] = st
	}
	return st
}

// Register adds m's collector to reg.
func (m *Metrics) Register(reg prometheus.Registerer) { reg.MustRegister(collector{m}) }
