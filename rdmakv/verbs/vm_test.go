//go:build rdmavm && linux && cgo

package verbs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

func polls() []struct {
	name string
	p    transport.Poll
} {
	return []struct {
		name string
		p    transport.Poll
	}{{"event", transport.PollEvent}, {"busy", transport.PollBusy}}
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func TestInfo(t *testing.T) {
	s := startServer(t, testConfig(transport.PollEvent), false)
	c := dialTest(t, s, testConfig(transport.PollEvent), newRecorder(false))
	sc, _ := s.accepted(t)
	for _, in := range []transport.Info{c.Info(), sc.Info()} {
		t.Logf("info: %+v", in)
		if in.Transport != Name || in.Device == "" || in.Port == 0 || in.MTU == 0 || in.LinkLayer == "" || in.GID == "" {
			t.Errorf("incomplete info %+v", in)
		}
	}
	if r := s.l.Info().Receives; r != transport.ReceivesShared {
		t.Errorf("listener on rxe, which has SRQs, posts receives %v", r)
	}
	t.Logf("memory windows enforced: %v", WindowsEnforced(c))
	if c.LocalAddr() == "" || c.RemoteAddr() != sc.LocalAddr() {
		t.Errorf("addresses: client %s -> %s, server %s", c.LocalAddr(), c.RemoteAddr(), sc.LocalAddr())
	}
}

// TestSendRecv echoes messages of every shape (empty, inline, gathered
// from three parts, full size) in order, more than the rings hold.
func TestSendRecv(t *testing.T) {
	for _, pm := range polls() {
		t.Run(pm.name, func(t *testing.T) {
			cfg := testConfig(pm.p)
			s := startServer(t, cfg, true)
			rec := newRecorder(false)
			c := dialTest(t, s, cfg, rec)
			guard(t, 60*time.Second, func() {
				sizes := []int{0, 1, 16, 100, 255, 256, 257, 1000, 4095, 4096}
				var want [][]byte
				for round := 0; round < 12; round++ {
					for i, n := range sizes {
						p := pattern(n, byte(round*31+i))
						a, b, d := p[:n/3], p[n/3:2*n/3], p[2*n/3:]
						if err := c.Send(a, b, d); err != nil {
							t.Fatalf("send %d bytes: %v", n, err)
						}
						want = append(want, p)
					}
				}
				for i, w := range want {
					g := rec.next(t)
					if g.kind != transport.KindRecv || !bytes.Equal(g.data, w) {
						t.Fatalf("message %d: kind %d, %d bytes, want %d bytes", i, g.kind, len(g.data), len(w))
					}
				}
			})
			if err := c.Send(make([]byte, 4097), nil, nil); !errors.Is(err, transport.ErrTooLarge) {
				t.Fatalf("oversized send: %v, want ErrTooLarge", err)
			}
		})
	}
}

// TestOneSided moves data with WRITE, READ and WRITE_WITH_IMM.
func TestOneSided(t *testing.T) {
	for _, pm := range polls() {
		t.Run(pm.name, func(t *testing.T) {
			cfg := testConfig(pm.p)
			s := startServer(t, cfg, false)
			target, err := s.l.Register(1<<20, transport.AccessRemoteRead|transport.AccessRemoteWrite)
			if err != nil {
				t.Fatal(err)
			}
			defer target.Close()
			c := dialTest(t, s, cfg, newRecorder(false))
			_, srec := s.accepted(t)
			local, err := c.Register(1<<20, transport.AccessLocal)
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			guard(t, 60*time.Second, func() {
				for i, n := range []int{1, 100, 4096, 64 << 10, 1 << 20} {
					p := pattern(n, byte(i))
					copy(local.Bytes(), p)
					if err := c.Write(local, 0, n, target.Addr(), target.RKey()); err != nil {
						t.Fatalf("write %d: %v", n, err)
					}
					if !bytes.Equal(target.Bytes()[:n], p) {
						t.Fatalf("write %d: target differs", n)
					}
					clear(local.Bytes())
					if err := c.Read(local, 0, n, target.Addr(), target.RKey()); err != nil {
						t.Fatalf("read %d: %v", n, err)
					}
					if !bytes.Equal(local.Bytes()[:n], p) {
						t.Fatalf("read %d: local differs", n)
					}
					copy(local.Bytes()[1:], pattern(n, 99))
					if err := c.WriteImm(local, 1, n-1, target.Addr()+1, target.RKey(), uint32(0xabc000+i)); err != nil {
						t.Fatalf("write-imm %d: %v", n, err)
					}
					g := srec.next(t)
					if g.kind != transport.KindWriteImm || g.imm != uint32(0xabc000+i) || g.n != n-1 || len(g.data) != 0 {
						t.Fatalf("write-imm %d: got kind %d imm %#x len %d", n, g.kind, g.imm, g.n)
					}
					if !bytes.Equal(target.Bytes()[1:n], pattern(n, 99)[:n-1]) {
						t.Fatalf("write-imm %d: target differs", n)
					}
				}
			})
			if err := c.Write(local, 1<<20-1, 2, target.Addr(), target.RKey()); err == nil {
				t.Fatal("local range overflow accepted")
			}
		})
	}
}

// TestWindows: a granted window works for its connection only, inside its
// range only, and not after Revoke; a violation fails that connection
// alone.
func TestWindows(t *testing.T) {
	cfg, s, pool := windowServer(t, transport.PollEvent)
	crecA, crecB := newRecorder(false), newRecorder(false)
	a := dialTest(t, s, cfg, crecA)
	sa, _ := s.accepted(t)
	b := dialTest(t, s, cfg, crecB)
	s.accepted(t)
	enforced := WindowsEnforced(sa)
	t.Logf("memory windows enforced: %v", enforced)
	if !enforced {
		t.Fatal("device has no type-2 memory windows; the region-wide fallback is covered by TestWindowFallback")
	}
	buf, _ := a.Register(8192, transport.AccessLocal)
	defer buf.Close()
	copy(buf.Bytes(), pattern(8192, 5))
	guard(t, 60*time.Second, func() {
		rkey, err := sa.Grant(pool, 4096, 4096, transport.AccessRemoteWrite|transport.AccessRemoteRead)
		if err != nil {
			t.Fatal(err)
		}
		base := pool.Addr() + 4096
		if err := a.Write(buf, 0, 4096, base, rkey); err != nil {
			t.Fatalf("write inside the window: %v", err)
		}
		if !bytes.Equal(pool.Bytes()[4096:8192], buf.Bytes()[:4096]) {
			t.Fatal("window write did not land")
		}
		// b presents a's key: type-2 windows are bound to sa's QP.
		if err := b.Write(buf, 0, 16, base, rkey); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("write with another connection's window: %v, want ErrRemoteAccess", err)
		}
		if err := b.Send([]byte("x"), nil, nil); !errors.Is(err, transport.ErrClosed) {
			t.Fatalf("send after remote access error: %v, want ErrClosed", err)
		}
		if err := <-crecB.closed; err == nil {
			t.Fatal("Closed after remote access error reported nil")
		}
		// Outside the window, inside the region.
		if err := a.Write(buf, 0, 16, base-16, rkey); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("write below the window: %v, want ErrRemoteAccess", err)
		}
	})
	// a is dead now; a fresh connection still works and Revoke bites.
	c := dialTest(t, s, cfg, newRecorder(false))
	sc, _ := s.accepted(t)
	buf2, _ := c.Register(4096, transport.AccessLocal)
	defer buf2.Close()
	guard(t, 60*time.Second, func() {
		rkey, err := sc.Grant(pool, 0, 4096, transport.AccessRemoteRead)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Read(buf2, 0, 4096, pool.Addr(), rkey); err != nil {
			t.Fatalf("read inside the window: %v", err)
		}
		if err := c.Write(buf2, 0, 8, pool.Addr(), rkey); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("write through a read-only window: %v, want ErrRemoteAccess", err)
		}
	})
	d := dialTest(t, s, cfg, newRecorder(false))
	sd, _ := s.accepted(t)
	buf3, _ := d.Register(4096, transport.AccessLocal)
	defer buf3.Close()
	guard(t, 60*time.Second, func() {
		for i := 0; i < 50; i++ { // windows are recycled
			rkey, err := sd.Grant(pool, 0, 4096, transport.AccessRemoteRead)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Read(buf3, 0, 64, pool.Addr(), rkey); err != nil {
				t.Fatalf("read %d: %v", i, err)
			}
			if err := sd.Revoke(rkey); err != nil {
				t.Fatal(err)
			}
		}
		rkey, _ := sd.Grant(pool, 0, 4096, transport.AccessRemoteRead)
		if err := sd.Revoke(rkey); err != nil {
			t.Fatal(err)
		}
		if err := d.Read(buf3, 0, 64, pool.Addr(), rkey); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("read after revoke: %v, want ErrRemoteAccess", err)
		}
	})
}

