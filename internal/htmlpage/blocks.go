package htmlpage

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// Cell is one table cell. Untrusted marks a number whose cell failed a
// check; Note is the hover text saying which.
type Cell struct {
	Text      string
	Untrusted bool
	Note      string
	// Left aligns a word column (op, protocol) left; numbers align right.
	Left bool
}

// T is a cell of plain text.
func T(s string) Cell { return Cell{Text: s, Left: true} }

// N is a cell holding a number.
func N(s string) Cell { return Cell{Text: s} }

// Table is a real table, with a header row, that a spreadsheet pastes.
func Table(columns []string, rows [][]Cell) template.HTML {
	var b strings.Builder
	b.WriteString("<table>\n<thead><tr>")
	for i, c := range columns {
		left := len(rows) > 0 && i < len(rows[0]) && rows[0][i].Left
		fmt.Fprintf(&b, "<th%s>%s</th>", class(left, false), esc(c))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			title := ""
			if c.Note != "" {
				title = fmt.Sprintf(` title="%s"`, esc(c.Note))
			}
			fmt.Fprintf(&b, "<td%s%s>%s</td>", class(c.Left, c.Untrusted), title, esc(c.Text))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>")
	return template.HTML(b.String())
}

func class(left, untrusted bool) string {
	var cs []string
	if left {
		cs = append(cs, "text")
	}
	if untrusted {
		cs = append(cs, "untrusted")
	}
	if len(cs) == 0 {
		return ""
	}
	return ` class="` + strings.Join(cs, " ") + `"`
}

// Para is a paragraph of text.
func Para(s string) template.HTML { return template.HTML("<p>" + esc(s) + "</p>") }

// Pre is preformatted text (a table kvbench printed, kept as printed).
func Pre(s string) template.HTML { return template.HTML("<pre>" + esc(s) + "</pre>") }

// List is a bulleted list; class "warnings" colours its items.
func List(class string, items []string) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<ul class="%s">`, esc(class))
	for _, it := range items {
		b.WriteString("<li>" + esc(it) + "</li>")
	}
	b.WriteString("</ul>")
	return template.HTML(b.String())
}

// Facts is a list of names and values (what ran, where, which build).
func Facts(pairs ...[2]string) template.HTML {
	var b strings.Builder
	b.WriteString(`<dl class="facts">`)
	for _, p := range pairs {
		b.WriteString("<dt>" + esc(p[0]) + "</dt><dd>" + esc(p[1]) + "</dd>")
	}
	b.WriteString("</dl>")
	return template.HTML(b.String())
}

// Link is an anchor to href, relative to the page.
func Link(href, text string) template.HTML {
	return template.HTML(fmt.Sprintf(`<a href="%s">%s</a>`, esc(href), esc(text)))
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// SVG makes an inline figure of an SVG document (as gonum's vgsvg writes
// it): the XML declaration and comments before the <svg> element go, so
// the element sits in the page as HTML5 allows.
func SVG(svg []byte, caption string) (template.HTML, error) {
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return "", fmt.Errorf("htmlpage: figure %q is not SVG", caption)
	}
	var b strings.Builder
	b.WriteString("<figure>")
	b.Write(bytes.TrimSpace(svg[i:]))
	if caption != "" {
		b.WriteString("<figcaption>" + esc(caption) + "</figcaption>")
	}
	b.WriteString("</figure>")
	return template.HTML(b.String()), nil
}
