package workload

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/golden"
)

func TestGoodFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/good/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata/good files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w, err := LoadFile(f)
			if err != nil {
				t.Fatalf("%v", err)
			}
			if err := w.Validate(); err != nil {
				t.Fatalf("Validate after load: %v", err)
			}
			if len(w.Cells()) == 0 {
				t.Fatal("no cells")
			}
		})
	}
}

func TestBadFilesGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata/bad files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w, err := LoadFile(f)
			if err == nil {
				t.Fatalf("accepted: %+v", w)
			}
			if w != nil {
				t.Fatal("returned a workload with an error")
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("no FieldError in %v", err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, f+":") {
					t.Errorf("problem without file position: %q", line)
				}
			}
			rel, _ := filepath.Rel("testdata", strings.TrimSuffix(f, ".yaml")+".err")
			golden.Assert(t, err.Error()+"\n", rel)
		})
	}
}

func TestDefaults(t *testing.T) {
	w, err := Parse("dir/my-load.yaml", []byte("values: {sizes: [4KiB]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Workload{
		Name:       "my-load",
		Seed:       DefaultSeed,
		Target:     Target{Kind: DefaultKind, Transport: DefaultTransport},
		Keys:       Keys{Count: DefaultKeyCount, Size: DefaultKeySize, Distribution: DefaultDistribution},
		Values:     Values{Sizes: []Size{4096}},
		Thresholds: []Threshold{DefaultThreshold},
		Order:      DefaultOrder,
		Mix:        Mix{Get: DefaultMixGet, Set: DefaultMixSet},
		Preload:    DefaultPreload,
		Phases:     Phases{Warmup: Phase{Duration: Duration(DefaultWarmup)}, Measure: Phase{Duration: Duration(DefaultMeasure)}},
		Load:       Load{Mode: DefaultMode, Connections: DefaultConnections, Depth: DefaultDepth},
		Verify:     DefaultVerify,
		Timeout:    Duration(DefaultTimeout),
	}
	got := *w
	got.src = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", got, want)
	}
	// Conditional defaults, and a present mix keeps absent members at 0.
	w, err = Parse("x", []byte("values: {sizes: [1]}\nkeys: {distribution: hotspot}\nmix: {get: 1}\nphases: {measure: {ops: 10}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w.Keys.HotFraction != DefaultHotFraction || w.Keys.HotProbability != DefaultHotProbability || w.Keys.ZipfianConstant != 0 {
		t.Fatalf("hotspot defaults: %+v", w.Keys)
	}
	if w.Mix != (Mix{Get: 1}) || w.Phases.Measure != (Phase{Ops: 10}) {
		t.Fatalf("mix %+v measure %+v", w.Mix, w.Phases.Measure)
	}
	w, err = Parse("x", []byte("values: {sizes: [1]}\nkeys: {distribution: latest}\n"))
	if err != nil || w.Keys.ZipfianConstant != DefaultZipfianConstant {
		t.Fatalf("latest: %v %+v", err, w)
	}
}

func TestFullFile(t *testing.T) {
	w, err := LoadFile("testdata/good/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "full-example" || w.Seed != 12345 || w.Target.Server != "127.0.0.1:7070" || w.Keys.ZipfianConstant != 0.9 ||
		w.Preload || !w.Verify || w.Timeout != Duration(250*time.Millisecond) || w.Phases.Warmup.Ops != 1000 ||
		w.Phases.Measure.Duration != Duration(90*time.Second) || w.Load.Depth != 8 {
		t.Fatalf("decoded %+v", w)
	}
	wantSizes := []int64{64, 100, 1024, 2048, 4000, 4096, 8192, 16384, 32768, 65536, 1 << 20}
	if got := w.ValueSizes(); !reflect.DeepEqual(got, wantSizes) {
		t.Fatalf("ValueSizes %v, want %v", got, wantSizes)
	}
	cells := w.Cells()
	if len(cells) != len(wantSizes)*3 {
		t.Fatalf("%d cells", len(cells))
	}
	if c := cells[0]; c.Threshold != 1024 || c.ValueSize != 64 || c.Index != 0 || c.Name() != "v64B-t1KiB" {
		t.Fatalf("first cell %+v %s", c, c.Name())
	}
	if c := cells[len(cells)-1]; c.Threshold != 16384 || c.ValueSize != 1<<20 || c.Index != len(cells)-1 {
		t.Fatalf("last cell %+v", c)
	}
}

func TestRangeSizes(t *testing.T) {
	cases := []struct {
		r    Range
		want []int64
	}{
		{Range{Min: 64, Max: 1 << 20, Step: "x2"}, []int64{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576}},
		{Range{Min: 1000, Max: 10000, Step: "3000"}, []int64{1000, 4000, 7000, 10000}},
		{Range{Min: 1000, Max: 9000, Step: "3000"}, []int64{1000, 4000, 7000}},
		{Range{Min: 10, Max: 40, Step: "x1.5"}, []int64{10, 15, 23, 35}},
		{Range{Min: 1, Max: 3, Step: "x1.01"}, []int64{1, 2, 3}},
		{Range{Min: 5, Max: 5, Step: "1KiB"}, []int64{5}},
	}
	for _, c := range cases {
		if got := rangeSizes(&c.r, 100); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.r, got, c.want)
		}
	}
}

