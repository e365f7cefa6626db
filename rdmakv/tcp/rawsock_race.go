//go:build race

package tcp

import (
	"runtime"
	"unsafe"
)

// ioSync tells the race detector what the kernel's socket orders: what a
// goroutine did before it wrote happens before what the peer does after it
// reads, as net.Conn's reads and writes tell it (internal/poll does the
// same). rawSock's system calls go around net.Conn, so it says it itself.
var ioSync byte

func raceWrote() { runtime.RaceReleaseMerge(unsafe.Pointer(&ioSync)) }
func raceRead()  { runtime.RaceAcquire(unsafe.Pointer(&ioSync)) }
