package cli

import (
	"testing"

	"github.com/kvbench/kvbench/internal/browsertest"
)

// TestMain skips the harness's cost measurement in every run a test
// makes, unless the test sets harnessCostTime itself, and opens the pages
// tests make in one browser.
func TestMain(m *testing.M) {
	harnessCostTime = 0
	browsertest.Main(m)
}
