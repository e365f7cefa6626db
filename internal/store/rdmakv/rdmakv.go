// Package rdmakvstore is rdmakv as a store kvbench drives: its dialer,
// the Conn over an rdmakv client, and the server it starts inside kvbench
// when a workload names none (Embedded). It registers the kind "rdmakv"
// as the other drivers register theirs. Beyond store.Store it has what
// only rdmakv can tell: the server's limits from its HELLO reply (which
// Check holds the cells against), its CPU time from STATS, the link its
// connections settled on, an in-process server, and its clients' credit
// waits.
package rdmakvstore

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Kind is the store's name in workloads and results.
const Kind = store.Rdmakv

func init() {
	store.Register(store.Kind{Name: Kind, Open: func(ctx context.Context, c store.Config) (store.Store, error) {
		return Open(ctx, c)
	}})
}

// Store is an rdmakv server a run drives: the workload's, or one embedded
// in this process and sized for the workload.
type Store struct {
	// Dialer dials the run's connections: each gets staging room for
	// depth rendezvous payloads of the largest size (StagingSize).
	Dialer *Dialer
	// Server is the embedded server; nil against an external one.
	Server *Embedded

	ctlMu sync.Mutex
	ctl   *rdmakv.Client // the control connection of CPU
}

// What rdmakv tells beyond store.Store.
var (
	_ store.CPUReporter           = (*Store)(nil)
	_ store.Embedder              = (*Store)(nil)
	_ store.LinkDescriber         = (*Store)(nil)
	_ store.ProtocolVersioner     = (*Store)(nil)
	_ store.CreditWaiter          = conn{}
	_ store.ReceiveMemoryReporter = (*Store)(nil)
)

// ReceiveMemory is what verbs registers for receives at threshold and
// that load (the package's ReceiveMemoryOf, with the run's adaptive
// settings), over tcp too: the figure is the configuration's.
func (s *Store) ReceiveMemory(threshold, keySize, connections, depth int) (server, client int64, err error) {
	return ReceiveMemoryOf(s.Dialer.Adaptive, threshold, keySize, connections, depth)
}

// Open starts the embedded server when c names no server and prepares the
// dialer. It dials nothing: the first connection (Check's probe, or the
// run's) settles the transport.
func Open(_ context.Context, c store.Config) (*Store, error) {
	var secret []byte
	if f := c.AuthFile; f != "" {
		var err error
		if secret, err = rdmakv.ReadSecret(f); err != nil {
			return nil, fmt.Errorf("target.auth_file: %w", err)
		}
	}
	s := &Store{}
	var profile *rdmakv.Profile
	if c.Profile != "" {
		var err error
		if profile, err = rdmakv.LoadProfile(c.Profile); err != nil {
			return nil, fmt.Errorf("target.profile: %w", err)
		}
	}
	addr, tr := c.Addr, c.Transport
	if addr == "" {
		emb, err := StartEmbedded(EmbeddedConfig{
			Transport: tr, Poll: c.Poll, Keys: c.Keys, KeySize: c.KeySize, MaxValue: c.MaxValue, Sizes: c.Sizes,
			MaxThreshold: c.MaxThreshold, Workers: c.Connections * c.Depth, Logger: c.Logger, AuthSecret: secret,
			TOS: c.TOS,
		}, c.MemBytes)
		if err != nil {
			return nil, err
		}
		s.Server = emb
		addr, tr = emb.Addr(), emb.Info().Transport
	}
	s.Dialer = &Dialer{
		Addr: addr, Transport: tr, Poll: c.Poll, Timeout: c.Timeout, Depth: c.Depth,
		StagingSize: StagingSize(c.Depth, c.KeySize+c.MaxValue), Logger: c.Logger, Auth: secret,
		OpPhases: c.OpPhases, Blocking: store.BlockingSockets(c.Connections), TOS: c.TOS,
		Profile: profile, Connections: max(c.Connections, 1), Adaptive: c.Adaptive,
		AdaptivePerConnection: c.AdaptivePerConnection,
	}
	return s, nil
}

// Dial implements store.Dialer.
func (s *Store) Dial(ctx context.Context, threshold int) (store.Conn, error) {
	return s.Dialer.Dial(ctx, threshold)
}

// Kind implements store.Store.
func (s *Store) Kind() string { return Kind }

// Addr is the server's host:port.
func (s *Store) Addr() string { return s.Dialer.Addr }

