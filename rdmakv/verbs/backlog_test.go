//go:build linux && cgo

package verbs

import (
	"bytes"
	"fmt"
	"testing"
)

// The backlog hands messages back whole and in order however pushes and
// pops interleave, counts what it holds, and lets go of a large buffer
// once empty.
func TestBacklogOrder(t *testing.T) {
	var b backlog
	next, want := 0, 0
	msg := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 1+i%700) }
	for round := range 50 {
		for range 1 + round%7 {
			m := msg(next)
			b.push(m[:len(m)/3], m[len(m)/3:len(m)/2], m[len(m)/2:])
			next++
		}
		for range 1 + round%5 {
			if b.empty() {
				break
			}
			if got := b.front(); !bytes.Equal(got, msg(want)) {
				t.Fatalf("message %d: got %d bytes starting %v, want %d bytes of %d", want, len(got), got[0], len(msg(want)), byte(want))
			}
			b.pop()
			want++
		}
		held := 0
		for i := want; i < next; i++ {
			held += len(msg(i))
		}
		if b.bytes() != held {
			t.Fatalf("round %d: bytes() = %d, want %d", round, b.bytes(), held)
		}
	}
	for !b.empty() {
		b.pop()
		want++
	}
	if want != next || b.sent != uint64(next) {
		t.Fatalf("popped %d, sent %d, pushed %d", want, b.sent, next)
	}
}

func TestBacklogReleasesLargeBuffer(t *testing.T) {
	for _, size := range []int{backlogKeep / 2, 2 * backlogKeep} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			var b backlog
			b.push(make([]byte, size), nil, nil)
			b.pop()
			if kept := cap(b.buf); (kept > 0) != (size <= backlogKeep) {
				t.Fatalf("after a %d-byte message the empty backlog keeps %d bytes (keep limit %d)", size, kept, backlogKeep)
			}
		})
	}
}
