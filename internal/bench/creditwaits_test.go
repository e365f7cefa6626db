package bench_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/workload"
)

// waitingConn counts every one of its operations as a wait for credit.
type waitingConn struct {
	bench.Conn
	waits *atomic.Uint64
}

func (c waitingConn) CreditWaits() uint64 { return c.waits.Load() }

func (c waitingConn) Get(ctx context.Context, k []byte, view func([]byte)) (bench.Protocol, error) {
	c.waits.Add(1)
	return c.Conn.Get(ctx, k, view)
}

func (c waitingConn) Set(ctx context.Context, k, v []byte) (bench.Protocol, error) {
	c.waits.Add(1)
	return c.Conn.Set(ctx, k, v)
}

func (c waitingConn) Delete(ctx context.Context, k []byte) (bench.Protocol, error) {
	c.waits.Add(1)
	return c.Conn.Delete(ctx, k)
}

// Each cell records the credit waits its connections counted over its
// measure phase, each connection once however many workers share it, and
// none of the warmup's; connections that count none leave it unset.
func TestCreditWaitsPerPhase(t *testing.T) {
	f := &benchtest.Fake{}
	cfg := baseConfig(f)
	cfg.ValueSizes = []int{64, 256}
	cfg.Load.Connections, cfg.Load.Depth = 2, 3
	cfg.Warmup = workload.Phase{Ops: 300}
	cfg.Dialer = bench.DialerFunc(func(ctx context.Context, th int) (bench.Conn, error) {
		c, err := f.Dial(ctx, th)
		return waitingConn{c, new(atomic.Uint64)}, err
	})
	rep := run(t, cfg)
	for _, size := range cfg.ValueSizes {
		ops := phaseOps(rep, 4096, size)
		for _, m := range rep.Measurements {
			if m.ValueSize != size || m.Count == 0 {
				continue
			}
			if m.CreditWaits == nil || int64(*m.CreditWaits) != ops {
				t.Errorf("%d B %v %v: credit waits %v, want the phase's %d operations", size, m.Op, m.Protocol, m.CreditWaits, ops)
			}
		}
	}
	cfg.Dialer = f
	for _, m := range run(t, cfg).Measurements {
		if m.CreditWaits != nil {
			t.Fatalf("connections that count no waits recorded %d", *m.CreditWaits)
		}
	}
}