// Version is empty: rdmakv's results carry the protocol version its
// client spoke (ProtocolVersion).
func (s *Store) Version(context.Context) (string, error) { return "", nil }

// ProtocolVersion is the wire protocol's.
func (s *Store) ProtocolVersion() int { return wire.ProtocolVersion }

// Embedded says the server runs inside this process.
func (s *Store) Embedded() bool { return s.Server != nil }

// Transport is the transport the connections run over: the one settled
// once a connection or the embedded server made the choice, else the one
// asked.
func (s *Store) Transport() string {
	if info, _, ok := s.Dialer.Info(); ok {
		return info.Transport
	}
	return s.Dialer.Transport
}

// Limits are the server's limits as its HELLO reply announced them. The
// first call, before any connection was dialed, opens a probe connection
// at threshold 0, which every server accepts, and closes it.
func (s *Store) Limits(ctx context.Context) (rdmakv.Limits, error) {
	if _, lim, ok := s.Dialer.Info(); ok {
		return lim, nil
	}
	c, err := s.Dialer.Dial(ctx, 0)
	if err != nil {
		return rdmakv.Limits{}, fmt.Errorf("asking the server for its limits: %w", err)
	}
	c.Close()
	_, lim, _ := s.Dialer.Info()
	return lim, nil
}

// Check asks the server for its limits (Limits) and holds the cells
// against them (CheckLimits), so that a run the server cannot finish
// fails, naming every cell it rules out, before anything is measured. A
// server it cannot reach gives an error wrapping store.ErrUnreachable.
func (s *Store) Check(ctx context.Context, cells store.Cells) error {
	lim, err := s.Limits(ctx)
	if err != nil {
		if s.Server != nil {
			err = fmt.Errorf("embedded server: %w", err)
		}
		return unreachable{err}
	}
	return CheckLimits(cells, lim)
}

// unreachable is a probe that found no server to ask, with its own
// message.
type unreachable struct{ err error }

func (e unreachable) Error() string   { return e.err.Error() }
func (e unreachable) Unwrap() []error { return []error{e.err, store.ErrUnreachable} }

// DescribeLink fills in results.json's transport section: the client's
// link as its first connection reported it, the server's limits, and for
// an embedded server how it polls.
func (s *Store) DescribeLink(t *results.Transport) {
	t.Name = s.Transport()
	if s.Server != nil {
		t.ServerPoll = s.Server.Info().Poll.String()
	}
	info, lim, ok := s.Dialer.Info()
	if !ok {
		return
	}
	t.Link = info.Link
	t.ClientPoll = info.Poll.String()
	t.Limits = &results.ServerLimits{MaxEager: lim.MaxEager, MaxKey: lim.MaxKey, MaxValue: lim.MaxValue,
		PoolSize: lim.PoolSize, LeaseNs: int64(lim.Lease), MaxInflight: lim.MaxInflight}
}

// CPU is the server's process CPU time, which it reports on a STATS
// request (an embedded server's is this process's). It asks over a
// control connection of its own, dialed on first use and kept for the
// run, so that no measured connection carries the request and no phase
// pays for a handshake. A connection that fails is dropped and dialed
// again at the next call.
func (s *Store) CPU(ctx context.Context) (time.Duration, time.Duration, error) {
	s.ctlMu.Lock()
	defer s.ctlMu.Unlock()
	if s.ctl == nil {
		c, _, err := s.Dialer.dial(ctx, 0)
		if err != nil {
			return 0, 0, err
		}
		s.ctl = c
	}
	st, err := s.ctl.ServerStats(ctx)
	if err != nil {
		s.ctl.Close()
		s.ctl = nil
		return 0, 0, err
	}
	return st.CPUUser, st.CPUSys, nil
}

// Close closes the control connection and stops the embedded server, if
// any.
func (s *Store) Close() error {
	s.ctlMu.Lock()
	if s.ctl != nil {
		s.ctl.Close()
		s.ctl = nil
	}
	s.ctlMu.Unlock()
	if s.Server != nil {
		return s.Server.Close()
	}
	return nil
}

// StagingSize gives each connection room for depth rendezvous payloads of
// the largest size at once, between 1 MiB and 256 MiB; a payload that does
// not fit still works through a temporary registration, only slower.
func StagingSize(depth, largest int) int {
	per := 1 << bits.Len(uint(max(largest, 1)-1))
	return min(max(depth*per, 1<<20), 256<<20)
}
