package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"

	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/rdmakv"
)

// BenchmarkMetrics is one client's eager 64 B GETs over tcp on loopback,
// off: without --metrics; on: with its registry served and scraped every
// metricstest.Interval (10 ms) throughout. The server counts either way;
// on adds the scrapes, their reads of Counters and Stats, the process and
// Go collectors, and their garbage.
func BenchmarkMetrics(b *testing.B) {
	metricstest.OffOn(b, func(b *testing.B, on bool) {
		s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: rdmakv.TransportTCP, PoolSize: 4 << 20})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		c, err := rdmakv.Dial(ctx, s.Addr(), rdmakv.WithTransport(rdmakv.TransportTCP), rdmakv.WithEagerThreshold(1024))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		keys := make([][]byte, 1024)
		for i := range keys {
			keys[i] = fmt.Appendf(nil, "key-%04d", i)
			if err := c.Set(ctx, keys[i], make([]byte, 64)); err != nil {
				b.Fatal(err)
			}
		}
		if on {
			m, err := listenMetrics("127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer m.close()
			m.serve(s, io.Discard)
			stop := metricstest.ScrapeEvery(b, m.srv.Addr(), *metricstest.Interval)
			defer func() { b.ReportMetric(float64(stop()), "scrapes") }()
		}
		i := 0
		for b.Loop() {
			v, err := c.Get(ctx, keys[i%len(keys)])
			if err != nil {
				b.Fatal(err)
			}
			if len(v.Bytes()) != 64 || v.Protocol() != rdmakv.Eager {
				b.Fatalf("got %d bytes via %v, want 64 eager", len(v.Bytes()), v.Protocol())
			}
			v.Release()
			i++
		}
	})
}

// BenchmarkMetricsScrape is one scrape after another of an idle server:
// what each costs, in time and in the process's CPU (cpu-ns/op: the
// handler's and the scraper's, and the garbage collection they cause),
// which BenchmarkMetrics/on pays once every interval.
func BenchmarkMetricsScrape(b *testing.B) {
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: rdmakv.TransportTCP, PoolSize: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m, err := listenMetrics("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer m.close()
	m.serve(s, io.Discard)
	var r0, r1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for b.Loop() {
		// Read and dropped, as ScrapeEvery does: a parser's cost is the
		// scraper's, elsewhere.
		resp, err := http.Get("http://" + m.srv.Addr() + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
