package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// benchCase is one measured operation shape.
type benchCase struct {
	name string
	op   string // "get" or "set"
	size int
	n    int // default iterations
}

// standardCases are what -bench runs without -op.
var standardCases = []benchCase{
	{"eager-get-64B", "get", 64, 5000},
	{"rdv-get-64KiB", "get", 64 << 10, 500},
	{"set-1MiB", "set", 1 << 20, 200},
}

// result is one JSON line.
type result struct {
	Case string `json:"case"`
	Op   string `json:"op"`
	Size int    `json:"size"`
	N    int    `json:"n"`
	// Inflight is how many operations were kept in flight at once.
	Inflight  int    `json:"inflight"`
	Protocol  string `json:"protocol"`
	Transport string `json:"transport"`
	Device    string `json:"device,omitempty"`
	// Poll is the client's completion polling mode: "event" or "busy".
	Poll      string  `json:"poll"`
	P50NS     int64   `json:"p50_ns"`
	P99NS     int64   `json:"p99_ns"`
	MaxNS     int64   `json:"max_ns"`
	OpsPerSec float64 `json:"ops_per_sec"`
	// MBPerSec is value bytes per second in MiB (2^20), perftest's unit.
	MBPerSec float64 `json:"mb_per_sec"`
}

func runBench(c *rdmakv.Client, cfg config, w io.Writer) error {
	cases := standardCases
	if cfg.op != "" {
		cases = []benchCase{{fmt.Sprintf("%s-%dB", cfg.op, cfg.size), cfg.op, cfg.size, 1000}}
	}
	enc := json.NewEncoder(w)
	for _, bc := range cases {
		if cfg.n > 0 {
			bc.n = cfg.n
		}
		r, err := measure(c, bc, cfg.inflight)
		r.Poll = pollName(cfg.poll)
		if err != nil {
			return fmt.Errorf("%s: %w", bc.name, err)
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

func pollName(p transport.Poll) string {
	if p == transport.PollBusy {
		return "busy"
	}
	return "event"
}

// measure runs bc.n operations after a short warm-up and records each
// one's latency. With inflight > 1 that many goroutines share the client,
// each on a key of its own, so operations overlap as perftest's queue
// depth lets its transfers overlap; each keeps its own histogram.
func measure(c *rdmakv.Client, bc benchCase, inflight int) (result, error) {
	val := make([]byte, bc.size)
	fill(val, bc.size)
	ctx := context.Background()
	keys := make([][]byte, inflight)
	for g := range keys {
		keys[g] = []byte(fmt.Sprintf("kvperf-bench-%s-%d", bc.name, g))
		if err := c.Set(ctx, keys[g], val); err != nil {
			return result{}, err
		}
	}
	one := func(key []byte) error {
		if bc.op == "set" {
			return c.Set(ctx, key, val)
		}
		v, err := c.Get(ctx, key)
		if err != nil {
			return err
		}
		if len(v.Bytes()) != bc.size {
			v.Release()
			return fmt.Errorf("got %d bytes, want %d", len(v.Bytes()), bc.size)
		}
		v.Release()
		return nil
	}
	for i := 0; i < min(bc.n/10+1, 100); i++ {
		if err := one(keys[i%inflight]); err != nil {
			return result{}, err
		}
	}
	hs := make([]*hdrhistogram.Histogram, inflight)
	errs := make([]error, inflight)
	var wg sync.WaitGroup
	start := time.Now()
	for g := range hs {
		hs[g] = hdrhistogram.New(1, int64(time.Minute), 3)
		n := bc.n / inflight
		if g < bc.n%inflight {
			n++
		}
		wg.Add(1)
		go func(h *hdrhistogram.Histogram, key []byte, n int, err *error) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				t0 := time.Now()
				if *err = one(key); *err != nil {
					return
				}
				if *err = h.RecordValue(int64(time.Since(t0))); *err != nil {
					return
				}
			}
		}(hs[g], keys[g], n, &errs[g])
	}
	wg.Wait()
	h := hs[0]
	for g, o := range hs {
		if errs[g] != nil {
			return result{}, errs[g]
		}
		if g > 0 {
			h.Merge(o)
		}
	}
	elapsed := time.Since(start).Seconds()
	info := c.Info()
	ops := float64(bc.n) / elapsed
	return result{
		Case:      bc.name,
		Op:        bc.op,
		Size:      bc.size,
		N:         bc.n,
		Inflight:  inflight,
		Protocol:  c.ProtocolFor(len(keys[0]), bc.size).String(),
		Transport: info.Transport,
		Device:    info.Device,
		P50NS:     h.ValueAtQuantile(50),
		P99NS:     h.ValueAtQuantile(99),
		MaxNS:     h.Max(),
		OpsPerSec: ops,
		MBPerSec:  ops * float64(bc.size) / (1 << 20),
	}, nil
}
