package redis

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/redis/rueidis"
)

// redisBaseline drives Redis with rueidis: each connection is a client of
// one socket (PipelineMultiplex -1). A lone request is written and read
// by its caller; concurrent ones (depth > 1) are pipelined on the socket.
type redisBaseline struct {
	cfg      store.Config
	password string
	ctl      rueidis.Client
}

func openRedis(ctx context.Context, c store.Config) (*redisBaseline, error) {
	if c.Addr == "" {
		return nil, fmt.Errorf("redis: no server address: kvbench starts only rdmakv servers itself")
	}
	b := &redisBaseline{cfg: c}
	if c.AuthFile != "" {
		pw, err := store.ReadPassword(c.AuthFile)
		if err != nil {
			return nil, fmt.Errorf("target.auth_file: %w", err)
		}
		b.password = pw
	}
	ctl, err := b.client()
	if err != nil {
		return nil, fmt.Errorf("redis %s: %w", c.Addr, err)
	}
	b.ctl = ctl
	return b, nil
}

// client opens one rueidis client on one socket. Retries are off, so a
// failed request counts as failed rather than timed twice, and so is
// client-side caching, which would answer gets without the server.
func (b *redisBaseline) client() (rueidis.Client, error) {
	opt := rueidis.ClientOption{
		InitAddress: []string{b.cfg.Addr}, Password: b.password, ForceSingleClient: true,
		DisableCache: true, DisableRetry: true, PipelineMultiplex: -1,
		ConnWriteTimeout: b.cfg.Timeout, Dialer: store.NetDialer(b.cfg.Timeout),
	}
	if b.cfg.Blocking() {
		dial := store.BlockDial(b.cfg.Timeout)
		opt.DialCtxFn = func(ctx context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
			return dial(ctx, "tcp", addr)
		}
	}
	return rueidis.NewClient(opt)
}

func (b *redisBaseline) Kind() string { return Kind }
func (b *redisBaseline) Addr() string { return b.cfg.Addr }

// Dial implements Dialer.
func (b *redisBaseline) Dial(context.Context, int) (store.Conn, error) {
	c, err := b.client()
	if err != nil {
		return nil, fmt.Errorf("redis %s: %w", b.cfg.Addr, err)
	}
	return redisConn{c}, nil
}

// info is the fields of one INFO section.
func (b *redisBaseline) info(ctx context.Context, section string) (map[string]string, error) {
	s, err := b.ctl.Do(ctx, b.ctl.B().Info().Section(section).Build()).ToString()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out[k] = v
		}
	}
	return out, nil
}

// Version is INFO's redis_version.
func (b *redisBaseline) Version(ctx context.Context) (string, error) {
	f, err := b.info(ctx, "server")
	if err != nil {
		return "", err
	}
	return f["redis_version"], nil
}

// CPU is INFO's used_cpu_user and used_cpu_sys, the server's rusage.
func (b *redisBaseline) CPU(ctx context.Context) (time.Duration, time.Duration, error) {
	f, err := b.info(ctx, "cpu")
	if err != nil {
		return 0, 0, err
	}
	return store.Seconds(f["used_cpu_user"]), store.Seconds(f["used_cpu_sys"]), nil
}

// Check refuses values above proto-max-bulk-len where the server tells it
// (CONFIG GET may be renamed away; then nothing is refused ahead).
func (b *redisBaseline) Check(ctx context.Context, cells store.Cells) error {
	kv, err := b.ctl.Do(ctx, b.ctl.B().ConfigGet().Parameter("proto-max-bulk-len").Build()).AsStrMap()
	if err != nil {
		return nil
	}
	limit, err := strconv.ParseInt(kv["proto-max-bulk-len"], 10, 64)
	if err != nil {
		return nil
	}
	return store.RefuseSizes(cells, func(size int) bool { return int64(size) > limit },
		"redis's proto-max-bulk-len is %d bytes: raise it (CONFIG SET proto-max-bulk-len) or drop the size", limit)
}

func (b *redisBaseline) Close() error {
	b.ctl.Close()
	return nil
}

// redisConn is a Target over one rueidis client. Keys and values go to
// rueidis as strings over the harness's buffers (rueidis.BinaryString),
// not copied: the call returns only after the reply, and retries are off.
type redisConn struct{ c rueidis.Client }

func (t redisConn) Set(ctx context.Context, key, value []byte) (store.Protocol, error) {
	cmd := t.c.B().Set().Key(rueidis.BinaryString(key)).Value(rueidis.BinaryString(value)).Build()
	return store.Eager, store.Err(t.c.Do(ctx, cmd).Error())
}

func (t redisConn) Get(ctx context.Context, key []byte, view func([]byte)) (store.Protocol, error) {
	v, err := t.c.Do(ctx, t.c.B().Get().Key(rueidis.BinaryString(key)).Build()).ToString()
	switch {
	case rueidis.IsRedisNil(err):
		return store.Eager, store.ErrNotFound
	case err != nil:
		return store.Unknown, store.Err(err)
	}
	if view != nil {
		view(unsafe.Slice(unsafe.StringData(v), len(v)))
	}
	return store.Eager, nil
}

// Delete counts a key that was not there as not found, as rdmakv does.
func (t redisConn) Delete(ctx context.Context, key []byte) (store.Protocol, error) {
	n, err := t.c.Do(ctx, t.c.B().Del().Key(rueidis.BinaryString(key)).Build()).AsInt64()
	switch {
	case err != nil:
		return store.Unknown, store.Err(err)
	case n == 0:
		return store.Eager, store.ErrNotFound
	}
	return store.Eager, nil
}

func (t redisConn) Close() error {
	t.c.Close()
	return nil
}

// Kind is the store's name in workloads and results.
const Kind = "redis"

// The server reports its CPU time.
var _ store.CPUReporter = (*redisBaseline)(nil)

func init() {
	store.Register(store.Kind{Name: Kind, Password: true, Open: func(ctx context.Context, c store.Config) (store.Store, error) {
		return openRedis(ctx, c)
	}})
}
