package benchmetrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("kvbench_"+name, help, labels, nil)
}

var (
	cellDesc       = desc("cell", "The cell running, counting from 1 in run order (0: none yet).")
	cellsDesc      = desc("cells", "Cells in the run: thresholds times value sizes.")
	thresholdDesc  = desc("cell_threshold_bytes", "The running cell's eager threshold.")
	valueSizeDesc  = desc("cell_value_size_bytes", "The running cell's value size.")
	phaseDesc      = desc("phase", "1 for the phase running (preload, warmup or measure), 0 for the others.", "phase")
	phaseOpsDesc   = desc("phase_operations", "Operations completed so far in the running phase.")
	phaseErrsDesc  = desc("phase_errors", "Operations failed so far in the running phase.")
	achievedDesc   = desc("achieved_rate", "Operations per second so far in the running phase.")
	targetDesc     = desc("target_rate", "The open loop's target rate in operations per second, a ramp's current step (0: closed loop).")
	opsDesc        = desc("operations_total", "Operations measured, by operation and protocol, updated each second of a measure phase.", "op", "protocol")
	errsDesc       = desc("errors_total", "Operations measured that failed, by operation and protocol, as each cell's measure phase ends.", "op", "protocol")
	latencyDesc    = desc("latency_seconds", "Measured latency (a native histogram), by operation and protocol.", "op", "protocol")
	storeDesc      = desc("store_info", "1, labelled with the kind of store the run drives (rdmakv, redis, memcached).", "store")
	phases         = []string{"preload", "warmup", "measure"}
	collectorDescs = []*prometheus.Desc{cellDesc, cellsDesc, thresholdDesc, valueSizeDesc, phaseDesc,
		phaseOpsDesc, phaseErrsDesc, achievedDesc, targetDesc, opsDesc, errsDesc, latencyDesc, storeDesc, adaptiveReqsDesc, adaptiveThDesc}
)

// collector reads Metrics at scrape time.
type collector struct{ m *Metrics }

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range collectorDescs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.status
	target := m.target
	if m.seen && s.Phase != "preload" {
		target = s.Rate
	}
	gauge(targetDesc, target)
	if m.Store != "" {
		gauge(storeDesc, 1, m.Store)
	}
	if m.seen {
		gauge(cellDesc, float64(s.Cell+1))
		gauge(cellsDesc, float64(s.Cells))
		gauge(thresholdDesc, float64(s.Threshold))
		gauge(valueSizeDesc, float64(s.ValueSize))
		for _, p := range phases {
			gauge(phaseDesc, b2f(p == s.Phase), p)
		}
		gauge(phaseOpsDesc, float64(s.Ops))
		gauge(phaseErrsDesc, float64(s.Errors))
		var rate float64
		if s.Elapsed > 0 {
			rate = float64(s.Ops) / s.Elapsed.Seconds()
		}
		gauge(achievedDesc, rate)
	}
	for k, st := range m.ops {
		op, p := k.op.String(), k.proto.String()
		ch <- prometheus.MustNewConstMetric(opsDesc, prometheus.CounterValue, float64(st.count), op, p)
		ch <- prometheus.MustNewConstMetric(errsDesc, prometheus.CounterValue, float64(st.errors), op, p)
		ch <- prometheus.MustNewConstNativeHistogram(latencyDesc, st.count, st.sum, st.buckets, nil, 0, schema, 0, time.Time{}, op, p)
	}
	m.collectAdaptive(ch)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
