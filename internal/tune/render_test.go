package tune_test

// These tests read tune's results as kvbench tune shows and keeps them:
// the tables and tune.json that package report renders, and the figures
// that package plot draws. They are outside package tune because report
// and plot import it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

var get, set = []rdmakv.Op{rdmakv.OpGet}, []rdmakv.Op{rdmakv.OpSet}

// run is tune.Run that fails the test on an error.
func run(t *testing.T, cfg tune.Config, m tune.Measurer) *tune.Result {
	t.Helper()
	res, err := tune.Run(context.Background(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// table is res as tune.txt holds it.
func table(t *testing.T, res *tune.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Tune(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tuneJSON is res as tune.json holds it, and read back.
func tuneJSON(t *testing.T, res *tune.Result) (string, tune.Result) {
	t.Helper()
	var b bytes.Buffer
	if err := report.TuneJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	var back tune.Result
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("tune.json: %v", err)
	}
	return b.String(), back
}

// contains fails the test for each of want txt lacks.
func contains(t *testing.T, txt string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(txt, w) {
			t.Errorf("lacks %q:\n%s", w, txt)
		}
	}
}

// saved is res as tune.txt and tune.json hold it, each checked against
// its golden file, name.txt.golden and name.json.golden, and tune.json
// read back; and, when the tune keeps one, profile.json against
// name.profile.json.golden.
func saved(t *testing.T, res *tune.Result, name string) (string, tune.Result) {
	t.Helper()
	txt := table(t, res)
	golden.Assert(t, txt, name+".txt.golden")
	js, back := tuneJSON(t, res)
	golden.Assert(t, js, name+".json.golden")
	if p := profileJSON(t, res); p != "" {
		golden.Assert(t, p, name+".profile.json.golden")
	}
	return txt, back
}

// profileJSON is res as profile.json holds it ("" when it keeps none),
// checked to read back as the profile it came from.
func profileJSON(t *testing.T, res *tune.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.TuneProfile(&b, res, "golden"); err != nil {
		t.Fatal(err)
	}
	if b.Len() == 0 {
		return ""
	}
	p, err := rdmakv.ParseProfile(tune.ProfileFile, b.Bytes())
	if err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if want := res.Profile("golden"); !reflect.DeepEqual(p.Rules, want.Rules) || p.Default != want.Default {
		t.Errorf("profile.json reads back as %+v, want %+v", p, want)
	}
	return b.String()
}

func TestSaveGolden(t *testing.T) {
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(1024, 65536), Repeats: 5, KeySize: 16}, tune.NewLinear(9))
	_, back := saved(t, res, "tune")
	if back.Recommended != res.Recommended || len(back.Loads[0].Ops[0].Points) != 7 {
		t.Errorf("tune.json round trip: %+v", back.Recommended)
	}
	figs := plot.TuneFigures(res)
	if len(figs) != 1 || len(figs[0].Panels[0].Series) != 2 || figs[0].Panels[0].Markers[0] != 8192 {
		t.Errorf("figure model: %+v", figs[0].Panels[0])
	}
}

// limited is tune.LimitedRun with lines that cross near 43KiB: eager wins
// at every size it can be measured at, rendezvous would win only where
// eager is refused.
func limited(t *testing.T, seed uint64) *tune.Result {
	m := tune.NewLinear(seed)
	m.EagerPerByte, m.RdvPerByte = 0.1, 0.01
	return tune.LimitedRun(t, m)
}

func TestSaveGoldenLimited(t *testing.T) {
	// The server-limited case of TestLimitIsNotACrossover, as saved.
	res := limited(t, 1)
	_, back := saved(t, res, "tune-limited")
	if fmt.Sprint(back.Loads[0].Ops[0].EagerUnmeasured) != "[65536 131072 262144]" {
		t.Errorf("tune.json round trip: %v", back.Loads[0].Ops[0].EagerUnmeasured)
	}
}

// tableRow is the table line starting with the size range rng, its cells'
// padding squeezed to one space.
func tableRow(txt, rng string) string {
	for _, l := range strings.Split(txt, "\n") {
		if strings.HasPrefix(l, "| "+rng) {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}

// wantRow fails the test unless txt's row for the range rng (tableRow)
// is want.
func wantRow(t *testing.T, txt, rng, want string) {
	t.Helper()
	if row := tableRow(txt, rng); row != want {
		t.Errorf("%s row %q, want %q", rng, row, want)
	}
}

func TestLimitIsNotACrossover(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		res := limited(t, seed)
		o := res.Loads[0].Ops[0]
		if o.Found || o.Crossover != 0 || res.Recommended != 0 {
			t.Fatalf("seed %d: found=%v crossover=%d recommended=%d (outcome %d)", seed, o.Found, o.Crossover, res.Recommended, o.Outcome)
		}
		if fmt.Sprint(o.EagerUnmeasured) != "[65536 131072 262144]" {
			t.Errorf("eager unmeasured %v", o.EagerUnmeasured)
		}
		if !strings.Contains(o.EagerUnmeasuredReason, "at 64KiB: size 65536 above max eager") {
			t.Errorf("reason %q", o.EagerUnmeasuredReason)
		}
		txt := table(t, res)
		contains(t, txt,
			"no crossover was found among the sizes where both protocols were measured, so no threshold is recommended",
			"eager is faster at every size both protocols were measured at (64B to 32KiB)",
			"rendezvous did not win below the server's eager limit, and the crossover, if any, lies at or above 64KiB, where eager was not measured: unknown",
			"a limit set by the server, not a measured crossover",
			"get: eager not measured at 64KiB, 128KiB, 256KiB: the target refused eager there",
			"to measure eager from 64KiB on, raise the server's max eager",
		)
		if row := tableRow(txt, "[64KiB, 128KiB)"); !strings.Contains(row, "| eager n/a |") || !strings.Contains(row, "| n/a |") {
			t.Errorf("64KiB row %q", row)
		}
		if row := tableRow(txt, "[32KiB, 64KiB)"); !strings.Contains(row, "| eager ") {
			t.Errorf("32KiB row %q", row)
		}
		for _, bad := range []string{"recommended eager threshold", "rendezvous is faster from", "extend values.range.max"} {
			if strings.Contains(txt, bad) {
				t.Errorf("seed %d: table says %q:\n%s", seed, bad, txt)
			}
		}
		if _, back := tuneJSON(t, res); fmt.Sprint(back.Loads[0].Ops[0].EagerUnmeasured) != "[65536 131072 262144]" {
			t.Errorf("tune.json lacks eager_unmeasured: %v", back.Loads[0].Ops[0].EagerUnmeasured)
		}
		// The chart marks neither a crossover nor a threshold, and the
		// eager curve stops at 32KiB.
		figs := plot.TuneFigures(res)
		if len(figs) != 1 || len(figs[0].Panels[0].Markers) != 0 {
			t.Errorf("figure markers %v", figs[0].Panels[0].Markers)
		}
	}
}

func TestLimitedRunWithMeasuredCrossover(t *testing.T) {
	// The lines cross near 4KiB, far below the limit: that crossover is
	// recommended, and the sizes above the limit are still reported.
	res := tune.LimitedRun(t, tune.NewLinear(11))
	o := res.Loads[0].Ops[0]
	if !o.Found || o.Crossover != 8192 || o.Threshold != 8192 || res.Recommended != 8192 {
		t.Fatalf("found=%v crossover=%d threshold=%d recommended=%d (outcome %d)", o.Found, o.Crossover, o.Threshold, res.Recommended, o.Outcome)
	}
	if fmt.Sprint(o.EagerUnmeasured) != "[65536 131072 262144]" {
		t.Errorf("eager unmeasured %v", o.EagerUnmeasured)
	}
	txt := table(t, res)
	contains(t, txt,
		"recommended eager threshold: 8KiB (8192 bytes), the smallest per-op crossover (get, rendezvous faster from 8KiB)",
		"get: eager not measured at 64KiB, 128KiB, 256KiB: the target refused eager there",
	)
	if row := tableRow(txt, "[64KiB, 128KiB)"); !strings.Contains(row, "| rendezvous (eager n/a) |") || !strings.Contains(row, "| n/a |") {
		t.Errorf("64KiB row %q", row)
	}
	if figs := plot.TuneFigures(res); len(figs[0].Panels[0].Markers) != 1 || figs[0].Panels[0].Markers[0] != 8192 {
		t.Errorf("figure markers %v", figs[0].Panels[0].Markers)
	}
}

func TestEmbeddedEagerEverywhere(t *testing.T) {
	// Embedded-like: eager measured at every size, so nothing is reported
	// unmeasured and the measured crossover is recommended as before.
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 1<<20), Repeats: 5, KeySize: 16}, tune.NewLinear(12))
	o := res.Loads[0].Ops[0]
	if !o.Found || o.Crossover != 8192 || res.Recommended != 8192 || len(o.EagerUnmeasured) != 0 {
		t.Errorf("found=%v crossover=%d recommended=%d unmeasured=%v", o.Found, o.Crossover, res.Recommended, o.EagerUnmeasured)
	}
	if txt := table(t, res); strings.Contains(txt, "n/a") || strings.Contains(txt, "not measured") {
		t.Errorf("table reports unmeasured sizes:\n%s", txt)
	}
	if js, _ := tuneJSON(t, res); strings.Contains(js, "eager_unmeasured") {
		t.Errorf("tune.json: %s", js)
	}
}

