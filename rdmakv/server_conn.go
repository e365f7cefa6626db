package rdmakv

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// sconn is the server side of one connection. Deliver runs on the
// transport's delivery goroutine for this connection; the reaper and Close
// touch only the lease table, under mu.
type sconn struct {
	s *Server
	c transport.Conn

	// Owned by the delivery goroutine.
	hello    bool
	recvSize int
	hdr      [wire.HeaderSize]byte
	body     [wire.LimitsSize]byte

	mu        sync.Mutex
	leases    map[uint32]*lease
	nextToken uint32 // last token issued; tokens are 1, 2, 3, ...
	gone      bool
	spare     []*lease // recycled lease records, so rendezvous allocates nothing

	faulted atomic.Bool
}

// fault drops a misbehaving connection with one log line naming the fault.
func (sc *sconn) fault(format string, a ...any) {
	if sc.faulted.CompareAndSwap(false, true) {
		sc.s.log.Warn("rdmakv: dropping connection", "remote", sc.c.RemoteAddr(), "fault", fmt.Sprintf(format, a...))
	}
	sc.c.Close()
}

func (sc *sconn) send(h wire.Header, key, value []byte) {
	h.KeyLen, h.ValueLen = uint16(len(key)), uint32(len(value))
	h.Encode(sc.hdr[:])
	// A failed send means the connection is going; Closed cleans up.
	_ = sc.c.Send(sc.hdr[:], key, value)
}

// Deliver is server_handle_* of the original design: it dispatches one
// message.
func (sc *sconn) Deliver(c transport.Conn, m *transport.Message) {
	defer m.Release()
	if sc.faulted.Load() {
		return
	}
	if m.Kind == transport.KindWriteImm {
		sc.commitImm(m.Imm, m.Len)
		return
	}
	if m.Kind != transport.KindRecv {
		sc.fault("unknown completion kind %d", m.Kind)
		return
	}
	f, err := wire.Decode(m.Data)
	if err != nil {
		sc.fault("malformed message: %v", err)
		return
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
		sc.handleSet(&f)
	case wire.Get:
		sc.handleGet(&f)
	case wire.GetRelease:
		sc.handleRelease(&f)
	case wire.SetRdvReq:
		sc.handleSetRdv(&f)
	case wire.SetFin:
		sc.handleFin(&f)
	case wire.Delete:
		sc.handleDelete(&f)
	default:
		sc.fault("unexpected %s", f.Type)
	}
}

func (sc *sconn) handleHello(f *wire.Frame) {
	hb, err := wire.DecodeHello(f.Value)
	if err != nil {
		sc.fault("bad HELLO: %v", err)
		return
	}
	if hb.RecvSize < wire.HeaderSize+wire.LimitsSize {
		sc.fault("HELLO receive size %d is too small", hb.RecvSize)
		return
	}
	if int64(hb.Threshold) > int64(sc.s.cfg.MaxEager) {
		sc.send(wire.Header{Type: wire.HelloReply, Status: wire.Threshold, ReqID: f.ReqID}, nil, nil)
		return
	}
	sc.hello = true
	sc.recvSize = int(hb.RecvSize)
	sc.send(wire.Header{Type: wire.HelloReply, ReqID: f.ReqID}, nil, sc.s.limits[:])
}

// handleSet is an eager set (server_handle_set): the value is copied into a
// fresh slot and committed.
func (sc *sconn) handleSet(f *wire.Frame) {
	cfg := &sc.s.cfg
	st := wire.OK
	switch {
	case len(f.Key) > cfg.MaxKey:
		st = wire.KeyTooLong
	case int64(len(f.Value)) > cfg.MaxValue:
		st = wire.ValueTooLarge
	case len(f.Key)+len(f.Value) >= cfg.MaxEager:
		st = wire.BadRequest
	}
	if st != wire.OK {
		sc.send(wire.Header{Type: wire.SetReply, Status: st, ReqID: f.ReqID}, nil, nil)
		return
	}
	sl, err := sc.s.store.newSlot(len(f.Value))
	if err != nil {
		sc.send(wire.Header{Type: wire.SetReply, Status: wire.NoSpace, ReqID: f.ReqID}, nil, nil)
		return
	}
	copy(sc.s.mem[sl.off:sl.off+sl.n], f.Value)
	ver := sc.s.store.commit(f.Key, sl)
	sc.send(wire.Header{Type: wire.SetReply, ReqID: f.ReqID, Version: ver}, nil, nil)
}

// handleGet answers inline when key+value is below the client's threshold
// (server_handle_eager_get), else opens a read window
// (server_handle_large_get).
func (sc *sconn) handleGet(f *wire.Frame) {
	if len(f.Key) > sc.s.cfg.MaxKey {
		sc.send(wire.Header{Type: wire.GetReplyInline, Status: wire.KeyTooLong, ReqID: f.ReqID}, nil, nil)
		return
	}
	sl := sc.s.store.acquire(f.Key)
	if sl == nil {
		sc.send(wire.Header{Type: wire.GetReplyInline, Status: wire.NotFound, ReqID: f.ReqID}, nil, nil)
		return
	}
	if uint64(len(f.Key)+sl.n) < uint64(f.Aux) && wire.HeaderSize+sl.n <= sc.recvSize {
		// Send copies before returning, so the reader reference covers it.
		sc.send(wire.Header{Type: wire.GetReplyInline, ReqID: f.ReqID, Version: sl.version}, nil, sc.s.mem[sl.off:sl.off+sl.n])
		sc.s.store.unref(sl)
		return
	}
	if sl.n == 0 {
		sc.send(wire.Header{Type: wire.GetReplyRdv, ReqID: f.ReqID, Version: sl.version}, nil, nil)
		sc.s.store.unref(sl)
		return
	}
	rkey, err := sc.c.Grant(sc.s.pool, sl.off, sl.n, transport.AccessRemoteRead)
	if err != nil {
		sc.s.store.unref(sl)
		sc.send(wire.Header{Type: wire.GetReplyRdv, Status: wire.Internal, ReqID: f.ReqID}, nil, nil)
		return
	}
	l := sc.newLease()
	l.rkey, l.window, l.sl = rkey, true, sl
	h := wire.Header{
		Type: wire.GetReplyRdv, ReqID: f.ReqID, Addr: sc.s.pool.Addr() + uint64(sl.off), Length: uint64(sl.n),
		Version: sl.version, RKey: rkey, Aux: uint32(sc.s.cfg.Lease / time.Millisecond),
	}
	if h.Token = sc.add(l); h.Token == 0 {
		sc.end(l)
		return
	}
	sc.send(h, nil, nil)
}

