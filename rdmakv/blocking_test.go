package rdmakv

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"testing"
)

// blockingFlag dials every coreDial client with WithBlockingSocket, and
// netConnFlag has every coreServer and coreDial client read and write
// through net.Conn (ServerConfig.NetConn, WithNetConn): make test runs the
// package each way.
var (
	blockingFlag = flag.Bool("blocking", false, "dial TCP clients with blocking sockets (WithBlockingSocket)")
	netConnFlag  = flag.Bool("netconn", false, "read and write TCP sockets through net.Conn (ServerConfig.NetConn, WithNetConn)")
)

// A client on a blocking socket sets, gets and deletes, eager and
// rendezvous, one request at a time and with several in flight.
func TestBlockingSocket(t *testing.T) {
	s, _ := coreServer(t, nil)
	for _, depth := range []int{1, 4} {
		c := coreDial(t, s, WithBlockingSocket(true), WithEagerThreshold(4096), WithDepth(depth))
		ctx := context.Background()
		errs := make(chan error, depth)
		for w := range depth {
			go func() { errs <- roundTrips(ctx, c, fmt.Sprintf("d%d-w%d-", depth, w)) }()
		}
		for range depth {
			if err := <-errs; err != nil {
				t.Fatalf("depth %d: %v", depth, err)
			}
		}
	}
}

func roundTrips(ctx context.Context, c *Client, prefix string) error {
	for i, n := range []int{0, 100, 4000, 64 << 10, 1 << 20} {
		key, val := []byte(fmt.Sprintf("%s%d", prefix, i)), coreFill(n, byte(i))
		if err := c.Set(ctx, key, val); err != nil {
			return fmt.Errorf("set %d bytes: %w", n, err)
		}
		v, err := c.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("get %d bytes: %w", n, err)
		}
		ok := bytes.Equal(v.Bytes(), val) && v.Protocol() == c.ProtocolFor(len(key), n)
		v.Release()
		if !ok {
			return fmt.Errorf("get %d bytes: wrong value or protocol", n)
		}
		if err := c.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
	}
	return nil
}

// On a blocking socket a request allocates nothing in steady state, eager
// or rendezvous (whose payload goes out with writev).
func TestBlockingSocketAllocs(t *testing.T) {
	s, _ := coreServer(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		threshold, size int
	}{{4096, 64}, {0, 64 << 10}} {
		c := coreDial(t, s, WithBlockingSocket(true), WithEagerThreshold(tc.threshold), WithDepth(1))
		key, val := []byte(fmt.Sprintf("allocs-%d", tc.size)), coreFill(tc.size, 3)
		var err error
		set := func() {
			if e := c.Set(ctx, key, val); e != nil {
				err = e
			}
		}
		get := func() {
			v, e := c.Get(ctx, key)
			if e != nil {
				err = e
				return
			}
			v.Release()
		}
		for _, op := range []struct {
			name string
			fn   func()
		}{{"set", set}, {"get", get}} {
			for range 50 {
				op.fn() // staging, buffers and pools reach their steady state
			}
			if n := testing.AllocsPerRun(200, op.fn); n > 0 || err != nil {
				t.Errorf("%s of %d bytes (%v): %.1f allocations a request, %v", op.name, tc.size, c.ProtocolFor(len(key), tc.size), n, err)
			}
		}
	}
}