// Each outcome is told with what to measure next.
func TestVerdictsSuggest(t *testing.T) {
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 1024), Repeats: 5}, tune.NewLinear(3))
	contains(t, table(t, res), "no crossover was found", "extend values.range.max beyond 1KiB")
	res = run(t, tune.Config{Ops: set, Sizes: tune.Pow2(65536, 1<<20), Repeats: 5}, tune.NewLinear(4))
	contains(t, table(t, res), "extend values.range.min below 64KiB")
	res = run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 1<<20), Repeats: 3}, tune.NewLinear(2))
	contains(t, table(t, res), "use --repeats 5 or more")

	s := []tune.Sample{{P50: 1}}
	pt := func(size int, winner tune.Winner) tune.Point {
		return tune.Point{Size: size, Eager: s, Rendezvous: s, Winner: winner}
	}
	analysed := func(pts ...tune.Point) string {
		return table(t, &tune.Result{Loads: []tune.LoadResult{{Ops: []tune.OpResult{tune.Analyze(rdmakv.OpGet, pts, 0)}}}})
	}
	contains(t, analysed(pt(1024, tune.WinEager), pt(2048, tune.WinTie), pt(4096, tune.WinRendezvous)),
		"rendezvous is faster only at the largest size measured, 4KiB", "extend values.range.max beyond 4KiB")
	unmeasured := tune.Point{Size: 8192, Rendezvous: s, Winner: tune.WinUnmeasured}
	contains(t, analysed(pt(1024, tune.WinEager), pt(2048, tune.WinTie), pt(4096, tune.WinRendezvous), unmeasured),
		"at or above 8KiB, where eager was not measured: unknown", "raise the server's max eager")
	contains(t, analysed(tune.Point{Size: 64, Rendezvous: s}, tune.Point{Size: 128, Rendezvous: s}),
		"eager could not be measured at any size (64B to 128B)")
}

