// Package testutil holds what tests across the module share. It imports
// the standard library only: the store's conformance suite (rdmakv/kvtest)
// uses it, and a transport that runs the suite should not inherit the
// command line's dependencies. Helpers that need more live in subpackages.
package testutil

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
