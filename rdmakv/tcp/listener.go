package tcp

import (
	"errors"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// listener accepts connections into one protection domain: a region it
// registers is reachable (by its rkey) from every connection it accepts.
type listener struct {
	ln     *net.TCPListener
	cfg    transport.Config
	accept transport.AcceptFunc
	pd     *pd
	addr   string

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool

	once sync.Once
	done chan struct{} // accept loop exited
}

func (l *listener) Addr() string { return l.addr }

func (l *listener) Info() transport.Info {
	return transport.Info{Transport: Name, Poll: transport.PollEvent}
}

func (l *listener) Register(size int, access transport.Access) (transport.Region, error) {
	r, err := l.pd.register(size, access)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Close stops accepting, closes every accepted connection, then frees the
// domain's regions newest first.
func (l *listener) Close() error {
	l.once.Do(func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		_ = l.ln.Close()
		<-l.done
		l.mu.Lock()
		conns := slices.Collect(maps.Keys(l.conns))
		l.mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
		l.pd.close()
	})
	return nil
}

func (l *listener) forget(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

func (l *listener) acceptLoop() {
	defer close(l.done)
	var backoff time.Duration
	for {
		nc, err := l.ln.AcceptTCP()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: wait, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		l.serve(nc)
	}
}

// serve wires up one accepted connection. A connection that cannot get its
// receive memory is dropped; the listener keeps going.
func (l *listener) serve(nc *net.TCPConn) {
	s, inq, err := acceptStream(nc, l.cfg)
	if err != nil {
		_ = nc.Close()
		return
	}
	c, err := newConn(s, l.cfg, l.pd, false)
	if err != nil {
		_ = nc.Close()
		return
	}
	c.ln = l
	c.guard(inq)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		c.discard()
		return
	}
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	c.inCallback.Store(true) // the server may Close c from AcceptFunc
	h := l.accept(c)
	c.inCallback.Store(false)
	if h == nil {
		c.discard() // refused by the server: torn down without callbacks
		return
	}
	c.start(h)
}
