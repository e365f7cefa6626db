package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	Case      string `json:"case"`
	Op        string `json:"op"`
	Size      int    `json:"size"`
	N         int    `json:"n"`
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
		r, err := measure(c, bc)
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

// measure runs bc.n operations back to back after a short warm-up and
// records each one's latency.
func measure(c *rdmakv.Client, bc benchCase) (result, error) {
	key := []byte("kvperf-bench-" + bc.name)
	val := make([]byte, bc.size)
	fill(val, bc.size)
	ctx := context.Background()
	if err := c.Set(ctx, key, val); err != nil {
		return result{}, err
	}
	one := func() error {
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
		if err := one(); err != nil {
			return result{}, err
		}
	}
	h := hdrhistogram.New(1, int64(time.Minute), 3)
	start := time.Now()
	for i := 0; i < bc.n; i++ {
		t0 := time.Now()
		if err := one(); err != nil {
			return result{}, err
		}
		if err := h.RecordValue(int64(time.Since(t0))); err != nil {
			return result{}, err
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
		Protocol:  c.ProtocolFor(len(key), bc.size).String(),
		Transport: info.Transport,
		Device:    info.Device,
		P50NS:     h.ValueAtQuantile(50),
		P99NS:     h.ValueAtQuantile(99),
		MaxNS:     h.Max(),
		OpsPerSec: ops,
		MBPerSec:  ops * float64(bc.size) / (1 << 20),
	}, nil
}
