package verbs

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A device without RC queue pairs serves nor dials, one without a shared
// receive queue dials but does not serve; each refusal names the device,
// what it lacks and the way out, and reads as no device (auto's cue).
func TestCaps(t *testing.T) {
	efa := caps{name: "efa_0", srq: true}
	e810 := caps{name: "irdma0", rc: true}
	mlx5 := caps{name: "mlx5_0", rc: true, srq: true}
	for _, c := range []struct {
		err  error
		want string
	}{
		{efa.dial(), "efa_0 has no reliable connected queue pairs"},
		{efa.serve(), "efa_0 has no reliable connected queue pairs"},
		{e810.serve(), "irdma0 has no shared receive queue"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || !strings.Contains(c.err.Error(), "--transport tcp") {
			t.Errorf("error %v, want one saying %q and the way out", c.err, c.want)
		}
		if !errors.Is(c.err, transport.ErrNoDevice) {
			t.Errorf("%v is not ErrNoDevice", c.err)
		}
	}
	for _, err := range []error{e810.dial(), mlx5.dial(), mlx5.serve()} {
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
