package traceclock

import (
	"strings"
	"testing"
	"time"
)

func TestUnknownClock(t *testing.T) {
	_, err := setup("hpet")
	if err == nil || !strings.Contains(err.Error(), Env) || !strings.Contains(err.Error(), `"hpet"`) {
		t.Fatalf("setup(hpet) = %v, want an error naming %s and the value", err, Env)
	}
}

func TestMonotonicOnRequest(t *testing.T) {
	c, err := setup("monotonic")
	if err != nil {
		t.Fatal(err)
	}
	if c.source() != "monotonic" {
		t.Fatalf("source %q, want monotonic", c.source())
	}
	if got := c.duration(1000, 3500); got != 2500 {
		t.Fatalf("duration(1000, 3500) = %v, want 2.5µs", got)
	}
	if got := c.nanos(42); got != 42 {
		t.Fatalf("nanos(42) = %d, want 42: the monotonic clock is read in nanoseconds", got)
	}
}

// TestCounterAgreesWithMonotonic checks the default clock against the
// runtime's over the same interval: where the CPU has an invariant counter
// the default must be that counter, and its scaled readings must match
// the runtime's clock to within a few parts in a thousand.
func TestCounterAgreesWithMonotonic(t *testing.T) {
	c, err := setup("")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{true: "tsc", false: "monotonic"}[haveTSC()]; c.source() != want {
		t.Fatalf("source %q, want %q (invariant counter: %v)", c.source(), want, haveTSC())
	}
	a, n0 := c.now(), nanotime()
	time.Sleep(20 * time.Millisecond)
	b, n1 := c.now(), nanotime()
	got, want := c.duration(a, b), time.Duration(n1-n0)
	if d := (got - want).Abs(); d > want/200+20*time.Microsecond {
		t.Fatalf("clock measured %v where the runtime's clock measured %v", got, want)
	}
	if d := time.Duration(c.nanos(a) - n0).Abs(); d > 100*time.Microsecond {
		t.Fatalf("a reading converts to %d ns, the runtime's clock read %d ns just after", c.nanos(a), n0)
	}
	if d := c.nanos(b) - c.nanos(a) - int64(c.duration(a, b)); d < -1 || d > 1 {
		t.Fatalf("nanos and duration disagree by %d ns", d)
	}
}

func TestInitOnce(t *testing.T) {
	if err := Init(); err != nil {
		t.Fatal(err)
	}
	a := Now()
	b := Now()
	if Duration(a, b) < 0 {
		t.Fatalf("two readings in a row went backwards: %d then %d", a, b)
	}
	if Source() != c.source() {
		t.Fatalf("Source %q, clock %q", Source(), c.source())
	}
}