func (sc *sconn) handleRelease(f *wire.Frame) {
	l, stale := sc.take(f.Token)
	switch {
	case l == nil && stale:
		return // the lease already ran out; nothing left to release
	case l == nil:
		sc.fault("GET_RELEASE with token %d never issued", f.Token)
	case l.write:
		sc.fault("GET_RELEASE names set grant %d", f.Token)
		sc.end(l)
	default:
		sc.end(l)
	}
}

// handleSetRdv allocates a slot and opens a write window on it
// (server_handle_large_set, set_write_address).
func (sc *sconn) handleSetRdv(f *wire.Frame) {
	cfg := &sc.s.cfg
	st := wire.OK
	switch {
	case len(f.Key) > cfg.MaxKey:
		st = wire.KeyTooLong
	case f.Length > uint64(cfg.MaxValue):
		st = wire.ValueTooLarge
	}
	if st != wire.OK {
		sc.send(wire.Header{Type: wire.SetRdvGrant, Status: st, ReqID: f.ReqID}, nil, nil)
		return
	}
	sl, err := sc.s.store.newSlot(int(f.Length))
	if err != nil {
		sc.send(wire.Header{Type: wire.SetRdvGrant, Status: wire.NoSpace, ReqID: f.ReqID}, nil, nil)
		return
	}
	l := sc.newLease()
	l.write, l.sl, l.key, l.reqID = true, sl, append(l.key[:0], f.Key...), f.ReqID
	if sl.n > 0 {
		rkey, err := sc.c.Grant(sc.s.pool, sl.off, sl.n, transport.AccessRemoteWrite)
		if err != nil {
			sc.s.store.discard(sl)
			sc.send(wire.Header{Type: wire.SetRdvGrant, Status: wire.Internal, ReqID: f.ReqID}, nil, nil)
			return
		}
		l.rkey, l.window = rkey, true
	}
	h := wire.Header{Type: wire.SetRdvGrant, ReqID: f.ReqID, Length: uint64(sl.n), RKey: l.rkey,
		Aux: uint32(cfg.Lease / time.Millisecond)}
	if sl.n > 0 {
		h.Addr = sc.s.pool.Addr() + uint64(sl.off)
	}
	if h.Token = sc.add(l); h.Token == 0 {
		sc.end(l)
		return
	}
	sc.send(h, nil, nil)
}

// commitImm is a WRITE_WITH_IMM landing: imm names the grant.
func (sc *sconn) commitImm(imm uint32, n int) {
	l, _ := sc.take(imm)
	if l == nil || !l.write {
		if l != nil {
			sc.end(l)
		}
		sc.fault("WRITE_WITH_IMM with token %d that names no open set grant", imm)
		return
	}
	sc.commit(l, uint64(n), l.reqID)
}

func (sc *sconn) handleFin(f *wire.Frame) {
	l, stale := sc.take(f.Token)
	switch {
	case l == nil && stale:
		sc.send(wire.Header{Type: wire.SetReply, Status: wire.BadToken, ReqID: f.ReqID}, nil, nil)
	case l == nil:
		sc.fault("SET_FIN with token %d never issued", f.Token)
	case !l.write:
		sc.end(l)
		sc.fault("SET_FIN names get lease %d", f.Token)
	default:
		sc.commit(l, f.Length, f.ReqID)
	}
}

// commit ends a set grant (server_update_read_addr): the window closes,
// then the new slot replaces the old atomically.
func (sc *sconn) commit(l *lease, n uint64, reqID uint32) {
	if l.window {
		_ = sc.c.Revoke(l.rkey)
		l.window = false
	}
	if n != uint64(l.sl.n) {
		sc.s.store.discard(l.sl)
		sc.recycle(l)
		sc.send(wire.Header{Type: wire.SetReply, Status: wire.BadRequest, ReqID: reqID}, nil, nil)
		return
	}
	ver := sc.s.store.commit(l.key, l.sl)
	sc.recycle(l)
	sc.send(wire.Header{Type: wire.SetReply, ReqID: reqID, Version: ver}, nil, nil)
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

// Closed releases what the connection held. A transport error (for
// example a one-sided access outside the client's windows) is logged once.
func (sc *sconn) Closed(c transport.Conn, err error) {
	if err != nil && !isOrderlyClose(err) && sc.faulted.CompareAndSwap(false, true) {
		sc.s.log.Warn("rdmakv: dropping connection", "remote", c.RemoteAddr(), "fault", err.Error())
	}
	sc.drop()
}

func isOrderlyClose(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, transport.ErrClosed) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
