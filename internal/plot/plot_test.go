package plot

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

var sizes = []int{64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20}

func testRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	run, err := resultstest.Build(dir, resultstest.Spec{
		Ops: []string{"get", "set"}, Sizes: sizes, Thresholds: []int{0, 4096, 65536},
		Samples: 2000, Intervals: 4, Seed: 1, Model: resultstest.Default,
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func names(p *Panel) []string {
	var out []string
	for _, s := range p.Series {
		out = append(out, s.Name)
	}
	return out
}

func TestThroughputModel(t *testing.T) {
	run := testRun(t, "")
	for _, kind := range []ThroughputKind{OpsPerSec, MiBPerSec} {
		f, err := Throughput(run, "get", kind)
		if err != nil || f == nil {
			t.Fatalf("Throughput: %v, %v", f, err)
		}
		p := f.Panels[0]
		if got, want := names(p), []string{"t=0B", "t=4KiB", "t=64KiB"}; !slices.Equal(got, want) {
			t.Errorf("series %v, want %v", got, want)
		}
		for _, s := range p.Series {
			if len(s.Points) != len(sizes) {
				t.Errorf("%s: %d points, want %d", s.Name, len(s.Points), len(sizes))
			}
		}
		// Threshold 0 has no marker; the others sit at their threshold.
		if !slices.Equal(p.Markers, []float64{4096, 65536}) {
			t.Errorf("markers %v", p.Markers)
		}
		if _, ok := p.Plot.X.Scale.(gplot.LogScale); !ok {
			t.Error("x axis is not logarithmic")
		}
		if p.Plot.X.Min != 64 || p.Plot.X.Max != 1<<20 {
			t.Errorf("x range %v..%v", p.Plot.X.Min, p.Plot.X.Max)
		}
	}
	f, _ := Throughput(run, "get", MiBPerSec)
	if f.Name != "throughput-mib-get" || f.Panels[0].Plot.Y.Label.Text != "throughput (MiB/s of values)" {
		t.Errorf("name %q label %q", f.Name, f.Panels[0].Plot.Y.Label.Text)
	}
}

func TestByteTickLabels(t *testing.T) {
	var a gplot.Axis
	byteAxis(&a, 64, 1<<20)
	var labels []string
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	want := []string{"64B", "256B", "1KiB", "4KiB", "16KiB", "64KiB", "256KiB", "1MiB"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	logAxis(&a, 3200, 870000, durationLabel)
	labels = labels[:0]
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if labels[0] != "2µs" || labels[len(labels)-1] != "1ms" {
		t.Errorf("time labels %v, want 2µs .. 1ms", labels)
	}
	// Under a decade every multiple is labelled, with half steps when
	// the whole ones are too few.
	for _, c := range []struct {
		lo, hi float64
		format func(float64) string
		want   []string
	}{
		{3800e3, 4300e3, durationLabel, []string{"2ms", "3ms", "4ms", "5ms"}},
		{10.5e3, 18e3, rateLabel, []string{"10k", "15k", "20k"}},
	} {
		logAxis(&a, c.lo, c.hi, c.format)
		labels = labels[:0]
		for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if !slices.Equal(labels, c.want) {
			t.Errorf("%v..%v: labels %v, want %v", c.lo, c.hi, labels, c.want)
		}
	}
	if PercentileLabel(3) != "99.9%" || PercentileLabel(5) != "99.999%" || PercentileLabel(1) != "90%" {
		t.Error("percentile labels wrong")
	}
}

func TestLatencyModel(t *testing.T) {
	run := testRun(t, "")
	f, err := Latency(run, "set")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Panels[0].Plot.Y.Scale.(gplot.LogScale); !ok {
		t.Error("latency axis is not logarithmic")
	}
	got := names(f.Panels[0])
	if len(got) != 9 || got[0] != "t=0B p50" || got[8] != "t=64KiB p99.9" {
		t.Errorf("series %v", got)
	}
	// p99 is never below p50 at any size.
	p50, p99 := f.Panels[0].Series[3].Points, f.Panels[0].Series[4].Points
	for i := range p50 {
		if p99[i].Y < p50[i].Y {
			t.Errorf("size %v: p99 %v < p50 %v", p50[i].X, p99[i].Y, p50[i].Y)
		}
	}
}

func TestPercentiles(t *testing.T) {
	run := testRun(t, "")
	f, err := Percentiles(run, "get", 4096)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Panels[0]
	if got, want := names(p), []string{"t=0B rendezvous", "t=4KiB rendezvous", "t=64KiB eager"}; !slices.Equal(got, want) {
		t.Errorf("series %v, want %v", got, want)
	}
	pts := p.Series[0].Points
	// 2000 samples resolve 1/(1-p) up to 2000: 10 points per nine over
	// log10(2000)=3.3 nines, plus the max.
	if len(pts) != 35 {
		t.Errorf("%d points, want 35", len(pts))
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].X <= pts[i-1].X || pts[i].Y < pts[i-1].Y {
			t.Fatalf("curve not monotone at %d: %v then %v", i, pts[i-1], pts[i])
		}
	}
	if p.Plot.X.Max != 10000 {
		t.Errorf("x max %v, want 10000 (99.99%%)", p.Plot.X.Max)
	}
	var labels []string
	for _, tk := range p.Plot.X.Tick.Marker.Ticks(p.Plot.X.Min, p.Plot.X.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"0%", "90%", "99%", "99.9%", "99.99%"}; !slices.Equal(labels, want) {
		t.Errorf("percentile axis labels %v, want %v", labels, want)
	}
	if _, ok := p.Plot.Y.Scale.(gplot.LogScale); !ok {
		t.Error("latency axis is not logarithmic")
	}
}

func TestTimeline(t *testing.T) {
	dir := t.TempDir()
	run := testRun(t, dir)
	f, skipped, err := Timeline(run, dir, "set", 1024)
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	if len(f.Panels) != 2 {
		t.Fatalf("%d panels", len(f.Panels))
	}
	for _, p := range f.Panels {
		if len(p.Series) != 3 {
			t.Errorf("%d series", len(p.Series))
		}
		for _, s := range p.Series {
			if len(s.Points) != 8 {
				t.Errorf("%s: %d points, want 2 per interval for 4 intervals", s.Name, len(s.Points))
			}
		}
	}
	// 2000 samples over 4 one-second intervals is 500 ops/s each.
	if y := f.Panels[0].Series[0].Points[0].Y; y != 500 {
		t.Errorf("interval rate %v, want 500", y)
	}
	if x := f.Panels[0].Series[0].Points[7].X; x != 4 {
		t.Errorf("last interval ends at %v s, want 4", x)
	}
	// Every rate is exactly 500, a 1-2-5 value: the axis must still leave
	// the flat line off the frame.
	if y := f.Panels[0].Plot.Y; !(y.Min < 500 && y.Max > 500) {
		t.Errorf("rate axis %v..%v puts the 500 ops/s line on the frame", y.Min, y.Max)
	}
	// The panels share their series, so only the top one has a legend.
	c := draw.New(vgimg.New(8*vg.Inch, 5*vg.Inch))
	top, bottom := f.Panels[0].Plot.Legend.Rectangle(c), f.Panels[1].Plot.Legend.Rectangle(c)
	if top.Size().Y <= 0 || bottom.Size().Y != 0 {
		t.Errorf("legend heights: top %v, bottom %v", top.Size().Y, bottom.Size().Y)
	}
	// A missing log costs only that line.
	os.Remove(filepath.Join(dir, run.Cells[0].Hlog))
	var c0 results.Cell
	for _, c := range run.Cells {
		if c.Op == "get" && c.ValueSize == 64 {
			c0 = c
			break
		}
	}
	os.Remove(filepath.Join(dir, c0.Hlog))
	f, skipped, err = Timeline(run, dir, "get", 64)
	if err != nil || len(skipped) != 1 || len(f.Panels[0].Series) != 2 {
		t.Errorf("missing hlog: err %v skipped %v", err, skipped)
	}
}

func TestSaveAllFiles(t *testing.T) {
	dir := t.TempDir()
	// Small run: rendering dominates the test's time.
	run, err := resultstest.Build(dir, resultstest.Spec{
		Ops: []string{"get", "set"}, Sizes: []int{64, 4096, 1 << 20}, Thresholds: []int{0, 4096},
		Samples: 500, Intervals: 2, Seed: 1, Model: resultstest.Default,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "plots")
	run.Version, run.Revision, run.Protocol = "devel", "1a2b3c4", 5
	paths, warnings, err := SaveAll(run, dir, Options{OutDir: out, Percentiles: true, Timelines: true})
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	// Every figure names the build that measured.
	for _, path := range paths {
		if filepath.Ext(path) == ".svg" && !fileContains(t, path, "kvbench devel 1a2b3c4, protocol 5") {
			t.Errorf("%s: no build caption", path)
		}
	}
	// Per op: 3 sweep figures + 3 sizes x (percentiles + timeline); 2 formats.
	if want := 2 * (3 + 6) * 2; len(paths) != want {
		t.Errorf("%d files, want %d", len(paths), want)
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(path) {
		case ".png":
			cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
			if err != nil || format != "png" || cfg.Width != 800 || cfg.Height != 500 {
				t.Errorf("%s: %v %s %dx%d", path, err, format, cfg.Width, cfg.Height)
			}
		case ".svg":
			var hdr struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
			}
			d := xml.NewDecoder(bytes.NewReader(b))
			for {
				tok, err := d.Token()
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if se, ok := tok.(xml.StartElement); ok {
					if err := d.DecodeElement(&hdr, &se); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			if hdr.XMLName.Local != "svg" || !strings.HasPrefix(hdr.Width, "600") || !strings.HasPrefix(hdr.Height, "375") {
				t.Errorf("%s: root <%s width=%q>", path, hdr.XMLName.Local, hdr.Width)
			}
			if !bytes.Contains(b, []byte("1KiB")) && strings.Contains(path, "throughput") {
				t.Errorf("%s: no byte tick label", path)
			}
		}
	}
}

func TestSaveAllErrors(t *testing.T) {
	run := &results.Run{SchemaVersion: 1}
	if _, _, err := SaveAll(run, "", Options{OutDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "nothing to plot") {
		t.Errorf("empty run: %v", err)
	}
	run = testRun(t, "")
	if _, _, err := SaveAll(run, "", Options{OutDir: t.TempDir(), Formats: []string{"gif"}}); err == nil || !strings.Contains(err.Error(), "gif") {
		t.Errorf("bad format: %v", err)
	}
}

func TestIntervalsDropShortTail(t *testing.T) {
	var hs []*hdrhistogram.Histogram
	for i, ms := range []int64{1000, 1000, 3} {
		h := results.NewHistogram()
		for range 100 {
			h.RecordValue(1000)
		}
		h.SetStartTimeMs(5000 + int64(i)*1000)
		h.SetEndTimeMs(5000 + int64(i)*1000 + ms)
		hs = append(hs, h)
	}
	ivs := Intervals(hs)
	if len(ivs) != 2 || ivs[1].Start != 1 || ivs[0].Ops != 100 {
		t.Errorf("intervals %+v", ivs)
	}
}

func TestLogAxisLabelDoesNotShrinkDataArea(t *testing.T) {
	// The shape of a real quickstart run: MiB/s spans 2.5 to 540 on a log
	// axis, so gonum would put the y label's glyph box near the top and
	// push the data area down by a third of an inch or more.
	run := &results.Run{}
	for _, c := range []struct {
		size  int
		proto string
		mib   float64
	}{{64, "eager", 2.52}, {4096, "rendezvous", 66}, {65536, "rendezvous", 541}} {
		run.Cells = append(run.Cells, results.Cell{Op: "get", ValueSize: c.size, Threshold: 4096, Protocol: c.proto,
			Count: 1000, ThroughputOps: c.mib * (1 << 20) / float64(c.size), ThroughputBytes: c.mib * (1 << 20)})
	}
	f, err := Throughput(run, "get", MiBPerSec)
	if err != nil {
		t.Fatal(err)
	}
	c := draw.New(vgimg.New(8*vg.Inch, 5*vg.Inch))
	data := f.Draw(c)
	if len(data) != 1 {
		t.Fatalf("%d data areas", len(data))
	}
	// The title (13pt) and half a tick label are all that belong above.
	if gap := c.Max.Y - data[0].Max.Y; gap > vg.Points(30) {
		t.Errorf("data area starts %.0fpt below the top; want at most 30pt", gap.Points())
	}
	if got := f.Panels[0].Plot.Y.Label.Text; got != "throughput (MiB/s of values)" {
		t.Errorf("y label after Draw: %q", got)
	}
}

func TestSecondTicks(t *testing.T) {
	cases := []struct {
		max  float64
		want []string
	}{
		{5, []string{"0s", "1s", "2s", "3s", "4s", "5s"}},
		{20, []string{"0s", "2s", "4s", "6s", "8s", "10s", "12s", "14s", "16s", "18s", "20s"}},
		{45, []string{"0s", "5s", "10s", "15s", "20s", "25s", "30s", "35s", "40s", "45s"}},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (secondTicks{}).Ticks(0, c.max) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("Ticks(0, %v) = %v, want %v", c.max, got, c.want)
		}
	}
}
