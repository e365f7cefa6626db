package report

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// sweep builds, in a directory of its own, a run of ops at sizes and
// thresholds whose protocols cross near 4KiB (resultstest.Default).
func sweep(t testing.TB, ops []string, sizes, thresholds []int) (*results.Run, string) {
	t.Helper()
	dir := t.TempDir()
	run, err := resultstest.Build(dir, resultstest.Spec{Ops: ops, Sizes: sizes, Thresholds: thresholds,
		Samples: 2000, Intervals: 4, Seed: 7, Model: resultstest.Default})
	if err != nil {
		t.Fatal(err)
	}
	return run, dir
}

// textOf is formats but html, whose pages the structure goldens pin
// instead: a page's inline figures are no text to hold byte for byte.
func textOf(formats []string) []string {
	return slices.DeleteFunc(slices.Clone(formats), func(f string) bool { return f == "html" })
}

// page renders run's page as written into pageDir and checks it is a
// self-contained, well-formed page.
func page(t testing.TB, run *results.Run, site Site) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WritePage(&b, run, site); err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Check(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// structure is what a page's golden file pins (htmlpage.Outline).
func structure(t *testing.T, page []byte) string {
	t.Helper()
	o, err := htmlpage.Outline(page)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestRunPageStructure(t *testing.T) {
	run, dir := sweep(t, []string{"get"}, []int{1024, 2048, 8192, 16384}, []int{1024, 32768})
	phases, pdir, err := results.Open("testdata/phases")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		run  *results.Run
		site Site
	}{
		"sweep":  {run, Site{RunDir: dir, PageDir: dir}},
		"mixed":  {resultstest.MixedA(t), Site{}},
		"phases": {phases, Site{RunDir: pdir, PageDir: pdir}},
	} {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, structure(t, page(t, c.run, c.site)), "page-"+name+".structure.golden")
		})
	}
}

// A sweep's answer says where rendezvous overtakes eager: the fixture's
// model crosses near 4KiB, so from the 8KiB measured on. A mixed run's
// names the whole workload's best thresholds; a run that is neither
// claims none.
func TestRunPageAnswers(t *testing.T) {
	run, _ := sweep(t, []string{"get"}, []int{1024, 2048, 8192, 16384}, []int{1024, 32768})
	out := string(page(t, run, Site{}))
	want := "get: rendezvous&#39;s p50 is below eager&#39;s from 8KiB on"
	if !strings.Contains(out, want) {
		t.Errorf("the answer lacks %q", want)
	}
	mixed := string(page(t, resultstest.MixedA(t), Site{}))
	if want := "at 2 thresholds: the best threshold by p50 is 64KiB"; !strings.Contains(mixed, want) {
		t.Errorf("the mixed run's answer lacks %q", want)
	}
	one, _ := sweep(t, []string{"get"}, []int{1024, 16384}, []int{32768})
	if out := string(page(t, one, Site{})); !strings.Contains(out, "answers no threshold question") {
		t.Error("a run of one protocol per size claims an answer")
	}
}

// A histogram results.json holds broken costs the page its figures,
// which it says, not its tables.
func TestRunPageWithABrokenHistogram(t *testing.T) {
	run, _ := sweep(t, []string{"get"}, []int{1024, 16384}, []int{32768})
	run.Cells[0].Histogram = "not base64!"
	out := string(page(t, run, Site{}))
	if !strings.Contains(out, "No figures: ") || !strings.Contains(out, "decode histogram") {
		t.Error("the page does not say why it has no figures")
	}
	if !strings.Contains(out, `<section id="cells">`) {
		t.Error("the page lost its cells table")
	}
}

// An untrusted cell's numbers carry class untrusted, its words do not,
// and a trusted cell's numbers are unmarked.
func TestRunPageMarksUntrustedCells(t *testing.T) {
	run, _ := sweep(t, []string{"get"}, []int{1024, 16384}, []int{32768})
	run.Cells[1].Checks = []results.Check{{Name: results.CheckPrecision, Method: "bootstrap", Figure: "p99 ±40%"}}
	out := string(page(t, run, Site{}))
	bad := `<td class="untrusted" title="0 of 1 checks passed; precision failed: p99 ±40% (bootstrap)">16KiB</td>`
	if !strings.Contains(out, bad) {
		t.Errorf("the untrusted cell's value is not marked as %s", bad)
	}
	if strings.Contains(out, `<td class="text untrusted"`) {
		t.Error("a word of the untrusted cell is marked")
	}
	if n := strings.Count(out, `class="untrusted"`); n != 11 {
		t.Errorf("%d marked table cells, want the untrusted cell's 11 numbers", n)
	}
}

