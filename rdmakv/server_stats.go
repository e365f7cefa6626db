package rdmakv

import (
	"syscall"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// ServerStats is a snapshot of what a server holds and the CPU time its
// process has used.
type ServerStats struct {
	// Conns is the number of connections open, handshake done or not.
	Conns int
	// Keys is the number of keys stored.
	Keys int
	// PoolUsed is the bytes of the value pool in use: committed values,
	// values still being read after an overwrite or delete, and set grants
	// not yet committed, in the allocator's block sizes.
	PoolUsed int64
	// PoolSize is the value pool's size.
	PoolSize int64
	// Grants is the number of set grants open (rendezvous SETs whose value
	// has not landed) and GrantBytes the pool bytes they hold, part of
	// PoolUsed. A client's ServerStats reads them as zero: STATS_REPLY
	// does not carry them.
	Grants     int
	GrantBytes int64
	// RecvShared is the receives the server's connections share (verbs'
	// shared receive queue), 0 where each has its own (tcp); RecvHeld is
	// what its connections hold of its receives: the credit each was
	// told and has not used, and at least one each past HELLO. A client's
	// ServerStats reads them as zero.
	RecvShared int
	RecvHeld   int64
	// CPUUser and CPUSys are the CPU time the server's process has spent
	// in user and in system mode since it started (getrusage with
	// RUSAGE_SELF): every thread, serving or not. For a server embedded in
	// another process, such as a benchmark's own, that is the whole
	// process's CPU, its clients' included. The difference between two
	// snapshots is what the process spent between them.
	CPUUser time.Duration
	CPUSys  time.Duration
}

// Stats reports what the server holds now. It takes the server's locks
// briefly, one at a time, so the figures are each exact but not taken at
// one instant.
func (s *Server) Stats() ServerStats {
	s.connMu.Lock()
	conns := len(s.conns)
	var grants int
	var granted, held int64
	for sc := range s.conns {
		sc.mu.Lock()
		grants, granted = grants+sc.grants, granted+sc.granted
		sc.mu.Unlock()
		held += sc.cr.held()
	}
	s.connMu.Unlock()
	s.store.mu.Lock()
	keys := len(s.store.items)
	s.store.mu.Unlock()
	user, sys := processCPU()
	return ServerStats{
		Conns:    conns,
		Keys:     keys,
		PoolUsed: int64(s.store.alloc.Used()),
		PoolSize: s.cfg.PoolSize,
		CPUUser:  user,
		CPUSys:   sys,

		Grants:     grants,
		GrantBytes: granted,
		RecvHeld:   held,
		RecvShared: s.credit.shared(),
	}
}

// processCPU is this process's CPU time in user and system mode. The
// call cannot fail with a valid who and buffer; were it to, the figures
// read zero rather than stop a server from reporting the rest.
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// statsBody is st as a STATS_REPLY body.
func statsBody(st ServerStats) wire.StatsBody {
	return wire.StatsBody{
		CPUUserNs: uint64(st.CPUUser), CPUSysNs: uint64(st.CPUSys),
		Conns: uint64(st.Conns), Keys: uint64(st.Keys),
		PoolUsed: uint64(st.PoolUsed), PoolSize: uint64(st.PoolSize),
	}
}
