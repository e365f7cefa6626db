package bench_test

import (
	"context"
	"runtime"
	"sync/atomic"
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

// burner is a target whose operations burn known CPU times: the first
// warmOps (the warmup's) warm each, the others op each; its connections
// burn close more as they close.
type burner struct {
	op, warm, close time.Duration
	warmOps         int64
	calls           *atomic.Int64
}

type burnConn struct {
	bench.TargetFunc
	close time.Duration
}

func (c burnConn) Close() error { return burn(c.close) }

func (b burner) Dial(context.Context, int) (bench.Conn, error) {
	return burnConn{func(context.Context, bench.Op, []byte, []byte, func([]byte)) (bench.Protocol, error) {
		if b.calls.Add(1) <= b.warmOps {
			return bench.Eager, burn(b.warm)
		}
		return bench.Eager, burn(b.op)
	}, b.close}, nil
}

// tickLag bounds the CPU time getrusage can leave out at a reading: it
// counts a thread running on another CPU only up to that thread's last
// scheduler tick (10 ms at the lowest HZ, 100). With 2 Ps, what can run
// is the threads holding them, one that lost its P in a system call, and
// sysmon.
const tickLag = 4 * 10 * time.Millisecond

// The client's CPU over a measure phase is at least what its operations
// burned, and leaves out what the run certainly spent outside the phase:
// the warmup's burns before it and the connections' closing burns after
// it. Both bounds are on CPU accounting, not on timing, so they hold
// however loaded the host. The upper one is what the process spent over
// the whole run, less those burns, plus what getrusage may leave out at
// the phase's start and at the run's end (tickLag each, and the
// microseconds it truncates to); the runtime's own CPU (GC, more of it
// under -race) is on both sides, whatever it comes to. Each outside burn
// is three times that slack, in few operations (little harness work
// beside it), so a figure that took either in fails. Both cells of the
// mixed phase carry the phase's figures over all its operations.
func TestClientCPUPerOp(t *testing.T) {
	const b, ops, out, warmOps = 2 * time.Millisecond, 40, 6 * tickLag, 6
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	cfg := baseConfig(nil)
	// Two connections, each closing with half the burn after the phase.
	cfg.Dialer = burner{op: b, warm: out / warmOps, close: out / 2, warmOps: warmOps, calls: new(atomic.Int64)}
	cfg.Mix = workload.Mix{Get: 1, Set: 1}
	cfg.Warmup, cfg.Measure = workload.Phase{Ops: warmOps}, workload.Phase{Ops: ops}
	cfg.Load = workload.Load{Mode: "closed", Connections: 2, Depth: 1}
	before := processCPU(t)
	rep := run(t, cfg)
	most := processCPU(t) - before - 2*out + 2*tickLag + 4*time.Microsecond
	if len(rep.Measurements) != 2 {
		t.Fatalf("%d measurements, want get and set", len(rep.Measurements))
	}
	for _, m := range rep.Measurements {
		checkPhaseCPU(t, m, ops, ops*b, most)
	}
}

// checkPhaseCPU checks m's CPU figures: the client's over the phase's ops
// operations, between least and most.
func checkPhaseCPU(t *testing.T, m bench.Measurement, ops int64, least, most time.Duration) {
	t.Helper()
	if m.Errors[bench.KindNone] != m.Count {
		t.Fatalf("%s: %v", m.Op, m.Errors)
	}
	if m.CPU == nil || m.CPU.Ops != ops || m.CPU.Server != nil || m.CPU.Process {
		t.Fatalf("%s: CPU %+v, want the client's over %d operations", m.Op, m.CPU, ops)
	}
	phase := m.CPU.Client.User + m.CPU.Client.Sys
	if phase < least || phase > most {
		t.Errorf("%s: client CPU %v over the phase (%+v), want between %v (its burns) and %v (the run's, less the burns outside the phase)",
			m.Op, phase, m.CPU.Client, least, most)
	}
	c, err := m.Cell()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.CPU.Client.NsPerOp; got != float64(phase)/float64(ops) {
		t.Errorf("%s: results.json says %v ns per operation", m.Op, got)
	}
}

// processCPU is the process's CPU time so far, as the harness reads it.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	c, err := bench.ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	return c.User + c.Sys
}
