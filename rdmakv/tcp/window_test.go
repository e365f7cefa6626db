package tcp

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// faultCase dials a fresh connection, lets setup grant what it needs on the
// accepted end, runs op, and checks that op failed with ErrRemoteAccess,
// that both ends closed with the fault named, and that another connection
// to the same listener still works.
func TestRemoteAccessFaults(t *testing.T) {
	srv := listen(t, smallCfg())
	pool := register(t, srv.ln, 1<<20, transport.AccessLocal)
	open := register(t, srv.ln, 1<<16, transport.AccessRemoteRead|transport.AccessRemoteWrite)

	// A bystander connection that must keep working throughout.
	by := srv.pair(t, smallCfg())
	byLocal := register(t, by.cli, 1<<16, transport.AccessLocal)
	byKey := grant(t, by.sc, pool, 0, 1<<16, transport.AccessRemoteRead|transport.AccessRemoteWrite)

	const wOff, wLen = 4096, 8192
	cases := []struct {
		name   string
		op     func(c transport.Conn, local transport.Region, sc transport.Conn) error
		reason string
	}{
		{"one byte past window end", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteWrite)
			return c.Write(l, 0, 11, pool.Addr()+wOff+wLen-10, k)
		}, "bad len"},
		{"read one byte past window end", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteRead)
			return c.Read(l, 0, 1, pool.Addr()+wOff+wLen, k)
		}, "bad len"},
		{"address before window", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteWrite)
			return c.Write(l, 0, 1, pool.Addr()+wOff-1, k)
		}, "bad addr"},
		{"address past window", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteWrite)
			return c.Write(l, 0, 0, pool.Addr()+wOff+wLen+1, k)
		}, "bad addr"},
		{"length wrapping the address space", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteRead)
			return c.Read(l, 0, 4096, math.MaxUint64-100, k)
		}, "bad addr"},
		{"revoked key", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteWrite)
			if err := sc.Revoke(k); err != nil {
				t.Fatal(err)
			}
			return c.Write(l, 0, 1, pool.Addr()+wOff, k)
		}, "bad key"},
		{"write through read window", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteRead)
			return c.WriteImm(l, 0, 1, pool.Addr()+wOff, k, 9)
		}, "access denied"},
		{"read through write window", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			k := grant(t, sc, pool, wOff, wLen, transport.AccessRemoteWrite)
			return c.Read(l, 0, 1, pool.Addr()+wOff, k)
		}, "access denied"},
		{"region key without remote access", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			return c.Read(l, 0, 1, pool.Addr(), pool.RKey())
		}, "access denied"},
		{"window granted to another connection", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			return c.Read(l, 0, 1, pool.Addr(), byKey)
		}, "bad key"},
		{"unknown key", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			return c.Write(l, 0, 1, open.Addr(), open.RKey()^0x5a5a5a5a)
		}, "bad key"},
		{"region key past region end", func(c transport.Conn, l transport.Region, sc transport.Conn) error {
			return c.Write(l, 0, 2, open.Addr()+1<<16-1, open.RKey())
		}, "bad len"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := srv.pair(t, smallCfg())
			local := register(t, p.cli, 1<<16, transport.AccessLocal)
			err := tc.op(p.cli, local, p.sc)
			wantErr(t, err, transport.ErrRemoteAccess)
			if !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("initiator error %q does not say %q", err, tc.reason)
			}
			serr := p.srec.waitClosed(t)
			wantErr(t, serr, transport.ErrRemoteAccess)
			for _, word := range []string{tc.reason, "rkey", "addr", "len"} {
				if !strings.Contains(serr.Error(), word) {
					t.Fatalf("target's Closed error %q does not name %q", serr, word)
				}
			}
			wantErr(t, p.crec.waitClosed(t), transport.ErrRemoteAccess)
			wantErr(t, p.cli.Send([]byte("x"), nil, nil), transport.ErrClosed)

			// The bystander is untouched.
			fill(byLocal.Bytes(), byte(i))
			if err := by.cli.Write(byLocal, 0, 1<<16, pool.Addr(), byKey); err != nil {
				t.Fatalf("bystander write: %v", err)
			}
			if !bytes.Equal(pool.Bytes()[:1<<16], byLocal.Bytes()) {
				t.Fatal("bystander write landed wrong")
			}
		})
	}
}

