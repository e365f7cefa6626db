package browsertest

import (
	"strings"
	"testing"
)

func TestProblemsNameEachFault(t *testing.T) {
	r := Result{
		Console:    []Message{{Level: "warning", Text: "slow"}, {Level: "error", Text: "bad", URL: "file:///p.html"}},
		Exceptions: []string{"boom"},
		Failed:     []Request{{URL: "file:///x.png", Error: "net::ERR_FILE_NOT_FOUND"}},
		Offsite:    []string{"https://example.com/"},
		Figures:    []Figure{{Node: "svg", Section: "cells", Width: 0, Height: 10}, {Node: "img", Width: 5, Height: 5}},
	}
	got := strings.Join(r.Problems(), "\n")
	for _, want := range []string{"error: bad (file:///p.html)", "boom", "x.png failed", "https://example.com/", "<svg> in #cells at 0×10", "PDF"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "slow") || strings.Contains(got, "<img>") {
		t.Errorf("a warning or a figure with a size is a problem:\n%s", got)
	}
	r = Result{Figures: []Figure{{Node: "svg", Width: 1, Height: 1}}, PDFBytes: 10}
	if ps := r.Problems(); len(ps) != 0 {
		t.Errorf("a clean page has problems %v", ps)
	}
}

func TestMissingChromiumSaysHowToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := chromiumPath()
	if err == nil || !strings.Contains(err.Error(), "scripts/setup.sh browser") {
		t.Errorf("without chromium: %v", err)
	}
}

func TestArtifactNamesKeepTestsApart(t *testing.T) {
	a := artifactName("TestX/sub case", "/tmp/a/run.html")
	b := artifactName("TestY", "/tmp/a/run.html")
	if a == b || strings.ContainsAny(a, "/ ") || !strings.HasSuffix(a, "-run") {
		t.Errorf("artifact names %q and %q", a, b)
	}
}