// TestRemoteAccessOutOfRegion: an access past a region's end fails with
// ErrRemoteAccess, closes that connection, and leaves the others alone.
func TestRemoteAccessOutOfRegion(t *testing.T) {
	cfg := testConfig(transport.PollEvent)
	s := startServer(t, cfg, true)
	target, _ := s.l.Register(4096, transport.AccessRemoteWrite)
	defer target.Close()
	recA, recB := newRecorder(false), newRecorder(false)
	a := dialTest(t, s, cfg, recA)
	b := dialTest(t, s, cfg, recB)
	buf, _ := a.Register(8192, transport.AccessLocal)
	defer buf.Close()
	guard(t, 60*time.Second, func() {
		if err := a.Write(buf, 0, 8192, target.Addr(), target.RKey()); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("write past the region: %v, want ErrRemoteAccess", err)
		}
		if err := <-recA.closed; err == nil {
			t.Fatal("Closed reported nil after a remote access error")
		}
		if err := b.Send([]byte("still here"), nil, nil); err != nil {
			t.Fatalf("other connection: %v", err)
		}
		if g := recB.next(t); string(g.data) != "still here" {
			t.Fatalf("other connection echoed %q", g.data)
		}
	})
}

// TestCloseIdempotent: Close twice, ops after Close fail with ErrClosed,
// Closed is called once, with nil for a local Close and an error on the
// peer's side.
func TestCloseIdempotent(t *testing.T) {
	for _, pm := range polls() {
		t.Run(pm.name, func(t *testing.T) {
			cfg := testConfig(pm.p)
			s := startServer(t, cfg, false)
			rec := newRecorder(false)
			c := dialTest(t, s, cfg, rec)
			_, srec := s.accepted(t)
			r, _ := c.Register(64, transport.AccessLocal)
			guard(t, 30*time.Second, func() {
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
				if err := <-rec.closed; err != nil {
					t.Fatalf("local Close reported %v", err)
				}
				if err := c.Send(nil, nil, nil); !errors.Is(err, transport.ErrClosed) {
					t.Fatalf("send after close: %v", err)
				}
				if err := c.Read(r, 0, 8, 0, 0); !errors.Is(err, transport.ErrClosed) {
					t.Fatalf("read after close: %v", err)
				}
				if err := <-srec.closed; err == nil {
					t.Fatal("server side of a closed connection reported nil")
				}
				if n := rec.closedCount(); n != 1 {
					t.Fatalf("Closed called %d times", n)
				}
				r.Close()
				r.Close()
				s.l.Close()
				s.l.Close()
			})
		})
	}
}

