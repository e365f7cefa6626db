package logbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestBufferConcurrent writes from several goroutines while reading; run
// with -race, an unguarded buffer fails. Every line must arrive whole.
func TestBufferConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(&b, "g%d line %d\n", g, i)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines, want 400", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "g") || !strings.Contains(l, " line ") {
			t.Fatalf("torn line %q", l)
		}
	}
}
