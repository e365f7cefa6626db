package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// checkReceiveMemory wants every cell to carry what verbs registers to
// receive at its threshold (over tcp too), the server's growing with the
// threshold; a build without verbs records none.
func checkReceiveMemory(t *testing.T, cells []results.Cell) {
	t.Helper()
	if _, _, err := rdmakvstore.ReceiveMemory(1024, 16, 1, 1); err != nil {
		for _, c := range cells {
			if c.ReceiveMemory != nil {
				t.Errorf("%s: receive memory %+v in a build without verbs", c.Name(), c.ReceiveMemory)
			}
		}
		return
	}
	server := map[int]int64{}
	for _, c := range cells {
		m := c.ReceiveMemory
		if m == nil || m.Server <= 0 || m.Client <= 0 {
			t.Errorf("%s: receive memory %+v", c.Name(), m)
			continue
		}
		if s, ok := server[c.Threshold]; ok && s != m.Server {
			t.Errorf("%s: server's receive memory %d, another cell of its threshold %d", c.Name(), m.Server, s)
		}
		server[c.Threshold] = m.Server
	}
	ths := slices.Sorted(maps.Keys(server))
	for i := 1; i < len(ths); i++ {
		if server[ths[i]] <= server[ths[i-1]] {
			t.Errorf("server's receive memory %d at threshold %d, not above %d at %d", server[ths[i]], ths[i], server[ths[i-1]], ths[i-1])
		}
	}
}

// The shipped mixed-sweep runs, verified, over the embedded server on
// TCP: no bad value, one cell per threshold named by the mix, and at a
// middle threshold both protocols for gets and sets. report and the
// summary say which distribution the sizes came from.
func TestRunMixedSweep(t *testing.T) {
	const file = "../../workloads/mixed-sweep.yaml"
	w, err := workload.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stdout, stderr, err := runCLIErr(t, "run", file, "--transport", "tcp", "--warmup", "0", "--duration", "200ms", "-o", out, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dir := strings.TrimSpace(stdout)
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Transport.Embedded || r.EndReason != results.EndCompleted || r.Verify.Checked == 0 ||
		r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Fatalf("run: transport %+v end %q verify %+v", r.Transport, r.EndReason, r.Verify)
	}
	spec, mean := w.Values.Distribution.Spec, int(w.Values.Distribution.MeanSize())
	ths := w.SortedThresholds()
	middle := int(ths[len(ths)/2])
	seen := map[string]bool{}
	for _, c := range r.Cells {
		if c.Distribution != spec || c.ValueSize != mean || c.Failures() != 0 {
			t.Errorf("%s: distribution %q size %d failures %d; want %q at %d, none failed", c.Name(), c.Distribution, c.ValueSize, c.Failures(), spec, mean)
		}
		if c.Threshold == middle && c.Count > 0 {
			seen[c.Op+"/"+c.Protocol] = true
		}
	}
	for _, want := range []string{"get/eager", "get/rendezvous", "set/eager", "set/rendezvous"} {
		if !seen[want] {
			t.Errorf("threshold %d: no %s cell; have %v", middle, want, seen)
		}
	}
	checkReceiveMemory(t, r.Cells)
	sum, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil || !strings.Contains(string(sum), "values: "+spec) || !strings.Contains(string(sum), "\n"+results.Whole+": ") {
		t.Errorf("summary.txt does not name the distribution: %v\n%s", err, sum)
	}
	rep, err := runCLI(t, "report", dir)
	if err != nil || !regexp.MustCompile(`\nvalues: +`+regexp.QuoteMeta(spec)).MatchString(rep) {
		t.Errorf("report does not name the distribution: %v\n%s", err, rep)
	}
}

