package bench_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/workload"
)

// runLog records, in the order they happen, each Sync meeting, each
// phase's start with the connections open then (dial number @ threshold),
// and each Checkpoint with the cell it follows.
type runLog struct {
	f     *benchtest.Fake
	mu    sync.Mutex
	lines []string
	// stopAt makes the meeting of that number (from 1) ask every rank to stop.
	stopAt int
}

func (l *runLog) add(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, a...))
}

func (l *runLog) Observe(s bench.Status) {
	if s.Event != bench.PhaseStart {
		return
	}
	var open []string
	for i, c := range l.f.Conns() {
		if !c.Closed() {
			open = append(open, fmt.Sprintf("#%d@%d", i, c.Threshold()))
		}
	}
	l.add("%s %d/%d t=%d v=%d on %s", s.Phase, s.Cell, s.Cells, s.Threshold, s.ValueSize, strings.Join(open, " "))
}

func (l *runLog) sync(phase string, stop bool) (bool, error) {
	l.add("sync %s", phase)
	l.mu.Lock()
	n := len(l.lines)
	l.mu.Unlock()
	return stop || n == l.stopAt, nil
}

func (l *runLog) checkpoint(rep *bench.Report) error {
	m := rep.Measurements[len(rep.Measurements)-1]
	l.add("checkpoint t=%d v=%d", m.Threshold, m.ValueSize)
	return nil
}

// logged runs cfg, as a rank of an MPI job would (Sync and Checkpoint
// set), with stopAt as in runLog.
func logged(t *testing.T, cfg bench.Config, f *benchtest.Fake, stopAt int) (*runLog, *bench.Report, error) {
	t.Helper()
	l := &runLog{f: f, stopAt: stopAt}
	cfg.Observer, cfg.Sync, cfg.Checkpoint = l, l.sync, l.checkpoint
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	rep, err := bench.Run(ctx, cfg)
	return l, rep, err
}

// wantLog is the log of cells run in the order given, cell k on the
// connections dialed as numbers dials[k] and dials[k]+1.
func wantLog(cells [][2]int, dials []int) []string {
	var out []string
	for k, c := range cells {
		on := fmt.Sprintf("#%d@%d #%d@%d", dials[k], c[0], dials[k]+1, c[0])
		for _, ph := range []string{"preload", "warmup", "measure"} {
			out = append(out, "sync "+ph, fmt.Sprintf("%s %d/%d t=%d v=%d on %s", ph, k, len(cells), c[0], c[1], on))
		}
		out = append(out, fmt.Sprintf("checkpoint t=%d v=%d", c[0], c[1]))
	}
	return append(out, "sync end")
}

// orderConfig is gridConfig with every per-cell step on: preload, warmup,
// verify.
func orderConfig(f *benchtest.Fake, order string) bench.Config {
	cfg := gridConfig(f)
	cfg.Order = order
	cfg.Preload, cfg.Verify, cfg.FreshServer = true, true, true
	return cfg
}

