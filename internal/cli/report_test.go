package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/htmlpage"
)

// report -o writes the format to the file instead of stdout, and an html
// page there links the run's files relative to it.
func TestReportWritesToAFile(t *testing.T) {
	dir := synthRun(t, 1, nil)
	pageDir := t.TempDir()
	for format, want := range map[string]string{"csv": "op,value_size", "html": `<section id="raw">`} {
		out := filepath.Join(pageDir, "run."+format)
		stdout, err := runCLI(t, "report", dir, "--format", format, "-o", out)
		if err != nil {
			t.Fatal(err)
		}
		if stdout != "" {
			t.Errorf("%s: -o printed %q on stdout", format, stdout)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: the file lacks %q", format, want)
		}
		if format != "html" {
			continue
		}
		if err := htmlpage.Check(b); err != nil {
			t.Error(err)
		}
		inBrowser(t, out, "figures")
		rel, _ := filepath.Rel(pageDir, filepath.Join(dir, "results.json"))
		if !strings.Contains(string(b), `href="`+filepath.ToSlash(rel)+`"`) {
			t.Errorf("the page does not link %s", rel)
		}
	}
}

func TestReportNamesAnUnknownFormat(t *testing.T) {
	dir := synthRun(t, 1, nil)
	out := filepath.Join(t.TempDir(), "run.pdf")
	_, err := runCLI(t, "report", dir, "--format", "pdf", "-o", out)
	if err == nil || !strings.Contains(err.Error(), `unknown format "pdf"`) {
		t.Errorf("format pdf: %v", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("a failed report left its file")
	}
}
