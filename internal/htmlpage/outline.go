package htmlpage

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Outline is a page's structure as a golden file pins it: a line per
// section (its id), then under it its heading, the names of its facts,
// each table's header row and each figure's caption. Numbers are left
// out, so the golden file changes when a section, fact, column or figure
// does, not when a measurement does.
func Outline(page []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	var b, text strings.Builder
	var heads []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			text.Reset()
			if tok.Name.Local == "section" {
				fmt.Fprintf(&b, "section %s\n", attr(tok, "id"))
			}
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			switch tok.Name.Local {
			case "h2", "figcaption", "dt":
				fmt.Fprintf(&b, "  %s: %s\n", tok.Name.Local, text.String())
			case "th":
				heads = append(heads, text.String())
			case "thead":
				fmt.Fprintf(&b, "  table: %s\n", strings.Join(heads, " | "))
				heads = nil
			}
		}
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
