package htmlpage

import (
	"html/template"
	"strings"
)

// Links is a list of anchors, each {href, text}, href relative to the
// page (a run's raw files beside it).
func Links(items [][2]string) template.HTML {
	var b strings.Builder
	b.WriteString(`<ul class="links">`)
	for _, it := range items {
		b.WriteString("<li>" + string(Link(it[0], it[1])) + "</li>")
	}
	b.WriteString("</ul>")
	return template.HTML(b.String())
}