func grant(t testing.TB, sc transport.Conn, r transport.Region, off, n int, a transport.Access) uint32 {
	t.Helper()
	k, err := sc.Grant(r, off, n, a)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestWindowInside(t *testing.T) {
	p := newPair(t, smallCfg())
	pool := register(t, p.srv.ln, 1<<20, transport.AccessLocal)
	local := register(t, p.cli, 1<<16, transport.AccessLocal)
	const off, n = 4096, 8192
	k := grant(t, p.sc, pool, off, n, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	if k == 0 || k == pool.RKey() {
		t.Fatalf("window key %#x", k)
	}
	fill(local.Bytes()[:n], 3)
	// The whole window, exactly.
	if err := p.cli.Write(local, 0, n, pool.Addr()+off, k); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pool.Bytes()[off:off+n], local.Bytes()[:n]) {
		t.Fatal("window write landed wrong")
	}
	// The last byte, and zero bytes at the very end.
	if err := p.cli.Read(local, n, 1, pool.Addr()+off+n-1, k); err != nil {
		t.Fatal(err)
	}
	if local.Bytes()[n] != pool.Bytes()[off+n-1] {
		t.Fatal("last byte differs")
	}
	if err := p.cli.Read(local, 0, 0, pool.Addr()+off+n, k); err != nil {
		t.Fatal(err)
	}
	if err := p.sc.Revoke(k); err != nil {
		t.Fatal(err)
	}
	if err := p.sc.Revoke(k); err == nil {
		t.Fatal("second revoke of the same key succeeded")
	}
}

func TestGrantChecks(t *testing.T) {
	p := newPair(t, smallCfg())
	pool := register(t, p.srv.ln, 4096, transport.AccessLocal)
	other := register(t, p.cli, 4096, transport.AccessLocal)
	bad := []struct {
		name   string
		r      transport.Region
		off, n int
		a      transport.Access
	}{
		{"past end", pool, 4000, 97, transport.AccessRemoteRead},
		{"negative offset", pool, -1, 1, transport.AccessRemoteRead},
		{"no access", pool, 0, 1, transport.AccessLocal},
		{"unknown access bits", pool, 0, 1, 0x80},
		{"other domain", other, 0, 1, transport.AccessRemoteRead},
		{"nil region", nil, 0, 1, transport.AccessRemoteRead},
	}
	for _, b := range bad {
		if _, err := p.sc.Grant(b.r, b.off, b.n, b.a); err == nil {
			t.Errorf("grant %s accepted", b.name)
		}
	}
	if err := p.sc.Revoke(pool.RKey()); err == nil {
		t.Error("revoking a region key as a window succeeded")
	}
	_ = pool.Close()
	if _, err := p.sc.Grant(pool, 0, 1, transport.AccessRemoteRead); err == nil {
		t.Error("grant on a closed region accepted")
	}
}

func TestRegions(t *testing.T) {
	p := newPair(t, smallCfg())
	if _, err := p.cli.Register(0, transport.AccessLocal); err == nil {
		t.Error("zero-size region accepted")
	}
	if _, err := p.cli.Register(-5, transport.AccessLocal); err == nil {
		t.Error("negative-size region accepted")
	}
	if _, err := p.cli.Register(10, 0x40); err == nil {
		t.Error("unknown access bits accepted")
	}
	seen := map[uint32]bool{}
	for range 64 {
		r := register(t, p.cli, 100, transport.AccessRemoteRead)
		if r.RKey() == 0 || seen[r.RKey()] {
			t.Fatalf("rkey %#x zero or repeated", r.RKey())
		}
		seen[r.RKey()] = true
		if len(r.Bytes()) != 100 || r.Addr() == 0 || r.LKey() != 0 {
			t.Fatalf("region len %d addr %#x lkey %d", len(r.Bytes()), r.Addr(), r.LKey())
		}
	}
	r := register(t, p.srv.ln, 4096, transport.AccessRemoteRead)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	// Its key is gone: a peer using it is refused.
	local := register(t, p.cli, 4096, transport.AccessLocal)
	wantErr(t, p.cli.Read(local, 0, 1, r.Addr(), r.RKey()), transport.ErrRemoteAccess)
}

// A listener's domain spans all its connections; a dialed connection's
// domain is its own.
func TestProtectionDomains(t *testing.T) {
	srv := listen(t, smallCfg())
	pa, pb := srv.pair(t, smallCfg()), srv.pair(t, smallCfg())
	a, sa, b := pa.cli, pa.sc, pb.cli
	// Registered through accepted connection sa, reachable through sb too.
	shared := register(t, sa, 4096, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	la := register(t, a, 4096, transport.AccessRemoteRead)
	lb := register(t, b, 4096, transport.AccessLocal)
	fill(la.Bytes(), 9)
	if err := a.Write(la, 0, 100, shared.Addr(), shared.RKey()); err != nil {
		t.Fatal(err)
	}
	if err := b.Read(lb, 0, 100, shared.Addr(), shared.RKey()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lb.Bytes()[:100], la.Bytes()[:100]) {
		t.Fatal("second connection read other bytes")
	}
	// Client a's region is known to a's server end only.
	dst := register(t, sa, 4096, transport.AccessLocal)
	if err := sa.Read(dst, 0, 100, la.Addr(), la.RKey()); err != nil {
		t.Fatal(err)
	}
	wantErr(t, b.Read(lb, 0, 100, la.Addr(), la.RKey()), transport.ErrRemoteAccess)
}