func TestSmallestCrossoverExplained(t *testing.T) {
	setM, getM := tune.NewLinear(7), tune.NewLinear(8)
	getM.RdvBase = 20000 // get crosses near 20KiB: 32KiB measured
	res := run(t, tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: tune.Pow2(64, 1<<20), Repeats: 5}, tune.ByOp(getM, setM))
	contains(t, table(t, res), "smallest per-op crossover (set", "get alone would use 32KiB",
		"between 8KiB and 32KiB it pays up to")
}

func TestDeciderExplained(t *testing.T) {
	m := tune.NewLinear(3)
	m.Phases = true
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(1024, 65536), Repeats: 5, KeySize: 16}, m)
	contains(t, table(t, res), "get: the network phase decides the crossover: from 4KiB to 8KiB")
	js, _ := tuneJSON(t, res)
	contains(t, js, `"decider": "get: the network phase decides the crossover: from 4KiB to 8KiB`)
	o := res.Loads[0].Ops[0]
	figs := plot.TuneFigures(res)
	if len(figs) != 2 || figs[1].Name != "tune-phases-get" || len(figs[1].Panels[0].Bars) != 2*len(o.Points) {
		t.Errorf("figures: %d, want the curves and tune-phases-get with a pair of bars per size", len(figs))
	}
}

