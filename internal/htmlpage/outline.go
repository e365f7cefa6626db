package htmlpage

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
)

// Outline is a page's structure as a golden file pins it: a line per
// section, its id and heading, and under it a line per table, its column
// headers. Numbers, words and figures are left out, so the golden file
// changes when a section or a column does, not when a measurement does.
func Outline(page []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	var b strings.Builder
	var heads []string
	var inTh, inH2 bool
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
			switch tok.Name.Local {
			case "section":
				b.WriteString("section " + attr(tok, "id"))
			case "h2":
				inH2 = true
			case "th":
				inTh, heads = true, append(heads, "")
			}
		case xml.CharData:
			switch {
			case inH2:
				b.WriteString(": " + string(tok) + "\n")
			case inTh:
				heads[len(heads)-1] += string(tok)
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "h2":
				inH2 = false
			case "th":
				inTh = false
			case "thead":
				b.WriteString("  table: " + strings.Join(heads, " | ") + "\n")
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
