package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// TestMetrics: after a workload through a real client, /metrics counts
// each request under its operation and protocol, and its size class, the
// value bytes moved,
// and a connection over --max-conns under its reason; the process and Go
// collectors are there too.
func TestMetrics(t *testing.T) {
	kvAddr, metricsAddr := startServer(t, "--max-conns", "1", "--metrics", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rdmakv.Dial(ctx, kvAddr, rdmakv.WithTransport("tcp"), rdmakv.WithEagerThreshold(1024))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, k := range []string{"a", "b", "c"} {
		if err := c.Set(ctx, []byte(k), make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Set(ctx, []byte("big"), make([]byte, 10_000)); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "big", "missing"} {
		_, _ = c.Get(ctx, []byte(k))
	}
	if err := c.Delete(ctx, []byte("b")); err != nil {
		t.Fatal(err)
	}
	if extra, err := rdmakv.Dial(ctx, kvAddr, rdmakv.WithTransport("tcp")); err == nil {
		extra.Close()
		t.Fatal("a second connection was served with --max-conns 1")
	}

	// The refused connection counts as open until the server has dropped
	// it, which may be a moment after its client heard the refusal.
	fams := metricstest.Scrape(t, metricsAddr)
	for deadline := time.Now().Add(10 * time.Second); metricstest.Value(t, fams, "rdmakv_connections_open", "") > 1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		fams = metricstest.Scrape(t, metricsAddr)
	}
	for labels, want := range map[string]float64{
		"op=set,protocol=eager": 3, "op=set,protocol=rendezvous": 1,
		"op=get,protocol=eager": 2, "op=get,protocol=rendezvous": 1,
		"op=delete,protocol=eager": 1, "op=delete,protocol=rendezvous": 0,
	} {
		if got := metricstest.Value(t, fams, "rdmakv_requests_total", labels); got != want {
			t.Errorf("rdmakv_requests_total{%s} = %v, want %v", labels, got, want)
		}
	}
	// By size class of key plus value: 1 B keys with 100 B values are
	// below 128 B, "big" with 10,000 B below 16 KiB, a miss is its key
	// (7 B) and a delete its key (1 B). Only classes with requests show.
	bySize := map[string]float64{
		"op=set,protocol=eager,size_class=128B": 3, "op=set,protocol=rendezvous,size_class=16KiB": 1,
		"op=get,protocol=eager,size_class=128B": 1, "op=get,protocol=rendezvous,size_class=16KiB": 1,
		"op=get,protocol=eager,size_class=8B": 1, "op=delete,protocol=eager,size_class=2B": 1,
	}
	for labels, want := range bySize {
		if got := metricstest.Value(t, fams, "rdmakv_requests_by_size_total", labels); got != want {
			t.Errorf("rdmakv_requests_by_size_total{%s} = %v, want %v", labels, got, want)
		}
	}
	if n := len(fams["rdmakv_requests_by_size_total"].GetMetric()); n != len(bySize) {
		t.Errorf("%d series of rdmakv_requests_by_size_total, want %d", n, len(bySize))
	}
	for name, want := range map[string]float64{
		"rdmakv_connections_refused_total reason=max_conns": 1,
		"rdmakv_connections_accepted_total":                 1,
		"rdmakv_connections_open":                           1,
		"rdmakv_keys":                                       3,
		"rdmakv_errors_total kind=not_found":                1,
		"rdmakv_payload_bytes_total direction=in":           10_300,
		"rdmakv_payload_bytes_total direction=out":          10_100,
		"rdmakv_pool_size_bytes":                            4 << 20,
	} {
		n, labels, _ := strings.Cut(name, " ")
		if got := metricstest.Value(t, fams, n, labels); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, n := range []string{"process_cpu_seconds_total", "go_goroutines"} {
		if fams[n] == nil {
			t.Errorf("no %s: the standard collectors are missing", n)
		}
	}
}

func TestSizeClassLabel(t *testing.T) {
	for k, want := range map[rdmakv.SizeClass]string{0: "1B", 1: "2B", 12: "4KiB", 32: "4GiB", rdmakv.LastSizeClass: "+Inf"} {
		if got := sizeClassLabel(k); got != want {
			t.Errorf("class %d: %q, want %q", k, got, want)
		}
	}
}

func TestMetricsBadAddress(t *testing.T) {
	cmd := newCommand(&logbuf.Buffer{}, &logbuf.Buffer{})
	cmd.SetArgs([]string{"--listen", "127.0.0.1:0", "--transport", "tcp", "--metrics", "no-port-here"})
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), `--metrics "no-port-here"`) {
		t.Fatalf("error %v, want one naming --metrics and the address", err)
	}
}

// startServer runs kvserver in-process with args added to a small TCP
// setup and returns the store's address and the metrics listener's.
func startServer(t *testing.T, args ...string) (kvAddr, metricsAddr string) {
	t.Helper()
	var out, errOut logbuf.Buffer
	cmd := newCommand(&out, &errOut)
	cmd.SetArgs(append([]string{"--listen", "127.0.0.1:0", "--transport", "tcp", "--pool-size", "4MiB"}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kvserver: %v", err)
		}
	})
	lines := regexp.MustCompile(`listening on (\S+) .*\n.*metrics on http://(\S+)/metrics`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := lines.FindStringSubmatch(out.String()); m != nil {
			return m[1], m[2]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening lines (hang guard); stdout %q stderr %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
