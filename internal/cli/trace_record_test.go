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
	got := readTrace(t, out)
	n := 0
	for want, ok := seq.Next(); ok; want, ok = seq.Next() {
		if n == len(got) {
			t.Fatalf("the trace ends after %d records, the sequence goes on", n)
		}
		g := got[n]
		if g.Time != int64(want.Time) || g.Op != want.Op || string(g.Key) != string(want.Key) || g.ValueSize != want.ValueSize {
			t.Fatalf("record %d: %d %v %s %d, want %d %v %s %d", n, g.Time, g.Op, g.Key, g.ValueSize,
				want.Time, want.Op, want.Key, want.ValueSize)
		}
		n++
	}
	if n != 4000 || len(got) != n {
		t.Errorf("%d records, the sequence %d, want 4000 (2 s at 2000/s)", len(got), n)
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
	recs := readTrace(t, out)
	for n, rec := range recs {
		if want := int64(n) * int64(time.Millisecond); rec.Time != want {
			t.Errorf("record %d at %d ns, want %d", n, rec.Time, want)
		}
	}
	if len(recs) != 50 {
		t.Errorf("%d records, want 50", len(recs))
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

// readTrace reads every record of the kvbench trace at path.
func readTrace(t *testing.T, path string) []trace.Record {
	t.Helper()
	r, err := trace.Open(path, trace.Kvbench)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []trace.Record
	for {
		var rec trace.Record
		err := r.Read(&rec)
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		rec.Key = append([]byte(nil), rec.Key...)
		recs = append(recs, rec)
	}
}