// A cell whose only failure is its p99's precision has its tail marked,
// p99 and beyond, and its median and rate left as trusted.
func TestRunPageMarksOnlyAnImpreciseTail(t *testing.T) {
	run, _ := sweep(t, []string{"get"}, []int{1024, 16384}, []int{32768})
	k := results.Check{Name: results.CheckTailPrecision, Method: results.MethodOrderStatistics, Figure: "p99 ±40%"}
	run.Cells[1].Checks = []results.Check{k}
	run.Cells[1].Warnings = results.CheckWarnings(run.Cells[1].Checks)
	out := string(page(t, run, Site{}))
	if n := strings.Count(out, `class="untrusted"`); n != 3 {
		t.Errorf("%d marked table cells, want the cell's p99, p99.9 and max", n)
	}
	if strings.Contains(out, `<td class="untrusted" title="tail_precision check failed: p99 ±40% (binomial order statistics)">16KiB</td>`) {
		t.Error("the cell's value size is marked")
	}
}

// The raw links lead from the page's directory to the run's files.
func TestRunPageLinksRawFilesFromThePage(t *testing.T) {
	run, dir := sweep(t, []string{"get"}, []int{1024}, []int{32768})
	out := string(page(t, run, Site{RunDir: dir, PageDir: filepath.Join(dir, "pages")}))
	for _, want := range []string{`<a href="../results.json">`, `<a href="../` + run.Cells[0].Hlog + `">`} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// A 60-cell sweep's page stays under 5 MB: its per-size figures are
// left to kvbench plot.
func TestRunPageOfSixtyCellsIsSmall(t *testing.T) {
	run, dir := sixty(t)
	n := len(page(t, run, Site{RunDir: dir, PageDir: dir}))
	t.Logf("%d bytes", n)
	if n >= 5<<20 {
		t.Errorf("the page is %d bytes, want under 5 MB", n)
	}
}

// sixty is a sweep of 2 ops, 10 sizes and 3 thresholds.
func sixty(t testing.TB) (*results.Run, string) {
	return sweep(t, []string{"get", "set"}, []int{64, 256, 1024, 2048, 4096, 8192, 16384, 65536, 262144, 1 << 20}, []int{1024, 8192, 1 << 21})
}

func BenchmarkRunPage(b *testing.B) {
	run, dir := sixty(b)
	for b.Loop() {
		if err := WritePage(io.Discard, run, Site{RunDir: dir, PageDir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

// Every view writes a page that checks, and an unknown format is named.
func TestViewsWriteHTMLPages(t *testing.T) {
	run, dir := sweep(t, []string{"get"}, []int{1024, 16384}, []int{1024, 32768})
	phases, _, err := results.Open("testdata/phases")
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(io.Writer, string) error{
		"spread": func(w io.Writer, f string) error { return WriteSpread(w, run, f) },
		"steps":  func(w io.Writer, f string) error { return WriteSteps(w, run, dir, f) },
		"phases": func(w io.Writer, f string) error { return WritePhases(w, phases, f) },
		"bysize": func(w io.Writer, f string) error { return WriteBySize(w, resultstest.MixedA(t), f) },
		"cells":  func(w io.Writer, f string) error { return Write(w, run, f) },
	} {
		var b bytes.Buffer
		if err := write(&b, "html"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := htmlpage.Check(b.Bytes()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		// The fixture has no ramp and no op, size and protocol at two
		// thresholds: steps and spread say so instead of a table.
		if !strings.Contains(b.String(), "<table>") && name != "steps" && name != "spread" {
			t.Errorf("%s: no table", name)
		}
		if err := write(io.Discard, "pdf"); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
			t.Errorf("%s: format pdf gave %v, want an error naming it", name, err)
		}
	}
}
