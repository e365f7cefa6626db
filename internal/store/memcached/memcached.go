package memcached

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/kvbench/kvbench/internal/store"
)

// memcachedBaseline drives memcached with gomemcache. gomemcache runs one
// request per socket (the text protocol's replies carry no tag to pipeline
// by), so a connection of depth d is a client whose pool holds up to d
// sockets, each with one request in flight.
type memcachedBaseline struct {
	cfg store.Config
	ctl *memcachedControl
}

func openMemcached(ctx context.Context, c store.Config) (*memcachedBaseline, error) {
	if c.Addr == "" {
		return nil, fmt.Errorf("memcached: no server address: kvbench starts only rdmakv servers itself")
	}
	ctl, err := dialMemcachedControl(ctx, c.Addr, c.Timeout)
	if err != nil {
		return nil, fmt.Errorf("memcached %s: %w", c.Addr, err)
	}
	return &memcachedBaseline{cfg: c, ctl: ctl}, nil
}

func (b *memcachedBaseline) Kind() string { return Kind }
func (b *memcachedBaseline) Addr() string { return b.cfg.Addr }

// Dial implements Dialer: a client of its own, so that connections share
// no socket, which has made its first socket (Ping) so that a server that
// is gone fails here and not at the first measured request.
func (b *memcachedBaseline) Dial(context.Context, int) (store.Conn, error) {
	c := memcache.New(b.cfg.Addr)
	c.Timeout, c.MaxIdleConns = b.cfg.Timeout, b.cfg.Depth
	c.DialContext = store.RawDial(b.cfg.Timeout)
	if b.cfg.Blocking() {
		c.DialContext = store.BlockDial(b.cfg.Timeout)
	}
	if err := c.Ping(); err != nil {
		c.Close()
		return nil, fmt.Errorf("memcached %s: %w", b.cfg.Addr, err)
	}
	return memcachedConn{c}, nil
}

// Version is the VERSION reply's.
func (b *memcachedBaseline) Version(ctx context.Context) (string, error) {
	return b.ctl.version()
}

// CPU is STATS's rusage_user and rusage_system.
func (b *memcachedBaseline) CPU(ctx context.Context) (time.Duration, time.Duration, error) {
	st, err := b.ctl.stats("")
	if err != nil {
		return 0, 0, err
	}
	return store.Seconds(st["rusage_user"]), store.Seconds(st["rusage_system"]), nil
}

// Check refuses the values whose items exceed the server's item_size_max
// (memcached -I): memcached stores an item as a 48-byte header, an 8-byte
// CAS, the key and a NUL, and the value with its CRLF.
func (b *memcachedBaseline) Check(ctx context.Context, cells store.Cells) error {
	st, err := b.ctl.stats("settings")
	if err != nil {
		return err
	}
	limit := int(parseInt(st["item_size_max"]))
	if limit <= 0 {
		return nil
	}
	const overhead = 48 + 8 + 1 + 2
	return store.RefuseSizes(cells, func(size int) bool { return overhead+cells.KeySize+size > limit },
		"memcached's items hold at most %d bytes with the key and %d of its own: start memcached with a larger -I (item size) or drop the size", limit, overhead)
}

func (b *memcachedBaseline) Close() error { return b.ctl.close() }

// memcachedConn is a Target over one gomemcache client. Keys go to
// gomemcache as strings over the harness's buffer, not copied: it
// writes them and keeps none.
type memcachedConn struct{ c *memcache.Client }

func (t memcachedConn) Set(ctx context.Context, key, value []byte) (store.Protocol, error) {
	return store.Eager, memcachedErr(t.c.Set(&memcache.Item{Key: keyString(key), Value: value}))
}

func (t memcachedConn) Get(ctx context.Context, key []byte, view func([]byte)) (store.Protocol, error) {
	it, err := t.c.Get(keyString(key))
	if err != nil {
		err = memcachedErr(err)
		if err == store.ErrNotFound {
			return store.Eager, err
		}
		return store.Unknown, err
	}
	if view != nil {
		view(it.Value)
	}
	return store.Eager, nil
}

func (t memcachedConn) Delete(ctx context.Context, key []byte) (store.Protocol, error) {
	return store.Eager, memcachedErr(t.c.Delete(keyString(key)))
}

func (t memcachedConn) Close() error { return t.c.Close() }

func memcachedErr(err error) error {
	if errors.Is(err, memcache.ErrCacheMiss) {
		return store.ErrNotFound
	}
	return store.Err(err)
}

func keyString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Kind is the store's name in workloads and results.
const Kind = "memcached"

// MaxKey is the longest key memcached's text protocol takes.
const MaxKey = 250

// The server reports its CPU time.
var _ store.CPUReporter = (*memcachedBaseline)(nil)

func init() {
	store.Register(store.Kind{Name: Kind, MaxKey: MaxKey, Open: func(ctx context.Context, c store.Config) (store.Store, error) {
		return openMemcached(ctx, c)
	}})
}