func TestRampRates(t *testing.T) {
	r := &Ramp{Start: 1000, End: 5000, Step: 1000}
	if got := r.Rates(); !reflect.DeepEqual(got, []float64{1000, 2000, 3000, 4000, 5000}) {
		t.Fatalf("up: %v", got)
	}
	r = &Ramp{Start: 500, End: 100, Step: 150}
	if got := r.Rates(); !reflect.DeepEqual(got, []float64{500, 350, 200}) {
		t.Fatalf("down: %v", got)
	}
	w, err := LoadFile("testdata/good/open-ramp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.MeasureDuration(); got != 25*time.Second {
		t.Fatalf("ramp measure %v, want 5 rates x 5s", got)
	}
}

func TestOverrides(t *testing.T) {
	w, err := LoadFile("testdata/good/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	server, transport, d, conns, depth, seed, verify := "10.0.0.1:9", "tcp", 3*time.Second, 7, 2, uint64(99), false
	w.ApplyOverrides(Overrides{"server": server, "transport": transport, "duration": d, "connections": conns, "depth": depth, "seed": seed, "verify": verify})
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if w.Target.Server != server || w.Target.Transport != "tcp" || w.Phases.Measure != (Phase{Duration: Duration(d)}) ||
		w.Load.Connections != 7 || w.Load.Depth != 2 || w.Seed != 99 || w.Verify {
		t.Fatalf("overrides not applied: %+v", w)
	}
	// Bad flag values are reported against the flag, every one of them.
	zero, badT, rate := 0, "ib", -5.0
	w.ApplyOverrides(Overrides{"connections": zero, "transport": badT, "rate": rate})
	err = w.Validate()
	if err == nil {
		t.Fatal("accepted bad overrides")
	}
	for _, want := range []string{"flag --connections: load.connections: must be at least 1", "flag --transport: target.transport:", "flag --rate: load.rate: open loop needs a positive rate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	// --rate turns a ramp workload into a fixed-rate one with a default
	// measure phase.
	w, err = LoadFile("testdata/good/open-ramp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rate = 1234
	w.ApplyOverrides(Overrides{"rate": rate})
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if w.Load.Ramp != nil || w.Load.Rate != 1234 || w.MeasureDuration() != DefaultMeasure {
		t.Fatalf("%+v", w.Load)
	}
	// --duration on a ramp conflicts.
	w, _ = LoadFile("testdata/good/open-ramp.yaml")
	w.ApplyOverrides(Overrides{"duration": d})
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "flag --duration: phases.measure:") {
		t.Fatalf("want conflict, got %v", err)
	}
	// A Workload built in code validates without positions.
	var empty Workload
	if err := empty.Validate(); err == nil || !strings.Contains(err.Error(), "\nkeys.count: must be at least 1") {
		t.Fatalf("code-built: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata/good", "testdata/bad", "../../workloads"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse("fuzz.yaml", data)
		if (w == nil) == (err == nil) {
			t.Fatalf("workload %v with error %v", w, err)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") {
					t.Fatalf("unpositioned problem %q", line)
				}
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("Parse accepted, Validate rejects: %v", err)
		}
		_ = w.Cells()
	})
}

// Open loops default to precise pacing; a closed loop has none, and --rate
// turning one open gives it the default, while a pacing the file chose
// survives the override.
func TestPacing(t *testing.T) {
	for _, c := range []struct {
		yaml string
		rate bool
		want string
	}{
		{"values: {sizes: [1]}\nload: {mode: open, rate: 10}\n", false, "precise"},
		{"values: {sizes: [1]}\nload: {mode: open, rate: 10, pacing: coarse}\n", false, "coarse"},
		{"values: {sizes: [1]}\nload: {mode: closed}\n", false, ""},
		{"values: {sizes: [1]}\nload: {mode: closed}\n", true, "precise"},
		{"values: {sizes: [1]}\nload: {ramp: {start: 1, end: 2, step: 1, step_duration: 1s}, mode: open, pacing: coarse}\n", true, "coarse"},
	} {
		w, err := Parse("x.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if c.rate {
			r := 100.0
			w.ApplyOverrides(Overrides{"rate": r})
			if err := w.Validate(); err != nil {
				t.Fatalf("%q --rate: %v", c.yaml, err)
			}
		}
		if w.Load.Pacing != c.want {
			t.Errorf("%q (--rate %v): pacing %q, want %q", c.yaml, c.rate, w.Load.Pacing, c.want)
		}
	}
	// Built in code: empty means the default, anything else must be known.
	w := Workload{Keys: Keys{Count: 1, Size: 4, Distribution: "uniform"}, Values: Values{Sizes: []Size{1}},
		Thresholds: []Threshold{1}, Mix: Mix{Get: 1}, Phases: Phases{Measure: Phase{Ops: 1}}, Target: Target{Transport: "tcp"},
		Load: Load{Mode: "open", Rate: 1, Connections: 1, Depth: 1}, Timeout: 1, Name: "x"}
	if err := w.Validate(); err != nil {
		t.Fatalf("code-built open loop without pacing: %v", err)
	}
	w.Load.Pacing = "fast"
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), `load.pacing: "fast" is not a pacing`) {
		t.Errorf("code-built bad pacing: %v", err)
	}
	w.Load = Load{Mode: "closed", Connections: 1, Depth: 1, Pacing: "coarse"}
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "load.pacing: only used with mode open") {
		t.Errorf("code-built closed loop with pacing: %v", err)
	}
}