// TestPeerGone: the server goes away while the client has one-sided
// operations in flight; they fail, the connection closes, nothing hangs.
func TestPeerGone(t *testing.T) {
	cfg := testConfig(transport.PollEvent)
	s := startServer(t, cfg, false)
	target, _ := s.l.Register(1<<20, transport.AccessRemoteRead)
	rec := newRecorder(false)
	c := dialTest(t, s, cfg, rec)
	s.accepted(t)
	local, _ := c.Register(1<<20, transport.AccessLocal)
	defer local.Close()
	guard(t, 60*time.Second, func() {
		errs := make(chan error, 4)
		for w := 0; w < 4; w++ {
			go func() {
				for {
					if err := c.Read(local, 0, 1<<18, target.Addr(), target.RKey()); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		time.Sleep(200 * time.Millisecond) // let reads get in flight; not a measurement
		s.l.Close()
		target.Close()
		for w := 0; w < 4; w++ {
			if err := <-errs; err == nil {
				t.Fatal("read on a dead connection succeeded")
			}
		}
		if err := <-rec.closed; err == nil {
			t.Fatal("Closed reported nil for a vanished peer")
		}
	})
}

// TestDialFailures: nobody listening is refused; an absent host times out
// within the context; neither hangs.
func TestDialFailures(t *testing.T) {
	addr := vmAddr(t)
	guard(t, 60*time.Second, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if c, err := (network{}).Dial(ctx, addr+":1", testConfig(transport.PollEvent), newRecorder(false)); err == nil {
			c.Close()
			t.Fatal("dial to a closed port succeeded")
		} else {
			t.Logf("closed port: %v", err)
		}
		ctx2, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel2()
		if c, err := (network{}).Dial(ctx2, "10.0.0.77:7471", testConfig(transport.PollEvent), newRecorder(false)); err == nil {
			c.Close()
			t.Fatal("dial to an absent host succeeded")
		} else {
			t.Logf("absent host: %v", err)
		}
	})
}

func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Env{Transport: Name, Addr: os.Getenv("RDMAKV_ADDR") + ":0", MaxValue: 4 << 20, Clients: 8})
}

