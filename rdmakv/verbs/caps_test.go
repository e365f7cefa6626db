//go:build linux && cgo

package verbs

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A device without RC queue pairs serves nor dials, naming the device,
// what it lacks and the way out, and reading as no device (auto's cue).
// One without a shared receive queue serves with a receive queue per
// connection, unless the shared one is required.
func TestCaps(t *testing.T) {
	efa := caps{name: "efa_0", srq: true}
	e810 := caps{name: "irdma0", rc: true}
	mlx5 := caps{name: "mlx5_0", rc: true, srq: true}
	_, efaServe := efa.serve(transport.ReceivesAuto)
	for _, err := range []error{efa.dial(), efaServe} {
		if err == nil || !strings.Contains(err.Error(), "efa_0 has no reliable connected queue pairs") || !strings.Contains(err.Error(), "--transport tcp") {
			t.Errorf("error %v, want one saying what efa_0 lacks and the way out", err)
		}
		if !errors.Is(err, transport.ErrNoDevice) {
			t.Errorf("%v is not ErrNoDevice", err)
		}
	}
	for _, c := range []struct {
		dev    caps
		r      transport.Receives
		shared bool
		err    string
	}{
		{e810, transport.ReceivesAuto, false, ""},
		{e810, transport.ReceivesPerConn, false, ""},
		{e810, transport.ReceivesShared, false, "irdma0 has no shared receive queue: listen with receives per-connection"},
		{mlx5, transport.ReceivesAuto, true, ""},
		{mlx5, transport.ReceivesShared, true, ""},
		{mlx5, transport.ReceivesPerConn, false, ""},
	} {
		shared, err := c.dev.serve(c.r)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s with receives %v: error %v, want %q", c.dev.name, c.r, err, c.err)
			}
			continue
		}
		if err != nil || shared != c.shared {
			t.Errorf("%s with receives %v: shared %v, %v; want shared %v", c.dev.name, c.r, shared, err, c.shared)
		}
	}
	for _, err := range []error{e810.dial(), mlx5.dial()} {
		if err != nil {
			t.Errorf("a capable device refused: %v", err)
		}
	}
}

// On iWARP every region takes remote writes, as the sink of an RDMA READ
// must there; elsewhere a local region does not.
func TestRegionAccessIWARP(t *testing.T) {
	local, writable := transport.AccessLocal, transport.AccessRemoteWrite
	if regionAccess(local, false) == regionAccess(writable, false) {
		t.Error("a local region takes remote writes on InfiniBand and RoCE")
	}
	if regionAccess(local, true) != regionAccess(writable, false) {
		t.Error("a local region on iWARP does not take remote writes")
	}
	if regionAccess(transport.AccessRemoteRead, true) != regionAccess(transport.AccessRemoteRead|writable, false) {
		t.Error("a readable region on iWARP does not take remote writes")
	}
}
