package rdmakv

import (
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

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
	reply := wire.Header{Type: wire.GetReplyInline, Flags: f.Flags & wire.FlagTrace}
	if ProtocolAt(int(f.Aux), len(f.Key), sl.n) == Eager && reply.Len()+sl.n <= sc.recvSize {
		// Send copies before returning, so the reader reference covers it.
		sc.ctr.out.Add(uint64(sl.n))
		sc.send(wire.Header{Type: wire.GetReplyInline, ReqID: f.ReqID, Version: sl.version}, nil, sc.s.mem[sl.off:sl.off+sl.n])
		sc.s.store.unref(sl)
		return
	}
	if sl.n == 0 {
		sc.send(wire.Header{Type: wire.GetReplyRdv, ReqID: f.ReqID, Version: sl.version}, nil, nil)
		sc.s.store.unref(sl)
		return
	}
	if !sc.room() {
		sc.s.store.unref(sl)
		sc.send(wire.Header{Type: wire.GetReplyRdv, Status: wire.NoSpace, ReqID: f.ReqID}, nil, nil)
		return
	}
	rkey, err := sc.grant(sl, transport.AccessRemoteRead)
	if err != nil {
		sc.s.store.unref(sl)
		sc.windowFailed(err)
		sc.send(wire.Header{Type: wire.GetReplyRdv, Status: wire.Internal, ReqID: f.ReqID}, nil, nil)
		return
	}
	l := sc.newLease()
	l.rkey, l.window, l.sl = rkey, true, sl
	h := wire.Header{
		Type: wire.GetReplyRdv, ReqID: f.ReqID, Addr: sc.s.pool.Addr() + uint64(sl.off), Length: uint64(sl.n),
		Version: sl.version, RKey: rkey, Aux: uint32(sc.s.cfg.Lease / time.Millisecond),
	}
	if sc.peerInvalidates(f, rkey) {
		h.Flags, l.peerInv = wire.FlagPeerInvalidate, true
	}
	if h.Token = sc.add(l); h.Token == 0 {
		sc.endOff(l)
		return
	}
	sc.ctr.out.Add(uint64(sl.n))
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
		sc.endOff(l)
	default:
		sc.endOff(l)
	}
}
