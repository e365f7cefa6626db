//go:build linux && race

package rawsock

import (
	"net"
	"runtime"
	"sync"
	"unsafe"
)

// raceSync tells the race detector what the kernel orders on one TCP
// connection: what a goroutine did before it wrote one end happens before
// what a goroutine does after it reads the bytes at the other end, as
// net.Conn's reads and writes tell it (internal/poll does the same). The
// socket calls here go around net.Conn, so they say it themselves. Both
// ends of a connection in this process share one address, found by the
// connection's pair of endpoints; other connections are left unordered,
// so that the detector still sees races between them.
type raceSync struct{ p *byte }

// pairs holds each connection's address, by its endpoints in order. An
// entry lives as long as the process: only race builds keep them.
var pairs sync.Map

func raceSyncOf(la, ra net.Addr) raceSync {
	if la == nil || ra == nil {
		return raceSync{p: new(byte)} // orders this socket's own calls only
	}
	a, b := la.String(), ra.String()
	if b < a {
		a, b = b, a
	}
	p, _ := pairs.LoadOrStore(a+" "+b, new(byte))
	return raceSync{p: p.(*byte)}
}

// wrote: the caller wrote bytes the peer is to read.
func (r raceSync) wrote() { runtime.RaceReleaseMerge(unsafe.Pointer(r.p)) }

// read: the caller read bytes the peer wrote.
func (r raceSync) read() { runtime.RaceAcquire(unsafe.Pointer(r.p)) }
