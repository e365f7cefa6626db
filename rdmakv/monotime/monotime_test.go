package monotime_test

import (
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/monotime"
)

// The clock counts in nanoseconds and never goes back: across a sleep it
// advances at least as far as the sleep, and no further than time's own
// monotonic reading around it.
func TestNow(t *testing.T) {
	t0, a := time.Now(), monotime.Now()
	time.Sleep(10 * time.Millisecond)
	b, t1 := monotime.Now(), time.Now()
	if d := time.Duration(b - a); d < 10*time.Millisecond || d > t1.Sub(t0) {
		t.Errorf("10ms sleep read as %v, time.Since %v", d, t1.Sub(t0))
	}
}