// tune on a distribution measures the whole workload at each of its
// thresholds over the embedded server, and the adaptive policy beside
// them, and saves the candidates, with their receive memory, the choice
// and the policy's comparison with it in tune.json; --max-memory rules
// out the larger one (where the build can say what it needs), and
// --adaptive=false leaves the policy out.
func TestTuneDistribution(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, err := runCLIErr(t, "tune", "testdata/tune-dist.yaml", "--repeats", "2", "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	res := tuneResult(t, out, "tune-dist")
	checkAdaptive(t, res, stdout)
	w := res.Loads[0].Workload
	if res.Config.Workload == nil || res.Config.Workload.Distribution != "weighted: {256B: 50, 8KiB: 50}" || w == nil || len(w.Candidates) != 2 {
		t.Fatalf("tune.json: config.workload %+v, workload %+v", res.Config.Workload, w)
	}
	for _, c := range w.Candidates {
		if c.Status != tune.Measured || len(c.Samples) != 2 || c.P50 <= 0 || c.OpsPerSec <= 0 {
			t.Errorf("candidate %d: %s, %d samples, p50 %g, %g ops/s", c.Threshold, c.Status, len(c.Samples), c.P50, c.OpsPerSec)
		}
	}
	if w.Candidate(w.Chosen) == nil || res.Recommended != w.Chosen {
		t.Errorf("chose %d, recommended %d", w.Chosen, res.Recommended)
	}
	checkTuneProfile(t, out, "tune-dist", w.Chosen)
	small, large := w.Candidates[0], w.Candidates[1]
	out = t.TempDir()
	_, stderr, err = runCLIErr(t, "tune", "testdata/tune-dist.yaml", "--repeats", "2", "--max-memory", fmt.Sprint(small.Memory()), "--adaptive=false", "-o", out)
	if !small.MemoryKnown {
		if err == nil || !strings.Contains(err.Error(), "--max-memory") {
			t.Errorf("--max-memory with the memory unknown: %v\n%s", err, stderr)
		}
		return
	}
	if err != nil {
		t.Fatalf("--max-memory: %v\n%s", err, stderr)
	}
	if large.Memory() <= small.Memory() {
		t.Errorf("16KiB needs %d bytes, no more than 1KiB's %d", large.Memory(), small.Memory())
	}
	if a := w.Adaptive; a.Memory() < large.Memory() {
		t.Errorf("the adaptive policy needs %d bytes, less than 16KiB's %d", a.Memory(), large.Memory())
	}
	w = tuneResult(t, out, "tune-dist").Loads[0].Workload
	if c := w.Candidates[1]; c.Status != tune.RuledOut || len(c.Samples) != 0 || w.Chosen != small.Threshold {
		t.Errorf("--max-memory %d: 16KiB %s with %d samples, chose %d", small.Memory(), c.Status, len(c.Samples), w.Chosen)
	}
	if w.Adaptive != nil {
		t.Errorf("--adaptive=false: adaptive %+v", w.Adaptive)
	}
}

// checkAdaptive wants res's tune.json, and its tune.txt (stdout), to hold
// the adaptive policy measured each round beside the candidates and
// compared with the chosen one.
func checkAdaptive(t *testing.T, res tune.Result, stdout string) {
	t.Helper()
	w := res.Loads[0].Workload
	a := w.Adaptive
	if !res.Config.Workload.Adaptive || a == nil || a.Threshold != tune.AdaptiveThreshold || a.Status != tune.Measured || len(a.Samples) != 2 || a.P50 <= 0 {
		t.Fatalf("tune.json: adaptive %+v", a)
	}
	if v := a.VsChosen; v == nil || v.Threshold != w.Chosen || v.Ratio <= 0 || v.Wins+v.Losses > 2 || v.Versus == "" {
		t.Errorf("tune.json: adaptive vs chosen %+v, chosen %d", v, w.Chosen)
	}
	if w.Candidate(tune.AdaptiveThreshold) != nil || a.MemoryKnown != w.Candidates[0].MemoryKnown {
		t.Errorf("tune.json: the policy among the candidates, or its memory known %v unlike theirs", a.MemoryKnown)
	}
	if !strings.Contains(stdout, "| adaptive (not a candidate) |") || !regexp.MustCompile(`\nadaptive: p50 \S+ against \S+ at the chosen `).MatchString(stdout) {
		t.Errorf("tune.txt lacks the adaptive policy:\n%s", stdout)
	}
}

// tune on a distribution under a latency goal searches each candidate's
// capacity on the whole workload over the embedded server and keeps the
// capacities, their searches and the choice; with a goal no candidate
// can meet, it says so and chooses none.
func TestTuneDistributionSLO(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, err := runCLIErr(t, "tune", "testdata/tune-dist.yaml", "--slo", "p50=1s", "--warmup", "0", "--duration", "20ms", "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	res := tuneResult(t, out, "tune-dist")
	w := res.Loads[0].Workload
	if res.Objective != tune.ObjCapacity || w == nil || len(w.Candidates) != 2 || w.Unmet || res.Recommended != w.Chosen {
		t.Fatalf("tune.json: objective %s, workload %+v, recommended %d", res.Objective, w, res.Recommended)
	}
	best := 0.0
	for _, c := range w.Candidates {
		if c.Status != tune.Measured || len(c.Samples) != 1 || c.Capacity <= 0 || len(c.Samples[0].Search) < 2 || c.Samples[0].Search[1].Rate <= 0 {
			t.Fatalf("candidate %d: %s, %d searches, capacity %g, steps %+v", c.Threshold, c.Status, len(c.Samples), c.Capacity, c.Samples)
		}
		best = max(best, c.Capacity)
	}
	if c := w.Candidate(w.Chosen); c.Capacity*(1+tune.SLOMargin) < best {
		t.Errorf("chose %d at %g ops/s, not within the margin of the best, %g", w.Chosen, c.Capacity, best)
	}
	if !regexp.MustCompile(`\| +capacity \| +vs chosen \|`).MatchString(stdout) || !strings.Contains(stdout, "chosen by capacity at p50 <= 1s over all ops") {
		t.Errorf("tune.txt lacks the capacities:\n%s", stdout)
	}
	if pngs, _ := filepath.Glob(filepath.Join(out, "tune-tune-dist-*", "tune-workload.png")); len(pngs) != 1 {
		t.Errorf("no tune-workload.png: %v", pngs)
	}
	out = t.TempDir()
	stdout, stderr, err = runCLIErr(t, "tune", "testdata/tune-dist.yaml", "--slo", "p50=1ns", "--warmup", "0", "--duration", "20ms", "-o", out)
	if err != nil {
		t.Fatalf("a goal none meets: %v\n%s", err, stderr)
	}
	if w := tuneResult(t, out, "tune-dist").Loads[0].Workload; !w.Unmet || !strings.Contains(stdout, "no candidate threshold meets p50 <= 1ns") {
		t.Errorf("a goal none meets: unmet %v\n%s", w.Unmet, stdout)
	}
}

// Bad --max-memory and --predict are refused before anything is measured.
func TestTuneDistributionRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"testdata/tune-dist.yaml", "--max-memory", "lots"}, `--max-memory lots: invalid size "lots"`},
		{[]string{"testdata/tune-dist.yaml", "--max-memory", "0"}, "--max-memory 0: want a positive size"},
		{[]string{"testdata/tune-quick.yaml", "--predict"}, "this workload has fixed sizes"},
	} {
		_, stderr, err := runCLIErr(t, append([]string{"tune", "-o", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tune %v: %v, want %q\n%s", c.args, err, c.want, stderr)
		}
	}
}

// The shipped etc runs, verified, over the embedded server on TCP with
// keys of drawn sizes: the server takes the longest key, verify finds no
// bad value, and results.json records the keys' law beside their longest
// size.
func TestRunETCKeySizes(t *testing.T) {
	const file = "../../workloads/etc.yaml"
	out := t.TempDir()
	stdout, stderr, err := runCLIErr(t, "run", file, "--transport", "tcp", "--verify", "--connections", "2", "--depth", "2",
		"--warmup", "0", "--duration", "200ms", "-o", out, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	r, err := results.Load(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Transport.Embedded || r.EndReason != results.EndCompleted || r.Verify.Checked == 0 ||
		r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Fatalf("run: transport %+v end %q verify %+v", r.Transport, r.EndReason, r.Verify)
	}
	wl, _ := r.Workload.(map[string]any)
	keys, _ := wl["keys"].(map[string]any)
	if keys["size"] != 250.0 || keys["size_distribution"] != "etc, max: 250B" {
		t.Errorf("results.json keys %v: want size 250 and size_distribution \"etc, max: 250B\"", keys)
	}
}

// checkTuneProfile wants the profile.json of the one tune of workload
// name under out to give gets and sets threshold at any load, and
// tune.txt to say how to apply it.
func checkTuneProfile(t *testing.T, out, name string, threshold int) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "tune-"+name+"-*"))
	if len(dirs) != 1 {
		t.Fatalf("tune directories %v", dirs)
	}
	p, err := rdmakv.LoadProfile(filepath.Join(dirs[0], tune.ProfileFile))
	if err != nil {
		t.Fatal(err)
	}
	if get, set := p.Thresholds(1); get != threshold || set != threshold || !strings.HasPrefix(p.Source, "kvbench tune "+name+", by p50, kvbench ") {
		t.Errorf("profile %+v: want get and set at %d", p, threshold)
	}
	txt, err := os.ReadFile(filepath.Join(dirs[0], tuneTextFile))
	if err != nil || !strings.Contains(string(txt), "KVBENCH_PROFILE=FILE") {
		t.Errorf("%v: tune.txt does not say how to apply the profile:\n%s", err, txt)
	}
}
