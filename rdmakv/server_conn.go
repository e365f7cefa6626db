package rdmakv

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/internal/traceclock"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// sconn is the server side of one connection. Deliver runs on the
// transport's delivery goroutine for this connection; the reaper and Close
// touch only the lease table, under mu.
type sconn struct {
	s *Server
	c transport.Conn

	// helloTimer drops the connection unless helloDone is set in time.
	helloTimer *time.Timer
	helloDone  atomic.Bool

	// Admission's (server_admit.go), under the server's connMu: the
	// connection's place among the handshakes while it has one, and
	// whether it counts against MaxConns.
	handshake *list.Element
	served    bool

	// hearing is set while a message of a connection not yet past HELLO
	// is being delivered, so that admission does not shed it meanwhile.
	hearing atomic.Bool

	// Owned by the delivery goroutine.
	hello    bool
	auth     authState
	nonce    []byte // the challenge awaiting an answer
	recvSize int
	hdr      [wire.MaxHeaderSize]byte
	stats    [wire.StatsBodySize]byte // every STATS_REPLY body; see handleStats
	// start is when the request being delivered arrived, if it asked to
	// be timed (wire.FlagTrace), else 0.
	start int64
	// getKey is the key length of the GET being answered, for the size
	// class its reply counts under.
	getKey int

	mu        sync.Mutex
	leases    map[uint32]*lease
	nextToken uint32 // last token issued; tokens are 1, 2, 3, ...
	granted   int64  // bytes of the open set grants
	grants    int    // how many set grants are open
	gone      bool
	spare     []*lease // recycled lease records, so rendezvous allocates nothing

	// cur is the message being delivered until its receive is
	// released, which its reply waits for (see send); counted says its
	// credit counts it.
	cur     *transport.Message
	counted bool
	cr      connCredit

	faulted      atomic.Bool
	windowWarned atomic.Bool
	// refused: the connection counts under a Refusal already.
	refused atomic.Bool
	ctr     connCounters
}

// fault drops a misbehaving connection with one log line naming the fault.
func (sc *sconn) fault(format string, a ...any) {
	sc.refuse(RefusedProtocol)
	if sc.faulted.CompareAndSwap(false, true) {
		sc.s.log.Warn("rdmakv: dropping connection", "remote", sc.c.RemoteAddr(), "fault", fmt.Sprintf(format, a...))
	}
	sc.c.Close()
}

// windowFailed logs, once a connection, why a window could not be
// opened: its client only hears INTERNAL.
func (sc *sconn) windowFailed(err error) {
	if errors.Is(err, transport.ErrClosed) {
		return // the connection is going; Closed says why
	}
	if sc.windowWarned.CompareAndSwap(false, true) {
		sc.s.log.Warn("rdmakv: could not open a window; answering INTERNAL", "remote", sc.c.RemoteAddr(), "err", err)
	}
}

// turnAway closes a connection admission has no room for, with one log
// line at level saying why (unlike fault, the peer did nothing wrong) and,
// where there is one, a word to the peer (said after the log line, so
// that a peer told why finds it in the log).
func (sc *sconn) turnAway(level slog.Level, msg, reason string, say func()) {
	if sc.faulted.CompareAndSwap(false, true) {
		sc.s.log.Log(context.Background(), level, "rdmakv: "+msg, "remote", sc.c.RemoteAddr(), "reason", reason)
	}
	if say != nil {
		say()
	}
	if r, ok := sc.c.(transport.Resetter); ok {
		r.Reset()
		return
	}
	sc.c.Close()
}

// send replies to the request being delivered; only the delivery
// goroutine calls it. The request's receive is released first, so that
// the reply's credit can count it: a reply carries no byte of its
// request.
func (sc *sconn) send(h wire.Header, key, value []byte) {
	if sc.takeCur() {
		h.Credit = sc.cr.releaseStamp(sc.counted)
	} else {
		h.Credit = sc.cr.stamp()
	}
	sc.post(&sc.hdr, h, key, value, sc.start)
}

// takeCur releases the receive of the message being delivered, once,
// and reports whether it did; the caller counts it in the credit.
func (sc *sconn) takeCur() bool {
	m := sc.cur
	if m == nil {
		return false
	}
	sc.cur = nil
	m.Release()
	return true
}

// releaseCur is takeCur, counted: it reports whether the client has then
// used all the credit it was told of (connCredit.release).
func (sc *sconn) releaseCur() (starved bool) {
	return sc.takeCur() && sc.cr.release(sc.counted)
}

// delivered ends a delivery: a message that got no reply (GET_RELEASE, a
// commit replied to from elsewhere) is released here, and a client left
// with no credit and nothing in flight is told more with a CREDIT, as
// no reply would.
func (sc *sconn) delivered() {
	if sc.releaseCur() && !sc.faulted.Load() {
		sc.sendVia(&sc.hdr, wire.Header{Type: wire.Credit}, nil, nil, 0)
	}
}

// sendVia encodes h, with the client's credit, in hdr and sends it with
// key and value; a start other than 0 makes it a traced reply carrying
// the time since start.
func (sc *sconn) sendVia(hdr *[wire.MaxHeaderSize]byte, h wire.Header, key, value []byte, start int64) {
	h.Credit = sc.cr.stamp()
	sc.post(hdr, h, key, value, start)
}

// post is sendVia with h.Credit set.
func (sc *sconn) post(hdr *[wire.MaxHeaderSize]byte, h wire.Header, key, value []byte, start int64) {
	if start != 0 {
		h.Flags |= wire.FlagTrace
		// A commit may be timed across cores: never let a counter
		// slightly out of step between them wrap the time round.
		h.Server = uint32(min(max(traceclock.Duration(start, traceclock.Now()), 0), math.MaxUint32))
	}
	h.KeyLen, h.ValueLen = uint16(len(key)), uint32(len(value))
	sc.countReply(&h)
	n := h.Encode(hdr[:])
	// A failed send means the connection is going; Closed cleans up.
	_ = sc.c.Send(hdr[:n], key, value)
}

