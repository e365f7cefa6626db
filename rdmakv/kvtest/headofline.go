package kvtest

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// Head-of-line case parameters. Nothing here is a measure of time: the
// case's waits are hang guards, and holTrickle only paces.
const (
	holVictims = 8
	// holRounds is how many rounds of GETs, one per victim each, must go
	// through in a row while the server is stuck on the peer. Many: a
	// server that serves others behind a stuck peer still serves them
	// until its goroutine that is to block on the peer runs, and that
	// goroutine may first wait for a processor (after a system call) or
	// for a lock the victims' replies take too. Every round, and the
	// yield after it, gives it turns: with a lock held across sends, 3
	// rounds let such a server through about one case in 60, 16 in none
	// of 240.
	holRounds = 16
	// holStall is the stall timeout of the server the victims' rounds run
	// on: a hang guard, so that the server cannot drop the stuck peer
	// while they run, however slow the host (an emulated guest took more
	// than the default 2 s), and longer than a victim GET's (victimGet).
	// The drop itself is shown on a server with holDropStall.
	holStall     = time.Minute
	holDropStall = 100 * time.Millisecond
	// holHeld is how many receive buffers the stuck peer has, as many as
	// rawHelloBody declares: the replies it takes before it stalls.
	holHeld = 16
	// holWindows is how many windows the first flood opens and releases:
	// far fewer than the binds a verbs connection may have queued (its
	// send depth), past which the server would refuse a window and the
	// release of the token it did not issue would get the peer dropped
	// before the victims had their rounds.
	holWindows = 32
	// holTrickle paces the requests a stuck peer sends after its flood,
	// only so that it learns of its drop.
	holTrickle = 10 * time.Millisecond
)

// testHeadOfLine: a peer that stops taking its replies (it never frees a
// receive buffer, so the server's sends to it stall: RNR on verbs, a full
// socket on TCP) costs the other clients nothing, and is dropped with a
// log line naming it. Nothing is timed. The peer sends more GETs than its
// transport can hold the replies of, and eight victims GET in rounds
// until holRounds rounds in a row have gone through while the server was
// stuck on the peer (holCase.stuck). The server's stall timeout,
// holStall, is longer than a victim GET's hang guard: a server that
// serves others behind a stuck peer serves them only once it has dropped
// the peer, after holStall, and their GETs fail first. That the peer was
// still connected after the rounds (no log line names it, and the
// server counts it open) shows the rounds did not wait for a drop for
// another cause. Last, on a server with a short stall timeout, a peer
// stops taking its replies for good and floods until it is dropped. With
// windows the peer's requests make the server open and close windows
// (rendezvous GETs and releases it never closes itself), whose binds and
// invalidations queue on verbs behind the replies the peer is not taking.
func testHeadOfLine(t *testing.T, env Env, windows bool) {
	newHolCase(t, env, windows, holStall).servedBesideStuck()
	drop := newHolCase(t, env, windows, holDropStall)
	drop.dropped(dialHolPeer(t, env, drop.s.Addr(), drop.maxEager))
}

// holCase is the head-of-line case's server, victims and bookkeeping.
type holCase struct {
	t        *testing.T
	s        *rdmakv.Server
	logs     *logbuf.Buffer
	env      Env
	victims  []*rdmakv.Client
	key, val []byte // what the victims GET
	flood    []byte // what the stuck peer GETs
	maxEager int
	windows  bool
	n        int   // requests in the stuck peer's first flood
	dropN    int   // requests in the flood that gets a peer dropped
	gets     int64 // GETs among them
	// others counts the GETs the server answered to anyone but the
	// current stuck peer: the count when it said HELLO plus the
	// victims' since.
	others uint64
}

