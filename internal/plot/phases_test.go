package plot

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	gplot "gonum.org/v1/plot"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// phaseModel is a plausible split of an operation's time in ns: eager
// pays for the copy in the network and at the server, rendezvous pays an
// extra round trip and a window bind but moves the value with one read or
// write.
func phaseModel(op, proto string, size int) map[string]results.OpPhase {
	s := float64(size)
	ns := map[string]float64{"client": 400 + 0.02*s, "network": 1500 + 0.09*s, "server": 300 + 0.08*s}
	if proto == "rendezvous" {
		ns = map[string]float64{"client": 500, "network": 1500, "server": 700}
		switch op {
		case "get":
			ns["read"], ns["release"] = 1600+0.09*s, 1200
		case "set":
			ns["write"], ns["commit"] = 1600+0.09*s, 1300
		}
	}
	out := map[string]results.OpPhase{}
	for name, v := range ns {
		out[name] = results.OpPhase{Count: 100, P50: int64(v), P90: int64(v * 1.2), P99: int64(v * 2), Max: int64(v * 3)}
	}
	return out
}

// withPhases is a synthetic run over sizes with thresholds that force
// rendezvous (0), split the sizes (4KiB) and force eager (2MiB), every
// cell's phases filled in by phaseModel.
func withPhases(t *testing.T) *results.Run {
	t.Helper()
	run, err := resultstest.Build("", resultstest.Spec{
		Ops: []string{"get", "set"}, Sizes: sizes, Thresholds: []int{0, 4096, 2 << 20},
		Samples: 200, Intervals: 1, Seed: 1, Model: resultstest.Default,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range run.Cells {
		run.Cells[i].Phases = phaseModel(c.Op, c.Protocol, c.ValueSize)
	}
	return run
}

func figureNames(figs []*Figure) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

func TestPhaseFigures(t *testing.T) {
	plain, _, err := Figures(testRun(t, ""), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	phased, _, err := Figures(withPhases(t), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range figureNames(plain) {
		if strings.HasPrefix(n, "phases-") {
			t.Errorf("run without phases drew %s", n)
		}
	}
	want := []string{
		"throughput-ops-get", "throughput-mib-get", "latency-get", "phases-get",
		"throughput-ops-set", "throughput-mib-set", "latency-set", "phases-set",
	}
	if got := figureNames(phased); !slices.Equal(got, want) {
		t.Errorf("figures %v, want %v", got, want)
	}
	if got, want := figureNames(plain), slices.DeleteFunc(want, func(n string) bool { return strings.HasPrefix(n, "phases-") }); !slices.Equal(got, want) {
		t.Errorf("figures without phases %v, want %v", got, want)
	}
}

// phaseSum adds up a bar's p50s the way a reader would.
func phaseSum(b PhaseBar) float64 {
	sum := 0.0
	for _, v := range b {
		sum += v
	}
	return sum
}

func TestPhaseBarsGeometry(t *testing.T) {
	run := withPhases(t)
	for _, op := range []string{"get", "set"} {
		ps := PhaseSizes(run, op)
		if len(ps) != len(sizes) {
			t.Fatalf("%s: %d sizes, want %d", op, len(ps), len(sizes))
		}
		f, err := PhaseBars(op, ps)
		if err != nil || f == nil {
			t.Fatalf("%s: %v, %v", op, f, err)
		}
		if f.Name != "phases-"+op || len(f.Panels) != 2 {
			t.Fatalf("%s: name %q, %d panels", op, f.Name, len(f.Panels))
		}
		abs, rel := f.Panels[0].Bars, f.Panels[1].Bars
		if len(abs) != 2*len(sizes) || len(rel) != len(abs) {
			t.Fatalf("%s: %d and %d bars, want %d", op, len(abs), len(rel), 2*len(sizes))
		}
		for i, b := range abs {
			s := ps[i/2]
			want := s.Eager
			if i%2 == 1 {
				want = s.Rendezvous
			}
			if b.Size != s.Size || b.Protocol != []string{"eager", "rendezvous"}[i%2] {
				t.Errorf("%s bar %d: %d %s", op, i, b.Size, b.Protocol)
			}
			// Segments are contiguous from 0, in PhaseNames order, and
			// add up to the bar's phase p50s.
			last := -1
			y := 0.0
			for _, seg := range b.Segments {
				k := slices.Index(results.PhaseNames, seg.Phase)
				if k <= last {
					t.Errorf("%s %s: %s out of PhaseNames order", op, barName(b), seg.Phase)
				}
				last = k
				if seg.Lo != y || seg.Hi-seg.Lo != want[seg.Phase] {
					t.Errorf("%s %s: %s spans %v..%v, want from %v for %v", op, barName(b), seg.Phase, seg.Lo, seg.Hi, y, want[seg.Phase])
				}
				y = seg.Hi
			}
			if len(b.Segments) != len(want) || math.Abs(y-phaseSum(want)) > 1e-9*y {
				t.Errorf("%s %s: %d segments to %v, want %d to %v", op, barName(b), len(b.Segments), y, len(want), phaseSum(want))
			}
		}
		// Per size the eager bar sits left of the rendezvous bar, neither
		// overlapping the other nor a neighbouring size's bars.
		for i := 0; i+1 < len(abs); i++ {
			a, b := abs[i], abs[i+1]
			if gap := (b.X - b.Width/2) - (a.X + a.Width/2); gap <= 0 {
				t.Errorf("%s: %s and %s overlap (gap %v)", op, barName(a), barName(b), gap)
			}
			if a.Size == b.Size && !(a.Protocol == "eager" && b.Protocol == "rendezvous") {
				t.Errorf("%s: at %d %s then %s", op, a.Size, a.Protocol, b.Protocol)
			}
		}
		// The gap between sizes is wider than within a pair.
		within := abs[1].X - abs[0].X
		between := abs[2].X - abs[1].X
		if between <= within {
			t.Errorf("%s: bars %v apart within a size, %v between sizes", op, within, between)
		}
		// The bottom panel scales each pair so its slower bar is 1, the
		// pair's ratio unchanged.
		for i := 0; i < len(rel); i += 2 {
			e, r := top(rel[i]), top(rel[i+1])
			if math.Abs(max(e, r)-1) > 1e-12 {
				t.Errorf("%s %d: scaled tops %v, %v", op, rel[i].Size, e, r)
			}
			if want := top(abs[i]) / top(abs[i+1]); math.Abs(e/r-want) > 1e-9*want {
				t.Errorf("%s %d: scaled ratio %v, want %v", op, rel[i].Size, e/r, want)
			}
			if rel[i].X != abs[i].X {
				t.Errorf("%s %d: panels place the bar at %v and %v", op, rel[i].Size, abs[i].X, rel[i].X)
			}
		}
		// The y axis holds the tallest bar.
		tallest := 0.0
		for _, b := range abs {
			tallest = max(tallest, top(b))
		}
		if y := f.Panels[0].Plot.Y; y.Min != 0 || y.Max < tallest {
			t.Errorf("%s: y axis %v..%v, tallest bar %v", op, y.Min, y.Max, tallest)
		}
		if _, ok := f.Panels[0].Plot.Y.Scale.(gplot.LinearScale); !ok {
			t.Errorf("%s: stacked bars need a linear y axis", op)
		}
	}
}

func top(b Bar) float64 { return b.Segments[len(b.Segments)-1].Hi }

func barName(b Bar) string { return sizeName(b.Size) + " " + b.Protocol }

func TestPhaseBarsLabels(t *testing.T) {
	f, err := PhaseBars("get", []PhaseSize{
		{Size: 65536, Rendezvous: PhaseBar{"client": 500, "network": 1500, "server": 700, "read": 7000, "release": 1200}},
		{Size: 64, Eager: PhaseBar{"queue": 100, "client": 400, "network": 1500, "server": 300}},
		{Size: 4096, Eager: PhaseBar{"client": 480, "network": 1900, "server": 600},
			Rendezvous: PhaseBar{"client": 500, "network": 1500, "server": 700, "read": 2000, "release": 1200}},
	})
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	// Sizes are sorted; a size with one protocol gets one bar, in its
	// protocol's place.
	var got []string
	for _, b := range f.Panels[0].Bars {
		got = append(got, barName(b))
	}
	if want := []string{"64B eager", "4KiB eager", "4KiB rendezvous", "64KiB rendezvous"}; !slices.Equal(got, want) {
		t.Errorf("bars %v, want %v", got, want)
	}
	bars := f.Panels[0].Bars
	if bars[0].X >= 0 || bars[3].X <= 2 {
		t.Errorf("lone bars at %v and %v: eager belongs left of its size, rendezvous right", bars[0].X, bars[3].X)
	}
	var labels []string
	for _, tk := range f.Panels[1].Plot.X.Tick.Marker.Ticks(f.Panels[1].Plot.X.Min, f.Panels[1].Plot.X.Max) {
		labels = append(labels, strings.TrimSpace(tk.Label))
	}
	if want := []string{"E", "E", "R", "R", "64B", "4KiB", "64KiB"}; !slices.Equal(labels, want) {
		t.Errorf("x labels %q, want %q", labels, want)
	}
	// The legend lists the phases present, top of the stack first.
	ps := []PhaseSize{{Size: 1, Eager: PhaseBar{"queue": 1, "client": 1, "network": 1, "server": 1}},
		{Size: 2, Rendezvous: PhaseBar{"client": 1, "read": 1, "release": 1, "write": 0}}}
	if legend, want := legendOrder(phaseOrder(ps, results.PhaseNames)), []string{"release", "read", "server", "network", "client", "queue"}; !slices.Equal(legend, want) {
		t.Errorf("legend %v, want %v", legend, want)
	}
	if !strings.Contains(f.Panels[0].Plot.Title.Text, "get") {
		t.Errorf("title %q", f.Panels[0].Plot.Title.Text)
	}
}

func TestPhaseBarsEmpty(t *testing.T) {
	for _, sizes := range [][]PhaseSize{
		nil,
		{{Size: 64}},
		{{Size: 64, Eager: PhaseBar{"client": 0}, Rendezvous: PhaseBar{"client": math.NaN(), "server": -1}}},
		{{Size: 64, Eager: PhaseBar{"client": math.Inf(1)}}},
	} {
		if f, err := PhaseBars("get", sizes); f != nil || err != nil {
			t.Errorf("%v: %v, %v; want no figure", sizes, f, err)
		}
	}
	if got := PhaseSizes(testRun(t, ""), "get"); len(got) != 0 {
		t.Errorf("run without phases: %v", got)
	}
}

func TestPhaseColors(t *testing.T) {
	phaseColors := phaseBars().Colors
	seen := map[color.Color]string{}
	for _, name := range results.PhaseNames {
		c, ok := phaseColors[name]
		if !ok {
			t.Errorf("%s has no colour", name)
		}
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s share a colour", name, other)
		}
		seen[c] = name
	}
	// A phase keeps its colour whatever else the figure holds.
	colorsOf := func(op string, ps []PhaseSize) map[string]color.Color {
		f, err := PhaseBars(op, ps)
		if err != nil || f == nil {
			t.Fatal(f, err)
		}
		out := map[string]color.Color{}
		for _, b := range f.Panels[0].Bars {
			for _, seg := range b.Segments {
				if c, ok := out[seg.Phase]; ok && c != seg.Color {
					t.Errorf("%s: %s drawn in %v and %v", op, seg.Phase, c, seg.Color)
				}
				out[seg.Phase] = seg.Color
			}
		}
		return out
	}
	get := colorsOf("get", []PhaseSize{{Size: 64, Rendezvous: PhaseBar{"client": 1, "read": 2, "release": 3}}})
	set := colorsOf("set", []PhaseSize{{Size: 64, Eager: PhaseBar{"queue": 4, "client": 1}, Rendezvous: PhaseBar{"write": 2, "commit": 3, "zzz": 1}}})
	if get["client"] != set["client"] || get["client"] != phaseColors["client"] {
		t.Errorf("client is %v in get, %v in set", get["client"], set["client"])
	}
	if _, ok := phaseColors["zzz"]; ok || set["zzz"] == nil {
		t.Errorf("unknown phase coloured %v", set["zzz"])
	}
}

func TestPhaseSizesLowestThreshold(t *testing.T) {
	ph := func(client int64) map[string]results.OpPhase {
		return map[string]results.OpPhase{"client": {Count: 1, P50: client}, "network": {Count: 1, P50: 1000}}
	}
	run := &results.Run{Cells: []results.Cell{
		{Op: "get", ValueSize: 4096, Threshold: 65536, Protocol: "eager", Phases: ph(3)},
		{Op: "get", ValueSize: 4096, Threshold: 8192, Protocol: "eager", Phases: ph(2)},
		{Op: "get", ValueSize: 4096, Threshold: 1 << 20, Protocol: "eager", Phases: ph(4)},
		{Op: "get", ValueSize: 4096, Threshold: 0, Protocol: "rendezvous", Phases: ph(5)},
		{Op: "get", ValueSize: 4096, Threshold: 4096, Protocol: "rendezvous", Phases: ph(6)},
		// Cells without phases, of another op or without a positive p50
		// do not count.
		{Op: "get", ValueSize: 64, Threshold: 0, Protocol: "rendezvous"},
		{Op: "get", ValueSize: 64, Threshold: 1, Protocol: "eager", Phases: map[string]results.OpPhase{"client": {}}},
		{Op: "set", ValueSize: 64, Threshold: 0, Protocol: "rendezvous", Phases: ph(7)},
		{Op: "get", ValueSize: 1 << 20, Threshold: 0, Protocol: "rendezvous", Phases: ph(8)},
	}}
	got := PhaseSizes(run, "get")
	if len(got) != 2 || got[0].Size != 4096 || got[1].Size != 1<<20 {
		t.Fatalf("sizes %+v", got)
	}
	if got[0].Eager["client"] != 2 || got[0].Rendezvous["client"] != 5 || got[0].Eager["network"] != 1000 {
		t.Errorf("4KiB: eager %v, rendezvous %v; want the threshold 8192 and 0 cells", got[0].Eager, got[0].Rendezvous)
	}
	if got[1].Eager != nil || got[1].Rendezvous["client"] != 8 {
		t.Errorf("1MiB: %+v, want rendezvous only", got[1])
	}
	f, err := PhaseBars("get", got)
	if err != nil || f == nil || len(f.Panels[0].Bars) != 3 {
		t.Errorf("PhaseBars: %v, %v", f, err)
	}
}
