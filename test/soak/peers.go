package main

import (
	"context"
	"io"
	"net"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A rawPeer is a connection that never completes a handshake: it stays
// silent or sends garbage. gone is closed when the server drops it.
type rawPeer struct {
	gone  chan struct{}
	once  sync.Once
	close func()
}

func (p *rawPeer) dropped() { p.once.Do(func() { close(p.gone) }) }

// Deliver and Closed make a rawPeer a transport.Handler.
func (p *rawPeer) Deliver(_ transport.Conn, m *transport.Message) { m.Release() }
func (p *rawPeer) Closed(transport.Conn, error)                   { p.dropped() }

// dialSocket opens a plain TCP connection and writes junk on it, if any.
func dialSocket(addr string, junk []byte) (*rawPeer, error) {
	c, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, err
	}
	p := &rawPeer{gone: make(chan struct{}), close: func() { c.Close() }}
	if len(junk) > 0 {
		if _, err := c.Write(junk); err != nil {
			p.dropped()
		}
	}
	go func() {
		io.Copy(io.Discard, c) // returns when the server closes
		p.dropped()
	}()
	return p, nil
}

// dialTransport connects over the soak's transport and sends junk as one
// message, if any.
func dialTransport(ctx context.Context, name, addr string, junk []byte) (*rawPeer, error) {
	n, err := transport.Lookup(name)
	if err != nil {
		return nil, err
	}
	p := &rawPeer{gone: make(chan struct{})}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 4, SendDepth: 4, OpTimeout: 5 * time.Second}
	c, err := n.Dial(ctx, addr, cfg, p)
	if err != nil {
		return nil, err
	}
	p.close = func() { c.Close() }
	if len(junk) > 0 {
		if err := c.Send(junk, nil, nil); err != nil {
			p.dropped()
		}
	}
	return p, nil
}

// waitDropped waits for the server to drop every peer, closes them all,
// and returns how many it dropped.
func waitDropped(peers []*rawPeer, within time.Duration) int {
	deadline := time.After(within)
	dropped := 0
	for _, p := range peers {
		select {
		case <-p.gone:
			dropped++
		case <-deadline:
		}
	}
	for _, p := range peers {
		p.close()
	}
	return dropped
}

// flood opens a batch of connections that never say HELLO: the server
// must drop each once its handshake deadline passes.
func (f *faults) flood(ctx context.Context) {
	n := 100
	if f.o.transport == "verbs" {
		n = 16 // each costs the soak a QP and receive buffers too
	}
	var peers []*rawPeer
	for range n {
		var p *rawPeer
		var err error
		if f.o.transport == "tcp" {
			p, err = dialSocket(f.srv.addr, nil)
		} else {
			p, err = dialTransport(ctx, f.o.transport, f.srv.addr, nil)
		}
		if err != nil {
			if !ended(ctx) {
				f.t.fail("idle connection: %v", err)
			}
			break
		}
		peers = append(peers, p)
	}
	got := waitDropped(peers, dropWithin)
	f.t.Floods.Add(1)
	f.t.Idle.Add(int64(len(peers)))
	f.t.IdleDropped.Add(int64(got))
	if got < len(peers) {
		f.t.fail("%d of %d idle connections still open %v after they were opened", len(peers)-got, len(peers), dropWithin)
	}
}

// garbage sends one of several kinds of junk; the server must drop the
// connection.
func (f *faults) garbage(ctx context.Context) {
	f.mu.Lock()
	kind := f.rng.IntN(3)
	junk := make([]byte, 1+f.rng.IntN(512))
	for i := range junk {
		junk[i] = byte(f.rng.Uint32())
	}
	f.mu.Unlock()
	var p *rawPeer
	var err error
	switch {
	case f.o.transport == "tcp" && kind == 0:
		p, err = dialSocket(f.srv.addr, junk) // not even framed
	case kind == 1:
		junk[0] = 0xff // a message type that does not exist
		p, err = dialTransport(ctx, f.o.transport, f.srv.addr, junk)
	default:
		p, err = dialTransport(ctx, f.o.transport, f.srv.addr, junk)
	}
	if err != nil {
		if !ended(ctx) {
			f.t.fail("garbage connection: %v", err)
		}
		return
	}
	f.t.Garbage.Add(1)
	if waitDropped([]*rawPeer{p}, dropWithin) == 1 {
		f.t.GarbageDropped.Add(1)
	} else {
		f.t.fail("garbage connection (%d bytes, kind %d) still open %v later", len(junk), kind, dropWithin)
	}
}
