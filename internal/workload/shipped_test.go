package workload

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/trace"
)

// Every workload shipped in workloads/ must load and validate.
func TestShippedWorkloads(t *testing.T) {
	files, _ := filepath.Glob("../../workloads/*.yaml")
	if len(files) < 6 {
		t.Fatalf("found %d shipped workloads, want at least 6", len(files))
	}
	for _, f := range files {
		w, err := LoadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := nameFromFile(f); w.Name != want {
			t.Errorf("%s: name %q, want the file's name %q", f, w.Name, want)
		}
	}
}

// The quickstart promises a run under 30 s: its phases must add up to well
// under that, leaving room for preload and start-up.
func TestQuickstartBudget(t *testing.T) {
	w, err := LoadFile("../../workloads/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	per := time.Duration(w.Phases.Warmup.Duration) + w.MeasureDuration()
	if w.Phases.Measure.Ops != 0 || w.Phases.Warmup.Ops != 0 {
		t.Fatal("quickstart phases must be time-bounded")
	}
	if total := time.Duration(len(w.Cells())) * per; total > 20*time.Second {
		t.Fatalf("%d cells x %v = %v of phases, want <= 20s", len(w.Cells()), per, total)
	}
	if !w.Verify || w.Target.Transport != "auto" || w.Target.Server != "" || w.Load.Mode != "closed" {
		t.Fatalf("quickstart should be verified, closed loop, embedded server on whichever transport this machine has: %+v", w)
	}
}

// The example in workloads/README.md is valid and forms the cells it says.
func TestReadmeExample(t *testing.T) {
	b, err := os.ReadFile("../../workloads/README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, after, ok := strings.Cut(doc, "## Example\n\n```yaml\n")
	if !ok {
		t.Fatal("README has no example")
	}
	example, _, _ := strings.Cut(after, "```")
	w, err := Parse("README example", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.ValueSizes(); !slices.Equal(got, []int64{100, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10}) {
		t.Fatalf("sizes %v", got)
	}
	if !strings.Contains(doc, "x 2 thresholds = 12 cells") || len(w.Cells()) != 12 {
		t.Fatalf("%d cells; README says 12", len(w.Cells()))
	}
}

// The shipped workloads are the ones the documentation promises.
func TestShippedWorkloadsAsDocumented(t *testing.T) {
	load := func(name string) *Workload {
		w, err := LoadFile("../../workloads/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	sw := load("threshold-sweep")
	sizes, ths := sw.ValueSizes(), sw.SortedThresholds()
	if sizes[0] != 64 || sizes[len(sizes)-1] != 1<<20 || len(sizes) != 15 ||
		!slices.Equal(ths, []int64{1 << 10, 4 << 10, 16 << 10, 64 << 10}) {
		t.Errorf("threshold-sweep: sizes %v thresholds %v, want 64B..1MiB doubling against 1, 4, 16, 64 KiB", sizes, ths)
	}
	for name, get := range map[string]float64{"ycsb-a": 0.5, "ycsb-b": 0.95, "ycsb-c": 1} {
		w := load(name)
		if w.Keys.Distribution != "zipfian" || w.Mix.Get != get || math.Abs(w.Mix.Get+w.Mix.Set-1) > 1e-12 {
			t.Errorf("%s: keys %s, mix %+v; want zipfian with %v gets, the rest sets", name, w.Keys.Distribution, w.Mix, get)
		}
	}
	if w := load("baselines"); !slices.Equal(w.ValueSizes(), []int64{64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10}) ||
		w.Mix.Get != 0.9 || w.Load.Mode != "closed" || w.Load.Connections != 1 || w.Load.Depth != 1 || !w.Verify {
		t.Errorf("baselines: sizes %v mix %+v load %+v verify %v, want 64B..256KiB (x4), 90%% gets, closed loop at depth 1, verified",
			w.ValueSizes(), w.Mix, w.Load, w.Verify)
	}
	if w := load("open-loop-latency"); w.Load.Mode != "open" || w.Load.Rate <= 0 || w.Load.Ramp != nil {
		t.Errorf("open-loop-latency: load %+v, want a fixed open-loop rate", w.Load)
	}
	if w := load("mixed-sweep"); w.Values.Distribution == nil || !strings.HasPrefix(w.Values.Distribution.Spec, "weighted:") ||
		w.Values.Distribution.Law().Min() != 64 || w.Values.Distribution.Law().Max() != 1<<20 ||
		!slices.Equal(w.SortedThresholds(), []int64{1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}) || !w.Verify {
		t.Errorf("mixed-sweep: values %+v thresholds %v verify %v, want a weighted mix of 64B..1MiB against 1KiB..1MiB (x4), verified",
			w.Values, w.SortedThresholds(), w.Verify)
	}
	if w := load("adaptive-ramp"); w.Load.Ramp == nil || len(w.Load.Ramp.Rates()) < 2 || w.Values.Distribution == nil ||
		!slices.Contains(w.Thresholds, AdaptiveThreshold) || len(w.Thresholds) < 3 {
		t.Errorf("adaptive-ramp: load %+v values %+v thresholds %v, want an open-loop ramp of a distribution at fixed thresholds and adaptive",
			w.Load, w.Values, w.Thresholds)
	}
	if w := load("etc"); w.Values.Distribution == nil || w.Values.Distribution.Spec != "etc, max: 1MiB" ||
		math.Abs(w.Mix.Get/w.Mix.Set-30) > 1e-9 || w.Keys.Distribution != "zipfian" {
		t.Errorf("etc: values %+v mix %+v keys %s, want ETC sizes clamped at 1MiB, 30 gets a set, zipfian keys", w.Values, w.Mix, w.Keys.Distribution)
	}
}

// mixed-sweep runs in seconds: its phases over its cells, one per
// threshold, add up to under 20 s.
func TestMixedSweepBudget(t *testing.T) {
	w, err := LoadFile("../../workloads/mixed-sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	per := time.Duration(w.Phases.Warmup.Duration) + w.MeasureDuration()
	if total := time.Duration(len(w.Cells())) * per; len(w.Cells()) != 6 || total > 20*time.Second {
		t.Errorf("%d cells x %v = %v of phases, want 6 cells in at most 20s", len(w.Cells()), per, total)
	}
}

// trace-replay replays the shipped synthetic trace, which validates, in
// seconds: its window at its speed over its cells adds up to under 20 s.
func TestTraceReplayBudget(t *testing.T) {
	w, err := LoadFile("../../workloads/trace-replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tr := w.Trace
	if tr == nil || tr.Loop || tr.Speed == SpeedMax || tr.Duration == 0 || !strings.HasSuffix(tr.Path(), "workloads/traces/twitter-synthetic.csv.zst") {
		t.Fatalf("trace %+v, want a timed window of the synthetic trace at a finite speed, once", tr)
	}
	p, err := trace.Validate(tr.Path(), trace.Format(tr.Format), 1)
	if err != nil || p.Count != 0 || p.Records == 0 {
		t.Fatalf("the trace: %v, problems %+v", err, p)
	}
	per := time.Duration(float64(tr.Duration) / float64(tr.Speed))
	if cells := len(w.Cells()); cells < 2 || cells > 3 || time.Duration(cells)*per > 20*time.Second {
		t.Errorf("%d cells x %v, want 2 or 3 cells in at most 20s", cells, per)
	}
}
