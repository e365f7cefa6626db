//go:build !linux || !cgo

package verbs

import (
	"context"
	"errors"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A build without verbs registers the transport, and each use of it
// fails with transport.ErrNoDevice, which "auto" falls back to tcp on.
func TestNoVerbs(t *testing.T) {
	n, err := transport.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Listen("127.0.0.1:0", transport.Config{}, nil); !errors.Is(err, transport.ErrNoDevice) {
		t.Errorf("Listen: %v, want ErrNoDevice", err)
	}
	if _, err := n.Dial(context.Background(), "127.0.0.1:1", transport.Config{}, nil); !errors.Is(err, transport.ErrNoDevice) {
		t.Errorf("Dial: %v, want ErrNoDevice", err)
	}
	if _, err := n.LocalAddr(); !errors.Is(err, transport.ErrNoDevice) {
		t.Errorf("LocalAddr: %v, want ErrNoDevice", err)
	}
	if _, err := Devices(); !errors.Is(err, transport.ErrNoDevice) {
		t.Errorf("Devices: %v, want ErrNoDevice", err)
	}
}
