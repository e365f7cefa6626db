package rdmakv

import (
	"time"

	"github.com/kvbench/kvbench/rdmakv/internal/traceclock"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

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
	sc.ctr.in.Add(uint64(sl.n))
	ver := sc.s.store.commit(f.Key, sl)
	sc.send(wire.Header{Type: wire.SetReply, ReqID: f.ReqID, Version: ver}, nil, nil)
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
	case !sc.grantRoom(f.Length):
		st = wire.NoSpace
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
	l.trace = f.Flags&wire.FlagTrace != 0
	if sl.n > 0 {
		rkey, err := sc.grant(sl, transport.AccessRemoteWrite)
		if err != nil {
			sc.s.store.discard(sl)
			sc.recycle(l)
			sc.windowFailed(err)
			sc.send(wire.Header{Type: wire.SetRdvGrant, Status: wire.Internal, ReqID: f.ReqID}, nil, nil)
			return
		}
		l.rkey, l.window = rkey, true
	}
	h := wire.Header{Type: wire.SetRdvGrant, ReqID: f.ReqID, Length: uint64(sl.n), RKey: l.rkey,
		Aux: uint32(cfg.Lease / time.Millisecond)}
	if sl.n > 0 {
		h.Addr = sc.s.pool.Addr() + uint64(sl.off)
		if sc.peerInvalidates(f, l.rkey) {
			h.Flags, l.peerInv = wire.FlagPeerInvalidate, true
		}
	}
	if h.Token = sc.add(l); h.Token == 0 {
		sc.endOff(l)
		return
	}
	sc.send(h, nil, nil)
}

// commitImm is a WRITE_WITH_IMM landing: imm names the grant.
func (sc *sconn) commitImm(imm uint32, n int) {
	l, _ := sc.take(imm)
	if l == nil || !l.write {
		// Fault first: once the connection is down no message can close
		// the window behind end's back (see transport.PeerInvalidator).
		sc.fault("WRITE_WITH_IMM with token %d that names no open set grant", imm)
		if l != nil {
			sc.endOff(l)
		}
		return
	}
	if l.trace {
		sc.start = traceclock.Now()
	}
	sc.commitOff(l, uint64(n), l.reqID)
}

func (sc *sconn) handleFin(f *wire.Frame) {
	l, stale := sc.take(f.Token)
	switch {
	case l == nil && stale:
		sc.send(wire.Header{Type: wire.SetReply, Status: wire.BadToken, ReqID: f.ReqID}, nil, nil)
	case l == nil:
		sc.fault("SET_FIN with token %d never issued", f.Token)
	case !l.write:
		sc.fault("SET_FIN names get lease %d", f.Token)
		sc.endOff(l)
	default:
		sc.commitOff(l, f.Length, f.ReqID)
	}
}

// commitOff is commit for the delivery goroutine (see endOff). Off it,
// the reply needs a header buffer of its own.
func (sc *sconn) commitOff(l *lease, n uint64, reqID uint32) {
	if !sc.revokeWaits(l) {
		sc.releaseCur() // as send does, so the reply's credit counts it
		sc.commit(l, n, reqID, &sc.hdr, sc.start)
		return
	}
	start := sc.start
	sc.s.background(func() { sc.commit(l, n, reqID, new([wire.MaxHeaderSize]byte), start) })
}

// commit ends a set grant (server_update_read_addr): the window closes,
// then the new slot replaces the old atomically. The reply goes through
// hdr, timed from start (see sendVia).
func (sc *sconn) commit(l *lease, n uint64, reqID uint32, hdr *[wire.MaxHeaderSize]byte, start int64) {
	if l.window {
		_ = sc.c.Revoke(l.rkey)
		l.window = false
	}
	if n != uint64(l.sl.n) {
		sc.s.store.discard(l.sl)
		sc.recycle(l)
		sc.sendVia(hdr, wire.Header{Type: wire.SetReply, Status: wire.BadRequest, ReqID: reqID}, nil, nil, start)
		return
	}
	sc.ctr.in.Add(n)
	ver := sc.s.store.commit(l.key, l.sl)
	sc.recycle(l)
	sc.sendVia(hdr, wire.Header{Type: wire.SetReply, ReqID: reqID, Version: ver}, nil, nil, start)
}
