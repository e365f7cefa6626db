package bench

import (
	"context"
	"fmt"
	"log/slog"
	"math/bits"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// HarnessConfig is what a harness must know before a run: the workload's
// target, keys and load, and the largest value and eager threshold the run
// uses, which size the embedded server and the staging regions.
type HarnessConfig struct {
	Workload     *workload.Workload
	MaxValue     int
	MaxThreshold int
	// Host is the machine the client runs on; an embedded server takes at
	// most half its memory.
	Host results.Host
	// Logger receives what transport auto chose and connection faults;
	// nil discards them.
	Logger *slog.Logger
}

// Harness is a run's target: the workload's server, or one embedded in
// this process and sized for the workload, and a dialer for it. Commands
// open one, hand Dialer() to their measurements, and describe what they
// measured against with Record.
type Harness struct {
	// Rdmakv dials an rdmakv server; nil for a baseline.
	Rdmakv *RdmakvDialer
	// Baseline is the Redis or memcached server the workload names; nil
	// for rdmakv.
	Baseline Baseline
	Embedded *Embedded // nil against an external server
	host     results.Host
	version  string // a baseline's, asked once
	blocking bool   // TCP connections get blocking sockets (store.BlockingSockets)
	sysfs    string // where DeviceCounters finds devices: hwcounters.Root when empty (tests set it)

	ctlMu sync.Mutex
	ctl   *rdmakv.Client // the control connection of ServerCPU
}

// OpenHarness starts the embedded server when the workload names none and
// prepares the dialer: each connection gets staging room for depth
// rendezvous payloads of the largest size.
func OpenHarness(c HarnessConfig) (*Harness, error) {
	w := c.Workload
	if w.Target.Baseline() {
		return openBaselineHarness(c)
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Harness{host: c.Host, blocking: store.BlockingSockets(w.Load.Connections)}
	var secret []byte
	if f := w.Target.AuthFile; f != "" {
		var err error
		if secret, err = rdmakv.ReadSecret(f); err != nil {
			return nil, fmt.Errorf("target.auth_file: %w", err)
		}
	}
	addr, tr := w.Target.Server, w.Target.Transport
	if addr == "" {
		emb, err := StartEmbedded(EmbeddedConfig{
			Transport: tr, Poll: w.Target.Poll, Keys: w.Keys.Count, KeySize: w.Keys.Size, MaxValue: c.MaxValue,
			MaxThreshold: c.MaxThreshold, Workers: w.Load.Connections * w.Load.Depth, Logger: log, AuthSecret: secret,
			TOS: w.Target.TOS,
		}, c.Host.MemBytes)
		if err != nil {
			return nil, err
		}
		s.Embedded = emb
		addr, tr = emb.Addr(), emb.Info().Transport
	}
	s.Rdmakv = &RdmakvDialer{
		Addr: addr, Transport: tr, Poll: w.Target.Poll, Timeout: time.Duration(w.Timeout), Depth: w.Load.Depth,
		StagingSize: StagingSize(w.Load.Depth, w.Keys.Size+c.MaxValue), Logger: log, Auth: secret,
		OpPhases: w.OpPhases, Blocking: s.blocking, TOS: w.Target.TOS,
	}
	return s, nil
}

// openBaselineHarness connects to a Redis or memcached server and asks
// its version, which the run's results record.
func openBaselineHarness(c HarnessConfig) (*Harness, error) {
	t := c.Workload.Target
	bc := BaselineConfig{Kind: t.Kind, Addr: t.Server, Timeout: time.Duration(c.Workload.Timeout), Depth: c.Workload.Load.Depth,
		Connections: c.Workload.Load.Connections}
	if t.AuthFile != "" {
		pw, err := workload.ReadPassword(t.AuthFile)
		if err != nil {
			return nil, fmt.Errorf("target.auth_file: %w", err)
		}
		bc.Password = pw
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(bc.Timeout, 5*time.Second))
	defer cancel()
	b, err := OpenBaseline(ctx, bc)
	if err != nil {
		return nil, err
	}
	v, err := b.Version(ctx)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%s %s: asking its version: %w", t.Kind, t.Server, err)
	}
	return &Harness{Baseline: b, host: c.Host, version: v, blocking: bc.Blocking()}, nil
}

// Dialer opens the run's connections.
func (s *Harness) Dialer() Dialer {
	if s.Baseline != nil {
		return s.Baseline
	}
	return s.Rdmakv
}

// Addr is the server's host:port.
func (s *Harness) Addr() string {
	if s.Baseline != nil {
		return s.Baseline.Addr()
	}
	return s.Rdmakv.Addr
}

// Kind is the kind of store the harness drives.
func (s *Harness) Kind() string {
	if s.Baseline != nil {
		return s.Baseline.Kind()
	}
	return results.KindRdmakv
}

// Transport is the transport the harness runs over: the one settled once
// a connection or the embedded server made the choice, else the one asked.
// A baseline speaks tcp.
func (s *Harness) Transport() string {
	if s.Baseline != nil {
		return rdmakv.TransportTCP
	}
	if info, _, ok := s.Rdmakv.Info(); ok {
		return info.Transport
	}
	return s.Rdmakv.Transport
}

// Limits are the server's limits as its HELLO reply announced them. The
// first call, before any run dialed, opens a probe connection at
// threshold 0, which every server accepts, so that a run can be checked
// against them (CheckLimits) before it measures; against an external
// server the probe stays open as ServerCPU's control connection.
func (s *Harness) Limits(ctx context.Context) (rdmakv.Limits, error) {
	if _, lim, ok := s.Rdmakv.Info(); ok {
		return lim, nil
	}
	c, err := s.Rdmakv.Dial(ctx, 0)
	if err != nil {
		return rdmakv.Limits{}, fmt.Errorf("asking the server for its limits: %w", err)
	}
	c.Close()
	_, lim, _ := s.Rdmakv.Info()
	return lim, nil
}

// Close closes the control connection and stops the embedded server, if
// any.
func (s *Harness) Close() error {
	s.ctlMu.Lock()
	if s.ctl != nil {
		s.ctl.Close()
		s.ctl = nil
	}
	s.ctlMu.Unlock()
	if s.Baseline != nil {
		return s.Baseline.Close()
	}
	if s.Embedded != nil {
		return s.Embedded.Close()
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
