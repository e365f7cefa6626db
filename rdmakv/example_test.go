package rdmakv_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/kvbench/kvbench/rdmakv"
)

// A server on a free local port, and a client that sets, gets, deletes
// and closes. Over RDMA, add the verbs import (see the package doc) and
// WithTransport(rdmakv.TransportVerbs).
func Example() {
	ctx := context.Background()
	srv, err := rdmakv.Listen(rdmakv.ServerConfig{Local: true, PoolSize: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	c, err := rdmakv.Dial(ctx, srv.Addr(), rdmakv.WithStagingSize(1<<20))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := c.Set(ctx, []byte("greeting"), []byte("hello")); err != nil {
		log.Fatal(err)
	}
	v, err := c.Get(ctx, []byte("greeting"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%s)\n", v.Bytes(), v.Protocol())
	v.Release()

	if err := c.Delete(ctx, []byte("greeting")); err != nil {
		log.Fatal(err)
	}
	_, err = c.Get(ctx, []byte("greeting"))
	fmt.Println(errors.Is(err, rdmakv.ErrNotFound))
	// Output:
	// hello (eager)
	// true
}

// Values at or above the eager threshold go rendezvous: the client moves
// them with one-sided RDMA (emulated on tcp).
func ExampleWithEagerThreshold() {
	srv, c := localPair(rdmakv.WithEagerThreshold(1024))
	defer srv.Close()
	defer c.Close()

	for _, size := range []int{100, 4096} {
		fmt.Println(size, c.ProtocolFor(len("k"), size))
	}
	// Output:
	// 100 eager
	// 4096 rendezvous
}

// A profile, as kvbench tune writes it (profile.json), gives each op its
// own threshold per band of load: this client, one of 4 connections at
// depth 8, has 32 requests in flight, so its gets go eager below 1 KiB
// and its sets below 16 KiB. LoadProfile reads one from a file.
func ExampleWithProfile() {
	p, err := rdmakv.ParseProfile("profile.json", []byte(`{
		"kvbench_profile": 1, "default_threshold": 4096,
		"rules": [
			{"op": "get", "in_flight": [1, 8], "threshold": 4096},
			{"op": "get", "in_flight": [9, 0], "threshold": 1024},
			{"op": "set", "threshold": 16384}
		]}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Thresholds(32))
	srv, c := localPair(rdmakv.WithProfile(p, 4), rdmakv.WithDepth(8))
	defer srv.Close()
	defer c.Close()
	fmt.Println(c.ProtocolFor(len("k"), 8000)) // a Set's protocol
	// Output:
	// 1024 16384
	// eager
}

// Get returns a view of registered memory; Release hands it back and is
// safe to call twice.
func ExampleClient_Get() {
	ctx := context.Background()
	srv, c := localPair()
	defer srv.Close()
	defer c.Close()

	big := make([]byte, 64<<10)
	copy(big, "rendezvous")
	if err := c.Set(ctx, []byte("big"), big); err != nil {
		log.Fatal(err)
	}
	v, err := c.Get(ctx, []byte("big"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(v.Bytes()), string(v.Bytes()[:10]), v.Protocol())
	v.Release()
	v.Release()
	// Output: 65536 rendezvous rendezvous
}

// Info says which transport "auto" chose and how the connection polls.
// This program does not import verbs, so auto settles on tcp (and logs
// why).
func ExampleClient_Info() {
	srv, c := localPair(rdmakv.WithTransport(rdmakv.TransportAuto))
	defer srv.Close()
	defer c.Close()
	fmt.Println(c.Info().Transport, c.Info().Poll)
	// Output: tcp event
}

// ServerStats asks the server over the client's connection. The CPU time
// is the server process's since it started: what the server spent on some
// work is the difference between a call before and a call after it.
func ExampleClient_ServerStats() {
	ctx := context.Background()
	srv, c := localPair()
	defer srv.Close()
	defer c.Close()

	before, err := c.ServerStats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Set(ctx, []byte("k"), []byte("v")); err != nil {
		log.Fatal(err)
	}
	after, err := c.ServerStats(ctx)
	if err != nil {
		log.Fatal(err)
	}
	spent := after.CPUUser + after.CPUSys - before.CPUUser - before.CPUSys
	fmt.Println(after.Conns, after.Keys, after.PoolUsed, spent >= 0)
	// Output: 1 1 64 true
}

// localPair is Example's server and client, with opts for the client.
func localPair(opts ...rdmakv.Option) (*rdmakv.Server, *rdmakv.Client) {
	srv, err := rdmakv.Listen(rdmakv.ServerConfig{Local: true, PoolSize: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	c, err := rdmakv.Dial(context.Background(), srv.Addr(), append([]rdmakv.Option{rdmakv.WithStagingSize(1 << 20)}, opts...)...)
	if err != nil {
		srv.Close()
		log.Fatal(err)
	}
	return srv, c
}
