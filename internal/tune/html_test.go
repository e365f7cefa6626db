package tune_test

import (
	"bytes"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

// page is res as tune.html holds it, checked to be a self-contained page
// and its outline (sections and table headers) against name's golden
// file.
func page(t *testing.T, res *tune.Result, name string) string {
	t.Helper()
	var b bytes.Buffer
	ran := report.TuneRan{Workload: "golden", Target: "rdmakv over tcp, embedded server", Files: []string{"tune.json", "profile.json"}}
	if err := report.TuneHTML(&b, res, ran); err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Check(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	outline, err := htmlpage.Outline(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, outline, name+".html.outline.golden")
	return b.String()
}

func TestPageOfAThreshold(t *testing.T) {
	m := tune.NewLinear(3)
	m.Phases = true
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(1024, 65536), Repeats: 5, KeySize: 16}, m)
	html := page(t, res, "tune")
	contains(t, html,
		`<p class="sub">recommended eager threshold: 8KiB</p>`,
		"<dt>target</dt><dd>rdmakv over tcp, embedded server</dd>",
		"get: the network phase decides the crossover",
		`<figcaption>tune-get</figcaption>`, `<figcaption>tune-phases-get</figcaption>`,
		`<a href="tune.json">tune.json</a>`, `<a href="profile.json">profile.json</a>`)
	// The phase breakdown is among the phases, not the curves.
	phases := html[strings.Index(html, `<section id="phases">`):]
	if !strings.Contains(phases, "tune-phases-get") || strings.Contains(html[:len(html)-len(phases)], "tune-phases-get") {
		t.Error("the phase figure is not in the phases section alone")
	}
	if strings.Contains(html, `class="untrusted"`) {
		t.Error("a page of clean measurements marks a size untrusted")
	}
}

func TestPageMarksAWarnedSize(t *testing.T) {
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(1024, 65536), Repeats: 5, KeySize: 16}, tune.NewLinear(3))
	p := &res.Loads[0].Ops[0].Points[2]
	p.Rendezvous[1].Warnings = []results.Warning{{Kind: "bimodal", Message: "two modes"}}
	html := page(t, res, "tune-warned")
	contains(t, html, `<td class="untrusted" title="two modes">`, "get 4KiB rendezvous, repeat 2: two modes")
	row := html[strings.Index(html, "<td class=\"text\">[4KiB, 8KiB)"):]
	row = row[:strings.Index(row, "</tr>")]
	if strings.Count(row, `class="untrusted"`) != strings.Count(row, "<td")-2 {
		t.Errorf("the 4KiB row's numbers are not all marked: %s", row)
	}
}

func TestPageOfNoThreshold(t *testing.T) {
	html := page(t, limited(t, 1), "tune-limited")
	contains(t, html, `<p class="sub">no threshold recommended</p>`, "eager n/a")
	if strings.Contains(html, `<section id="phases">`) {
		t.Error("a tune without phases has a phases section")
	}
}

func TestPageOfLoads(t *testing.T) {
	res := run(t, tune.Config{Ops: get, Sizes: tune.Pow2(64, 65536), Repeats: 5, KeySize: 16, Loads: tune.C1C16}, tune.NewLoadModel(1))
	html := page(t, res, "tune-loads")
	contains(t, html, "thresholds by load: 8KiB at 1 connection, 512B from 16 connections",
		"<p>at 16 connections</p>", "<figcaption>tune-map-get</figcaption>")
}

func TestPageOfADistribution(t *testing.T) {
	html := page(t, tune.DistRun(t), "tune-distribution")
	contains(t, html, "<th>vs chosen</th>")
}
