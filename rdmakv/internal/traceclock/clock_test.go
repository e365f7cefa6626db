package traceclock

import (
	"fmt"
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
// the runtime's clock to within a few parts in a thousand. Each end reads
// both clocks together; of three tries (a preempted reading skews one),
// one must agree.
func TestCounterAgreesWithMonotonic(t *testing.T) {
	c, err := setup("")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{true: "tsc", false: "monotonic"}[haveTSC()]; c.source() != want {
		t.Fatalf("source %q, want %q (invariant counter: %v)", c.source(), want, haveTSC())
	}
	var fails []string
	for range 3 {
		a, n0 := bothAt(&c)
		time.Sleep(20 * time.Millisecond)
		b, n1 := bothAt(&c)
		got, want := c.duration(a, b), time.Duration(n1-n0)
		if d := (got - want).Abs(); d > want/200+20*time.Microsecond {
			fails = append(fails, fmt.Sprintf("clock measured %v where the runtime's clock measured %v", got, want))
			continue
		}
		if d := time.Duration(c.nanos(a) - n0).Abs(); d > 100*time.Microsecond {
			fails = append(fails, fmt.Sprintf("a reading converts to %d ns where the runtime's clock read %d ns", c.nanos(a), n0))
			continue
		}
		if d := c.nanos(b) - c.nanos(a) - int64(c.duration(a, b)); d < -1 || d > 1 {
			t.Fatalf("nanos and duration disagree by %d ns", d)
		}
		return
	}
	t.Fatal(strings.Join(fails, "; "))
}

// bothAt reads c and the runtime's clock at one moment: the c reading is
// the middle of the narrowest of a few pairs around a runtime reading.
func bothAt(c *clock) (t, ns int64) {
	best := int64(-1)
	for range 5 {
		a := c.now()
		n := nanotime()
		b := c.now()
		if w := b - a; best < 0 || w < best {
			best, t, ns = w, a+w/2, n
		}
	}
	return t, ns
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
