package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// ArtifactsDir is where the screenshots and printed pages go, kept after
// the tests: $KVBENCH_ARTIFACTS, else kvbench-browser-artifacts in the
// system's temporary directory.
func ArtifactsDir() string {
	if d := os.Getenv("KVBENCH_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "kvbench-browser-artifacts")
}

// keep prints the page to PDF and screenshots it whole, writing both to
// the artifacts directory under the test's and the page's names.
func keep(ctx context.Context, tt *chromedp.Target, t testing.TB, page string, r *Result) error {
	pdf, err := chromedp.PrintToPDF()(ctx, tt)
	if err != nil {
		return fmt.Errorf("printing: %w", err)
	}
	png, err := chromedp.FullScreenshot(100)(ctx, tt)
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	dir := ArtifactsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, artifactName(t.Name(), page))
	r.PDFBytes = len(pdf)
	r.Screenshot, r.PDF = base+".png", base+".pdf"
	if err := os.WriteFile(r.Screenshot, png, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(r.PDF, pdf, 0o644); err != nil {
		return err
	}
	t.Logf("browsertest: %s: screenshot %s, printed %s", page, r.Screenshot, r.PDF)
	return nil
}

// artifactName joins the test's name and the page's file name into one
// file name, so that the pages of subtests and of different tests do not
// overwrite each other.
func artifactName(test, page string) string {
	name := test + "-" + strings.TrimSuffix(filepath.Base(page), filepath.Ext(page))
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, name)
}
