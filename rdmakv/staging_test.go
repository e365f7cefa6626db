package rdmakv

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// withStagingIdle shortens how long unused staging stays registered.
func withStagingIdle(d time.Duration) Option { return func(o *options) { o.stagingIdle = d } }

// waitRegistered waits until the client's staging is want bytes.
func waitRegistered(t *testing.T, c *Client, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.staging.registered() != want {
		if time.Now().After(deadline) {
			t.Fatalf("staging is %d bytes, want %d", c.staging.registered(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStagingGrowsAndShrinks: a client registers staging only for
// rendezvous payloads, in doubling regions up to its limit, and
// deregisters what stays unused for an idle period. The test runs the
// idle checks itself (the period is an hour), so a busy host cannot
// shrink staging between a request and the look at it.
func TestStagingGrowsAndShrinks(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithEagerThreshold(1024), WithStagingSize(1<<20), withStagingIdle(time.Hour))
	idlePeriod := func() { c.staging.idleCheck(); c.staging.idleCheck() } // one with no get in it
	ctx := context.Background()
	if n := c.staging.registered(); n != 0 {
		t.Fatalf("a new client registered %d bytes of staging, want none", n)
	}
	small := coreFill(100, 1)
	if err := c.Set(ctx, []byte("small"), small); err != nil {
		t.Fatal(err)
	}
	if n := c.staging.registered(); n != 0 {
		t.Fatalf("an eager set registered %d bytes of staging", n)
	}

	val := coreFill(100<<10, 2)
	if err := c.Set(ctx, []byte("k"), val); err != nil {
		t.Fatal(err)
	}
	if n := c.staging.registered(); n != 128<<10 {
		t.Fatalf("a 100 KiB set registered %d bytes, want the 128 KiB block it needs", n)
	}
	// Held values keep their regions; more of them make it grow, doubling.
	var held []*Value
	hold := func(k int) {
		for range k {
			v, err := c.Get(ctx, []byte("k"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(v.Bytes(), val) {
				t.Fatal("value read back wrong")
			}
			held = append(held, v)
		}
	}
	hold(4)
	if n := c.staging.registered(); n != (128+256+512)<<10 {
		t.Fatalf("four held 128 KiB values: staging %d bytes, want 896 KiB in three regions", n)
	}
	// Up to the limit and past it (through temporary regions) they work.
	hold(6)
	if n := c.staging.registered(); n > 1<<20 {
		t.Fatalf("staging %d bytes exceeds the 1 MiB limit", n)
	}
	idlePeriod()
	if n := c.staging.registered(); n != (128+256+512)<<10 {
		t.Fatalf("staging with values held shrank to %d bytes", n)
	}
	for _, v := range held {
		v.Release()
	}
	idlePeriod()
	if n := c.staging.registered(); n != 0 {
		t.Fatalf("staging unused for an idle period is %d bytes, want none", n)
	}

	// It grows again on demand, and a value larger than the limit works.
	big := coreFill(3<<20, 3)
	if err := c.Set(ctx, []byte("big"), big); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, []byte("k"), val); err != nil {
		t.Fatal(err)
	}
	if n := c.staging.registered(); n != 128<<10 {
		t.Fatalf("after regrowing: staging %d bytes, want 128 KiB", n)
	}
	v, err := c.Get(ctx, []byte("big"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.Bytes(), big) {
		t.Fatal("value larger than the staging limit read back wrong")
	}
	v.Release()
}

// TestStagingMakesRoom: when the limit leaves no room for a larger
// region, empty ones are dropped for it rather than falling back to
// temporary registrations for good.
func TestStagingMakesRoom(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithEagerThreshold(1024), WithStagingSize(1<<20), withStagingIdle(time.Hour))
	ctx := context.Background()
	if err := c.Set(ctx, []byte("k"), coreFill(10<<10, 1)); err != nil {
		t.Fatal(err)
	}
	if n := c.staging.registered(); n != 64<<10 {
		t.Fatalf("staging %d bytes, want 64 KiB", n)
	}
	if err := c.Set(ctx, []byte("k"), coreFill(1<<20, 2)); err != nil {
		t.Fatal(err)
	}
	if n := c.staging.registered(); n != 1<<20 {
		t.Fatalf("a 1 MiB set with a 1 MiB limit: staging %d bytes, want one 1 MiB region", n)
	}
}
