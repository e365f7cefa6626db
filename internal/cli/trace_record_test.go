package cli

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/workload"
)

const recordWorkloadYAML = `name: rec
seed: 5
keys: {count: 500, size: 10, distribution: zipfian, zipfian_constant: 0.9}
values:
  distribution:
    weighted: {64B: 70, 4KiB: 30}
mix: {get: 0.6, set: 0.3, delete: 0.1}
phases:
  warmup: {ops: 100}
  measure: {duration: 2s}
load: {mode: open, rate: 2000, connections: 2, depth: 2}
`

func writeWorkload(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The recorded trace reads back as the workload's sequence, and its stats
// show the workload's mix.
func TestTraceRecord(t *testing.T) {
	wl := writeWorkload(t, recordWorkloadYAML)
	out := filepath.Join(t.TempDir(), "rec.csv.zst")
	if _, err := runCLI(t, "trace", "record", wl, "-o", out); err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadFile(wl)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := bench.NewSequence(bench.FromWorkload(w))
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.Open(out, trace.Kvbench)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for want, ok := seq.Next(); ok; want, ok = seq.Next() {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		if got.Time != int64(want.Time) || got.Op != want.Op || string(got.Key) != string(want.Key) || got.ValueSize != want.ValueSize {
			t.Fatalf("record %d: %d %v %s %d, want %d %v %s %d", n, got.Time, got.Op, got.Key, got.ValueSize,
				want.Time, want.Op, want.Key, want.ValueSize)
		}
		n++
	}
	if _, err := r.Next(); err != io.EOF || n != 4000 {
		t.Errorf("%d records then %v, want 4000 (2 s at 2000/s) then EOF", n, err)
	}

	js, err := runCLI(t, "trace", "stats", out, "--format", "kvbench", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s trace.Summary
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	share := func(c int64) float64 { return float64(c) / float64(s.Requests) }
	if s.Requests != 4000 || math.Abs(share(s.Ops.Get)-0.6) > 0.04 || math.Abs(share(s.Ops.Set)-0.3) > 0.04 ||
		math.Abs(share(s.Ops.Delete)-0.1) > 0.03 || s.Rate.Median != 2000 || s.Keys.Distinct > 500 {
		t.Errorf("stats %+v: want 4000 requests at 2000/s, get 0.6, set 0.3, delete 0.1, at most 500 keys", s)
	}
}

// A closed loop needs --rate; --ops and --rate bound and time the trace;
// an existing file is kept without --force.
func TestTraceRecordFlags(t *testing.T) {
	wl := writeWorkload(t, strings.Replace(recordWorkloadYAML, "{mode: open, rate: 2000,", "{mode: closed,", 1))
	out := filepath.Join(t.TempDir(), "rec.csv")
	if _, err := runCLI(t, "trace", "record", wl, "-o", out); err == nil || !strings.Contains(err.Error(), "give --rate R") {
		t.Errorf("a closed loop without --rate: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed record left a file")
	}
	if _, err := runCLI(t, "trace", "record", wl, "-o", out, "--rate", "1000", "--ops", "50"); err != nil {
		t.Fatal(err)
	}
	r, err := trace.Open(out, trace.Kvbench)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for rec, err := r.Next(); err != io.EOF; rec, err = r.Next() {
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(n) * int64(time.Millisecond); rec.Time != want {
			t.Errorf("record %d at %d ns, want %d", n, rec.Time, want)
		}
		n++
	}
	if n != 50 {
		t.Errorf("%d records, want 50", n)
	}
	if _, err := runCLI(t, "trace", "record", wl, "-o", out, "--rate", "1000"); err == nil || !strings.Contains(err.Error(), "exists: give --force") {
		t.Errorf("an existing file: %v", err)
	}
	if _, err := runCLI(t, "trace", "record", wl, "-o", out, "--rate", "1000", "--ops", "10", "--force"); err != nil {
		t.Error(err)
	}
	if _, err := runCLI(t, "trace", "record", wl, "--rate", "1000"); err == nil || !strings.Contains(err.Error(), "out") {
		t.Errorf("no -o: %v", err)
	}
}
