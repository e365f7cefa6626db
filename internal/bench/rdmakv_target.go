package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
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
	case errors.Is(err, rdmakv.ErrClosed), errors.Is(err, transport.ErrClosed):
		return ErrClosed
	}
	return err
}

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
	// Transport is "tcp", "verbs" or "auto". With "auto" the first Dial
	// settles the choice (verbs if a device is usable, else tcp, said once
	// on Notice) and later Dials reuse it.
	Transport string
	// Poll is the workload's target.poll ("busy", "event" or empty); see
	// EffectivePoll for what each transport makes of it.
	Poll string
	// Timeout bounds each operation (0: the client's default).
	Timeout time.Duration
	// Depth is the requests in flight per connection (workers sharing it).
	Depth int
	// StagingSize is the registered staging region per connection for
	// rendezvous payloads (0: the client's default).
	StagingSize int
	// Notice receives the one line saying what auto chose; nil discards.
	Notice io.Writer

	mu       sync.Mutex
	resolved string
	info     *transport.Info
	limits   rdmakv.Limits
}

// Dial implements Dialer.
func (d *RdmakvDialer) Dial(ctx context.Context, threshold int) (Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	opts := func(tr string) []rdmakv.Option {
		o := []rdmakv.Option{rdmakv.WithTransport(tr), rdmakv.WithEagerThreshold(threshold),
			rdmakv.WithPoll(transportPoll(EffectivePoll(d.Poll, tr)))}
		if d.Timeout > 0 {
			o = append(o, rdmakv.WithTimeout(d.Timeout))
		}
		if d.Depth > 0 {
			o = append(o, rdmakv.WithDepth(d.Depth))
		}
		if d.StagingSize > 0 {
			o = append(o, rdmakv.WithStagingSize(d.StagingSize))
		}
		return o
	}
	tr := d.resolved
	if tr == "" {
		tr = d.Transport
	}
	if tr == "auto" {
		tr = "verbs"
		c, err := rdmakv.Dial(ctx, d.Addr, opts(tr)...)
		if err == nil {
			if d.Notice != nil {
				fmt.Fprintf(d.Notice, "kvbench: transport auto: using verbs (RDMA device %s)\n", c.Info().Device)
			}
			return d.connected(tr, c), nil
		}
		if !errors.Is(err, transport.ErrNoDevice) && !notBuiltIn(tr) {
			return nil, err
		}
		if d.Notice != nil {
			fmt.Fprintf(d.Notice, "kvbench: transport auto: using tcp, no usable RDMA device (%v)\n", err)
		}
		tr = "tcp"
	}
	c, err := rdmakv.Dial(ctx, d.Addr, opts(tr)...)
	if err != nil {
		return nil, err
	}
	return d.connected(tr, c), nil
}

func (d *RdmakvDialer) connected(tr string, c *rdmakv.Client) Conn {
	d.resolved = tr
	if d.info == nil {
		info := c.Info()
		d.info = &info
		d.limits = c.Limits()
	}
	return NewRdmakvConn(c)
}

// ClientPoll is the polling mode of the connections dialed so far ("" before
// any).
func (d *RdmakvDialer) ClientPoll() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.resolved == "" {
		return ""
	}
	return EffectivePoll(d.Poll, d.resolved)
}

// Info is the link of the first connection dialed (zero before any).
func (d *RdmakvDialer) Info() (transport.Info, rdmakv.Limits, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.info == nil {
		return transport.Info{}, rdmakv.Limits{}, false
	}
	return *d.info, d.limits, true
}

// notBuiltIn reports whether the binary lacks the named transport.
func notBuiltIn(name string) bool {
	_, err := transport.Lookup(name)
	return err != nil
}
