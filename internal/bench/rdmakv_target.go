package bench

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// rdmakvConn is a Target over one rdmakv client connection.
type rdmakvConn struct{ c *rdmakv.Client }

// NewRdmakvConn adapts an rdmakv client to Conn.
func NewRdmakvConn(c *rdmakv.Client) Conn { return rdmakvConn{c} }

// mapErr turns rdmakv's errors into the sentinels the harness counts,
// returning them unwrapped so that classifying does not allocate.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rdmakv.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, rdmakv.ErrTimeout):
		return ErrTimeout
	case errors.Is(err, rdmakv.ErrNoSpace):
		return ErrNoSpace
	case errors.Is(err, rdmakv.ErrClosed):
		return ErrClosed
	}
	return err
}

// CreditWaits is the client's (CreditWaiter).
func (t rdmakvConn) CreditWaits() uint64 { return t.c.CreditWaits() }

func (t rdmakvConn) Set(ctx context.Context, key, value []byte) (Protocol, error) {
	p := t.c.ProtocolFor(len(key), len(value))
	return p, mapErr(t.c.Set(ctx, key, value))
}

// Get reports the protocol the server answered with. A failed get has no
// value to move: not_found is an eager reply; other failures are Unknown.
func (t rdmakvConn) Get(ctx context.Context, key []byte, view func([]byte)) (Protocol, error) {
	v, err := t.c.Get(ctx, key)
	if err != nil {
		err = mapErr(err)
		if err == ErrNotFound {
			return Eager, err
		}
		return Unknown, err
	}
	if view != nil {
		view(v.Bytes())
	}
	p := v.Protocol()
	v.Release()
	return p, nil
}

// Delete carries no value, so it always travels eager.
func (t rdmakvConn) Delete(ctx context.Context, key []byte) (Protocol, error) {
	return Eager, mapErr(t.c.Delete(ctx, key))
}

func (t rdmakvConn) Close() error { return t.c.Close() }

// RdmakvDialer dials rdmakv clients for a run.
type RdmakvDialer struct {
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

	mu     sync.Mutex
	info   *rdmakv.Info
	limits rdmakv.Limits
}

// Dial implements Dialer.
func (d *RdmakvDialer) Dial(ctx context.Context, threshold int) (Conn, error) {
	c, err := d.dial(ctx, threshold)
	if err != nil {
		return nil, err
	}
	return NewRdmakvConn(c), nil
}

// dial opens one rdmakv client with the run's options.
func (d *RdmakvDialer) dial(ctx context.Context, threshold int) (*rdmakv.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	tr := d.Transport
	if d.info != nil {
		tr = d.info.Transport
	}
	o := []rdmakv.Option{rdmakv.WithTransport(tr), rdmakv.WithEagerThreshold(threshold), rdmakv.WithPoll(pollMode(d.Poll)), rdmakv.WithTOS(d.TOS)}
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
		return nil, err
	}
	if d.info == nil {
		info := c.Info()
		d.info = &info
		d.limits = c.Limits()
	}
	return c, nil
}

// Info is the link of the first connection dialed: the transport chosen,
// its device and polling mode, and the server's limits (zero before any).
func (d *RdmakvDialer) Info() (rdmakv.Info, rdmakv.Limits, bool) {
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
	o := OpPhasesFrom(ctx)
	if o == nil {
		return
	}
	srv := int64(t.Server)
	if t.Protocol != rdmakv.Rendezvous || t.Moved == 0 { // one round trip: eager, or a refused grant
		o.Set(PhaseNetwork, t.End-t.Start-srv)
		o.Set(PhaseServer, srv)
		return
	}
	o.Set(PhaseNetwork, t.Granted-t.Start-srv)
	o.Set(PhaseServer, srv)
	switch t.Op {
	case rdmakv.OpGet:
		// Finding a staging buffer, between the grant and the READ, is
		// the client's work.
		o.Set(PhaseRead, t.Moved-max(t.Granted, t.Staged))
		o.Set(PhaseRelease, t.End-t.Moved)
	case rdmakv.OpSet:
		// A synchronous post (TCP) can return after the commit, so the
		// WRITE is measured to the reply, not to the post.
		o.Set(PhaseWrite, t.End-t.Granted-int64(t.ServerCommit))
		o.Set(PhaseCommit, int64(t.ServerCommit))
	}
}
