package tcp

import (
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// echo answers every SEND with the same bytes.
type echo struct{}

func (echo) Deliver(c transport.Conn, m *transport.Message) {
	_ = c.Send(m.Data, nil, nil)
	m.Release()
}
func (echo) Closed(transport.Conn, error) {}

// signal hands each delivery's length to the benchmark loop.
type signal chan int

func (s signal) Deliver(_ transport.Conn, m *transport.Message) {
	n := len(m.Data)
	m.Release()
	s <- n
}
func (signal) Closed(transport.Conn, error) {}

func benchPair(b *testing.B, h transport.Handler, srv transport.Handler) (transport.Listener, transport.Conn) {
	b.Helper()
	cfg := transport.Config{MaxMessage: 64 << 10, RecvDepth: 16, SendDepth: 16}
	ln, err := network{}.Listen("127.0.0.1:0", withMode(cfg), func(transport.Conn) transport.Handler { return srv })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	c, err := network{}.Dial(b.Context(), ln.Addr(), withMode(cfg), h)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return ln, c
}

// BenchmarkSendPingPong is one 64-byte SEND each way per op.
func BenchmarkSendPingPong(b *testing.B) {
	got := make(signal, 1)
	_, c := benchPair(b, got, echo{})
	msg := make([]byte, 64)
	b.SetBytes(int64(2 * len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Send(msg[:16], msg[16:32], msg[32:]); err != nil {
			b.Fatal(err)
		}
		if n := <-got; n != len(msg) {
			b.Fatalf("echo of %d bytes", n)
		}
	}
}

func benchOneSided(b *testing.B, size int, read bool) {
	ln, c := benchPair(b, signal(make(chan int, 1)), echo{})
	remote, err := ln.Register(size, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	if err != nil {
		b.Fatal(err)
	}
	local, err := c.Register(size, transport.AccessLocal)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if read {
			err = c.Read(local, 0, size, remote.Addr(), remote.RKey())
		} else {
			err = c.Write(local, 0, size, remote.Addr(), remote.RKey())
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite64KiB(b *testing.B) { benchOneSided(b, 64<<10, false) }
func BenchmarkRead1MiB(b *testing.B)   { benchOneSided(b, 1<<20, true) }
