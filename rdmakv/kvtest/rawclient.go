package kvtest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// rawClient speaks the wire protocol directly over a transport.Conn, so the
// suite can do what the real client never does: stop halfway, lie about
// tokens, write outside a window.
type rawClient struct {
	t      *testing.T
	conn   transport.Conn
	in     chan rawMsg
	closed chan struct{}
	once   sync.Once
	err    error // why the connection closed; set before closed is closed
	region transport.Region
	limits wire.Limits
	reqID  uint32
	hold   bool                 // keep receive buffers instead of releasing them
	held   []*transport.Message // touched only by the delivery goroutine
}

// rawMsg is a copy of one delivery; the transport buffer is released at
// once so the raw client never starves its receive queue.
type rawMsg struct {
	kind transport.MessageKind
	data []byte
	imm  uint32
}

func (r *rawClient) Deliver(_ transport.Conn, m *transport.Message) {
	if r.hold {
		r.held = append(r.held, m) // never released: the receive queue runs dry
		return
	}
	msg := rawMsg{kind: m.Kind, data: bytes.Clone(m.Data), imm: m.Imm}
	m.Release()
	select {
	case r.in <- msg:
	case <-r.closed:
	}
}

func (r *rawClient) Closed(_ transport.Conn, err error) {
	r.once.Do(func() {
		r.err = err
		close(r.closed)
	})
}

