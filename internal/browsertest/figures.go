package browsertest

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// figures measures every figure, svg and img element through the DevTools
// protocol's box model: with scripts off the page cannot measure itself.
// It walks one snapshot of the whole document and names nodes by backend
// id, which stays valid when chromedp fetches the document again and
// renumbers the nodes.
func figures(ctx context.Context, t *chromedp.Target) ([]Figure, error) {
	depth := int64(-1)
	doc, err := cdp.Call(ctx, t, dom.GetDocument, dom.GetDocumentParams{Depth: &depth})
	if err != nil {
		return nil, err
	}
	var figs []Figure
	var ids []cdp.BackendNodeID
	walk(doc.Root, "", func(n *cdp.Node, section string) {
		f := Figure{Node: n.LocalName, Section: section}
		if src := attr(n, "src"); src != "" {
			f.Node += ` src="` + src + `"`
		}
		figs = append(figs, f)
		ids = append(ids, n.BackendNodeID)
	})
	for i, id := range ids {
		// An element the browser does not lay out has no box model; it
		// stays at size zero.
		if box, err := cdp.Call(ctx, t, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: id}); err == nil {
			figs[i].Width, figs[i].Height = box.Model.Width, box.Model.Height
		}
	}
	return figs, nil
}

// walk calls fn for each figure, svg and img element under n, in document
// order, with the id of the section holding it.
func walk(n *cdp.Node, section string, fn func(n *cdp.Node, section string)) {
	switch n.LocalName {
	case "section":
		if id := attr(n, "id"); id != "" {
			section = id
		}
	case "figure", "svg", "img":
		fn(n, section)
	}
	for _, c := range n.Children {
		walk(c, section, fn)
	}
}

func attr(n *cdp.Node, name string) string {
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		if n.Attributes[i] == name {
			return n.Attributes[i+1]
		}
	}
	return ""
}
