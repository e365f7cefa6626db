package bench_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/workload"
)

// burn spins until its thread's CPU clock has advanced by d: CPU time the
// operation certainly spent, however loaded the machine.
func burn(d time.Duration) error {
	runtime.LockOSThread() // the thread's clock must be this goroutine's
	defer runtime.UnlockOSThread()
	var ts unix.Timespec
	read := func() (time.Duration, error) {
		err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
		return time.Duration(ts.Nano()), err
	}
	t0, err := read()
	for t := t0; err == nil && t-t0 < d; {
		t, err = read()
	}
	return err
}

// burner is a target whose every operation burns a known CPU time.
type burner time.Duration

type burnConn struct{ bench.TargetFunc }

func (burnConn) Close() error { return nil }

func (b burner) Dial(context.Context, int) (bench.Conn, error) {
	return burnConn{func(context.Context, bench.Op, []byte, []byte, func([]byte)) (bench.Protocol, error) {
		return bench.Eager, burn(time.Duration(b))
	}}, nil
}

// The client's CPU per operation is at least what each operation burned
// and, the harness's own work being small beside 2 ms, below three times
// it plus 1 ms (room for -race and a loaded machine). Both cells of the
// mixed phase carry the phase's figures over all its operations.
func TestClientCPUPerOp(t *testing.T) {
	const b = 2 * time.Millisecond
	cfg := baseConfig(nil)
	cfg.Dialer = burner(b)
	cfg.Mix = workload.Mix{Get: 1, Set: 1}
	cfg.Measure = workload.Phase{Ops: 40}
	cfg.Load = workload.Load{Mode: "closed", Connections: 2, Depth: 1}
	rep := run(t, cfg)
	if len(rep.Measurements) != 2 {
		t.Fatalf("%d measurements, want get and set", len(rep.Measurements))
	}
	for _, m := range rep.Measurements {
		if m.Errors[bench.KindNone] != m.Count {
			t.Fatalf("%s: %v", m.Op, m.Errors)
		}
		if m.CPU == nil || m.CPU.Ops != 40 || m.CPU.Server != nil || m.CPU.Process {
			t.Fatalf("%s: CPU %+v, want the client's over 40 operations", m.Op, m.CPU)
		}
		perOp := (m.CPU.Client.User + m.CPU.Client.Sys) / 40
		if perOp < b || perOp > 3*b+time.Millisecond {
			t.Errorf("%s: client CPU %v per operation (%+v), want between %v and %v", m.Op, perOp, m.CPU.Client, b, 3*b+time.Millisecond)
		}
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		if got := c.CPU.Client.NsPerOp; got != float64(m.CPU.Client.User+m.CPU.Client.Sys)/40 {
			t.Errorf("%s: results.json says %v ns per operation", m.Op, got)
		}
	}
}