// rawConnect connects over env's transport without saying HELLO, with
// receive buffers sized for maxEager, the server's.
func rawConnect(t *testing.T, env Env, addr string, maxEager int) *rawClient {
	t.Helper()
	r := &rawClient{t: t, in: make(chan rawMsg, 64), closed: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	recv := wire.MaxHeaderSize + maxEager + wire.MaxKeyLen
	cfg := transport.Config{MaxMessage: recv, RecvDepth: 16, SendDepth: 16, OpTimeout: 10 * time.Second, NetConn: env.NetConn}
	var err error
	r.conn, err = lookup(t, env).Dial(ctx, addr, cfg, r)
	if err != nil {
		t.Fatalf("raw %s dial %s: %v", env.Transport, addr, err)
	}
	t.Cleanup(func() { r.conn.Close() })
	r.region, err = r.conn.Register(1<<20, transport.AccessLocal) // the largest raw transfer is 256 KiB
	if err != nil {
		t.Fatalf("raw client Register: %v", err)
	}
	t.Cleanup(func() { r.region.Close() })
	return r
}

// rawHello connects as rawConnect does and performs the handshake with the
// given eager threshold.
func rawHello(t *testing.T, env Env, addr string, maxEager int, threshold uint32) *rawClient {
	t.Helper()
	r := rawConnect(t, env, addr, maxEager)
	f := r.call(wire.Header{Type: wire.Hello}, nil, rawHelloBody(maxEager, threshold))
	if f.Type != wire.HelloReply || f.Status != wire.OK {
		t.Fatalf("raw HELLO answered %s %s", f.Type, f.Status)
	}
	var err error
	r.limits, err = wire.DecodeLimits(f.Value)
	if err != nil {
		t.Fatalf("raw HELLO reply: %v", err)
	}
	return r
}

// rawHelloBody is a raw client's HELLO body: receive buffers sized for the
// server's maxEager, the given threshold, depth 16.
func rawHelloBody(maxEager int, threshold uint32) []byte {
	body := make([]byte, wire.HelloBodySize)
	recv := wire.MaxHeaderSize + maxEager + wire.MaxKeyLen
	(&wire.HelloBody{RecvSize: uint32(recv), Threshold: threshold, Depth: 16}).Encode(body)
	return body
}

// send encodes and sends one message; it sets a fresh ReqID.
func (r *rawClient) send(h wire.Header, key, value []byte) uint32 {
	r.t.Helper()
	r.reqID++
	h.ReqID = r.reqID
	h.KeyLen, h.ValueLen = uint16(len(key)), uint32(len(value))
	var hb [wire.MaxHeaderSize]byte
	n := h.Encode(hb[:])
	if err := r.conn.Send(hb[:n], key, value); err != nil {
		r.t.Fatalf("raw send %s: %v", h.Type, err)
	}
	return h.ReqID
}

// recv waits for the next message and decodes it.
func (r *rawClient) recv() wire.Frame {
	r.t.Helper()
	select {
	case m := <-r.in:
		if m.kind != transport.KindRecv {
			r.t.Fatalf("raw client got a %d completion (imm %#x), want a message", m.kind, m.imm)
		}
		f, err := wire.Decode(m.data)
		if err != nil {
			r.t.Fatalf("raw client got an undecodable %d-byte message from the server: %v", len(m.data), err)
		}
		return f
	case <-r.closed:
		r.t.Fatalf("server closed the raw connection while a reply was expected: %v", r.err)
	case <-time.After(15 * time.Second):
		r.t.Fatalf("no reply from the server within 15s (hang guard)")
	}
	panic("unreachable")
}

// call sends a request and returns the reply with the same ReqID.
func (r *rawClient) call(h wire.Header, key, value []byte) wire.Frame {
	r.t.Helper()
	id := r.send(h, key, value)
	f := r.recv()
	if f.ReqID != id {
		r.t.Fatalf("raw %s: reply %s carries req id %d, want %d", h.Type, f.Type, f.ReqID, id)
	}
	return f
}

// readWindow GETs key with threshold 4096 and returns the GET_REPLY_RDV
// naming the server's read window, failing the test on any other answer.
func (r *rawClient) readWindow(key []byte, flags wire.Flag) wire.Frame {
	r.t.Helper()
	g := r.call(wire.Header{Type: wire.Get, Flags: flags, Aux: 4096}, key, nil)
	if g.Type != wire.GetReplyRdv || g.Status != wire.OK {
		r.t.Fatalf("raw GET of %q with flags %#x, threshold 4096, answered %s %s, want GET_REPLY_RDV OK",
			short(key), flags, g.Type, g.Status)
	}
	return g
}

// writeWindow asks to set key to n bytes by rendezvous and returns the
// SET_RDV_GRANT naming the server's write window, failing the test on any
// other answer.
func (r *rawClient) writeWindow(key []byte, n uint64, flags wire.Flag) wire.Frame {
	r.t.Helper()
	g := r.call(wire.Header{Type: wire.SetRdvReq, Flags: flags, Length: n}, key, nil)
	if g.Type != wire.SetRdvGrant || g.Status != wire.OK {
		r.t.Fatalf("raw SET_RDV_REQ of %q for %d bytes with flags %#x answered %s %s, want SET_RDV_GRANT OK",
			short(key), n, flags, g.Type, g.Status)
	}
	return g
}

// waitClosed waits until the server drops the connection, discarding
// anything it sends first (it may answer with an error status before
// closing). It reports what arrived, for failure messages.
func (r *rawClient) waitClosed(d time.Duration) error {
	var got []string
	deadline := time.After(d)
	for {
		select {
		case <-r.closed:
			return nil
		case m := <-r.in:
			if f, err := wire.Decode(m.data); err == nil {
				got = append(got, fmt.Sprintf("%s/%s", f.Type, f.Status))
			} else {
				got = append(got, fmt.Sprintf("%d undecodable bytes", len(m.data)))
			}
		case <-deadline:
			return fmt.Errorf("server kept the connection open for %v (received %v)", d, got)
		}
	}
}

// readRemote does an RDMA READ of n bytes at (addr, rkey) and returns a copy.
func (r *rawClient) readRemote(addr uint64, rkey uint32, n int) ([]byte, error) {
	if err := r.conn.Read(r.region, 0, n, addr, rkey); err != nil {
		return nil, err
	}
	return bytes.Clone(r.region.Bytes()[:n]), nil
}
