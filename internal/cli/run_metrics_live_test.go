package cli

import (
	"io"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/internal/workload"
)

// getOps sums kvbench_operations_total over get's protocols.
func getOps(fams map[string]*dto.MetricFamily) float64 {
	var n float64
	for _, m := range fams["kvbench_operations_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "op" && l.GetValue() == "get" {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// TestRunMetricsLiveMeasure: while a measure phase runs, a scrape already
// counts its operations, fewer than the phase ends with, and reads the
// ramp's current step as the target rate.
func TestRunMetricsLiveMeasure(t *testing.T) {
	cfg := bench.Config{
		Seed:       1,
		Keys:       workload.Keys{Count: 100, Size: 16, Distribution: "uniform"},
		ValueSizes: []int{64},
		Thresholds: []int{4096},
		Mix:        workload.Mix{Get: 1},
		Load: workload.Load{Mode: "open", Connections: 1, Depth: 1,
			Ramp: &workload.Ramp{Start: 1000, End: 2000, Step: 1000, StepDuration: workload.Duration(2 * time.Second)}},
		Dialer: &benchtest.Fake{NoStore: true},
		Codec:  bench.Values{},
		Tick:   50 * time.Millisecond,
	}
	m, err := listenRunMetrics("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	m.observe(&cfg, "", io.Discard)
	type result struct {
		rep *bench.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := bench.Run(hangGuard(t), cfg)
		done <- result{rep, err}
	}()
	var mid map[string]*dto.MetricFamily
	for mid == nil {
		select {
		case r := <-done:
			t.Fatalf("the run ended (error %v) before a scrape showed measured operations", r.err)
		case <-time.After(100 * time.Millisecond):
		}
		fams := metricstest.Scrape(t, m.srv.Addr())
		if fams["kvbench_phase"] != nil && metricstest.Value(t, fams, "kvbench_phase", "phase=measure") == 1 && getOps(fams) > 0 {
			mid = fams
		}
	}
	if rate := metricstest.Value(t, mid, "kvbench_target_rate", ""); rate != 1000 && rate != 2000 {
		t.Errorf("target rate %v mid-ramp, want a step's, 1000 or 2000", rate)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	var total float64
	for _, ms := range r.rep.Measurements {
		if ms.Op == bench.OpGet {
			total += float64(ms.Count)
		}
	}
	end := metricstest.Scrape(t, m.srv.Addr())
	if got := getOps(mid); got >= total {
		t.Errorf("mid-measure scrape counts %v gets, the phase ended with %v: want fewer", got, total)
	}
	if got := getOps(end); got != total {
		t.Errorf("after the run the metrics count %v gets, the run measured %v", got, total)
	}
}
