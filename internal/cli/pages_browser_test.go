package cli

import (
	"testing"

	"github.com/kvbench/kvbench/internal/browsertest"
)

// inBrowser opens a page kvbench wrote in headless chromium and fails on
// what a reader would meet: console errors, failed or offsite requests, a
// figure that renders at no size, a page that does not print. It wants
// figures in the sections named, so a page that lost its figures fails
// too. The screenshot stays in browsertest.ArtifactsDir.
func inBrowser(t *testing.T, page string, sections ...string) {
	t.Helper()
	r := browsertest.Load(t, page)
	browsertest.Assert(t, r)
	for _, s := range sections {
		n := 0
		for _, f := range r.Figures {
			if f.Section == s {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no figure rendered in #%s", page, s)
		}
	}
}
