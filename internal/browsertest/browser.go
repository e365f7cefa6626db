// Package browsertest opens kvbench's HTML pages in a real browser, Debian's
// chromium driven headless over the DevTools protocol, and reports what a
// reader would meet: console errors, requests that failed or left the
// machine, figures that render at no size, and whether the page prints.
// Tests of the packages that write pages use it from their _test files.
//
// A test binary that calls Main from its TestMain shares one browser, each
// page in a tab of its own; without Main, every Load starts and ends a
// browser of its own, which is correct but slower.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// installHint says how to get the browser; a test that needs it fails with
// it rather than skipping, so a missing browser never passes for a
// working page.
const installHint = "install it as root with: scripts/setup.sh browser (Debian's chromium)"

// chromiumPath finds Debian's chromium on PATH.
func chromiumPath() (string, error) {
	p, err := exec.LookPath("chromium")
	if err != nil {
		return "", fmt.Errorf("browsertest: chromium is not on PATH; %s", installHint)
	}
	return p, nil
}

// browser is one running chromium; ctx makes tabs in it.
type browser struct {
	ctx    context.Context
	cancel func()
}

// start launches chromium headless. The flags beyond chromedp's defaults
// keep it off the network: without them chromium keeps reaching for
// updates, sync and QUIC on a closed network. chromedp gives it a fresh
// profile directory and removes it when the browser is cancelled.
func start() (*browser, error) {
	path, err := chromiumPath()
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	b := &browser{ctx: ctx, cancel: func() { cancelCtx(); cancelAlloc() }}
	// The first Do binds the browser's life to ctx, which has no deadline.
	if err := chromedp.Do(ctx); err != nil {
		b.cancel()
		return nil, fmt.Errorf("browsertest: starting %s: %w", path, err)
	}
	return b, nil
}

// shared is the browser of a test binary whose TestMain called Main.
var shared struct {
	sync.Mutex
	on  bool
	b   *browser
	err error
}

// Main runs the tests with one browser for all of them, started by the
// first Load, and closes it (and removes its profile) when they end. Call
// it from TestMain: func TestMain(m *testing.M) { browsertest.Main(m) }.
func Main(m *testing.M) {
	shared.Lock()
	shared.on = true
	shared.Unlock()
	code := m.Run()
	shared.Lock()
	if shared.b != nil {
		shared.b.cancel()
	}
	shared.Unlock()
	os.Exit(code)
}

// browserFor returns the browser a test's pages open in: the shared one,
// or under no Main one that ends with the test.
func browserFor(t testing.TB) *browser {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if !shared.on {
		b, err := start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.cancel)
		return b
	}
	if shared.b == nil && shared.err == nil {
		shared.b, shared.err = start()
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.b
}
