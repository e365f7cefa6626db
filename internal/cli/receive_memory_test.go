package cli

import (
	"testing"

	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// rdmakvstore.ReceiveMemory asks the verbs transport, which kvbench links
// in. The clients' receives are what docs/USAGE.md says a client registers
// (depth + 12 buffers of threshold + header, each with a 256 B head past
// 256 B), once per connection; the server's grow with the threshold and,
// past what its first RecvDepth buffers hold in credit, with the load.
func TestReceiveMemory(t *testing.T) {
	const key, depth = 16, 64
	_, client, err := rdmakvstore.ReceiveMemory(4096, key, 1, depth)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(depth + 12)
	want := (n*(4096+wire.MaxHeaderSize)+63)&^63 + n*256
	if client != want {
		t.Errorf("client receives at 4 KiB, depth %d: %d bytes, want %d", depth, client, want)
	}
	_, four, _ := rdmakvstore.ReceiveMemory(4096, key, 4, depth)
	if four != 4*client {
		t.Errorf("4 connections' receives %d, want 4 x %d", four, client)
	}
	var last int64
	for _, thr := range []int{1024, 4096, 65536} {
		s, _, err := rdmakvstore.ReceiveMemory(thr, key, 1, depth)
		if err != nil {
			t.Fatal(err)
		}
		if s <= last {
			t.Errorf("server receives at threshold %d: %d bytes, not above %d at the threshold below", thr, s, last)
		}
		last = s
	}
	few, _, _ := rdmakvstore.ReceiveMemory(4096, key, 1, depth)
	many, _, _ := rdmakvstore.ReceiveMemory(4096, key, 16, depth)
	if many <= few {
		t.Errorf("server receives for 16 connections of depth %d: %d bytes, not above one connection's %d", depth, many, few)
	}
}
