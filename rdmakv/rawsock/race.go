//go:build race

package rawsock

import (
	"runtime"
	"unsafe"
)

// ioSync tells the race detector what the kernel's socket orders: what a
// goroutine did before it wrote happens before what the peer does after it
// reads, as net.Conn's reads and writes tell it (internal/poll does the
// same). Sock's system calls go around net.Conn, so it says it itself; a
// writer that writes the same socket through net.Conn calls RaceWrote too,
// since net.Conn's annotations are its own.
var ioSync byte

// RaceWrote tells the race detector that the caller wrote the socket
// bytes a Sock is to read.
func RaceWrote() { runtime.RaceReleaseMerge(unsafe.Pointer(&ioSync)) }
func raceRead()  { runtime.RaceAcquire(unsafe.Pointer(&ioSync)) }
