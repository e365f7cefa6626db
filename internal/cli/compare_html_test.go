package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/htmlpage"
)

func TestCompareWritesAPage(t *testing.T) {
	a := synthRun(t, 1, nil)
	b := synthRun(t, 2, map[string]float64{"get": 1.4})
	out := filepath.Join(t.TempDir(), "change.html")
	stdout, err := runCLI(t, "compare", a, b, "--format", "html", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != "" {
		t.Errorf("-o wrote to stdout too:\n%s", stdout)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Check(page); err != nil {
		t.Fatal(err)
	}
	inBrowser(t, out, "figures")
	rel, _ := filepath.Rel(filepath.Dir(out), filepath.Join(a, "results.json"))
	for _, want := range []string{`<section id="differences">`, "REGRESSED", `<a href="` + filepath.ToSlash(rel) + `">`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
