package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results/resultstest"
	"github.com/kvbench/kvbench/internal/tune"
)

// runCLI executes kvbench with args and returns stdout.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	// A hang guard only: the tune end-to-end run takes over 30s under -race
	// on a loaded 2-core machine, so leave it ample room.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out bytes.Buffer
	root := NewRoot()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(new(bytes.Buffer))
	err := root.ExecuteContext(ctx)
	return out.String(), err
}

func synthRun(t *testing.T, seed uint64, scale map[string]float64) string {
	t.Helper()
	dir := t.TempDir()
	_, err := resultstest.Build(dir, resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096, 65536},
		Thresholds: []int{4096}, Samples: 4000, Intervals: 4, Seed: seed, Model: resultstest.Default, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportCommand(t *testing.T) {
	dir := synthRun(t, 1, nil)
	out, err := runCLI(t, "report", dir, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 7 || rows[0][0] != "op" {
		t.Errorf("csv: %v, %d rows", err, len(rows))
	}
	if _, err := runCLI(t, "report", dir, "--format", "xml"); err == nil || ExitCode(err) == 0 {
		t.Error("bad format accepted")
	}
	if _, err := runCLI(t, "report", filepath.Join(dir, "missing")); err == nil {
		t.Error("missing directory accepted")
	}
}

func TestPlotCommand(t *testing.T) {
	dir := synthRun(t, 1, nil)
	outDir := filepath.Join(t.TempDir(), "plots")
	out, err := runCLI(t, "plot", dir, "-o", outDir, "--format", "png", "--percentiles=false", "--timelines=false")
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(out)
	if len(files) != 6 { // 2 ops x (ops/s, MiB/s, latency)
		t.Fatalf("wrote %v", files)
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, err := image.DecodeConfig(fh)
		fh.Close()
		if err != nil || cfg.Width != 800 || cfg.Height != 500 {
			t.Errorf("%s: %v %dx%d", f, err, cfg.Width, cfg.Height)
		}
	}
}

func TestCompareCommandExitCodes(t *testing.T) {
	a := synthRun(t, 1, nil)
	// One run a side: only changes of 20% or more can be judged.
	b := synthRun(t, 2, map[string]float64{"get": 1.4})
	out, err := runCLI(t, "compare", a, b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "REGRESSED") != 3 {
		t.Errorf("want 3 regressed cells:\n%s", out)
	}
	_, err = runCLI(t, "compare", a, b, "--fail-on-regression", "10")
	if ExitCode(err) != 3 {
		t.Errorf("--fail-on-regression 10: %v (exit %d), want exit 3", err, ExitCode(err))
	}
	if _, err := runCLI(t, "compare", a, b, "--fail-on-regression", "50"); err != nil {
		t.Errorf("--fail-on-regression 50: %v", err)
	}
	c := synthRun(t, 3, map[string]float64{"get": 1.01})
	if _, err := runCLI(t, "compare", a, c, "--fail-on-regression", "0"); err != nil {
		t.Errorf("1%% wiggle failed the gate: %v", err)
	}
}

func TestTuneCommandEndToEnd(t *testing.T) {
	out := t.TempDir()
	stdout, err := runCLI(t, "tune", "testdata/tune-quick.yaml", "--repeats", "2", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	// tune.json, tune.txt, tune.html, and per op the curves and the
	// phases, png and svg
	if !strings.Contains(stdout, "| size range") || !strings.Contains(stdout, "saved 11 files") {
		t.Errorf("output:\n%s", stdout)
	}
	res := tuneResult(t, out, "tune-quick")
	checkTunePage(t, out)
	// tune.txt keeps the table printed.
	txts, _ := filepath.Glob(filepath.Join(out, "tune-tune-quick-*", tuneTextFile))
	if len(txts) != 1 {
		t.Fatalf("tune.txt: %v", txts)
	}
	if txt, err := os.ReadFile(txts[0]); err != nil || !strings.HasPrefix(stdout, string(txt)) {
		t.Errorf("%v: tune.txt is not the table printed:\n%s", err, txt)
	}
	if len(res.Loads) != 1 || len(res.Loads[0].Ops) != 2 {
		t.Fatalf("%d loads", len(res.Loads))
	}
	for _, o := range res.Loads[0].Ops {
		for _, p := range o.Points {
			if len(p.Eager) != 2 || len(p.Rendezvous) != 2 || p.EagerP50 <= 0 || p.RdvP50 <= 0 {
				t.Errorf("%s %d: %+v", o.Op, p.Size, p)
			}
			if p.EagerPhases["network"] <= 0 || p.RdvPhases["server"] <= 0 {
				t.Errorf("%s %d: tune recorded no phases by default: %v %v", o.Op, p.Size, p.EagerPhases, p.RdvPhases)
			}
			// The adaptive policy is measured at every size by default.
			if a := p.Adaptive; a == nil || len(a.Samples) != 2 || a.P50 <= 0 {
				t.Errorf("%s %d: adaptive %+v", o.Op, p.Size, a)
			}
		}
	}
	if !strings.Contains(stdout, "get: adaptive by p50") || !strings.Contains(stdout, "cost of exploring") {
		t.Errorf("no adaptive table:\n%s", stdout)
	}
	if _, err := runCLI(t, "tune", "testdata/tune-quick.yaml", "--repeats", "1", "-o", out); err == nil || !strings.Contains(err.Error(), "repeats 1") {
		t.Errorf("repeats 1: %v", err)
	}
	if _, err := runCLI(t, "tune", "testdata/tune-quick.yaml", "--ops", "delete", "-o", out); err == nil || !strings.Contains(err.Error(), "op delete: want get or set") {
		t.Errorf("ops delete: %v", err)
	}
}

// tuneResult reads the tune.json of the one tune of workload name under out.
func tuneResult(t *testing.T, out, name string) tune.Result {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "tune-"+name+"-*"))
	if len(dirs) != 1 {
		t.Fatalf("tune directories %v", dirs)
	}
	js, err := os.ReadFile(filepath.Join(dirs[0], tuneJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var res tune.Result
	if err := json.Unmarshal(js, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// checkTunePage wants the tune under out to have kept tune.html: a
// self-contained page of every section, linking the files beside it.
func checkTunePage(t *testing.T, out string) {
	t.Helper()
	pages, _ := filepath.Glob(filepath.Join(out, "tune-tune-quick-*", tuneHTMLFile))
	if len(pages) != 1 {
		t.Fatalf("tune.html: %v", pages)
	}
	page, err := os.ReadFile(pages[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Check(page); err != nil {
		t.Error(err)
	}
	inBrowser(t, pages[0], "map")
	for _, want := range []string{`<section id="ran">`, `<section id="answer">`, `<section id="loads">`, `<section id="map">`,
		`<section id="raw">`, `<a href="tune.json">`, `<a href="tune.txt">`, "over tcp, embedded server", "<svg"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("tune.html lacks %q", want)
		}
	}
}
