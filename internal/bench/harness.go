package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// HarnessConfig is what a harness must know before a run: the workload's
// target, keys and load, and the largest value and eager threshold the run
// uses, which size a server the store starts and the staging regions.
type HarnessConfig struct {
	Workload     *workload.Workload
	MaxValue     int
	MaxThreshold int
	// Sizes is the law the values' sizes are drawn from (Config.Sizes),
	// MaxValue then its largest; nil for fixed sizes.
	Sizes sizegen.Distribution
	// Host is the machine the client runs on; an embedded server takes at
	// most half its memory.
	Host results.Host
	// Logger receives what transport auto chose and connection faults;
	// nil discards them.
	Logger *slog.Logger
	// CostTime is how long to measure the harness's own cost for
	// (MeasureCost) before the store opens, so that an embedded server
	// does not share the CPUs with it; 0 skips it.
	CostTime time.Duration
}

// Harness is a run's target: the store the workload names, opened
// through its kind's driver (store.Open), whose server is the workload's
// or one the driver started in this process. Commands open one, hand
// Dialer() to their measurements, and describe what they measured
// against with Record. It drives every kind alike; what only some
// stores tell it asks of their optional interfaces.
type Harness struct {
	// Store is the store the run drives.
	Store    store.Store
	host     results.Host
	version  string               // the server's, asked once
	blocking bool                 // TCP connections get blocking sockets (store.BlockingSockets)
	sysfs    string               // where DeviceCounters finds devices: hwcounters.Root when empty (tests set it)
	profile  string               // the profile the clients apply (Workload.ProfileSummary), "" for none
	cost     *results.HarnessCost // nil when not measured
}

// OpenHarness opens the workload's store and asks its server's version,
// which the run's results record.
func OpenHarness(c HarnessConfig) (*Harness, error) {
	w := c.Workload
	t := w.Target
	cfg := store.Config{
		Kind: t.Kind, Addr: t.Server, Timeout: time.Duration(w.Timeout), Depth: w.Load.Depth,
		Connections: w.Load.Connections, AuthFile: t.AuthFile, Profile: t.Profile, Adaptive: w.AdaptiveConfig(),
		AdaptivePerConnection: w.Adaptive != nil && w.Adaptive.PerConnection,
		Transport:             t.Transport, Poll: t.Poll, TOS: t.TOS, OpPhases: w.OpPhases,
		Keys: w.Keys.Count, KeySize: w.Keys.Size, MaxValue: c.MaxValue, MaxThreshold: c.MaxThreshold, Sizes: c.Sizes,
		MemBytes: c.Host.MemBytes, Logger: c.Logger,
	}
	if cfg.Kind == "" {
		cfg.Kind = store.Rdmakv
	}
	var cost *results.HarnessCost
	if c.CostTime > 0 {
		hc, err := MeasureCost(c.CostTime)
		if err != nil {
			return nil, fmt.Errorf("measuring the harness's own cost: %w", err)
		}
		cost = &hc
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(cfg.Timeout, 5*time.Second))
	defer cancel()
	s, err := store.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	v, err := s.Version(ctx)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s %s: asking its version: %w", s.Kind(), s.Addr(), err)
	}
	return &Harness{Store: s, host: c.Host, version: v, blocking: store.BlockingSockets(cfg.Connections), profile: w.ProfileSummary(), cost: cost}, nil
}

// Cost is the harness's own cost on this host (HarnessConfig.CostTime);
// nil when not measured.
func (s *Harness) Cost() *results.HarnessCost { return s.cost }

// Dialer opens the run's connections.
func (s *Harness) Dialer() Dialer { return s.Store }

// Addr is the server's host:port.
func (s *Harness) Addr() string { return s.Store.Addr() }

// Kind is the kind of store the harness drives.
func (s *Harness) Kind() string { return s.Store.Kind() }

// Embedded says the server runs inside this process (store.Embedder): it
// started empty for the run, and its CPU time is the process's.
func (s *Harness) Embedded() bool {
	e, ok := s.Store.(store.Embedder)
	return ok && e.Embedded()
}

// Transport is the transport the harness runs over: the one settled once
// a connection or the embedded server made the choice, else the one asked
// (store.LinkDescriber); tcp for a store that tells no other.
func (s *Harness) Transport() string { return s.Link().Name }

// Check refuses, before anything is measured, the cells of cfg the server
// cannot run (store.Store.Check), naming each; an error wrapping
// store.ErrUnreachable when it could not ask the server.
func (s *Harness) Check(ctx context.Context, cfg Config) error {
	err := s.Store.Check(ctx, cfg.Cells())
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrUnreachable) {
		return err
	}
	addr := s.Addr()
	if s.Embedded() {
		addr += " (embedded)"
	}
	return fmt.Errorf("%s %s cannot run every cell, so nothing was measured:\n%w", s.Kind(), addr, err)
}

// Close closes the store: its control connection, and a server it
// started.
func (s *Harness) Close() error { return s.Store.Close() }

// Link is results.json's transport section: tcp to the server, unless
// the store describes its link (store.LinkDescriber), with how the
// client's TCP sockets wait.
func (s *Harness) Link() results.Transport {
	t := results.Transport{Name: rdmakv.TransportTCP, Server: s.Addr(), Embedded: s.Embedded()}
	if d, ok := s.Store.(store.LinkDescriber); ok {
		d.DescribeLink(&t)
	}
	if t.Name == rdmakv.TransportTCP {
		t.ClientSockets = results.SocketsPoller
		if s.blocking {
			t.ClientSockets = results.SocketsBlocking
		}
	}
	return t
}