func TestPoll(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"values: {sizes: [1]}\ntarget: {transport: verbs}\n", ""},
		{"values: {sizes: [1]}\ntarget: {transport: verbs, poll: event}\n", "event"},
		{"values: {sizes: [1]}\ntarget: {transport: auto, poll: busy}\n", "busy"},
		{"values: {sizes: [1]}\ntarget: {transport: tcp, poll: event}\n", "event"},
	} {
		w, err := Parse("x.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if w.Target.Poll != c.want {
			t.Errorf("%q: poll %q, want %q", c.yaml, w.Target.Poll, c.want)
		}
	}
	// --poll overrides the file and is named in what it breaks.
	w, err := Parse("x.yaml", []byte("values: {sizes: [1]}\ntarget: {transport: verbs, poll: event}\n"))
	if err != nil {
		t.Fatal(err)
	}
	busy, bad := "busy", ""
	w.ApplyOverrides(Overrides{"poll": busy})
	if err := w.Validate(); err != nil || w.Target.Poll != "busy" {
		t.Fatalf("--poll busy: poll %q, err %v", w.Target.Poll, err)
	}
	w.ApplyOverrides(Overrides{"poll": bad})
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), `flag --poll: target.poll: "" is not a polling mode`) {
		t.Errorf("--poll '': %v", err)
	}
	tcp := "tcp"
	w.ApplyOverrides(Overrides{"poll": busy, "transport": tcp})
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "flag --poll: target.poll: busy polls an RDMA completion queue") {
		t.Errorf("--poll busy --transport tcp: %v", err)
	}
}

// The cell order is interleaved unless the file or --order says
// thresholds; anything else is refused, at the file's line or the flag,
// also in a workload built in code, where empty means the default.
func TestOrder(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"values: {sizes: [1]}\n", OrderInterleaved},
		{"values: {sizes: [1]}\norder: thresholds\n", OrderThresholds},
		{"values: {sizes: [1]}\norder: interleaved\n", OrderInterleaved},
	} {
		w, err := Parse("x.yaml", []byte(c.yaml))
		if err != nil || w.Order != c.want {
			t.Errorf("%q: order %q, err %v; want %q", c.yaml, w.Order, err, c.want)
		}
	}
	w, err := Parse("x.yaml", []byte("values: {sizes: [1]}\norder: interleaved\n"))
	if err != nil {
		t.Fatal(err)
	}
	th, bad := OrderThresholds, "sizes"
	w.ApplyOverrides(Overrides{"order": th})
	if err := w.Validate(); err != nil || w.Order != OrderThresholds {
		t.Fatalf("--order thresholds: order %q, err %v", w.Order, err)
	}
	w.ApplyOverrides(Overrides{"order": bad})
	if err := w.Validate(); err == nil || err.Error() != `flag --order: order: "sizes" is not a cell order (want one of: interleaved, thresholds)` {
		t.Errorf("--order sizes: %v", err)
	}
	code := *w
	code.src, code.Order = nil, ""
	if err := code.Validate(); err != nil {
		t.Fatalf("code-built without order: %v", err)
	}
	code.Order = "Thresholds"
	if err := code.Validate(); err == nil || err.Error() != `order: "Thresholds" is not a cell order (want one of: interleaved, thresholds)` {
		t.Errorf("code-built order Thresholds: %v", err)
	}
}

