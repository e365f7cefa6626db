//go:build linux && cgo

package verbs

import (
	"bytes"
	"testing"
)

// TestRecvData: a message received in two pieces, head and rest, is
// handed over in one piece, from its head when it fits there, else from
// its buffer with the head copied in front of the rest.
func TestRecvData(t *testing.T) {
	const size = 4096 + 64
	for _, n := range []int{0, 1, headSize - 1, headSize, headSize + 1, 1000, size} {
		q := &recvQueue{views: [][]byte{make([]byte, size), make([]byte, size)}}
		q.heads = [][]byte{make([]byte, headSize), make([]byte, headSize)}
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i*7 + 3)
		}
		// Where the device writes buffer 1's message: its head, then the
		// buffer after the head's length.
		k := copy(q.heads[1], msg)
		copy(q.views[1][headSize:], msg[k:])
		got := q.data(1, n)
		if !bytes.Equal(got, msg) {
			t.Fatalf("%d bytes: got %d bytes that differ from the message", n, len(got))
		}
		inHead := n > 0 && &got[0] == &q.heads[1][0]
		if want := n > 0 && n <= headSize; inHead != want {
			t.Errorf("%d bytes: handed over from the head %v, want %v", n, inHead, want)
		}
	}
	q := &recvQueue{views: [][]byte{[]byte("whole buffer")}}
	if got := q.data(0, 5); string(got) != "whole" {
		t.Errorf("unsplit queue: got %q, want %q", got, "whole")
	}
}