func newHolCase(t *testing.T, env Env, windows bool, stall time.Duration) *holCase {
	cfg := serverConfig(env)
	// A verbs server bounds its own operations on a connection (window
	// binds and invalidations) by the lease and the stall timeout both.
	cfg.StallTimeout, cfg.Lease = stall, max(cfg.Lease, stall)
	logs := captureLogs(&cfg)
	s := startServer(t, cfg)
	h := &holCase{t: t, s: s, logs: logs, env: env, key: []byte("hol"), val: pattern(64, 7),
		flood: []byte("hol-flood"), maxEager: cfg.MaxEager, windows: windows}
	h.victims = dialN(t, env, s.Addr(), holVictims)
	mustSet(t, h.victims[0], h.key, h.val)
	mustSet(t, h.victims[0], h.flood, pattern(holReplySize(env), 3)) // inline for the stuck peer
	h.n, h.dropN = holFloodCount(env, cfg)
	h.gets = int64(h.n)
	if windows {
		h.gets -= holWindows // the releases, which get no reply
	}
	return h
}

// servedBesideStuck has a peer get stuck and the victims do their rounds
// beside it; then it shows the server had not dropped the peer.
func (h *holCase) servedBesideStuck() {
	p := dialHolPeer(h.t, h.env, h.s.Addr(), h.maxEager)
	h.others = servedGets(h.s)
	p.hold()
	p.flood(h.n, h.flood, uint32(h.maxEager), h.windows, false)
	answered := h.roundsWhileStuck(p)
	if line := logLine(h.logs.String(), p.conn.LocalAddr()); line != "" || h.s.Stats().Conns != holVictims+1 {
		h.t.Fatalf("the server dropped the stuck peer (%d of its %d GETs answered, %d connections open) before the "+
			"victims had done %d rounds of GETs while it was stuck: %s", answered, p.asked.Load(), h.s.Stats().Conns, holRounds, line)
	}
	h.t.Logf("%d rounds of %d victims' GETs went through while the server's replies to the stuck peer "+
		"stood still at %d of its %d GETs, %d of them not taken; the peer was still connected after",
		holRounds, holVictims, answered, p.asked.Load(), answered-holHeld)
}

// roundsWhileStuck runs rounds of victims' GETs until holRounds in a row
// have gone through with the server's count of replies to p unchanged and
// that count showing the server stuck on p, or until p is gone. It
// returns the count.
func (h *holCase) roundsWhileStuck(p *holPeer) int64 {
	last, asked, streak := h.peerGets(), p.asked.Load(), 0
	for deadline := time.Now().Add(time.Minute); ; {
		if time.Now().After(deadline) {
			h.t.Fatalf("the server neither stood still on the stuck peer (%d of its %d GETs answered) nor dropped it "+
				"in a minute of victims' rounds (hang guard)", last, p.asked.Load())
		}
		h.round()
		now := h.peerGets()
		if now != last {
			last, asked, streak = now, p.asked.Load(), 0
			continue
		}
		streak++
		if streak >= holRounds && (p.isClosed() || h.stuck(last, asked)) {
			return last
		}
	}
}

// stuck reports whether answered, a count of replies to the stuck peer
// that stood still through the rounds after the peer had sent asked GETs,
// shows the server stuck on it: past the holHeld replies the peer took,
// and either behind what the peer sent (TCP: the flood outgrows the
// socket buffers, so the server is blocked writing to the peer and reads
// no more of its requests) or caught up with the whole flood (verbs: its
// sends never block, and the replies the peer does not take queue behind
// RNR, in the send ring and then the backlog).
func (h *holCase) stuck(answered, asked int64) bool {
	return answered > holHeld && (answered < asked || answered == h.gets)
}

// peerGets is how many GETs of the current stuck peer the server has
// answered, or begun to: it counts a reply before it sends it.
func (h *holCase) peerGets() int64 { return int64(servedGets(h.s) - h.others) }

func servedGets(s *rdmakv.Server) uint64 {
	c := s.Counters()
	return c.Requests[rdmakv.OpGet][rdmakv.Eager] + c.Requests[rdmakv.OpGet][rdmakv.Rendezvous]
}

// round has every victim GET key once, all at once, and checks the bytes.
func (h *holCase) round() {
	errs := make(chan error, len(h.victims))
	for _, c := range h.victims {
		go func() { errs <- victimGet(c, h.key, h.val) }()
	}
	for range h.victims {
		if err := <-errs; err != nil {
			h.t.Fatal(err)
		}
	}
	h.others += uint64(len(h.victims))
	// Let a runnable goroutine of the server, such as the one serving
	// the stuck peer, run before the next round rather than wait behind
	// the victims' hand-offs.
	runtime.Gosched()
}

