package rdmakvstore

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// conn is a store.Target over one rdmakv client connection.
type conn struct{ c *rdmakv.Client }

// NewConn adapts an rdmakv client to store.Conn.
func NewConn(c *rdmakv.Client) store.Conn { return conn{c} }

// mapErr turns rdmakv's errors into the sentinels the harness counts,
// returning them unwrapped so that classifying does not allocate.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rdmakv.ErrNotFound):
		return store.ErrNotFound
	case errors.Is(err, rdmakv.ErrTimeout):
		return store.ErrTimeout
	case errors.Is(err, rdmakv.ErrNoSpace):
		return store.ErrNoSpace
	case errors.Is(err, rdmakv.ErrClosed):
		return store.ErrClosed
	}
	return err
}

// AdaptiveState is the client's adaptive policy's (store.AdaptiveReporter).
func (t conn) AdaptiveState() []rdmakv.AdaptiveClass { return t.c.AdaptiveState() }

// CreditWaits is the client's (store.CreditWaiter).
func (t conn) CreditWaits() uint64 { return t.c.CreditWaits() }

// Set reports the protocol the value went by, which under the adaptive
// policy is not always its class's choice.
func (t conn) Set(ctx context.Context, key, value []byte) (store.Protocol, error) {
	p, err := t.c.SetVia(ctx, key, value)
	return p, mapErr(err)
}

// Get reports the protocol the server answered with. A failed get has no
// value to move: not_found is an eager reply; other failures are Unknown.
func (t conn) Get(ctx context.Context, key []byte, view func([]byte)) (store.Protocol, error) {
	v, err := t.c.Get(ctx, key)
	if err != nil {
		err = mapErr(err)
		if err == store.ErrNotFound {
			return store.Eager, err
		}
		return store.Unknown, err
	}
	if view != nil {
		view(v.Bytes())
	}
	p := v.Protocol()
	v.Release()
	return p, nil
}

// Delete carries no value, so it always travels eager.
func (t conn) Delete(ctx context.Context, key []byte) (store.Protocol, error) {
	return store.Eager, mapErr(t.c.Delete(ctx, key))
}

func (t conn) Close() error { return t.c.Close() }

// Dialer dials rdmakv clients for a run.
type Dialer struct {
	// Addr is the server's host:port.
	Addr string
	// Transport is "tcp", "verbs" or "auto". rdmakv settles auto on the
	// first Dial (and says which on Logger); later Dials use its choice.
	Transport string
	// Poll is the workload's target.poll ("busy", "event" or empty: busy
	// where the transport can).
	Poll string
	// TOS is the connections' IP type of service (rdmakv.WithTOS).
	TOS int
	// Timeout bounds each operation (0: the client's default).
	Timeout time.Duration
	// Depth is the requests in flight per connection (workers sharing it).
	Depth int
	// StagingSize is the registered staging region per connection for
	// rendezvous payloads (0: the client's default).
	StagingSize int
	// Logger receives what auto chose and connection faults; nil means
	// slog.Default().
	Logger *slog.Logger
	// Auth is the server's shared secret (nil: none).
	Auth []byte
	// OpPhases has the clients time every request (rdmakv.WithTrace) for
	// a run that records phases.
	OpPhases bool
	// Blocking gives TCP connections blocking sockets
	// (rdmakv.WithBlockingSocket); see store.BlockingSockets.
	Blocking bool
	// Adaptive is the policy's settings at store.AdaptiveThreshold.
	Adaptive rdmakv.AdaptiveConfig
	// AdaptivePerConnection gives each adaptive connection a policy of its
	// own; without it the adaptive connections open at once share one.
	AdaptivePerConnection bool
	// Profile, when set, is applied (rdmakv.WithProfile) in place of the
	// threshold Dial is given, at Connections connections of Depth.
	Profile     *rdmakv.Profile
	Connections int

	mu     sync.Mutex
	info   *rdmakv.Info
	limits rdmakv.Limits
	group  *adaptiveGroup // the open adaptive connections' shared policy
}

