package tcp

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Config.NetConn puts dialed and accepted connections alike on net.Conn,
// Blocking or not; without it, on Linux, they take raw system calls, a
// dialed one with Blocking a blocking socket. Each path carries frames.
func TestStreamPath(t *testing.T) {
	type path struct {
		cfg              transport.Config
		dialed, accepted string
	}
	cases := []path{
		{transport.Config{NetConn: true}, "tcp.netStream", "tcp.aheadStream"},
		{transport.Config{NetConn: true, Blocking: true}, "tcp.netStream", "tcp.aheadStream"},
	}
	if rawSockets {
		cases = append(cases,
			path{transport.Config{}, "tcp.pollStream", "tcp.pollStream"},
			path{transport.Config{Blocking: true}, "*rawsock.BlockConn", "tcp.pollStream"})
	} else {
		cases = append(cases, path{transport.Config{Blocking: true}, "tcp.netStream", "tcp.aheadStream"})
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("netconn=%v,blocking=%v", tc.cfg.NetConn, tc.cfg.Blocking), func(t *testing.T) {
			cfg := smallCfg()
			cfg.NetConn, cfg.Blocking = tc.cfg.NetConn, tc.cfg.Blocking
			srv := newRecorder()
			accepted := make(chan transport.Conn, 1)
			ln, err := network{}.Listen("127.0.0.1:0", cfg, func(c transport.Conn) transport.Handler {
				accepted <- c
				return srv
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ln.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			cli := newRecorder()
			c, err := network{}.Dial(ctx, ln.Addr(), cfg, cli)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			sc := await(t, accepted, "no connection accepted")
			if d, a := fmt.Sprintf("%T", c.(*conn).nc), fmt.Sprintf("%T", sc.(*conn).nc); d != tc.dialed || a != tc.accepted {
				t.Fatalf("dialed on a %s, accepted on a %s; want %s and %s", d, a, tc.dialed, tc.accepted)
			}
			for i, n := range []int{10, 3000} { // copied, and written with writev
				msg := bytes.Repeat([]byte{byte(i + 1)}, n)
				if err := c.Send(msg, nil, nil); err != nil {
					t.Fatal(err)
				}
				if m := srv.next(t); !bytes.Equal(m.Data, msg) {
					t.Fatalf("the server got %d bytes, not the %d sent", len(m.Data), n)
				} else {
					m.Release()
				}
				if err := sc.Send(msg, nil, nil); err != nil {
					t.Fatal(err)
				}
				if m := cli.next(t); !bytes.Equal(m.Data, msg) {
					t.Fatalf("the client got %d bytes, not the %d sent", len(m.Data), n)
				} else {
					m.Release()
				}
			}
		})
	}
}