// Deliver is server_handle_* of the original design: it dispatches one
// message.
func (sc *sconn) Deliver(c transport.Conn, m *transport.Message) {
	sc.cur, sc.counted = m, false
	defer sc.delivered()
	if !sc.hello {
		sc.hearing.Store(true)
		defer sc.hearing.Store(false)
	}
	if sc.faulted.Load() {
		return
	}
	sc.counted = sc.cr.counting()
	if m.Kind == transport.KindWriteImm {
		sc.start = 0
		sc.commitImm(m.Imm, m.Len)
		return
	}
	if m.Kind != transport.KindRecv {
		sc.fault("unknown completion kind %d", m.Kind)
		return
	}
	var f wire.Frame
	if err := f.Decode(m.Data); err != nil {
		sc.fault("malformed message: %v", err)
		return
	}
	sc.start = 0
	if f.Flags&wire.FlagTrace != 0 {
		sc.start = traceclock.Now()
	}
	if f.Type.IsReply() {
		sc.fault("client sent a reply type %s", f.Type)
		return
	}
	if !sc.hello {
		if f.Type != wire.Hello {
			sc.fault("%s before HELLO", f.Type)
			return
		}
		sc.handleHello(&f)
		return
	}
	switch f.Type {
	case wire.Set:
		sc.ctr.count(OpSet, Eager, uint64(len(f.Key)+len(f.Value)))
		sc.handleSet(&f)
	case wire.Get:
		sc.getKey = len(f.Key)
		sc.handleGet(&f)
	case wire.GetRelease:
		sc.handleRelease(&f)
	case wire.SetRdvReq:
		sc.ctr.count(OpSet, Rendezvous, uint64(len(f.Key))+f.Length)
		sc.handleSetRdv(&f)
	case wire.SetFin:
		sc.handleFin(&f)
	case wire.Delete:
		sc.ctr.count(OpDelete, Eager, uint64(len(f.Key)))
		sc.handleDelete(&f)
	case wire.Stats:
		sc.handleStats(&f)
	default:
		sc.fault("unexpected %s", f.Type)
	}
}

// minRecvSize is the smallest receive buffer a client may have: it must
// hold HELLO_REPLY with its limits, STATS_REPLY with its body, and every
// reply without inline bytes.
var minRecvSize = max(wire.MaxHeaderSize, wire.HeaderLen(wire.HelloReply)+wire.LimitsSize,
	wire.HeaderLen(wire.StatsReply)+wire.StatsBodySize)

func (sc *sconn) handleHello(f *wire.Frame) {
	body, proof := wire.SplitHello(f.Value)
	hb, err := wire.DecodeHello(body)
	if err != nil {
		sc.fault("bad HELLO: %v", err)
		return
	}
	if int(hb.RecvSize) < minRecvSize {
		sc.fault("HELLO receive size %d is too small", hb.RecvSize)
		return
	}
	if sc.s.cfg.AuthSecret != nil && !sc.authenticate(f.ReqID, body, proof) {
		return
	}
	if int64(hb.Threshold) > int64(sc.s.cfg.MaxEager) {
		sc.send(wire.Header{Type: wire.HelloReply, Status: wire.Threshold, ReqID: f.ReqID}, nil, sc.s.limits[:])
		return
	}
	if !sc.s.admit(sc, f.ReqID) {
		return
	}
	sc.ctr.open()
	sc.hello = true
	sc.helloDone.Store(true)
	sc.helloTimer.Stop()
	if sp, ok := sc.c.(transport.Spoken); ok {
		sp.ReadAhead()
	}
	sc.recvSize = int(hb.RecvSize)
	sc.cr.open(sc.s, int(hb.Depth))
	sc.send(wire.Header{Type: wire.HelloReply, ReqID: f.ReqID}, nil, sc.s.limits[:])
}

func (sc *sconn) handleDelete(f *wire.Frame) {
	st := wire.OK
	switch {
	case len(f.Key) > sc.s.cfg.MaxKey:
		st = wire.KeyTooLong
	case !sc.s.store.remove(f.Key):
		st = wire.NotFound
	}
	sc.send(wire.Header{Type: wire.DeleteReply, Status: st, ReqID: f.ReqID}, nil, nil)
}

// handleStats answers STATS with the server's figures. The body is
// encoded into the connection's own buffer, which the send copies, so a
// STATS costs no more memory than any other reply.
func (sc *sconn) handleStats(f *wire.Frame) {
	body := statsBody(sc.s.Stats())
	body.Encode(sc.stats[:])
	sc.send(wire.Header{Type: wire.StatsReply, ReqID: f.ReqID}, nil, sc.stats[:])
}

// Closed releases what the connection held. A transport error (for
// example a one-sided access outside the client's windows) is logged once.
func (sc *sconn) Closed(c transport.Conn, err error) {
	if err != nil && !isOrderlyClose(err) {
		sc.refuse(RefusedTransport)
	}
	if err != nil && !isOrderlyClose(err) && sc.faulted.CompareAndSwap(false, true) {
		sc.s.log.Warn("rdmakv: dropping connection", "remote", c.RemoteAddr(), "fault", err.Error())
	}
	sc.drop()
}

func isOrderlyClose(err error) bool {
	if errors.Is(err, transport.ErrFatal) {
		return false // the device broke it: say so
	}
	return errors.Is(err, io.EOF) || errors.Is(err, transport.ErrClosed) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