// Dial implements store.Dialer.
func (d *Dialer) Dial(ctx context.Context, threshold int) (store.Conn, error) {
	c, g, err := d.dial(ctx, threshold)
	switch {
	case err != nil:
		return nil, err
	case g != nil:
		return g.join(c), nil
	}
	return NewConn(c), nil
}

// dial opens one rdmakv client with the run's options, and the group
// whose policy it shares, if any.
func (d *Dialer) dial(ctx context.Context, threshold int) (*rdmakv.Client, *adaptiveGroup, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	tr := d.Transport
	if d.info != nil {
		tr = d.info.Transport
	}
	o := []rdmakv.Option{rdmakv.WithTransport(tr), rdmakv.WithPoll(pollMode(d.Poll)), rdmakv.WithTOS(d.TOS)}
	var g *adaptiveGroup
	switch {
	case threshold == store.AdaptiveThreshold:
		cfg := d.Adaptive
		if !d.AdaptivePerConnection {
			g = d.adaptiveGroup()
			cfg.Group = g.g
		}
		o = append(o, rdmakv.WithAdaptiveThreshold(cfg))
	case d.Profile != nil:
		o = append(o, rdmakv.WithProfile(d.Profile, d.Connections))
	default:
		o = append(o, rdmakv.WithEagerThreshold(threshold))
	}
	if d.Timeout > 0 {
		o = append(o, rdmakv.WithTimeout(d.Timeout))
	}
	if d.Depth > 0 {
		o = append(o, rdmakv.WithDepth(d.Depth))
	}
	if d.StagingSize > 0 {
		o = append(o, rdmakv.WithStagingSize(d.StagingSize))
	}
	if d.Logger != nil {
		o = append(o, rdmakv.WithLogger(d.Logger))
	}
	if d.Auth != nil {
		o = append(o, rdmakv.WithAuth(d.Auth))
	}
	if d.OpPhases {
		o = append(o, rdmakv.WithTrace(tracePhases))
	}
	if d.Blocking {
		o = append(o, rdmakv.WithBlockingSocket(true))
	}
	c, err := rdmakv.Dial(ctx, d.Addr, o...)
	if err != nil {
		return nil, nil, err
	}
	if d.info == nil {
		info := c.Info()
		d.info = &info
		d.limits = c.Limits()
	}
	return c, g, nil
}

// Info is the link of the first connection dialed: the transport chosen,
// its device and polling mode, and the server's limits (zero before any).
func (d *Dialer) Info() (rdmakv.Info, rdmakv.Limits, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.info == nil {
		return rdmakv.Info{}, rdmakv.Limits{}, false
	}
	return *d.info, d.limits, true
}

// tracePhases turns an rdmakv request's trace into the phases of the
// operation its context belongs to.
func tracePhases(ctx context.Context, t *rdmakv.Trace) {
	o := store.OpPhasesFrom(ctx)
	if o == nil {
		return
	}
	srv := int64(t.Server)
	if t.Protocol != rdmakv.Rendezvous || t.Moved == 0 { // one round trip: eager, or a refused grant
		o.Set(store.PhaseNetwork, t.End-t.Start-srv)
		o.Set(store.PhaseServer, srv)
		return
	}
	o.Set(store.PhaseNetwork, t.Granted-t.Start-srv)
	o.Set(store.PhaseServer, srv)
	switch t.Op {
	case rdmakv.OpGet:
		// Finding a staging buffer, between the grant and the READ, is
		// the client's work.
		o.Set(store.PhaseRead, t.Moved-max(t.Granted, t.Staged))
		o.Set(store.PhaseRelease, t.End-t.Moved)
	case rdmakv.OpSet:
		// A synchronous post (TCP) can return after the commit, so the
		// WRITE is measured to the reply, not to the post.
		o.Set(store.PhaseWrite, t.End-t.Granted-int64(t.ServerCommit))
		o.Set(store.PhaseCommit, int64(t.ServerCommit))
	}
}

var _ store.AdaptiveReporter = conn{}
