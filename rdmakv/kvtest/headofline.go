package kvtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Head-of-line case parameters. Victims issue GETs on a fixed schedule and
// each latency runs from the op's scheduled start, so a stall counts once
// for every op it delays, not once per victim.
const (
	holVictims  = 8
	holInterval = 20 * time.Millisecond
	holBaseline = 2 * time.Second
	holAttempts = 3
	// holFloodEvery paces the stuck peer's GETs.
	holFloodEvery = 4 * time.Millisecond
	// holFloor is the p99 below which a difference is scheduler noise on
	// a two-core machine, or in an emulated guest; a stall behind the
	// stuck peer lasts seconds.
	holFloor = 20 * time.Millisecond
)

// testHeadOfLine: a peer that stops taking its replies (it never frees a
// receive buffer, so the server's sends to it stall: RNR on verbs, a full
// socket on TCP) costs the other clients nothing. Eight clients GET on a
// schedule, alone and then while the stuck peer keeps sending requests;
// their p99 must stay within 2x. The stuck peer is dropped, with a log line naming
// it. A schedule that misses by noise is measured again, up to
// holAttempts times; a stall misses every time. With windows the stuck
// peer's requests make the server open and close windows (rendezvous GETs
// and releases it never closes itself), whose binds and invalidations
// queue on verbs behind the replies the peer is not taking.
func testHeadOfLine(t *testing.T, env Env, windows bool) {
	cfg := serverConfig(env)
	logs := captureLogs(&cfg)
	s := startServer(t, cfg)
	key, val := []byte("hol"), pattern(64, 7)
	victims := dialN(t, env, s.Addr(), holVictims)
	mustSet(t, victims[0], key, val)
	flood := []byte("hol-flood")
	mustSet(t, victims[0], flood, pattern(holReplySize(env), 3)) // inline for the stuck peer
	for attempt := 1; ; attempt++ {
		base := schedule(t, victims, key, val, nil)
		stuck := rawHello(t, env, s.Addr(), cfg.MaxEager, uint32(cfg.MaxEager))
		stuck.hold = true
		loaded := schedule(t, victims, key, val, func() { floodUntilDropped(stuck, flood, uint32(cfg.MaxEager), windows) })
		t.Logf("attempt %d: victims' GET p99 %v alone, %v beside the stuck peer (%d and %d ops)",
			attempt, base.p99, loaded.p99, base.n, loaded.n)
		if err := stuck.waitClosed(10 * time.Second); err != nil {
			t.Fatalf("the stuck peer: %v", err)
		}
		// The server logs once it has torn the connection down, which
		// may be after the peer saw it close.
		line := logLine(logs.String(), stuck.conn.LocalAddr())
		for wait := time.Now().Add(10 * time.Second); line == "" && time.Now().Before(wait); {
			time.Sleep(10 * time.Millisecond)
			line = logLine(logs.String(), stuck.conn.LocalAddr())
		}
		if line == "" {
			t.Fatalf("no log line names the dropped peer %s:\n%s", stuck.conn.LocalAddr(), logs.String())
		}
		t.Logf("server: %s", line)
		if loaded.p99 <= 2*max(base.p99, holFloor) {
			return
		}
		if attempt == holAttempts {
			t.Fatalf("victims' GET p99 beside a stuck peer was %v, more than 2x the %v alone (floor %v), in %d attempts",
				loaded.p99, base.p99, holFloor, holAttempts)
		}
	}
}

type holResult struct {
	p99 time.Duration
	n   int
}

// schedule runs the victims' GETs every holInterval each, for
// holBaseline and, when during is not nil, for as long as during runs,
// which starts with them.
func schedule(t *testing.T, victims []*rdmakv.Client, key, val []byte, during func()) holResult {
	t.Helper()
	stop := make(chan struct{})
	go func() {
		defer close(stop)
		atLeast := time.After(holBaseline)
		if during != nil {
			during()
		}
		<-atLeast
	}()
	lat := make([][]time.Duration, len(victims))
	errs := make(chan error, len(victims))
	var wg sync.WaitGroup
	for i, c := range victims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			lat[i], err = victimLoop(c, key, val, stop)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	return holResult{p99: all[(len(all)*99)/100], n: len(all)}
}

// victimLoop GETs key every holInterval until stop, returning each GET's
// latency from its scheduled start.
func victimLoop(c *rdmakv.Client, key, val []byte, stop <-chan struct{}) ([]time.Duration, error) {
	var out []time.Duration
	start := time.Now()
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * holInterval)
		select {
		case <-stop:
			return out, nil
		case <-time.After(time.Until(due)):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		v, err := c.Get(ctx, key)
		cancel()
		if err != nil {
			return out, fmt.Errorf("victim GET: %w", err)
		}
		same := string(v.Bytes()) == string(val)
		v.Release()
		if !same {
			return out, fmt.Errorf("victim GET returned wrong bytes")
		}
		out = append(out, time.Since(due))
	}
}

// floodUntilDropped sends GETs of key, one every holFloodEvery, until the
// server drops r. aux is the inline size r accepts. With windows two in
// three requests are instead a GET of the value by rendezvous (threshold
// 1) and a release of the lease token the server issued for it (1, 2,
// ...) that leaves the window for the server to close. Once the server
// has more binds queued than it allows it answers a GET with an error and
// no token, and the peer's release of that token gets it dropped too.
func floodUntilDropped(r *rawClient, key []byte, aux uint32, windows bool) {
	var hb [wire.MaxHeaderSize]byte
	tick := time.NewTicker(holFloodEvery)
	defer tick.Stop()
	token := uint32(0)
	for i := uint32(0); ; i++ {
		h := wire.Header{Type: wire.Get, ReqID: 1000 + i, KeyLen: uint16(len(key)), Aux: aux}
		k := key
		switch {
		case windows && i%3 == 1:
			h.Aux = 1
		case windows && i%3 == 2:
			token++
			h, k = wire.Header{Type: wire.GetRelease, ReqID: 1000 + i, Token: token}, nil
		}
		n := h.Encode(hb[:])
		if r.conn.Send(hb[:n], k, nil) != nil {
			return
		}
		select {
		case <-r.closed:
			return
		case <-tick.C:
		}
	}
}

// holReplySize is the size of the value the stuck peer asks for. On TCP
// the kernel's socket buffers (tens of megabytes on loopback) must fill
// before the server sees the peer stuck, which takes large replies; on
// verbs the send ring fills by count (a few hundred replies) whatever
// their size, and small ones keep the flood from loading an emulated
// guest, where moving a megabyte a second slows every client.
func holReplySize(env Env) int {
	if env.Transport == rdmakv.TransportTCP {
		return 16000
	}
	return 64
}

// logLine is the first line of logs that contains s, or "".
func logLine(logs, s string) string {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