// TestPeerInvalidate: windows closed by the peer's SEND_WITH_INV are
// recycled by Revoke without a second invalidation (which would fail the
// connection), over and over, for READ and WRITE grants; a region-wide key
// is never offered for closing.
func TestPeerInvalidate(t *testing.T) {
	cfg, s, pool := windowServer(t, transport.PollBusy)
	copy(pool.Bytes(), pattern(64<<10, 3))
	a := dialTest(t, s, cfg, newRecorder(false))
	sa, rec := s.accepted(t)
	buf, _ := a.Register(64<<10, transport.AccessLocal)
	defer buf.Close()
	pi := a.(transport.PeerInvalidator)
	spi := sa.(transport.PeerInvalidator)
	guard(t, 120*time.Second, func() {
		for i := 0; i < 30; i++ {
			off := (i % 8) * 4096
			rkey, err := sa.Grant(pool, off, 4096, transport.AccessRemoteRead)
			if err != nil {
				t.Fatal(err)
			}
			if !spi.PeerCanInvalidate(rkey) {
				t.Fatalf("grant %d: window %#x not offered for closing by the peer", i, rkey)
			}
			msg := []byte(fmt.Sprintf("release %d", i))
			if err := pi.ReadInvalidate(buf, 0, 4096, pool.Addr()+uint64(off), rkey, msg, nil, nil); err != nil {
				t.Fatalf("ReadInvalidate %d: %v", i, err)
			}
			if !bytes.Equal(buf.Bytes()[:4096], pool.Bytes()[off:off+4096]) {
				t.Fatalf("ReadInvalidate %d read the wrong bytes", i)
			}
			if g := rec.next(t); string(g.data) != string(msg) {
				t.Fatalf("release %d arrived as %q", i, g.data)
			}
			if err := sa.Revoke(rkey); err != nil {
				t.Fatalf("Revoke %d of a window the peer closed: %v", i, err)
			}
			if spi.PeerCanInvalidate(rkey) {
				t.Fatalf("revoked window %#x still offered for closing by the peer", rkey)
			}

			wkey, err := sa.Grant(pool, off, 4096, transport.AccessRemoteWrite)
			if err != nil {
				t.Fatal(err)
			}
			copy(buf.Bytes(), pattern(4096, byte(i)))
			rec.setSnap(func() []byte { return bytes.Clone(pool.Bytes()[off : off+4096]) })
			if err := pi.WriteInvalidate(buf, 0, 4096, pool.Addr()+uint64(off), wkey, msg, nil, nil); err != nil {
				t.Fatalf("WriteInvalidate %d: %v", i, err)
			}
			g := rec.next(t)
			if string(g.data) != string(msg) {
				t.Fatalf("fin %d arrived as %q", i, g.data)
			}
			if !bytes.Equal(g.snap, pattern(4096, byte(i))) {
				t.Fatalf("WriteInvalidate %d: the data had not landed when the message was delivered", i)
			}
			if err := sa.Revoke(wkey); err != nil {
				t.Fatalf("Revoke %d of a write window the peer closed: %v", i, err)
			}
		}
		// The last closed window refuses the next access.
		rec.setSnap(nil)
		rkey, err := sa.Grant(pool, 0, 4096, transport.AccessRemoteRead)
		if err != nil {
			t.Fatal(err)
		}
		if err := pi.ReadInvalidate(buf, 0, 4096, pool.Addr(), rkey, []byte("last"), nil, nil); err != nil {
			t.Fatal(err)
		}
		rec.next(t)
		if err := a.Read(buf, 0, 64, pool.Addr(), rkey); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("READ through a window the peer closed: %v, want ErrRemoteAccess", err)
		}
	})
}

