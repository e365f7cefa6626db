package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/rdmakv"
)

// run is the whole soak; the report is filled as far as it got.
func run(ctx context.Context, o options) (*report, error) {
	var err error
	if o.work == "" {
		o.work, err = os.MkdirTemp("", "kvsoak-")
	} else {
		err = os.MkdirAll(o.work, 0o755)
	}
	if err != nil {
		return nil, err
	}
	warmup, faultsFor := o.phases()
	rep := &report{o: o, work: o.work, warmup: warmup, faults: faultsFor}
	srv, err := startServer(o)
	if err != nil {
		return rep, err
	}
	defer srv.kill()
	dial := func(ctx context.Context) (*rdmakv.Client, error) {
		opts := []rdmakv.Option{rdmakv.WithTransport(o.transport), rdmakv.WithTimeout(opTimeout)}
		if o.transport == "verbs" {
			opts = append(opts, rdmakv.WithPoll(rdmakv.PollEvent))
		}
		dctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		start := time.Now()
		c, err := rdmakv.Dial(dctx, srv.addr, opts...)
		if err == nil {
			rep.dials.add(time.Since(start))
		}
		return c, err
	}
	if rep.start, err = srv.sample(); err != nil {
		return rep, err
	}
	if err := fillPool(ctx, dial); err != nil {
		return rep, fmt.Errorf("touching the whole pool before the load: %w", err)
	}

	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var loaders []*loader
	var lwg sync.WaitGroup
	for i, sp := range loaderSpecs {
		l, err := newLoader(sp, o, srv.addr)
		if err != nil {
			return rep, err
		}
		loaders = append(loaders, l)
		lwg.Add(1)
		go func() { defer lwg.Done(); l.run(loadCtx, o.bin, o.seed<<16+uint64(i)<<12) }()
	}
	led := newLedger(4, o.seed, dial)
	led.start(loadCtx)

	if err := pause(ctx, warmup); err != nil {
		return rep, err
	}
	if rep.warm, err = memSample(srv); err != nil {
		return rep, err
	}
	f := &faults{o: o, srv: srv, victim: loaders[len(loaders)-1], dial: dial, t: &rep.ft, rng: rand.New(rand.NewPCG(o.seed, 7))}
	fctx, stopFaults := context.WithTimeout(ctx, faultsFor)
	f.run(fctx)
	stopFaults()
	if err := srv.alive(); err != nil {
		return rep, err
	}
	if err := pause(ctx, settle); err != nil {
		return rep, err
	}
	if rep.settled, err = memSample(srv); err != nil {
		return rep, err
	}

	stopLoad()
	lwg.Wait()
	for _, l := range loaders {
		rep.loaders = append(rep.loaders, l.tally())
	}
	rep.ledger, err = led.finish()
	if err != nil {
		return rep, err
	}
	if rep.cleaned, err = cleanup(srv, dial, led); err != nil {
		return rep, err
	}
	rep.end, err = waitBack(srv, rep.start)
	if err != nil {
		return rep, err
	}
	return rep, srv.shutdown()
}

// pause sleeps for d unless ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// memSample samples the server five times half a second apart and keeps
// the sample in which it held the least memory. What it holds for a
// moment, garbage its collector has yet to find, receive buffers of
// connections that come and go, adds to some samples only; what it keeps,
// a leak, adds to every one.
func memSample(srv *server) (sample, error) {
	var least sample
	for i := range 5 {
		if i > 0 {
			time.Sleep(500 * time.Millisecond)
		}
		s, err := srv.sample()
		if err != nil {
			return least, err
		}
		if s.mem, err = srv.memory(); err != nil {
			return least, err
		}
		if i == 0 || s.mem.held() < least.mem.held() {
			least = s
		}
	}
	return least, nil
}

// fillPool writes 1 MiB values until the pool is full, then deletes them:
// every pool page is then resident, so the RSS after warm-up is not lower
// than the load alone would leave it by the end.
func fillPool(ctx context.Context, dial func(context.Context) (*rdmakv.Client, error)) error {
	c, err := dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	val := make([]byte, 1<<20)
	n := 0
	for ; n < poolSize>>20+8; n++ {
		err := c.Set(ctx, fmt.Appendf(nil, "fill-%d", n), val)
		if errors.Is(err, rdmakv.ErrNoSpace) {
			break
		}
		if err != nil {
			return err
		}
	}
	for i := range n {
		if err := c.Delete(ctx, fmt.Appendf(nil, "fill-%d", i)); err != nil {
			return err
		}
	}
	return nil
}

// cleanup deletes every key the soak may have written and samples the
// server: with nothing stored and no client left, it holds nothing.
func cleanup(srv *server, dial func(context.Context) (*rdmakv.Client, error), led *ledger) (sample, error) {
	ctx := context.Background()
	c, err := dial(ctx)
	if err != nil {
		return sample{}, err
	}
	keys := led.keys()
	for i := range 8 {
		keys = append(keys, fmt.Appendf(nil, "churn-%d", i))
	}
	for _, sp := range loaderSpecs {
		for i := range sp.keys {
			keys = append(keys, keygen.Key(nil, int64(i), sp.keySize))
		}
	}
	for _, k := range keys {
		if err := c.Delete(ctx, k); err != nil && !errors.Is(err, rdmakv.ErrNotFound) {
			c.Close()
			return sample{}, fmt.Errorf("cleanup: delete %s: %w", k, err)
		}
	}
	c.Close()
	// Windows of killed clients end with their leases.
	return sampleUntil(srv, lease+waitWithin, func(s sample) bool { return s.keys == 0 && s.poolUsed == 0 })
}

// waitBack waits until the server's open files and goroutines are back to
// what they were before any client came, or waitWithin passes.
func waitBack(srv *server, start sample) (sample, error) {
	return sampleUntil(srv, waitWithin, func(s sample) bool {
		return s.fds <= start.fds && s.goroutines <= start.goroutines && s.conns == 0
	})
}

// waitWithin bounds each wait for something the server must do: log its
// figures when asked, end the windows killed clients left, close what
// departed clients held. It is a hang guard: each wait ends as soon as
// the thing is done, and only a server that never does it waits it out.
const waitWithin = 30 * time.Second

// sampleUntil samples the server until done holds or within passes, and
// returns the last sample.
func sampleUntil(srv *server, within time.Duration, done func(sample) bool) (sample, error) {
	deadline := time.Now().Add(within)
	for {
		s, err := srv.sample()
		if err != nil || done(s) || time.Now().After(deadline) {
			return s, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
