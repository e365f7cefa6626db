package browsertest

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// pageTimeout bounds one page's load, measurement and print, so a browser
// that hangs fails the test instead of holding it until go test's own
// timeout; it is no judgement of speed.
const pageTimeout = 2 * time.Minute

// Load opens the page at path in a new tab with JavaScript disabled (the
// pages have none, and must read without it), measures its figures, prints
// it to PDF and keeps a full-page screenshot, and returns what it met. It
// fails the test only when the browser cannot do that; judging the page is
// Assert's.
func Load(t testing.TB, path string) Result {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	b := browserFor(t)
	tab, closeTab := chromedp.NewContext(b.ctx)
	defer closeTab()
	// The first Do opens the tab; it must not carry the deadline, which
	// would end the tab with it.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("browsertest: opening a tab: %v", err)
	}
	ev := &events{}
	if err := chromedp.Listen(tab, ev.add); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, pageTimeout)
	defer cancel()
	r := Result{URL: u}
	err = chromedp.Do(ctx,
		chromedp.Func(offline),
		chromedp.Navigate(u),
		chromedp.Func(func(ctx context.Context, tt *chromedp.Target) (ferr error) {
			r.Figures, ferr = figures(ctx, tt)
			return ferr
		}),
		chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
			return keep(ctx, tt, t, path, &r)
		}),
	)
	if err != nil {
		t.Fatalf("browsertest: %s: %v", path, err)
	}
	ev.into(&r)
	return r
}

// offline turns scripts off and blocks http and https before the page
// loads, so a page that reaches out is seen doing so without waiting on a
// network that is not there.
func offline(ctx context.Context, t *chromedp.Target) error {
	if _, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, t, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{
		{URLPattern: "http://*:*/*", Block: true},
		{URLPattern: "https://*:*/*", Block: true},
	}})
	return err
}

// events collects what the tab reports while the page loads. add runs in
// the tab's reading loop, so it only records.
type events struct {
	mu         sync.Mutex
	urls       map[network.RequestID]string
	console    []Message
	exceptions []string
	failed     []Request
	offsite    []string
}

func (e *events) add(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if e.urls == nil {
			e.urls = map[network.RequestID]string{}
		}
		e.urls[ev.RequestID] = ev.Request.URL
		if !local(ev.Request.URL) {
			e.offsite = append(e.offsite, ev.Request.URL)
		}
	case *network.EventLoadingFailed:
		msg := ev.ErrorText
		if ev.BlockedReason != "" {
			msg += " (blocked: " + string(ev.BlockedReason) + ")"
		}
		e.failed = append(e.failed, Request{URL: e.urls[ev.RequestID], Error: msg})
	case *log.EventEntryAdded:
		if l := ev.Entry.Level; l == log.EntryLevelError || l == log.EntryLevelWarning {
			e.console = append(e.console, Message{Level: string(l), Text: ev.Entry.Text, URL: ev.Entry.URL})
		}
	case *runtime.EventConsoleAPICalled:
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
			e.console = append(e.console, Message{Level: "error", Text: consoleText(ev.Args)})
		case runtime.ConsoleAPICalledTypeWarning:
			e.console = append(e.console, Message{Level: "warning", Text: consoleText(ev.Args)})
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		e.exceptions = append(e.exceptions, text)
	}
}

func (e *events) into(r *Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.Console, r.Exceptions, r.Failed, r.Offsite = e.console, e.exceptions, e.failed, e.offsite
}

// local says whether a URL stays on the machine and in the page.
func local(u string) bool {
	for _, s := range []string{"file:", "data:", "about:"} {
		if strings.HasPrefix(u, s) {
			return true
		}
	}
	return false
}

func consoleText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if a.Description != "" {
			parts = append(parts, a.Description)
		} else {
			parts = append(parts, strings.Trim(string(a.Value), `"`))
		}
	}
	return strings.Join(parts, " ")
}
