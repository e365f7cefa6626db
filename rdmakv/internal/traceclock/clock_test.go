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
	if c.tsc {
		t.Fatal("asked for the monotonic clock, got the counter")
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
	if c.tsc != haveTSC() {
		t.Fatalf("counter in use: %v; invariant counter: %v", c.tsc, haveTSC())
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

// bothAt reads c and the runtime's clock at one moment.
func bothAt(c *clock) (t, ns int64) { return pair(c.now) }

func TestInitOnce(t *testing.T) {
	if err := Init(); err != nil {
		t.Fatal(err)
	}
	got, want := Nanos(Now()), nanotime()
	if d := time.Duration(want - got); d < -time.Millisecond || d > 10*time.Millisecond {
		t.Fatalf("a reading converts to %d ns; the runtime's clock read %d ns just after", got, want)
	}
}
