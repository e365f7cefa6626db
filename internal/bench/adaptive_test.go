package bench_test

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// adaptiveConn is a fake connection with an adaptive policy of three
// classes per op: [64, 128) and [128, 256) eager, from 256 on rendezvous,
// until switchAt, when [64, 128), which every request of the tests falls
// in (a 12-byte key and a 64-byte value), turns rendezvous. It counts its
// requests under the protocol its class then chose.
type adaptiveConn struct {
	bench.Conn
	switchAt time.Time            // zero: never
	n        *[3][3]atomic.Uint64 // by op and protocol
	switched *atomic.Bool
}

func newAdaptiveConn(c bench.Conn, switchAt time.Time) adaptiveConn {
	return adaptiveConn{Conn: c, switchAt: switchAt, n: new([3][3]atomic.Uint64), switched: new(atomic.Bool)}
}

func (c adaptiveConn) choice() rdmakv.Protocol {
	if !c.switchAt.IsZero() && !time.Now().Before(c.switchAt) {
		c.switched.Store(true)
		return rdmakv.Rendezvous
	}
	return rdmakv.Eager
}

func (c adaptiveConn) Set(ctx context.Context, k, v []byte) (bench.Protocol, error) {
	p, err := c.Conn.Set(ctx, k, v)
	c.n[bench.OpSet-1][c.choice()].Add(1)
	return p, err
}

func (c adaptiveConn) Get(ctx context.Context, k []byte, view func([]byte)) (bench.Protocol, error) {
	p, err := c.Conn.Get(ctx, k, view)
	c.n[bench.OpGet-1][c.choice()].Add(1)
	return p, err
}

func (c adaptiveConn) AdaptiveState() []rdmakv.AdaptiveClass {
	var out []rdmakv.AdaptiveClass
	first := rdmakv.Eager
	var switches uint64
	if c.switched.Load() {
		first, switches = rdmakv.Rendezvous, 1
	}
	for _, op := range []bench.Op{bench.OpSet, bench.OpGet} {
		n := &c.n[op-1]
		out = append(out,
			rdmakv.AdaptiveClass{Op: op, Lower: 64, Upper: 128, Choice: first, Switches: switches,
				EagerRequests: n[rdmakv.Eager].Load(), RendezvousRequests: n[rdmakv.Rendezvous].Load()},
			rdmakv.AdaptiveClass{Op: op, Lower: 128, Upper: 256, Choice: rdmakv.Eager},
			rdmakv.AdaptiveClass{Op: op, Lower: 256, Upper: math.MaxInt, Choice: rdmakv.Rendezvous})
	}
	return out
}

// An adaptive cell records, per op, each interval's requests by class and
// protocol, which add up to what its connections counted, and the
// threshold at each interval's end, the median of the connections': of
// three, the first switches at 0.5 s, the second at 1.5 s, the third
// never, so the threshold falls from 256 to 64 in the second interval.
// The phase runs 2.5 s of fake time: intervals end at 1 s, 2 s and 2.5 s.
func TestAdaptiveTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &benchtest.Fake{Latency: time.Millisecond}
		cfg := baseConfig(f)
		cfg.Thresholds = []int{store.AdaptiveThreshold}
		cfg.Mix = workload.Mix{Get: 0.5, Set: 0.5}
		cfg.Load.Connections, cfg.Load.Depth = 3, 2
		cfg.Measure = workload.Phase{Duration: workload.Duration(2500 * time.Millisecond)}
		bench.SetClock(&cfg, bench.TickClock(1))
		var conns []adaptiveConn
		start := time.Now()
		cfg.Dialer = bench.DialerFunc(func(ctx context.Context, th int) (bench.Conn, error) {
			c, err := f.Dial(ctx, th)
			var at time.Time
			if i := len(conns); i < 2 {
				at = start.Add(500*time.Millisecond + time.Duration(i)*time.Second)
			}
			conns = append(conns, newAdaptiveConn(c, at))
			return conns[len(conns)-1], err
		})
		heard := &adaptiveHeard{}
		cfg.Observer = heard
		rep := run(t, cfg)
		for _, op := range []bench.Op{bench.OpSet, bench.OpGet} {
			tl := timelineOf(t, rep, op)
			checkTimeline(t, op, tl, conns)
			if k := tl.Classes[0]; heard.intervals[op] != 3 || heard.requests[op] != sum(k.Eager)+sum(k.Rendezvous) {
				t.Errorf("%v: the observer heard %d intervals of %d requests, want 3 of the %d recorded", op,
					heard.intervals[op], heard.requests[op], sum(k.Eager)+sum(k.Rendezvous))
			}
		}
	})
	cfg := baseConfig(&benchtest.Fake{})
	for _, m := range run(t, cfg).Measurements {
		if m.Adaptive != nil {
			t.Errorf("a fixed threshold's %v %v cell has a timeline", m.Op, m.Protocol)
		}
	}
}