func TestMapTables(t *testing.T) {
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 65536), Repeats: 5, KeySize: 16, Loads: tune.C1C16}, tune.NewLoadModel(1))
	contains(t, table(t, res),
		"the loads disagree: 8KiB at 1 connection, 512B from 16 connections",
		"== at 16 connections ==",
		"get: winner by p50 at each load",
		"| threshold | 8KiB         | 512B           |",
	)
	m := tune.NewLoadModel(2)
	m.Contention = 0 // load changes nothing
	loads := []tune.Load{{Connections: 1, Depth: 1}, {Connections: 4, Depth: 8}}
	res = run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 65536), Repeats: 5, Loads: loads}, m)
	contains(t, table(t, res), "every load agrees: eager threshold 8KiB")
	names := map[string]bool{}
	for _, f := range plot.TuneFigures(res) {
		names[f.Name] = true
	}
	for _, want := range []string{"tune-get-c1", "tune-get-c4d8", "tune-map-get"} {
		if !names[want] {
			t.Errorf("figures %v lack %s", names, want)
		}
	}
}

func TestCapacityTable(t *testing.T) {
	m := tune.NewLoadModel(3)
	m.Sigma = 0
	slo := &tune.SLO{Percentile: 99, Goal: 200e3}
	loads := []tune.Load{{Connections: 1, Depth: 1}, {Connections: 4, Depth: 1}}
	res := run(t, tune.Config{Ops: get, Sizes: []int{512, 2048, 8192}, Repeats: 1, SLO: slo, Loads: loads, Measure: 1}, m)
	contains(t, table(t, res), "eager capacity", "capacity: the highest open-loop rate whose p99 <= 200µs", "more than 10% higher")
}

func TestObjectiveVerdicts(t *testing.T) {
	m := tune.NewLoadModel(6)
	m.Scope, m.CPUPerByte, m.CPUGrant = "client", 2, 3000 // server CPU: eager dearer from 1.5KiB
	res := run(t, tune.Config{Ops: set, Sizes: tune.Pow2(64, 65536), Repeats: 5, Objective: tune.ObjCPU}, m)
	contains(t, table(t, res), "rendezvous is cheaper from 2KiB on (server CPU 3µs vs eager 4.1µs")
	m.Scope = "process"
	res = run(t, tune.Config{Ops: set, Sizes: []int{64, 128}, Repeats: 2, Objective: tune.ObjCPU}, m)
	contains(t, table(t, res), "CPU per op is the whole process's")
	res = run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 65536), Repeats: 5, Objective: tune.ObjThroughput}, tune.NewLoadModel(7))
	contains(t, table(t, res), "rendezvous is ahead from 8KiB on (throughput")
}

func TestPairFlagsListed(t *testing.T) {
	m := tune.NewLoadModel(8)
	warn := tune.MeasurerFunc(func(ctx context.Context, r tune.Request) (tune.Sample, error) {
		s, err := m.Measure(ctx, r)
		if r.Protocol == tune.Eager && r.Size == 64 {
			s.Warnings = []results.Warning{{Kind: "bimodal", Message: "two modes"}}
		}
		return s, err
	})
	res := run(t, tune.Config{Ops: get, Sizes: []int{64, 128}, Repeats: 4}, warn)
	contains(t, table(t, res), "! get 64B: eager warns bimodal in 4 of 4 measurements, the other protocol in none")
	js, _ := tuneJSON(t, res)
	contains(t, js, `"flags": [`+"\n"+`                "eager warns bimodal in 4 of 4 measurements, the other protocol in none"`)
}

// savedDistribution is saved for a tune on a distribution, whose table
// must have row for the candidate rng, and say each of phrases.
func savedDistribution(t *testing.T, res *tune.Result, name, rng, row string, phrases ...string) (string, tune.Result) {
	t.Helper()
	txt, back := saved(t, res, name)
	wantRow(t, txt, rng, row)
	contains(t, txt, phrases...)
	return txt, back
}

