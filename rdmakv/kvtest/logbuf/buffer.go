// Package logbuf is a log sink that goroutines may write to and read from
// at once, for tests across the module: the conformance suite's servers,
// rdmakv's own tests and the commands'. It imports the standard library
// only, so anything may use it.
package logbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that goroutines may write to and read from at
// once: a test's log sink, written from server and transport goroutines.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
