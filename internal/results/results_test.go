package results

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func TestCreateRunDirNeverOverwrites(t *testing.T) {
	parent := t.TempDir()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var dirs []string
	for range 3 {
		d, err := CreateRunDir(parent, "my workload/1", at)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.Base(d))
		if err := os.WriteFile(filepath.Join(d, "marker"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"my_workload_1-20260304-050607", "my_workload_1-20260304-050607-2", "my_workload_1-20260304-050607-3"}
	for i := range want {
		if dirs[i] != want[i] {
			t.Errorf("dir %d = %s, want %s", i, dirs[i], want[i])
		}
		b, err := os.ReadFile(filepath.Join(parent, want[i], "marker"))
		if err != nil || !strings.HasSuffix(string(b), want[i]) {
			t.Errorf("%s: marker %q, %v: a later run overwrote it", want[i], b, err)
		}
		if fi, err := os.Stat(filepath.Join(parent, want[i], HlogDir)); err != nil || !fi.IsDir() {
			t.Errorf("%s: no %s directory", want[i], HlogDir)
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := WriteFileAtomic(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q, want two", b)
	}
	// A failing write (the target is a directory) leaves the old state and
	// no temporary file behind.
	blocked := filepath.Join(dir, "blocked")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(blocked, []byte("three")); err == nil {
		t.Error("writing over a non-empty directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only f.json and blocked", names)
	}
}

// sampleRun builds a run with one cell whose histogram and interval log
// hold the same values.
func sampleRun(t *testing.T, dir string) *Run {
	t.Helper()
	start := time.Date(2026, 3, 4, 5, 6, 7, 250e6, time.UTC)
	var ivls []*hdrhistogram.Histogram
	total := NewHistogram()
	for i := range int64(3) {
		h := NewHistogram()
		for v := int64(1); v <= 1000; v++ {
			h.RecordValue(v*1000 + i*7919)
		}
		h.RecordValue(int64(i+1) * int64(time.Millisecond) * 50)
		h.SetStartTimeMs(start.UnixMilli() + i*1000)
		h.SetEndTimeMs(start.UnixMilli() + (i+1)*1000)
		total.Merge(h)
		ivls = append(ivls, h)
	}
	enc, err := EncodeHistogram(total)
	if err != nil {
		t.Fatal(err)
	}
	c := Cell{Op: "get", ValueSize: 4096, Threshold: 8192, Protocol: "eager", Count: total.TotalCount(),
		Errors: map[string]int64{"timeout": 2, "not_found": 5}, DurationNs: int64(3 * time.Second),
		ThroughputOps: float64(total.TotalCount()) / 3, ThroughputBytes: float64(total.TotalCount()) * 4096 / 3,
		Latency: Summarize(total), Histogram: enc, Load: CellLoad{Mode: "closed", Connections: 2, Depth: 4}}
	c.Hlog = HlogName(c)
	if dir != "" {
		if err := WriteHlog(filepath.Join(dir, c.Hlog), "cell get", start, ivls); err != nil {
			t.Fatal(err)
		}
	}
	return &Run{SchemaVersion: SchemaVersion, Workload: map[string]any{"name": "sample"}, Seed: 9,
		Version: "v0.0.0-test", Start: start, End: start.Add(3 * time.Second), EndReason: EndCompleted,
		Transport: Transport{Name: "tcp", Server: "127.0.0.1:1", Embedded: true},
		Verify:    VerifyCounts{Checked: 10}, Cells: []Cell{c}}
}

func TestRunRoundTrip(t *testing.T) {
	parent := t.TempDir()
	dir, err := CreateRunDir(parent, "sample", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := sampleRun(t, dir)
	r.Transport.MaxInline = 220
	r.Transport.Limits = &ServerLimits{MaxEager: 65536, MaxKey: 256, MaxValue: 1 << 26, PoolSize: 1 << 30, LeaseNs: 5e9, MaxInflight: 64}
	r.Cells[0].IntervalNs = int64(time.Second)
	r.Cells[0].Load.RampRatesOps, r.Cells[0].Load.RampStepNs = []float64{100, 200}, int64(time.Second)
	if err := r.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != 1 || got.Seed != 9 || got.EndReason != EndCompleted || got.Cells[0].Errors["timeout"] != 2 {
		t.Fatalf("loaded %+v", got)
	}
	if got.Transport.MaxInline != 220 || got.Transport.Limits == nil || *got.Transport.Limits != *r.Transport.Limits {
		t.Errorf("transport %+v, want %+v", got.Transport, r.Transport)
	}
	c := got.Cells[0]
	if c.IntervalNs != int64(time.Second) || len(c.Load.RampRatesOps) != 2 || c.Load.RampRatesOps[1] != 200 || c.Load.RampStepNs != int64(time.Second) {
		t.Errorf("cell interval %d, load %+v", c.IntervalNs, c.Load)
	}
	h, err := c.Hist()
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != c.Count || Summarize(h) != c.Latency {
		t.Errorf("JSON histogram (%d, %+v) disagrees with the cell (%d, %+v)", h.TotalCount(), Summarize(h), c.Count, c.Latency)
	}
	m, err := CellHlogMerged(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalCount() != c.Count || Summarize(m) != c.Latency {
		t.Errorf(".hlog gives (%d, %+v), JSON (%d, %+v)", m.TotalCount(), Summarize(m), c.Count, c.Latency)
	}
	ivls, err := CellIntervals(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(ivls) != 3 || ivls[0].StartTimeMs() != r.Start.UnixMilli() || ivls[2].EndTimeMs() != r.Start.UnixMilli()+3000 {
		t.Errorf("intervals: %d, first start %d, last end %d; want 3, %d, %d", len(ivls),
			ivls[0].StartTimeMs(), ivls[len(ivls)-1].EndTimeMs(), r.Start.UnixMilli(), r.Start.UnixMilli()+3000)
	}
}

// Files written before the optional fields existed still load, and a run
// without them writes none of them.
func TestOptionalFieldsCompatible(t *testing.T) {
	old := `{"schema_version": 1, "transport": {"name": "tcp", "server": "127.0.0.1:1", "embedded_server": true},
		"cells": [{"op": "get", "value_size": 64, "threshold": 4096, "protocol": "eager", "count": 0, "errors": {},
		"latency_ns": {}, "load": {"mode": "closed", "connections": 1}}]}`
	r, err := Decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if r.Transport.Limits != nil || r.Cells[0].IntervalNs != 0 || r.Cells[0].Load.RampRatesOps != nil {
		t.Errorf("absent fields decoded as %+v %+v", r.Transport, r.Cells[0])
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"server_limits", "max_inline", "interval_ns", "ramp_rates_ops", "ramp_step_ns", "issue_delay_ns", "hw_counters", "distribution", "adaptive"} {
		if strings.Contains(string(b), f) {
			t.Errorf("%s written though unset", f)
		}
	}
}

// Runs recorded before value-size distributions load with every cell of
// a fixed size and no sibling exempt; a distribution's cells keep their
// law through a round trip, and neither compare across thresholds nor
// get the warnings that assume one size.
func TestDistributionCells(t *testing.T) {
	for _, f := range []string{"testdata/threshold-sweep-tcp.json", "testdata/threshold-sweep-rdma.json"} {
		r, _, err := Open(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cells {
			if c.Distribution != "" {
				t.Fatalf("%s: %s has distribution %q", f, c.Name(), c.Distribution)
			}
		}
	}
	r, _, err := Open("testdata/threshold-sweep-rdma.json")
	if err != nil {
		t.Fatal(err)
	}
	warned := 0
	for _, ws := range SiblingWarnings(r.Cells) {
		warned += len(ws)
	}
	const spec = "weighted: {64B: 1, 1MiB: 1}"
	for i := range r.Cells {
		r.Cells[i].Distribution = spec
	}
	for i, ws := range SiblingWarnings(r.Cells) {
		if len(ws) > 0 {
			t.Errorf("%s, of a distribution: %v", r.Cells[i].Name(), ws)
		}
	}
	if warned == 0 {
		t.Error("the Soft-RoCE sweep's cells of fixed sizes disagree across thresholds, yet no warning")
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil || back.Cells[0].Distribution != spec {
		t.Fatalf("round trip: %v, %q", err, back.Cells[0].Distribution)
	}
	c := back.Cells[0]
	c.Load = CellLoad{Mode: "closed", Connections: 1, Depth: 1}
	c.Latency.Min, c.Latency.P50 = 1000, 10000 // ten times its fastest: one size would warn
	if _, ok := P50FarAboveMin(c); !ok {
		t.Fatal("P50FarAboveMin does not warn of a cell at ten times its minimum")
	}
	for _, w := range CellWarnings(c, time.Time{}, nil) {
		if w.Kind == WarnP50FarAboveMin || w.Kind == WarnBimodal {
			t.Errorf("a distribution's cell warned %s: %s", w.Kind, w.Message)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"future schema": `{"schema_version": 99}`,
		"no schema":     `{}`,
		"trailing":      `{"schema_version": 1} {}`,
		"not json":      `schema_version: 1`,
	} {
		if _, err := Decode([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCollectHost(t *testing.T) {
	h := CollectHost()
	if h.Cores < 1 || h.GoVer == "" || h.Kernel == "" {
		t.Errorf("host %+v", h)
	}
	if _, err := os.Stat("/proc/meminfo"); err == nil && h.MemBytes == 0 {
		t.Errorf("memory not read from /proc/meminfo: %+v", h)
	}
}

func FuzzDecode(f *testing.F) {
	r := sampleRun(&testing.T{}, "")
	b, _ := r.Encode()
	f.Add(b)
	f.Add([]byte(`{"schema_version":1,"cells":[{"histogram":"HISTFAAAAA=="}]}`))
	b, _ = cpuRun(&testing.T{}, CPUScopeClient, &CPUTime{UserNs: 5e6, SysNs: 1e6}).Encode()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		for i := range r.Cells {
			r.Cells[i].Hist() // must not panic
		}
		if _, err := r.Encode(); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDecodeHlog(f *testing.F) {
	var buf bytes.Buffer
	h := NewHistogram()
	h.RecordValue(1234)
	h.SetStartTimeMs(1e12)
	h.SetEndTimeMs(1e12 + 1000)
	b, _ := EncodeHlog("x", time.UnixMilli(1e12), []*hdrhistogram.Histogram{h})
	buf.Write(b)
	f.Add(buf.Bytes())
	f.Add([]byte("Tag=a\n0.1,1,2,HISTFAAAAA==\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeHlog(bytes.NewReader(b)) // must not panic
	})
}

func TestUpdateLatest(t *testing.T) {
	parent := t.TempDir()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	first, err := CreateRunDir(parent, "w", at)
	if err != nil {
		t.Fatal(err)
	}
	second, err := CreateRunDir(parent, "w", at.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, LatestLink)
	for _, dir := range []string{first, second} {
		if err := UpdateLatest(parent, dir); err != nil {
			t.Fatal(err)
		}
		got, err := os.Readlink(link)
		if err != nil || got != filepath.Base(dir) {
			t.Fatalf("latest -> %q (%v), want the relative %q", got, err, filepath.Base(dir))
		}
		if fi, err := os.Stat(filepath.Join(link, HlogDir)); err != nil || !fi.IsDir() {
			t.Fatalf("latest does not resolve to the run directory: %v", err)
		}
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 3 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("parent holds %v, want two runs and latest (no temporary links)", names)
	}
	// A real directory named latest is the user's: not replaced.
	other := t.TempDir()
	if err := os.Mkdir(filepath.Join(other, LatestLink), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := UpdateLatest(other, first); err == nil || !strings.Contains(err.Error(), "not a symbolic link") {
		t.Errorf("replacing a directory named latest: %v", err)
	}
}

// The interval log follows the HdrHistogram log format 1.3 line by line as
// HdrHistogram's own readers (Java HistogramLogReader, hdrhistogram-go,
// HdrHistogram_c) parse it: version comment, StartTime and BaseTime in
// seconds since the epoch, the legend, then one line per interval with its
// start relative to BaseTime, its length in seconds, its max in
// milliseconds (values are nanoseconds) and the compressed histogram.
func TestHlogFormat(t *testing.T) {
	dir, err := CreateRunDir(t.TempDir(), "sample", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := sampleRun(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, r.Cells[0].Hlog))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 5 header lines and 3 intervals:\n%s", len(lines), b)
	}
	startSec := r.Start.Unix()
	header := []*regexp.Regexp{
		regexp.MustCompile(`^#\[Histogram log format version 1\.3\]$`),
		regexp.MustCompile(`^#cell get$`),
		regexp.MustCompile(`^#\[StartTime: ` + strconv.FormatInt(startSec, 10) + `(\.\d+)? \(seconds since epoch\), [^\]]+\]$`),
		regexp.MustCompile(`^#\[BaseTime: ` + strconv.FormatInt(startSec, 10) + `(\.0+)? \(seconds since epoch\)\]$`),
		regexp.MustCompile(`^"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"$`),
	}
	for i, re := range header {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i+1, lines[i], re)
		}
	}
	interval := regexp.MustCompile(`^(\d+\.\d+),(\d+\.\d+),(\d+\.\d+),(HISTF[A-Za-z0-9+/]+=*)$`)
	for i, line := range lines[len(header):] {
		m := interval.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("interval %d: %q is not start,length,max,histogram", i, line)
			continue
		}
		h, err := DecodeHistogram(m[4])
		if err != nil {
			t.Fatal(err)
		}
		num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
		// The sample starts 250 ms into its second; intervals are 1 s.
		if start := num(m[1]); math.Abs(start-(0.25+float64(i))) > 1e-6 {
			t.Errorf("interval %d starts at %v s after BaseTime, want %v", i, start, 0.25+float64(i))
		}
		if l := num(m[2]); math.Abs(l-1) > 1e-6 {
			t.Errorf("interval %d lasts %v s, want 1", i, l)
		}
		if mx, want := num(m[3]), float64(h.Max())/1e6; math.Abs(mx-want) > 1e-3 {
			t.Errorf("interval %d max %v ms, want %v (the histogram's max in ms)", i, mx, want)
		}
	}
}