// A tune on a distribution as saved: the candidates' table with their
// memory, the one ruled out by --max-memory, the choice and what single
// sizes predicted; tune.json holds the candidates at the load.
func TestSaveGoldenDistribution(t *testing.T) {
	res := tune.DistRun(t)
	_, back := savedDistribution(t, res, "tune-distribution",
		"256KiB", "| 256KiB | 64MiB + 16MiB | ruled out | - | - | - | above --max-memory 32MiB |",
		"single sizes, measured one by one to predict the threshold:",
		"chosen eager threshold: 64KiB (65536 bytes), significantly better by p50 than every other candidate measured",
		"single sizes predict threshold 8KiB; the whole workload chooses 64KiB: the workload's p50 at 8KiB is 6µs against 4µs at 64KiB (worse)",
		"| adaptive (not a candidate) | 16MiB + 4MiB   |     4.1µs | 8.2µs |  244k |      - | no significant difference, won 1 of 4, p=0.313 |",
		"adaptive: p50 4.1µs against 4µs at the chosen 64KiB (1.02x, won 1 of 4 rounds, p=0.313: no significant difference)")
	w := back.Loads[0].Workload
	if w == nil || w.Chosen != 65536 || len(w.Candidates) != 4 || w.Candidate(262144).Status != tune.RuledOut || w.Candidate(8192).ServerMemory != 2<<20 {
		t.Errorf("tune.json round trip: %+v", w)
	}
	if a := w.Adaptive; a == nil || len(a.Samples) != 5 || a.P50 != 4100 || a.VsChosen == nil || a.VsChosen.Threshold != 65536 || a.VsChosen.Losses != 3 || a.VsDefault != nil {
		t.Errorf("tune.json adaptive: %+v", a)
	}
	if back.Config.Workload == nil || back.Config.Workload.Distribution != "etc, max: 64KiB" {
		t.Errorf("tune.json config.workload: %+v", back.Config.Workload)
	}
	// The candidates' chart, the three measured, the chosen and the
	// predicted thresholds marked, then the single sizes' curves.
	figs := plot.TuneFigures(res)
	if len(figs) != 2 || figs[0].Name != "tune-workload" || fmt.Sprint(figs[0].Panels[0].Markers) != "[65536 8192]" {
		t.Fatalf("figures: %d, first %s markers %v", len(figs), figs[0].Name, figs[0].Panels[0].Markers)
	}
	// The adaptive policy is level across the candidates measured.
	if s := figs[0].Panels[0].Series; len(s) != 2 || s[1].Name != "adaptive (not a candidate)" || fmt.Sprint(s[1].Points) != "[{1024 4100} {65536 4100}]" {
		t.Errorf("series %+v", s)
	}
}

// Candidates the sign test cannot tell from the best median are said to
// be tied with it, and the choice among them is said to be by memory.
func TestDistributionTieWording(t *testing.T) {
	txt := table(t, tune.TiedRun(t))
	contains(t, txt,
		"chosen eager threshold: 1KiB (1024 bytes): no significant difference from the best median, 16KiB (p50 1µs against 990ns, won 3 of 5 rounds, p=0.500), and it needs less receive memory (1.25MiB against 5MiB)")
	if row := tableRow(txt, "4KiB"); !strings.HasSuffix(row, "| no significant difference, won 2 of 5, p=0.500 |") {
		t.Errorf("4KiB row %q", row)
	}
	if row := tableRow(txt, "256B"); !strings.HasSuffix(row, "| worse, won 0 of 5, p=0.031 |") {
		t.Errorf("256B row %q", row)
	}
	// The adaptive policy against the chosen 1KiB and the default 4KiB.
	contains(t, txt,
		"adaptive: p50 1.02µs against 1µs at the chosen 1KiB (1.02x, won 2 of 5 rounds, p=0.500: no significant difference)",
		"adaptive: p50 1.02µs against 1.04µs at the default 4KiB (0.98x, won 3 of 5 rounds, p=0.500: no significant difference)")
}

