package tcp

import (
	"bytes"
	"errors"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// gateHandler holds its connection's reader inside the first Deliver until
// the gate opens, which stalls whatever the peer streams after that SEND.
type gateHandler struct {
	entered chan struct{}
	gate    chan struct{}
}

func (g *gateHandler) Deliver(_ transport.Conn, m *transport.Message) {
	select {
	case g.entered <- struct{}{}:
		<-g.gate
	default:
	}
	m.Release()
}

func (g *gateHandler) Closed(transport.Conn, error) {}

// TestRevokeWaitsForInFlightRead: the owner of a window reuses its memory
// as soon as Revoke returns (the store frees the slot), so a READ response
// still streaming out of the window must finish first. The reader is
// stalled mid-response; once Revoke returns the region is overwritten. The
// READ must then fail or deliver the old bytes whole, never a mix.
func TestRevokeWaitsForInFlightRead(t *testing.T) {
	const n = 32 << 20 // far more than the socket buffers hold
	srv := listen(t, smallCfg())
	g := &gateHandler{entered: make(chan struct{}, 1), gate: make(chan struct{})}
	cli, err := network{}.Dial(t.Context(), srv.ln.Addr(), withMode(smallCfg()), g)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	sc, _ := srv.accepted(t)
	pool := register(t, srv.ln, n, transport.AccessLocal)
	fill(pool.Bytes(), 1)
	want := bytes.Clone(pool.Bytes())
	local := register(t, cli, n, transport.AccessLocal)
	k := grant(t, sc, pool, 0, n, transport.AccessRemoteRead)

	if err := sc.Send([]byte("stall"), nil, nil); err != nil {
		t.Fatal(err)
	}
	await(t, g.entered, "client never delivered the stalling SEND")
	readDone := make(chan error, 1)
	go func() { readDone <- cli.Read(local, 0, n, pool.Addr(), k) }()
	// Give the responder time to start streaming; either order is correct,
	// this only makes the interesting one likely.
	time.Sleep(100 * time.Millisecond)
	revoked := make(chan error, 1)
	go func() {
		err := sc.Revoke(k)
		fill(pool.Bytes(), 2) // what a new value in the freed slot would do
		revoked <- err
	}()
	time.Sleep(100 * time.Millisecond)
	close(g.gate)

	rerr := await(t, readDone, "READ never completed")
	if err := await(t, revoked, "Revoke never returned"); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	if rerr != nil {
		if !errors.Is(rerr, transport.ErrRemoteAccess) {
			t.Fatalf("READ failed with %v, want success or a remote access error", rerr)
		}
		return
	}
	if i := firstDiff(local.Bytes(), want); i >= 0 {
		t.Fatalf("READ racing a Revoke returned torn data: first difference at byte %d of %d", i, n)
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestPeerLossKeepsRegions: a dialed connection the peer drops keeps its
// regions mapped, so views into them (a value the application still
// holds) stay readable until the owner closes the connection.
func TestPeerLossKeepsRegions(t *testing.T) {
	p := newPair(t, smallCfg())
	local := register(t, p.cli, 1<<16, transport.AccessLocal)
	fill(local.Bytes(), 5)
	want := bytes.Clone(local.Bytes())
	if err := p.sc.Close(); err != nil {
		t.Fatal(err)
	}
	p.crec.waitClosed(t)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("region unmapped after the peer left, before Close: %v", r)
			}
		}()
		if !bytes.Equal(local.Bytes(), want) {
			t.Fatal("region contents changed after the peer left")
		}
	}()
	if _, err := p.cli.Register(4096, transport.AccessLocal); err == nil {
		t.Fatal("Register on a connection the peer dropped succeeded")
	}
	if err := p.cli.Close(); err != nil {
		t.Fatal(err)
	}
	if err := local.Close(); err != nil {
		t.Fatalf("region Close after connection Close: %v", err)
	}
}