func victimGet(c *rdmakv.Client, key, val []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // hang guard
	defer cancel()
	v, err := c.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("victim GET of %q beside the stuck peer: %w", key, err)
	}
	defer v.Release()
	if msg := diffBytes(v.Bytes(), val); msg != "" {
		return fmt.Errorf("victim GET of %q beside the stuck peer: %s", key, msg)
	}
	return nil
}

// dropped makes p stop taking its replies for good and floods the server
// as before, until it drops p with a log line naming it. The releases go
// on from the tokens the first flood released; should a verbs server
// refuse a window, the release of a token it did not issue gets p dropped
// too.
func (h *holCase) dropped(p *holPeer) {
	p.hold()
	p.flood(h.dropN, h.flood, uint32(h.maxEager), h.windows, true)
	if err := p.waitClosed(20 * time.Second); err != nil {
		h.t.Fatalf("the stuck peer, taking nothing again and flooding: %v (hang guard)", err)
	}
	h.expectDropLogged(p)
}

// expectDropLogged waits for the server's log line naming p, dropped for
// its stall: the server logs once it has torn the connection down, which
// may be after p saw it close.
func (h *holCase) expectDropLogged(p *holPeer) {
	addr := p.conn.LocalAddr()
	line := logLine(h.logs.String(), addr)
	for wait := time.Now().Add(10 * time.Second); line == "" && time.Now().Before(wait); { // hang guard
		time.Sleep(10 * time.Millisecond)
		line = logLine(h.logs.String(), addr)
	}
	if line == "" {
		h.t.Fatalf("no log line names the dropped peer %s:\n%s", addr, h.logs.String())
	}
	if !strings.Contains(line, "timed out") {
		h.t.Fatalf("the server dropped the stuck peer for another cause than its stall: %s", line)
	}
	h.t.Logf("server: %s", line)
}

// holFloodCount is how many requests a stuck peer's floods send: first
// more than its transport holds the replies of for a peer that takes
// none, so the server is left with replies it cannot deliver; then, for
// the drop, enough to keep the server waiting on it. On TCP both are
// past what the socket buffers can grow to, nothing here setting their
// sizes. On verbs the replies a peer does not take wait for it in its
// send queue, first after the receive-not-ready NAKs the peer's empty
// receive queue answers with: a few suffice, and more would cost the
// peer, once it takes its replies again, a 655 ms RNR wait per receive
// queue's worth (rdma_cm leaves the RNR timer at code 0, its longest). Past the send
// queue (a reply per server receive buffer) replies wait for room, the
// stall the drop needs; the backlog behind (4 MiB) holds the rest.
func holFloodCount(env Env, cfg rdmakv.ServerConfig) (first, drop int) {
	if env.Transport != rdmakv.TransportTCP {
		return 2*holHeld + 3*holWindows, holHeld + 4*cmp.Or(cfg.RecvDepth, rdmakv.DefaultRecvDepth)
	}
	n := holHeld + (tcpBuffersMax()+1<<20)/holReplySize(env) + 1 // 1 MiB for the stream buffers
	return n, n
}

// tcpBuffersMax is the most a TCP connection's sending and receiving
// socket buffers can grow to (the maxima of net.ipv4.tcp_wmem and
// tcp_rmem), or 64 MiB where those cannot be read.
func tcpBuffersMax() int {
	total := 0
	for _, f := range []string{"/proc/sys/net/ipv4/tcp_wmem", "/proc/sys/net/ipv4/tcp_rmem"} {
		b, err := os.ReadFile(f)
		fields := strings.Fields(string(b))
		if err != nil || len(fields) != 3 {
			return 64 << 20
		}
		n, err := strconv.Atoi(fields[2])
		if err != nil {
			return 64 << 20
		}
		total += n
	}
	return total
}

// holReplySize is the size of the value the stuck peer asks for. On TCP
// the kernel's socket buffers must fill before the server is stuck on the
// peer, which takes large replies; on verbs the send ring fills by count
// (a few hundred replies) whatever their size, and small ones keep the
// flood from loading an emulated guest, where moving a megabyte a second
// slows every client.
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