// A tune on a distribution under a latency goal as saved: the
// candidates' capacities in place of their medians, the one that met the
// goal at no rate, the tie within the margin settled by memory; tune.json
// keeps each candidate's capacity and its search; the chart draws the
// capacities against the threshold.
func TestSaveGoldenDistributionSLO(t *testing.T) {
	res := tune.SLODistRun(t)
	txt, back := savedDistribution(t, res, "tune-distribution-slo",
		"256B", "| 256B | 1MiB + 256KiB | none, goal unmet | cannot be chosen |",
		"workload (etc, max: 64KiB): eager threshold 4KiB chosen by capacity at p99 <= 100µs over all ops",
		"chosen eager threshold: 4KiB (4096 bytes): within 10% of the best median, 1KiB",
		"1 candidate met p99 <= 100µs at no rate searched and cannot be chosen: 256B",
		"adaptive: capacity 79.7k ops/s against 61.8k ops/s at the chosen 4KiB, the default (1.29x: better)")
	for _, medians := range []string{"p50", "cpu/op"} {
		if strings.Contains(txt, "| "+medians) {
			t.Errorf("the table shows %s under a latency goal:\n%s", medians, txt)
		}
	}
	w := back.Loads[0].Workload
	if c := w.Candidate(1024); w.Chosen != 4096 || w.Best != 1024 || c.Capacity <= 0 || len(c.Samples[0].Search) < 3 {
		t.Errorf("tune.json round trip: chosen %d best %d, 1KiB capacity %g with %d steps", w.Chosen, w.Best, c.Capacity, len(c.Samples[0].Search))
	}
	figs := plot.TuneFigures(res)
	p := figs[0].Panels[0]
	if figs[0].Name != "tune-workload" || fmt.Sprint(p.Markers) != "[4096]" || !strings.HasPrefix(p.Plot.Y.Label.Text, "capacity at p99 <= 100µs") {
		t.Fatalf("figure %s, markers %v, y %q", figs[0].Name, p.Markers, p.Plot.Y.Label.Text)
	}
	var drawn []string
	for _, pt := range p.Series[0].Points {
		drawn = append(drawn, fmt.Sprintf("%.0f:%.0f", pt.X, pt.Y))
	}
	want := fmt.Sprintf("1024:%.0f 4096:%.0f", w.Candidate(1024).Capacity, w.Candidate(4096).Capacity)
	if got := strings.Join(drawn, " "); got != want {
		t.Errorf("capacities drawn %s, want %s", got, want)
	}
	a := w.Adaptive
	if a == nil || a.Capacity <= 0 || len(a.Samples[0].Search) < 3 || a.VsChosen.Threshold != 4096 || a.VsDefault.Threshold != 4096 {
		t.Errorf("tune.json adaptive: %+v", a)
	} else if s := p.Series[1]; fmt.Sprint(s.Points) != fmt.Sprintf("[{1024 %g} {4096 %g}]", a.Capacity, a.Capacity) {
		t.Errorf("adaptive drawn %v, capacity %g", s.Points, a.Capacity)
	}
}

// When no candidate meets the goal, tune says so and chooses none.
func TestDistributionSLOUnmetWording(t *testing.T) {
	res := tune.SLODistRun(t)
	w := res.Loads[0].Workload
	for i := range w.Candidates {
		if c := &w.Candidates[i]; c.Status == tune.Measured {
			c.Capacity, c.Value, c.Versus = 0, 0, ""
		}
	}
	w.Unmet, w.Best, w.Chosen, res.Loads[0].Recommended, res.Recommended = true, 0, 0, 0, 0
	w.Adaptive.VsChosen, w.Adaptive.VsDefault = nil, nil
	txt := table(t, res)
	contains(t, txt,
		"workload (etc, max: 64KiB): no eager threshold chosen by capacity at p99 <= 100µs over all ops",
		"no candidate threshold meets p99 <= 100µs over all ops at any rate searched, so none is chosen at 1 connection",
		"adaptive: capacity 79.7k ops/s; no candidate was chosen to compare it with")
	if row := tableRow(txt, "adaptive (not a candidate)"); !strings.HasSuffix(row, "| 79.7k ops/s | - |") {
		t.Errorf("adaptive row %q", row)
	}
	if row := tableRow(txt, "1KiB"); !strings.HasSuffix(row, "| none, goal unmet | - |") {
		t.Errorf("1KiB row %q", row)
	}
	if strings.Contains(txt, "chosen eager threshold") || strings.Contains(txt, "values of up to") {
		t.Errorf("a threshold chosen though none met the goal:\n%s", txt)
	}
}

// The adaptive legend says what the workload set of the policy and the
// receive memory of the largest threshold it may then choose.
func TestAdaptiveLegendSettings(t *testing.T) {
	res := tune.DistRun(t)
	res.Config.Workload.AdaptiveSettings = "adaptive: {explore: 0.05, max_threshold: 16KiB}"
	res.Config.Workload.AdaptiveMaxThreshold = 16 << 10
	var b strings.Builder
	if err := report.Tune(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "adaptive: rdmakv.WithAdaptiveThreshold with the workload's adaptive: {explore: 0.05, max_threshold: 16KiB}, once a round"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "largest threshold it may choose, 16KiB.") {
		t.Errorf("legend not saying the settings:\n%s", b.String())
	}
}
