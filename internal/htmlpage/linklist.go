package htmlpage

import (
	"html/template"
	"strings"
)

// LinkList is a bulleted list of links, each an href relative to the page
// and its text: the raw files a page was made from.
func LinkList(links ...[2]string) template.HTML {
	var b strings.Builder
	b.WriteString(`<ul class="links">`)
	for _, l := range links {
		b.WriteString("<li>" + string(Link(l[0], l[1])) + "</li>")
	}
	b.WriteString("</ul>")
	return template.HTML(b.String())
}