// The interleaved order measures each value size at every threshold in
// turn, each cell on two connections dialed for it and closed after it;
// the thresholds order runs each threshold's sizes on one pair. Either
// way each cell meets the other ranks before its preload, warmup and
// measure phase, in that order, is checkpointed after, and the run meets
// once more at the end; verify's bookkeeping holds across the cells.
func TestCellOrder(t *testing.T) {
	for _, c := range []struct {
		order string
		cells [][2]int // threshold, value size
		dials []int
	}{
		{workload.OrderInterleaved, [][2]int{{32, 16}, {4096, 16}, {32, 64}, {4096, 64}}, []int{0, 2, 4, 6}},
		{workload.OrderThresholds, [][2]int{{32, 16}, {32, 64}, {4096, 16}, {4096, 64}}, []int{0, 0, 2, 2}},
	} {
		t.Run(c.order, func(t *testing.T) {
			f := &benchtest.Fake{Record: true}
			l, rep, err := logged(t, orderConfig(f, c.order), f, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := wantLog(c.cells, c.dials); !slices.Equal(l.lines, want) {
				t.Errorf("run:\n%s\nwant:\n%s", strings.Join(l.lines, "\n"), strings.Join(want, "\n"))
			}
			conns := f.Conns()
			if want := c.dials[len(c.dials)-1] + 2; len(conns) != want {
				t.Errorf("%d connections dialed, want %d", len(conns), want)
			}
			for i, conn := range conns {
				if !conn.Closed() {
					t.Errorf("connection #%d left open", i)
				}
			}
			if rep.Verify.Failed() || rep.Verify.Checked == 0 {
				t.Errorf("verify %+v, want checks and no failures", rep.Verify)
			}
		})
	}
}

// With one threshold the orders are the same run: the sizes in a row on
// one set of connections.
func TestCellOrderOneThreshold(t *testing.T) {
	want := wantLog([][2]int{{4096, 16}, {4096, 64}}, []int{0, 0})
	for _, order := range []string{workload.OrderInterleaved, workload.OrderThresholds} {
		f := &benchtest.Fake{}
		cfg := orderConfig(f, order)
		cfg.Thresholds = []int{4096}
		l, _, err := logged(t, cfg, f, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.lines, want) || len(f.Conns()) != 2 {
			t.Errorf("%s: %d connections, run:\n%s\nwant:\n%s", order, len(f.Conns()), strings.Join(l.lines, "\n"), strings.Join(want, "\n"))
		}
	}
}

// When the ranks agree to stop at the second cell's warmup meeting, an
// interleaved run stops there: nothing more is measured or dialed, no
// checkpoint follows, and it does not meet at the end.
func TestCellOrderStop(t *testing.T) {
	f := &benchtest.Fake{}
	full := wantLog([][2]int{{32, 16}, {4096, 16}, {32, 64}, {4096, 64}}, []int{0, 2, 4, 6})
	l, rep, err := logged(t, orderConfig(f, workload.OrderInterleaved), f, 10) // 10: sync warmup of cell 1
	if err != nil {
		t.Fatal(err)
	}
	if want := full[:10]; !slices.Equal(l.lines, want) {
		t.Errorf("run:\n%s\nwant:\n%s", strings.Join(l.lines, "\n"), strings.Join(want, "\n"))
	}
	for _, m := range rep.Measurements {
		if m.Threshold != 32 || m.ValueSize != 16 {
			t.Errorf("measured threshold %d value size %d after the stop", m.Threshold, m.ValueSize)
		}
	}
	if len(rep.Measurements) == 0 || len(f.Conns()) != 4 {
		t.Errorf("%d measurements, %d connections: want the first cell's, and the second cell's pair dialed", len(rep.Measurements), len(f.Conns()))
	}
}

// A failed dial names the threshold and, in the interleaved order, the
// one value size its connections were for; the run keeps what it measured
// and tells the other ranks at one last meeting.
func TestCellOrderDialError(t *testing.T) {
	for _, c := range []struct {
		order, want string
		cells       int
	}{
		{workload.OrderInterleaved, "threshold 4096 value size 16: dial: refused", 1},
		{workload.OrderThresholds, "threshold 4096: dial: refused", 2},
	} {
		f := &benchtest.Fake{}
		n := 0
		cfg := orderConfig(f, c.order)
		cfg.Dialer = bench.DialerFunc(func(ctx context.Context, th int) (bench.Conn, error) {
			if n++; n == 3 {
				return nil, errors.New("refused")
			}
			return f.Dial(ctx, th)
		})
		l, rep, err := logged(t, cfg, f, 0)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.order, err, c.want)
		}
		cells := map[[2]int]bool{}
		for _, m := range rep.Measurements {
			cells[[2]int{m.Threshold, m.ValueSize}] = true
		}
		if len(cells) != c.cells || l.lines[len(l.lines)-1] != "sync failed" {
			t.Errorf("%s: measured %v, last meeting %q: want %d cells, then \"sync failed\"", c.order, cells, l.lines[len(l.lines)-1], c.cells)
		}
	}
}

func TestOrderValidate(t *testing.T) {
	cfg := gridConfig(&benchtest.Fake{})
	cfg.Order = "sizes"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), `order "sizes": want interleaved or thresholds`) {
		t.Errorf("order sizes: %v", err)
	}
}
