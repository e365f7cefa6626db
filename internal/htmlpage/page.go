// Package htmlpage writes a self-contained HTML page: inline CSS, figures
// as inline SVG, no scripts, fonts or network fetches, so one file can be
// mailed, opened offline and printed. Its markup is also well-formed XML
// (every element closed), so a test can parse a page strictly.
package htmlpage

import (
	"html/template"
	"io"
)

// Page is one document: a title and its sections, in order.
type Page struct {
	Title string
	// Sub is one line under the title (what ran, in a few words).
	Sub      string
	Sections []Section
}

// Section is one headed part of a page. ID is its anchor (and the name a
// structure test pins); Body is built from this package's blocks.
type Section struct {
	ID, Heading string
	Body        []template.HTML
}

// Add appends a section and returns it for its body to be filled.
func (p *Page) Add(id, heading string, body ...template.HTML) *Section {
	p.Sections = append(p.Sections, Section{ID: id, Heading: heading, Body: body})
	return &p.Sections[len(p.Sections)-1]
}

// Write renders the page.
func (p *Page) Write(w io.Writer) error {
	return pageTmpl.Execute(w, p)
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>` + css + fontFace + `</style>
</head>
<body>
<header><h1>{{.Title}}</h1>{{with .Sub}}<p class="sub">{{.}}</p>{{end}}
<nav><ul>{{range .Sections}}<li><a href="#{{.ID}}">{{.Heading}}</a></li>{{end}}</ul></nav>
</header>
<main>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Heading}}</h2>
{{range .Body}}{{.}}
{{end}}</section>
{{end}}</main>
</body>
</html>
`))