func TestWarmupOverride(t *testing.T) {
	w, err := Parse("x.yaml", []byte("values: {sizes: [1]}\nphases: {warmup: {ops: 50}, measure: {ops: 10}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := 250 * time.Millisecond
	w.ApplyOverrides(Overrides{"warmup": d})
	if err := w.Validate(); err != nil || w.Phases.Warmup != (Phase{Duration: Duration(d)}) || w.Phases.Measure.Ops != 10 {
		t.Fatalf("--warmup 250ms: phases %+v, err %v", w.Phases, err)
	}
	zero := time.Duration(0)
	w.ApplyOverrides(Overrides{"warmup": zero})
	if err := w.Validate(); err != nil || w.Phases.Warmup != (Phase{}) {
		t.Fatalf("--warmup 0: phases %+v, err %v", w.Phases, err)
	}
	neg := -time.Second
	w.ApplyOverrides(Overrides{"warmup": neg})
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "flag --warmup: phases.warmup.duration: must not be negative") {
		t.Errorf("--warmup -1s: %v", err)
	}
}

// A replay has its own defaults: the twitter format at the recorded pace,
// 250-byte keys, no mix and no warmup, and a measure phase only with
// loop (the window is it otherwise); its file is the workload file's
// neighbour.
func TestTraceDefaults(t *testing.T) {
	w, err := Parse("testdata/bad/replay.yaml", []byte("trace: {file: ../traces/tiny.csv}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tr := w.Trace
	if tr.Format != "twitter" || tr.Speed != 1 || tr.Path() != filepath.Join("testdata", "traces", "tiny.csv") {
		t.Errorf("trace %+v, path %q", tr, tr.Path())
	}
	if w.Keys.Size != DefaultTraceKeySize || w.Mix != (Mix{}) || w.Phases != (Phases{}) || len(w.Cells()) != 1 {
		t.Errorf("keys %+v mix %+v phases %+v cells %v", w.Keys, w.Mix, w.Phases, w.Cells())
	}
	if c := w.Cells()[0]; c.Distribution != "trace tiny.csv (twitter), all, speed 1" {
		t.Errorf("cell named %q", c.Distribution)
	}
	w, err = Parse("testdata/bad/replay.yaml", []byte("trace: {file: ../traces/tiny.csv, loop: true, speed: max, skip: 1, ops: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w.MeasureDuration() != DefaultMeasure || w.Trace.Spec() != "trace tiny.csv (twitter), requests 1 to 2, speed max, loop" {
		t.Errorf("measure %v, spec %q", w.MeasureDuration(), w.Trace.Spec())
	}
}

// A replay at a speed paces as an open loop does, precisely unless the
// workload says coarse; at speed max it has no pacing, and refuses one.
func TestTracePacing(t *testing.T) {
	for _, c := range []struct{ section, load, want, err string }{
		{"", "", "precise", ""},
		{"speed: 10", "load: {pacing: coarse}\n", "coarse", ""},
		{"speed: max", "", "", ""},
		{"speed: 2", "load: {pacing: exact}\n", "", `testdata/bad/replay.yaml:2:8: load.pacing: "exact" is not a pacing`},
		{"speed: max", "load: {pacing: precise}\n", "", "testdata/bad/replay.yaml:2:8: load.pacing: does not combine with trace.speed max (line 1)"},
	} {
		w, err := Parse("testdata/bad/replay.yaml", []byte("trace: {file: ../traces/tiny.csv, "+c.section+"}\n"+c.load))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: error %v, want %q", c.section, c.load, err, c.err)
			}
		case err != nil:
			t.Errorf("%s %s: %v", c.section, c.load, err)
		case w.Load.Pacing != c.want:
			t.Errorf("%s %s: pacing %q, want %q", c.section, c.load, w.Load.Pacing, c.want)
		}
	}
}
