package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
)

func statuses() []bench.Status {
	s := bench.Status{Cell: 0, Cells: 2, Threshold: 4096, ValueSize: 65536, Phase: "measure", Limit: 3 * time.Second}
	var out []bench.Status
	for i, ev := range []bench.Event{bench.PhaseStart, bench.PhaseTick, bench.PhaseTick, bench.PhaseTick, bench.PhaseEnd} {
		s.Event = ev
		s.Elapsed = time.Duration(i) * 600 * time.Millisecond
		s.Ops = int64(i) * 600
		s.Errors = int64(i / 2)
		out = append(out, s)
	}
	return out
}

func TestLines(t *testing.T) {
	var buf bytes.Buffer
	o := New(&buf, false)
	for _, s := range statuses() {
		o.Observe(s)
	}
	got := buf.String()
	want := `[1/2] threshold 4096, 64KiB values, measure: start
[1/2] threshold 4096, 64KiB values, measure: 1.2s/3s, 1000 ops/s, 1 errors
[1/2] threshold 4096, 64KiB values, measure: done, 2400 ops in 2.4s (1000 ops/s), 2 errors
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestBars(t *testing.T) {
	var buf bytes.Buffer
	o := New(&buf, true)
	for _, s := range statuses() {
		o.Observe(s)
	}
	out := buf.String()
	for _, want := range []string{"threshold 4096, 64KiB values, measure", "ops/s", "100%"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output lacks %q:\n%q", want, out)
		}
	}
}

// The line a finished bar leaves on screen gives the phase's average rate,
// not the rate over the short slice between the last tick and the end.
func TestBarsEndWithAverage(t *testing.T) {
	var buf bytes.Buffer
	o := New(&buf, true)
	s := bench.Status{Cells: 1, Threshold: 4096, ValueSize: 64, Phase: "warmup", Limit: time.Second}
	for _, st := range []struct {
		ev      bench.Event
		elapsed time.Duration
		ops     int64
	}{{bench.PhaseStart, 0, 0}, {bench.PhaseTick, 990 * time.Millisecond, 990}, {bench.PhaseEnd, time.Second, 1000 + 990}} {
		s.Event, s.Elapsed, s.Ops = st.ev, st.elapsed, st.ops
		o.Observe(s)
	}
	// 1990 ops in 1s; the last 10ms alone ran at 100000 ops/s.
	out := buf.String()
	if !strings.Contains(out, "1990 ops/s") || strings.Contains(out, "100000 ops/s") {
		t.Errorf("final bar does not show the phase average of 1990 ops/s:\n%q", out)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int]string{0: "0B", 64: "64B", 4096: "4KiB", 1536: "1.5KiB", 1 << 26: "64MiB", 3 << 19: "1.5MiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %s, want %s", n, got, want)
		}
	}
}
