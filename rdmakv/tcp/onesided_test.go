package tcp

import (
	"bytes"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

func TestWriteReadRoundTrip(t *testing.T) {
	const size = 8 << 20
	p := newPair(t, smallCfg())
	local, remote := p.regions(t, size, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	for _, n := range []int{0, 1, 7, 4095, 64<<10 + 3, 3 << 20} {
		src := local.Bytes()[:n]
		fill(src, byte(n))
		off := 4096 + n%13
		if err := p.cli.Write(local, 0, n, remote.Addr()+uint64(off), remote.RKey()); err != nil {
			t.Fatalf("write %d bytes: %v", n, err)
		}
		// Write returns once the target placed the data.
		if !bytes.Equal(remote.Bytes()[off:off+n], src) {
			t.Fatalf("write %d bytes: target memory differs", n)
		}
		dst := local.Bytes()[size-n : size]
		clear(dst)
		if err := p.cli.Read(local, size-n, n, remote.Addr()+uint64(off), remote.RKey()); err != nil {
			t.Fatalf("read %d bytes: %v", n, err)
		}
		if !bytes.Equal(dst, remote.Bytes()[off:off+n]) {
			t.Fatalf("read %d bytes: local memory differs", n)
		}
	}
}

func TestWriteImm(t *testing.T) {
	p := newPair(t, smallCfg())
	local, remote := p.regions(t, 4<<20, transport.AccessRemoteWrite)
	for i, n := range []int{0, 100, 4 << 20} {
		fill(local.Bytes()[:n], byte(i+1))
		imm := uint32(0xabc000 + i)
		if err := p.cli.WriteImm(local, 0, n, remote.Addr(), remote.RKey(), imm); err != nil {
			t.Fatal(err)
		}
		m := p.srec.next(t)
		if m.Kind != transport.KindWriteImm || m.Imm != imm || m.Len != n || len(m.Data) != 0 {
			t.Fatalf("completion kind %d imm %#x len %d data %d; want imm %#x len %d",
				m.Kind, m.Imm, m.Len, len(m.Data), imm, n)
		}
		// The data is in place when the completion is delivered.
		if !bytes.Equal(remote.Bytes()[:n], local.Bytes()[:n]) {
			t.Fatalf("WriteImm of %d bytes: target memory differs at delivery", n)
		}
		m.Release()
	}
}

// WRITE_WITH_IMM consumes a receive buffer, so with every buffer held the
// writer waits (as on RNR) until one is released.
func TestWriteImmConsumesRecvBuffer(t *testing.T) {
	cfg := transport.Config{MaxMessage: 256, RecvDepth: 2, SendDepth: 4}
	p := newPair(t, cfg)
	local, remote := p.regions(t, 4096, transport.AccessRemoteWrite)
	for range cfg.RecvDepth {
		if err := p.cli.Send([]byte("hold"), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	held := []*transport.Message{p.srec.next(t), p.srec.next(t)}
	done := make(chan error, 1)
	go func() { done <- p.cli.WriteImm(local, 0, 16, remote.Addr(), remote.RKey(), 7) }()
	select {
	case err := <-done:
		t.Fatalf("WriteImm completed with no receive buffer free: %v", err)
	case m := <-p.srec.msgs:
		t.Fatalf("completion delivered with no receive buffer free: kind %d", m.Kind)
	case <-shortWait():
	}
	held[1].Release()
	if m := p.srec.next(t); m.Kind != transport.KindWriteImm || m.Imm != 7 {
		t.Fatalf("got kind %d imm %d", m.Kind, m.Imm)
	} else {
		m.Release()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	held[0].Release()
}

// Two peers reading large blocks from each other at once must not
// deadlock on full socket buffers.
func TestCrossReads(t *testing.T) {
	const size = 4 << 20
	p := newPair(t, smallCfg())
	srvMem := register(t, p.srv.ln, size, transport.AccessRemoteRead)
	cliMem := register(t, p.cli, size, transport.AccessRemoteRead)
	srvDst := register(t, p.srv.ln, size, transport.AccessLocal)
	cliDst := register(t, p.cli, size, transport.AccessLocal)
	fill(srvMem.Bytes(), 1)
	fill(cliMem.Bytes(), 2)
	errc := make(chan error, 2)
	for range 4 {
		go func() { errc <- p.cli.Read(cliDst, 0, size, srvMem.Addr(), srvMem.RKey()) }()
		go func() { errc <- p.sc.Read(srvDst, 0, size, cliMem.Addr(), cliMem.RKey()) }()
	}
	for range 8 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(cliDst.Bytes(), srvMem.Bytes()) || !bytes.Equal(srvDst.Bytes(), cliMem.Bytes()) {
		t.Fatal("cross reads returned wrong bytes")
	}
}

func TestLocalRangeChecked(t *testing.T) {
	p := newPair(t, smallCfg())
	local, remote := p.regions(t, 4096, transport.AccessRemoteWrite)
	for _, c := range []struct{ off, n int }{{-1, 1}, {0, -1}, {4096, 1}, {1, 4096}, {0, 1 << 62}} {
		if err := p.cli.Write(local, c.off, c.n, remote.Addr(), remote.RKey()); err == nil {
			t.Fatalf("local range [%d,+%d) accepted", c.off, c.n)
		}
	}
	// A bad local argument is the caller's mistake, not a broken link.
	if err := p.cli.Write(local, 0, 10, remote.Addr(), remote.RKey()); err != nil {
		t.Fatal(err)
	}
}

// A WRITE_WITH_IMM waiting for a receive buffer does not pin its target:
// the region can be closed meanwhile, and the write then fails.
func TestWriteImmWaitingDoesNotPinTarget(t *testing.T) {
	cfg := transport.Config{MaxMessage: 256, RecvDepth: 1, SendDepth: 4}
	p := newPair(t, cfg)
	remote, err := p.srv.ln.Register(4096, transport.AccessRemoteWrite)
	if err != nil {
		t.Fatal(err)
	}
	local := register(t, p.cli, 4096, transport.AccessLocal)
	if err := p.cli.Send([]byte("hold"), nil, nil); err != nil {
		t.Fatal(err)
	}
	held := p.srec.next(t)
	done := make(chan error, 1)
	go func() { done <- p.cli.WriteImm(local, 0, 16, remote.Addr(), remote.RKey(), 1) }()
	select {
	case err := <-done:
		t.Fatalf("WriteImm completed with no receive buffer free: %v", err)
	case <-shortWait():
	}
	closed := make(chan error, 1)
	go func() { closed <- remote.Close() }()
	if err := await(t, closed, "Region.Close blocked behind a WriteImm waiting for a receive buffer"); err != nil {
		t.Fatal(err)
	}
	held.Release()
	wantErr(t, await(t, done, "WriteImm hung"), transport.ErrRemoteAccess)
}
