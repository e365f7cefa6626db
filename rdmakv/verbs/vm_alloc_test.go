//go:build rdmavm && linux && cgo

package verbs

import (
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// sink is a Handler that releases everything at once.
type sink struct{}

func (sink) Deliver(_ transport.Conn, m *transport.Message) { m.Release() }
func (sink) Closed(transport.Conn, error)                   {}

// opsPair is a connected client, its server side, a local region and a
// server region open for remote read and write.
func opsPair(tb testing.TB, poll transport.Poll) (c, sc transport.Conn, local, target transport.Region) {
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 64, SendDepth: 64, Poll: poll}
	accepted := make(chan transport.Conn, 1)
	l, err := network{}.Listen(vmAddr(tb)+":0", cfg, func(c transport.Conn) transport.Handler {
		accepted <- c
		return sink{}
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	if target, err = l.Register(1<<20, transport.AccessRemoteRead|transport.AccessRemoteWrite); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { target.Close() })
	c = dialTest(tb, &server{l: l}, cfg, sink{})
	if local, err = c.Register(1<<20, transport.AccessLocal); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { local.Close() })
	return c, <-accepted, local, target
}

// TestZeroAllocs: no Go allocation per operation in steady state.
func TestZeroAllocs(t *testing.T) {
	for _, pm := range polls() {
		t.Run(pm.name, func(t *testing.T) {
			c, sc, local, target := opsPair(t, pm.p)
			hdr, key, val := make([]byte, 56), make([]byte, 16), make([]byte, 200)
			pool, err := sc.Register(1<<16, transport.AccessLocal)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			var failed error
			check := func(err error) {
				if err != nil && failed == nil {
					failed = err
				}
			}
			ops := []struct {
				name string
				fn   func()
			}{
				{"Send", func() { check(c.Send(hdr, key, val)) }},
				{"Write", func() { check(c.Write(local, 0, 64, target.Addr(), target.RKey())) }},
				{"WriteImm", func() { check(c.WriteImm(local, 0, 64, target.Addr(), target.RKey(), 7)) }},
				{"WriteSend", func() {
					check(c.(transport.WriteSender).WriteSend(local, 0, 64, target.Addr(), target.RKey(), hdr, nil, nil))
				}},
				{"Read", func() { check(c.Read(local, 0, 64, target.Addr(), target.RKey())) }},
				{"GrantRevoke", func() {
					k, err := sc.Grant(pool, 0, 4096, transport.AccessRemoteRead)
					check(err)
					check(sc.Revoke(k))
				}},
			}
			for _, op := range ops {
				n := testing.AllocsPerRun(200, op.fn)
				if failed != nil {
					t.Fatalf("%s: %v", op.name, failed)
				}
				if n != 0 {
					t.Errorf("%s: %.1f allocations per op", op.name, n)
				}
			}
		})
	}
}

func benchOp(b *testing.B, poll transport.Poll, op string, n int) {
	c, _, local, target := opsPair(b, poll)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		switch op {
		case "write":
			err = c.Write(local, 0, n, target.Addr(), target.RKey())
		case "read":
			err = c.Read(local, 0, n, target.Addr(), target.RKey())
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// pinger counts echoed messages back to the benchmark loop.
type pinger struct{ got chan struct{} }

func (p pinger) Deliver(_ transport.Conn, m *transport.Message) {
	m.Release()
	p.got <- struct{}{}
}
func (pinger) Closed(transport.Conn, error) {}

// benchPingPong is a two-sided round trip: Send, the server echoes from
// Deliver, the client's Handler sees the echo.
func benchPingPong(b *testing.B, poll transport.Poll, n int) {
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 64, SendDepth: 64, Poll: poll}
	s := startServer(b, cfg, true)
	p := pinger{got: make(chan struct{}, 1)}
	c := dialTest(b, s, cfg, p)
	buf := make([]byte, n)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.Send(buf, nil, nil); err != nil {
			b.Fatal(err)
		}
		<-p.got
	}
}

func BenchmarkPingPong64(b *testing.B)     { benchPingPong(b, transport.PollEvent, 64) }
func BenchmarkPingPong64Busy(b *testing.B) { benchPingPong(b, transport.PollBusy, 64) }
func BenchmarkPingPong4K(b *testing.B)     { benchPingPong(b, transport.PollEvent, 4096) }
func BenchmarkWrite64(b *testing.B)        { benchOp(b, transport.PollEvent, "write", 64) }
func BenchmarkWrite64Busy(b *testing.B)    { benchOp(b, transport.PollBusy, "write", 64) }
func BenchmarkRead64(b *testing.B)         { benchOp(b, transport.PollEvent, "read", 64) }
func BenchmarkRead64Busy(b *testing.B)     { benchOp(b, transport.PollBusy, "read", 64) }
func BenchmarkRead64K(b *testing.B)        { benchOp(b, transport.PollEvent, "read", 64<<10) }
func BenchmarkWrite1M(b *testing.B)        { benchOp(b, transport.PollEvent, "write", 1<<20) }

func BenchmarkPingPong64NoSpin(b *testing.B) {
	old := eventSpins
	eventSpins = 1
	defer func() { eventSpins = old }()
	benchPingPong(b, transport.PollEvent, 64)
}
