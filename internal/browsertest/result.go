package browsertest

import "fmt"

// Result is what the browser met opening one page.
type Result struct {
	// URL is the file: URL the page was opened at.
	URL string
	// Console holds the browser's console messages of level error or
	// warning (a failed image lands here as well as in Failed).
	Console []Message
	// Exceptions are uncaught exceptions; a page without scripts has none.
	Exceptions []string
	// Failed are the requests that did not load.
	Failed []Request
	// Offsite are the URLs of requests for anything but a file beside the
	// page (data: and about: URLs are the page's own). The browser blocks
	// http and https, so a test never reaches the network.
	Offsite []string
	// Figures are the page's figure, svg and img elements as laid out.
	Figures []Figure
	// PDFBytes is the size of the page printed to PDF.
	PDFBytes int
	// Screenshot and PDF are the paths of the full-page PNG and the
	// printed page, kept after the test.
	Screenshot, PDF string
}

// Message is one console message.
type Message struct {
	Level, Text, URL string
}

func (m Message) String() string {
	if m.URL == "" {
		return m.Level + ": " + m.Text
	}
	return fmt.Sprintf("%s: %s (%s)", m.Level, m.Text, m.URL)
}

// Request is one request that failed.
type Request struct {
	URL, Error string
}

// Figure is one figure, svg or img element and the size it renders at in
// CSS pixels; an element the browser does not lay out has size zero.
type Figure struct {
	// Node names the element: its tag and, for an img, its src.
	Node string
	// Section is the id of the section holding it ("" outside one).
	Section       string
	Width, Height int64
}

func (f Figure) String() string {
	where := ""
	if f.Section != "" {
		where = " in #" + f.Section
	}
	return fmt.Sprintf("<%s>%s at %d×%d", f.Node, where, f.Width, f.Height)
}

// Problems are what breaks the promise of a self-contained page that
// renders: console errors, exceptions, failed or offsite requests,
// figures of no size, and an empty print. Warnings are not problems.
func (r Result) Problems() []string {
	var ps []string
	for _, m := range r.Console {
		if m.Level == "error" {
			ps = append(ps, "console "+m.String())
		}
	}
	for _, e := range r.Exceptions {
		ps = append(ps, "exception: "+e)
	}
	for _, q := range r.Failed {
		ps = append(ps, fmt.Sprintf("request for %s failed: %s", q.URL, q.Error))
	}
	for _, u := range r.Offsite {
		ps = append(ps, "request for "+u+" leaves the page's directory")
	}
	for _, f := range r.Figures {
		if f.Width <= 0 || f.Height <= 0 {
			ps = append(ps, fmt.Sprintf("figure %s has no size", f))
		}
	}
	if r.PDFBytes == 0 {
		ps = append(ps, "printing to PDF gave nothing")
	}
	return ps
}