// adaptiveHeard counts what an AdaptiveObserver hears: per op, the
// intervals and their requests.
type adaptiveHeard struct {
	intervals, requests [4]uint64
}

func (*adaptiveHeard) Observe(bench.Status) {}

func (h *adaptiveHeard) Adaptive(op bench.Op, tl *results.AdaptiveTimeline) {
	h.intervals[op]++
	for _, k := range tl.Classes {
		h.requests[op] += k.Eager[len(k.Eager)-1] + k.Rendezvous[len(k.Rendezvous)-1]
	}
}

func sum(v []uint64) (n uint64) {
	for _, x := range v {
		n += x
	}
	return n
}

// timelineOf is op's timeline, the same in each of its measurements.
func timelineOf(t *testing.T, rep *bench.Report, op bench.Op) *results.AdaptiveTimeline {
	t.Helper()
	var tl *results.AdaptiveTimeline
	for _, m := range rep.Measurements {
		if m.Op != op {
			continue
		}
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		if c.Adaptive == nil || (tl != nil && c.Adaptive.EndThreshold() != tl.EndThreshold()) {
			t.Fatalf("%v %v: timeline %+v, want one, the same as the op's other cell's", op, m.Protocol, c.Adaptive)
		}
		tl = c.Adaptive
	}
	if tl == nil {
		t.Fatalf("%v: no measurement", op)
	}
	return tl
}

func checkTimeline(t *testing.T, op bench.Op, tl *results.AdaptiveTimeline, conns []adaptiveConn) {
	t.Helper()
	if tl.IntervalNs != int64(time.Second) || tl.StartThreshold != 256 || len(tl.Thresholds) != 3 ||
		tl.Thresholds[0] != 256 || tl.Thresholds[1] != 64 || tl.Thresholds[2] != 64 {
		t.Errorf("%v: interval %d, thresholds from %d: %v; want 1s, from 256: [256 64 64]", op, tl.IntervalNs, tl.StartThreshold, tl.Thresholds)
	}
	if len(tl.Classes) != 1 || tl.Classes[0].Lower != 64 || tl.Classes[0].Upper != 128 {
		t.Fatalf("%v: classes %+v, want [64, 128) alone: the others carried nothing", op, tl.Classes)
	}
	k := tl.Classes[0]
	eager, rdv := sum(k.Eager), sum(k.Rendezvous)
	var wantE, wantR uint64
	for _, c := range conns {
		wantE += c.n[op-1][rdmakv.Eager].Load()
		wantR += c.n[op-1][rdmakv.Rendezvous].Load()
	}
	if eager != wantE || rdv != wantR || k.Switches != 2 {
		t.Errorf("%v: recorded %d eager, %d rendezvous, %d switches; the connections counted %d, %d and 2", op, eager, rdv, k.Switches, wantE, wantR)
	}
	if k.Rendezvous[0] == 0 || k.Eager[0] == 0 || k.Eager[2] == 0 || k.Rendezvous[2] == 0 {
		t.Errorf("%v: eager %v, rendezvous %v; want both in the first and the last interval", op, k.Eager, k.Rendezvous)
	}
}
