package htmlpage

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Check parses a page strictly, as XML, and says what breaks the promise
// of a self-contained page: an element left open, a script, or anything
// fetched from elsewhere (an absolute URL in src or href; links to files
// beside the page are fine). It returns every problem found.
func Check(page []byte) error {
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) {
		return errors.New("htmlpage: the page does not start with <!DOCTYPE html>")
	}
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	var errs []error
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("htmlpage: not well-formed: %w", err))...)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Local == "script" {
			errs = append(errs, fmt.Errorf("htmlpage: line %d: a script", line(d, page)))
		}
		for _, a := range se.Attr {
			if (a.Name.Local == "src" || a.Name.Local == "href") && remote(a.Value) {
				errs = append(errs, fmt.Errorf("htmlpage: line %d: <%s %s=%q> fetches from elsewhere", line(d, page), se.Name.Local, a.Name.Local, a.Value))
			}
		}
	}
	return errors.Join(errs...)
}

// remote says whether a URL leaves the page's directory: a scheme, a host,
// or a path from the root.
func remote(u string) bool {
	return strings.Contains(u, ":") || strings.HasPrefix(u, "/")
}

func line(d *xml.Decoder, page []byte) int {
	return bytes.Count(page[:d.InputOffset()], []byte("\n")) + 1
}
