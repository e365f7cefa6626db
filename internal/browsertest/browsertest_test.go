package browsertest_test

import (
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/browsertest"
	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// writePage writes a page of one section holding body, after checking it
// as every page test must, and returns its path.
func writePage(t *testing.T, body ...template.HTML) string {
	t.Helper()
	p := &htmlpage.Page{Title: "rig"}
	p.Add("fig", "Figure", body...)
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Check([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A gonum figure inlined by htmlpage renders at the size it was drawn,
// prints, and leaves its screenshot behind.
func TestPlotFigureRendersAtItsSize(t *testing.T) {
	run, err := resultstest.Build("", resultstest.Spec{
		Ops: []string{"get"}, Sizes: []int{64, 8192}, Thresholds: []int{4096},
		Samples: 2000, Seed: 3, Model: resultstest.Default,
	})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := plot.Percentiles(run, "get", 64)
	if err != nil || fig == nil {
		t.Fatalf("no figure: %v", err)
	}
	svg, err := fig.SVG(640, 400)
	if err != nil {
		t.Fatal(err)
	}
	block, err := htmlpage.SVG(svg, "get 64 B by percentile")
	if err != nil {
		t.Fatal(err)
	}
	r := browsertest.Load(t, writePage(t, block))
	browsertest.Assert(t, r)
	i := slices.IndexFunc(r.Figures, func(f browsertest.Figure) bool { return f.Node == "svg" })
	if i < 0 {
		t.Fatalf("no svg among the figures %v", r.Figures)
	}
	if f := r.Figures[i]; f.Width != 640 || f.Height != 400 || f.Section != "fig" {
		t.Errorf("the figure renders as %v, want <svg> in #fig at 640×400", f)
	}
	png, err := os.ReadFile(r.Screenshot)
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("screenshot %s is no PNG: %v", r.Screenshot, err)
	}
	if pdf, err := os.ReadFile(r.PDF); err != nil || !strings.HasPrefix(string(pdf), "%PDF") || len(pdf) != r.PDFBytes {
		t.Errorf("printed page %s is no PDF of %d bytes: %v", r.PDF, r.PDFBytes, err)
	}
}

func TestMissingImageFailsToLoad(t *testing.T) {
	r := browsertest.Load(t, writePage(t, `<img src="missing.png" alt="a figure"/>`))
	if !slices.ContainsFunc(r.Failed, func(q browsertest.Request) bool { return strings.HasSuffix(q.URL, "/missing.png") }) {
		t.Errorf("no failed request for missing.png among %v", r.Failed)
	}
	if len(r.Problems()) == 0 {
		t.Error("Assert would pass a page whose image is missing")
	}
}

func TestRemoteImageIsOffsite(t *testing.T) {
	const remote = "https://example.com/a.png"
	// Check would refuse this page, so it is written by hand.
	path := filepath.Join(t.TempDir(), "remote.html")
	page := `<!DOCTYPE html><html><body><img src="` + remote + `" width="10" height="10" alt=""/></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	r := browsertest.Load(t, path)
	if !slices.Contains(r.Offsite, remote) {
		t.Errorf("offsite requests %v lack %s", r.Offsite, remote)
	}
	if !slices.ContainsFunc(r.Problems(), func(p string) bool { return strings.Contains(p, remote) }) {
		t.Errorf("problems %v do not name %s", r.Problems(), remote)
	}
}

func TestZeroWidthSVGIsFlagged(t *testing.T) {
	block, err := htmlpage.SVG([]byte(`<svg width="0" height="100" xmlns="http://www.w3.org/2000/svg"><rect width="5" height="5"/></svg>`), "empty")
	if err != nil {
		t.Fatal(err)
	}
	r := browsertest.Load(t, writePage(t, block))
	i := slices.IndexFunc(r.Figures, func(f browsertest.Figure) bool { return f.Node == "svg" })
	if i < 0 || r.Figures[i].Width != 0 {
		t.Fatalf("figures %v lack a zero-width svg", r.Figures)
	}
	if !slices.ContainsFunc(r.Problems(), func(p string) bool { return strings.Contains(p, "<svg> in #fig") }) {
		t.Errorf("problems %v do not flag the svg", r.Problems())
	}
}

// The pages must read with JavaScript off, so the browser runs none.
func TestScriptsDoNotRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.html")
	page := `<!DOCTYPE html><html><body><script>console.error("ran"); throw new Error("ran")</script></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	r := browsertest.Load(t, path)
	if len(r.Console) > 0 || len(r.Exceptions) > 0 {
		t.Errorf("a script ran: console %v, exceptions %v", r.Console, r.Exceptions)
	}
}