// TestPeerInvalidateOtherConnection: rxe lets a SEND_WITH_INV close a
// window of another connection. The owner's Revoke must then not
// invalidate it a second time (rxe would oops the kernel), and the sender
// is dropped while the owner carries on.
func TestPeerInvalidateOtherConnection(t *testing.T) {
	cfg, s, pool := windowServer(t, transport.PollBusy)
	a := dialTest(t, s, cfg, newRecorder(false))
	sa, _ := s.accepted(t)
	b := dialTest(t, s, cfg, newRecorder(false))
	_, recB := s.accepted(t)
	guard(t, 60*time.Second, func() {
		rkey, err := sa.Grant(pool, 0, 4096, transport.AccessRemoteRead)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.(*conn).send([]byte("not yours"), nil, nil, rkey, nil); err != nil {
			t.Fatalf("SEND_WITH_INV from the other connection: %v", err)
		}
		select {
		case err := <-recB.closed:
			if !errors.Is(err, transport.ErrRemoteAccess) {
				t.Errorf("sender dropped with %v, want ErrRemoteAccess", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the connection that closed another's window was not dropped")
		}
		if err := sa.Revoke(rkey); err != nil {
			t.Fatalf("Revoke of a window another connection closed: %v", err)
		}
		// The owner's connection and windows still work.
		buf, _ := a.Register(4096, transport.AccessLocal)
		defer buf.Close()
		k2, err := sa.Grant(pool, 0, 4096, transport.AccessRemoteRead)
		if err != nil {
			t.Fatal(err)
		}
		if err := sa.Send([]byte("key"), nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := a.Read(buf, 0, 4096, pool.Addr(), k2); err != nil {
			t.Fatalf("owner's READ after the other connection was dropped: %v", err)
		}
		if err := sa.Revoke(k2); err != nil {
			t.Fatal(err)
		}
	})
}

// TestResolveRouteError: rdma_resolve_route on an id whose route is
// already resolved fails in the kernel with EINVAL; the error must carry
// that errno, not the -1 the library returned read as one (EPERM).
func TestResolveRouteError(t *testing.T) {
	cm, err := openCM()
	if err != nil {
		t.Fatal(err)
	}
	defer cm.close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id, err := routedID(ctx, cm, vmAddr(t)+":7471")
	if err != nil {
		t.Fatal(err)
	}
	defer destroyID(id)
	err = resolveRoute(id, 1000)
	if !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), "resolve route: invalid argument") {
		t.Fatalf("second route resolution: %v, want resolve route: invalid argument (EINVAL)", err)
	}
}

// TestArmFailure: an event-mode poller whose CQ cannot be armed for a
// notification keeps polling instead of sleeping on a channel that will
// never signal, so replies still arrive.
func TestArmFailure(t *testing.T) {
	s := startServer(t, testConfig(transport.PollEvent), true)
	rec := newRecorder(false)
	c := dialTest(t, s, testConfig(transport.PollEvent), rec).(*conn)
	q := c.g.rcq
	q.pmu.Lock()
	q.arm = func() int { return -int(syscall.EIO) }
	q.pmu.Unlock()
	// Until the poller has run out of spins and tried to arm, and once
	// after: messages keep coming either way.
	deadline := time.Now().Add(20 * time.Second)
	for i, tried := 0, false; !tried; i++ {
		tried = q.armFailures.Load() > 0
		msg := []byte(fmt.Sprintf("unarmed %d", i))
		if err := c.Send(msg, nil, nil); err != nil {
			t.Fatal(err)
		}
		if g := rec.next(t); !bytes.Equal(g.data, msg) {
			t.Fatalf("got %q, want %q", g.data, msg)
		}
		if time.Now().After(deadline) {
			t.Fatal("the poller never tried to arm its CQ (hang guard)")
		}
		time.Sleep(5 * time.Millisecond) // a pause for the poller to run out of spins in
	}
}

// TestDropBeforeEstablished: a server that closes a connection as soon as
// it accepts it, before the CM has the peer's RTU, still tells the peer.
// Its teardown waits for the CM to settle the connection before it
// disconnects and destroys the id. A peer not told would wait for its own
// timeouts, or forever if it never sends.
func TestDropBeforeEstablished(t *testing.T) {
	cfg := testConfig(transport.PollBusy)
	l, err := network{}.Listen(vmAddr(t)+":0", cfg, func(c transport.Conn) transport.Handler {
		go c.Close()
		return newRecorder(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 5 {
		rec := newRecorder(false)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := network{}.Dial(ctx, l.Addr(), cfg, rec)
		cancel()
		if err != nil {
			continue // refused before the client saw it established: told, too
		}
		select {
		case <-rec.closed:
		case <-time.After(15 * time.Second):
			t.Fatalf("round %d: the client was not told the server dropped it (hang guard)", i)
		}
		c.Close()
	}
}
