// Package verbs is the rdmakv transport over libibverbs and librdmacm
// (cgo). It registers itself as "verbs"; import it for that side effect.
// Built without cgo, or off Linux, it is a stub (stub.go) that registers
// "verbs" all the same and fails every use with transport.ErrNoDevice.
//
// # Layout
//
// The C side (verbs.h, dev.c, cm.c, qp.c, post.c, poll.c) owns every
// verbs object and builds every work request from scalars; Go holds
// pointers to C structs and never hands C a pointer into Go memory.
// Registered memory (regions, receive buffers, send rings) is allocated in
// C.
//
// Connections are set up with rdma_cm: Dial resolves address and route and
// connects; Listen binds and listens, and each CONNECT_REQUEST gets a QP and
// rdma_accept. Event channels are non-blocking and read through Go's
// netpoller, so Dial honours its context (default bound 15 s when the
// context has none) and no OS thread sleeps in C. Retry and RNR retry
// counts are 7 (RNR: retry forever) and the local ACK timeout is about
// 0.5 s, so a peer that vanishes without a disconnect is noticed in a few
// seconds.
//
// One protection domain per device serves the listener, every connection
// and every region of the process on that device. A listener has one
// shared receive queue of Config.RecvDepth buffers of Config.MaxMessage
// bytes with one receive CQ, and one send CQ shared by its QPs (its size,
// at most 32768 entries, bounds how many connections it accepts: each needs
// 2*SendDepth+1). A client connection has its own receive queue and CQs.
// A receive buffer larger than 256 bytes is posted as two pieces: its
// first 256 bytes in a densely packed array of heads, the rest in the
// buffer itself. A small message thus lands in a few shared pages rather
// than at the start of a buffer of the largest eager message; a longer
// one is made contiguous by copying its head in front of the rest.
//
// Each CQ has one goroutine polling it in batches of up to 32, and a
// lock so that one goroutine at a time polls and dispatches (the poller,
// or in busy mode a caller waiting for its own completion). Whoever holds
// it runs the dispatch: the receive side alone calls Handler.Deliver (a
// preallocated Message per receive buffer; Release reposts it) and
// Handler.Closed, serialised and in arrival order. The send side completes
// blocking operations through a preallocated slot table (wr_id = kind,
// slot generation, slot index), reclaims the send ring and notices
// drained QPs; it never runs Handler code, so a Handler may call Write,
// Read, Grant or Revoke from Deliver.
//
// Poll modes: PollEvent arms the CQ (ibv_req_notify_cq, then one more poll
// to close the race) and sleeps on its completion channel; events are acked
// in batches of 64; a blocking operation sleeps on its slot until the send
// poller hands the completion over. PollBusy lets the waiting caller drive
// the CQ itself, so no goroutine is woken per operation: Write, WriteImm,
// Read, Grant and Revoke spin on the send CQ (up to 256 empty polls per
// crossing into C, each empty burst ending in sched_yield, so that rxe's
// deferred work for the operation can run on the waiter's CPU), and a
// connection is a transport.Poller whose PollOnce
// spins on the receive CQ and dispatches on the caller's goroutine; the
// rdmakv client waits for its replies that way. Callers that find the CQ
// taken by another goroutine yield and look at their own slot, which the
// holder completed; spinners that find it empty yield only once per
// 5 ms (yieldEvery), since each yield wakes a thread. The background
// pollers then only sweep every 100 ms (sweepEvery; a kick ends a nap at
// once) for what nobody waits for (late replies, ring reclamation,
// failures): the send CQ's always,
// the receive CQ's once a caller has polled it. A listener's receive
// poller, which serves every connection, keeps spinning. On a machine
// with few cores this matters more than the handoff: every extra spinning
// thread, and every thread a sweep wakes, takes a core from the one doing
// the work. For the same reason Config.BusyIdle
// lets that poller stop after a spell with nothing arriving: it arms the
// CQ and sleeps on its completion channel (a busy CQ with BusyIdle gets
// one) until the next completion. Opening a busy CQ raises GOMAXPROCS to
// at least 2 (never lowers it): with one Go processor, as a process
// pinned to one CPU gets, the runtime takes the processor away from
// every C call longer than 20 us and hands it to another thread, a
// context switch each time (procs.go).
//
// # Cost per operation
//
// No Go allocation per operation in steady state (TestZeroAllocs,
// TestCallerPollingZeroAllocs). The calls below pass their C pointers as
// integers (the _h forms in verbs.h), so cgo makes no run-time pointer
// check on the data path. C calls on the caller's goroutine:
//
//   - Send: 1. The parts are copied in Go into the registered send ring,
//     right after the previous message, and kv_send posts them, inline
//     when they fit (Info.MaxInline; 256 bytes on rxe). The ring is
//     registered with the first message too large to go inline (until
//     then inline ones are gathered in 256 bytes of scratch) and holds
//     SendDepth messages of up to MaxMessage bytes or at most the larger
//     of 1 MiB and four of them, and at least one of MaxSend (a client's
//     request with the longest key the server takes). A send is signaled every
//     max(1, SendDepth/4) sends and every quarter of the ring; its
//     completion frees the ring up to it. A send that finds the ring full
//     polls the send CQ itself in busy mode; on a client it then waits,
//     and on a server connection it joins that connection's backlog.
//   - Write, WriteImm, Read: 1 post; then, in event mode, a sleep on the
//     slot until the send poller hands the completion over; in busy mode
//     1 poll call per 256 empty polls until it is there (usually 1).
//   - Message.Release: 1 (repost) in event mode; none in busy mode, where
//     the released buffer waits (up to 8 of them; the eighth posts the
//     lot) for the receive poller's next burst, which reposts it in the
//     same call that polls. Busy queues have 8 buffers beyond the depth
//     asked for, so the depth stays posted while some wait.
//   - Grant: 1 post (bind) and its wait as above; GrantQueued the post
//     alone, its completion freeing the slot wherever the send CQ is
//     next polled. On devices that need an MR per window (below) a first
//     grant of a range also registers one, which later grants of that
//     range reuse.
//   - Revoke: 1 post (local invalidate) and its wait; none when the peer
//     already closed the window with a SEND_WITH_INV.
//   - ReadInvalidate: the Read, then 1 send (SEND_WITH_INV).
//     WriteInvalidate: 1 call posting the WRITE and the SEND_WITH_INV,
//     then the wait.
//   - PollOnce (busy mode): 1 poll of the receive CQ (up to 256 empty
//     polls, after reposting the buffers released since the last one)
//     and, when it found nothing, 1 poll of the send CQ.
//
// An rdmakv eager GET in busy mode is thus 2 crossings on the client
// (send, poll) and 1 on the server (the reply's send, plus a share of its
// poller's poll across a batch); the buffers both replies and requests
// landed in go back with those polls. A rendezvous
// GET adds on the client the READ (post, poll) and its closing
// GET_RELEASE send, and on the server a GrantQueued (the bind's post)
// while Revoke posts nothing; a rendezvous SET is the request, one call for
// WRITE and closing SET_FIN, and the WRITE's poll on the client, and a
// GrantQueued on the server. The pollers add, per batch of up to 32
// completions, 1 call in busy mode and up to 3 in event mode (poll; arm
// and poll; consume events).
//
// # Memory windows
//
// Grant binds a type-2 memory window to the connection's QP over exactly
// the granted range; Revoke invalidates it and waits for the invalidation,
// so an access that arrives after Revoke returns fails. Regions are
// registered with IBV_ACCESS_MW_BIND when the device can allocate type-2
// windows (probed at device open). WindowsEnforced reports which mode a
// connection is in. Without window support Grant returns the region's own
// rkey, and enforcement is then region-wide and not per connection.
//
// The peer may close a window itself (transport.PeerInvalidator): its
// message arrives as a SEND_WITH_INV naming the rkey, the RNIC invalidates
// the window before the receive completion exists, and the receive poller
// marks the window closed before Deliver, so Revoke then only recycles it.
// A window must be invalidated once: a second invalidation fails the QP,
// and on rxe (Linux 6.1) oopses the kernel, since an invalidated window
// keeps its rkey with no QP behind it. rdmakv ends a connection before it
// revokes a window its client may still close.
//
// Soft-RoCE (rxe, Linux 6.1) allocates, binds and invalidates type-2
// windows and checks the window's QP, access rights and validity, but
// bounds an access only by the MR the window is bound to. On rxe (vendor id
// 0xffffff) each window is therefore bound to an MR covering exactly its
// range. Those MRs are kept per region and range (up to 256 idle ones), so
// a grant of a range seen before pins no pages; an idle one has no remote
// access of its own. rxe also reports a peer's invalidation with the
// kernel's flag bit (1 << 2, IBV_WC_IP_CSUM_OK to libibverbs) rather than
// IBV_WC_WITH_INV, so on rxe both are read as one. Windows are deallocated
// before their QP is destroyed: on rxe a window holds a reference on its
// QP, and destroying the QP first blocks for tens of seconds.
//
// # Failure and shutdown
//
// A failed completion other than a flush closes the connection; a remote
// access error is returned as transport.ErrRemoteAccess to the operation
// that caused it, and only that connection closes. Closing moves the QP to
// the error state (rdma_disconnect); when blocking operations are in
// flight a drain request queued behind them proves the send queue empty
// (10 s guard), then the receive poller delivers what is left, calls
// Closed and frees the QP. Close waits for that unless it is called from
// the Handler. Config.OpTimeout expiring closes the connection (the RNIC
// may otherwise still touch the caller's memory) and returns
// transport.ErrTimeout. A server connection's Send never waits for ring
// space, so one stuck client cannot hold up the shared poller: messages
// that find the ring full are copied to a backlog of the connection's own
// (at most 4 MiB), posted in order by a goroutine of its own as the ring
// frees up. A peer that takes none of them for 2 s (it stopped reposting
// receives), or lets the backlog overflow, is closed with ErrTimeout.
// Window binds and invalidations queue behind those sends too
// (transport.QueuedWindows): GrantQueued posts the bind and returns, since
// the send queue carries it out before the reply that names the window,
// and RevokeWaits tells a Handler when a Revoke would wait, so rdmakv's
// server then revokes off the poller. A server connection's Grant and
// Revoke give up after 2 s.
// Listener.Close must not be called from a Handler.
//
// With no RDMA device at all, Listen and Dial return an error wrapping
// transport.ErrNoDevice that says how to get Soft-RoCE.
package verbs
