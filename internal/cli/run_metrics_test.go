package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
	dto "github.com/prometheus/client_model/go"

	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/testutil"
)

// scrapeAtEnd scrapes the run's metrics when the run prints its results
// directory: the last moment they are served, with every cell counted.
type scrapeAtEnd struct {
	t      *testing.T
	stderr *logbuf.Buffer
	stdout bytes.Buffer
	fams   map[string]*dto.MetricFamily
}

func (s *scrapeAtEnd) Write(b []byte) (int, error) {
	s.stdout.Write(b)
	m := regexp.MustCompile(`metrics on http://(\S+)/metrics`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		s.t.Errorf("no metrics line on stderr: %q", s.stderr.String())
		return len(b), nil
	}
	s.fams = metricstest.Scrape(s.t, m[1])
	return len(b), nil
}

// TestRunMetricsMatchResults: what run --metrics serves at the end of a
// run counts the operations and failures results.json records, per
// operation and protocol (eager for a baseline, as its cells say), names
// the store as results.json does, and says which cell and phase ran
// last.
func TestRunMetricsMatchResults(t *testing.T) {
	t.Run("rdmakv", func(t *testing.T) { checkRunMetrics(t, "rdmakv") })
	t.Run("redis", func(t *testing.T) { checkRunMetrics(t, "redis", "--kind", "redis", "--server", testutil.Redis(t)) })
}

func checkRunMetrics(t *testing.T, kind string, args ...string) {
	s := &scrapeAtEnd{t: t, stderr: &logbuf.Buffer{}}
	root := NewRoot()
	root.SetArgs(append([]string{"run", "testdata/run-quick.yaml", "-o", t.TempDir(), "-q", "--metrics", "127.0.0.1:0"}, args...))
	root.SetOut(s)
	root.SetErr(s.stderr)
	if err := root.ExecuteContext(hangGuard(t)); err != nil {
		t.Fatal(err)
	}
	if s.fams == nil {
		t.Fatal("nothing scraped")
	}
	r, err := results.Load(strings.TrimSpace(s.stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	ops, fails := map[string]float64{}, map[string]float64{}
	for _, c := range r.Cells {
		if c.Store != kind {
			t.Errorf("%s: store %q, want %q", c.Name(), c.Store, kind)
		}
		k := "op=" + c.Op + ",protocol=" + c.Protocol
		ops[k] += float64(c.Count)
		fails[k] += float64(c.Failures())
	}
	if len(ops) < 3 {
		t.Fatalf("results have only %v: the test needs several operations and protocols", ops)
	}
	for k, n := range ops {
		if got := metricstest.Value(t, s.fams, "kvbench_operations_total", k); got != n {
			t.Errorf("kvbench_operations_total{%s} = %v, results.json has %v", k, got, n)
		}
		if got := metricstest.Value(t, s.fams, "kvbench_latency_seconds", k); got != n {
			t.Errorf("kvbench_latency_seconds{%s} holds %v latencies, results.json has %v operations", k, got, n)
		}
		if got := metricstest.Value(t, s.fams, "kvbench_errors_total", k); got != fails[k] {
			t.Errorf("kvbench_errors_total{%s} = %v, results.json has %v", k, got, fails[k])
		}
	}
	if n := len(s.fams["kvbench_operations_total"].GetMetric()); n != len(ops) {
		t.Errorf("%d operation series, results.json has %d", n, len(ops))
	}
	for name, want := range map[string]float64{"kvbench_cell": 2, "kvbench_cells": 2, "kvbench_phase phase=measure": 1,
		"kvbench_phase phase=warmup": 0, "kvbench_phase_operations": 1000, "kvbench_target_rate": 0,
		"kvbench_store_info store=" + kind: 1} {
		n, labels, _ := strings.Cut(name, " ")
		if got := metricstest.Value(t, s.fams, n, labels); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

func TestRunMetricsBadAddress(t *testing.T) {
	var stdout bytes.Buffer
	err := execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "-o", t.TempDir(), "--metrics", "no-port-here")
	if err == nil || !strings.Contains(err.Error(), `--metrics "no-port-here"`) {
		t.Fatalf("error %v, want one naming --metrics and the address", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("printed %q before failing", stdout.String())
	}
}
