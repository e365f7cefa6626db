package bench_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// countingDialer counts the operations its connections completed, so a
// hook can tell where in a run it was called.
type countingDialer struct {
	f    *benchtest.Fake
	done atomic.Int64
}

type countingConn struct {
	bench.Conn
	d *countingDialer
}

func (d *countingDialer) Dial(ctx context.Context, th int) (bench.Conn, error) {
	c, err := d.f.Dial(ctx, th)
	return countingConn{c, d}, err
}

func (c countingConn) Set(ctx context.Context, k, v []byte) (bench.Protocol, error) {
	defer c.d.done.Add(1)
	return c.Conn.Set(ctx, k, v)
}

func (c countingConn) Get(ctx context.Context, k []byte, view func([]byte)) (bench.Protocol, error) {
	defer c.d.done.Add(1)
	return c.Conn.Get(ctx, k, view)
}

func (c countingConn) Delete(ctx context.Context, k []byte) (bench.Protocol, error) {
	defer c.d.done.Add(1)
	return c.Conn.Delete(ctx, k)
}

// phaseOps sums the operations of the measurements of one cell.
func phaseOps(rep *bench.Report, th, size int) int64 {
	var n int64
	for _, m := range rep.Measurements {
		if m.Threshold == th && m.ValueSize == size {
			n += m.Count
		}
	}
	return n
}

// The server's figure is exactly what the hook's two readings around the
// measure phase differ by, over the phase's operations: call k reports
// k² ms of user and k ms of system time, so cell i's phase (calls 2i and
// 2i+1) differs by 4i+1 ms and 1 ms, which ties each cell to its own
// pair of calls. The hook is never called around a warmup, and it is
// called with no operation of the phase begun or left.
func TestServerCPUHook(t *testing.T) {
	d := &countingDialer{f: &benchtest.Fake{}}
	cfg := baseConfig(d.f)
	cfg.Dialer, cfg.ValueSizes = d, []int{64, 128, 256}
	cfg.Warmup = workload.Phase{Ops: 300}
	var calls []int64 // operations done at each call
	cfg.ServerCPU = func(ctx context.Context) (time.Duration, time.Duration, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the hook's context has no deadline")
		}
		k := time.Duration(len(calls))
		calls = append(calls, d.done.Load())
		return k * k * time.Millisecond, k * time.Millisecond, nil
	}
	rep := run(t, cfg)
	if len(calls) != 2*len(cfg.ValueSizes) {
		t.Fatalf("%d calls, want 2 per measure phase (%d)", len(calls), 2*len(cfg.ValueSizes))
	}
	for i, size := range cfg.ValueSizes {
		ops := phaseOps(rep, 4096, size)
		if ops != cfg.Measure.Ops || calls[2*i+1]-calls[2*i] != ops {
			t.Errorf("cell %d: %d operations between the calls, phase %d, want %d", i, calls[2*i+1]-calls[2*i], ops, cfg.Measure.Ops)
		}
		want := bench.CPUTime{User: time.Duration(4*i+1) * time.Millisecond, Sys: time.Millisecond}
		for _, m := range rep.Measurements {
			if m.ValueSize != size {
				continue
			}
			if m.CPU == nil || m.CPU.Server == nil || *m.CPU.Server != want || m.CPU.Ops != ops || m.CPU.Process {
				t.Fatalf("cell %d %s/%s: CPU %+v, want server %+v over %d operations", i, m.Op, m.Protocol, m.CPU, want, ops)
			}
			c, err := m.Cell()
			if err != nil {
				t.Fatal(err)
			}
			s := c.CPU.Server
			if c.CPU.Scope != results.CPUScopeClient || c.CPU.PhaseOps != ops || s.UserNs != int64(want.User) || s.SysNs != int64(want.Sys) ||
				s.UserNsPerOp != float64(want.User)/float64(ops) || s.SysNsPerOp != float64(want.Sys)/float64(ops) ||
				s.NsPerOp != float64(want.User+want.Sys)/float64(ops) {
				t.Errorf("cell %d %s: results.json CPU %+v server %+v", i, c.Name(), c.CPU, *s)
			}
		}
	}
}

// A hook that fails, or whose clock goes backwards, costs those cells
// their server figure and nothing else; the first failure is logged, the
// others are not, and the run goes on.
func TestServerCPUHookFails(t *testing.T) {
	cfg := baseConfig(&benchtest.Fake{})
	cfg.ValueSizes = []int{64, 128, 256, 512}
	var mu sync.Mutex
	var log bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	n := 0
	cfg.ServerCPU = func(context.Context) (time.Duration, time.Duration, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		switch n {
		case 1, 4: // cells 64 (start) and 128 (end)
			return 0, 0, errors.New("stats refused")
		case 6: // cell 256 ends before it began: a restarted server
			return 0, 0, nil
		}
		return time.Duration(n) * time.Second, time.Duration(n) * time.Second, nil
	}
	rep := run(t, cfg)
	for _, m := range rep.Measurements {
		if m.CPU == nil {
			t.Fatalf("cell %d %s: no CPU figures", m.ValueSize, m.Op)
		}
		if got, want := m.CPU.Server != nil, m.ValueSize == 512; got != want {
			t.Errorf("cell %d %s: server figure %+v, want one only for 512", m.ValueSize, m.Op, m.CPU.Server)
		}
	}
	if len(rep.Measurements) == 0 || phaseOps(rep, 4096, 512) != cfg.Measure.Ops {
		t.Errorf("the run lost cells: %d measurements", len(rep.Measurements))
	}
	if lines := strings.Count(log.String(), "server CPU time not measured"); lines != 1 || !strings.Contains(log.String(), "stats refused") {
		t.Errorf("log, want the first failure once:\n%s", log.String())
	}
}

// With the server inside the process its CPU is the process's: the cells
// say process scope, and the hook is not asked.
func TestCPUProcessScope(t *testing.T) {
	cfg := baseConfig(&benchtest.Fake{})
	cfg.CPUProcess = true
	cfg.ServerCPU = func(context.Context) (time.Duration, time.Duration, error) {
		t.Error("the hook was called in process scope")
		return 0, 0, nil
	}
	rep := run(t, cfg)
	ops := phaseOps(rep, 4096, 64)
	for _, m := range rep.Measurements {
		if m.CPU == nil || !m.CPU.Process || m.CPU.Server != nil || m.CPU.Ops != ops {
			t.Fatalf("%s/%s: CPU %+v, want process scope over %d operations", m.Op, m.Protocol, m.CPU, ops)
		}
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		if c.CPU.Scope != results.CPUScopeProcess || c.CPU.Server != nil {
			t.Errorf("%s: results.json CPU %+v", c.Name(), c.CPU)
		}
	}
}
