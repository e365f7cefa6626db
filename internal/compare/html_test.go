package compare

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
)

// htmlPage compares a run with one whose sets are 40% slower and whose
// gets failed the precision check, and renders the comparison as a page
// written beside the two run directories.
func htmlPage(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	da, db := filepath.Join(root, "base"), filepath.Join(root, "cand")
	a := build(t, da, spec(1, nil))
	b := spec(2, map[string]float64{"set": 1.4})
	rb := build(t, db, b)
	for i, c := range rb.Cells {
		if c.Op == "get" {
			rb.Cells[i].Checks = []results.Check{{Name: results.CheckPrecision, Method: results.MethodOrderStatistics, Pass: false}}
		}
	}
	as, bs := []Run{{a, da}}, []Run{{rb, db}}
	res, err := CompareRuns(as, bs, Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteHTML(&buf, as, bs, root); err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Check(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	outline, err := htmlpage.Outline(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, outline, "compare.html.outline.golden")
	return buf.String()
}

// rows are the differences table's rows, in order.
func rows(page string) []string {
	table := page[strings.Index(page, `<section id="differences">`):]
	table = table[strings.Index(table, "<tbody>"):strings.Index(table, "</tbody>")]
	return strings.Split(strings.TrimSpace(strings.TrimPrefix(table, "<tbody>")), "\n")
}

func TestPageShowsSignificantDifferencesFirst(t *testing.T) {
	rs := rows(htmlPage(t))
	if len(rs) != 6 {
		t.Fatalf("%d rows:\n%s", len(rs), strings.Join(rs, "\n"))
	}
	for i, r := range rs {
		set := strings.Contains(r, `<td class="text">set</td>`)
		if set != (i < 3) {
			t.Errorf("row %d: the three regressed sets do not come first: %s", i, r)
		}
		if set && !strings.Contains(r, "REGRESSED") {
			t.Errorf("row %d: %s", i, r)
		}
	}
}

func TestPageMarksUntrustedDifferences(t *testing.T) {
	page := htmlPage(t)
	for _, r := range rows(page) {
		marked := strings.Contains(r, `class="untrusted" title="B: precision (binomial order statistics)"`)
		if get := strings.Contains(r, `<td class="text">get</td>`); marked != get {
			t.Errorf("marked %v, a get %v: %s", marked, get, r)
		}
	}
	for _, want := range []string{
		`<a href="base/results.json">A: base/results.json</a>`, `<a href="cand/results.json">B: cand/results.json</a>`,
		"<title>kvbench compare: base vs cand</title>", "<figure><svg", "<li>get/64B/t=4KiB/eager: B: precision (binomial order statistics)</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
