package report

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
)

// writeSizeHTML is WriteBySize's html: a section per op and threshold
// with its sizes, protocols' shares, warnings and table of classes.
func writeSizeHTML(w io.Writer, run *results.Run, gs []SizeGroup) error {
	p := &htmlpage.Page{Title: "kvbench run " + WorkloadName(run) + ": operations by value size class"}
	for i, g := range gs {
		facts := [][2]string{{"sizes", g.Distribution}}
		for _, proto := range slices.Sorted(maps.Keys(g.Protocols)) {
			s := g.Protocols[proto]
			facts = append(facts, [2]string{results.ProtocolLabel(g.Store, proto),
				fmt.Sprintf("%s of requests, %s of bytes", pct(s.Requests), pct(s.ByteShare))})
		}
		s := p.Add(fmt.Sprintf("size-%d", i+1), fmt.Sprintf("%s at threshold %s", g.Op, thresholdText(g.Threshold, g.Store, g.Policy)),
			htmlpage.Facts(facts...))
		if len(g.Warnings) > 0 {
			s.Body = append(s.Body, htmlpage.List("warnings", g.Warnings))
		}
		s.Body = append(s.Body, htmlTable(sizeColumns, g.Classes, func(r SizeRow) []string { return sizeRowText(g, r) }, nil))
	}
	return p.Write(w)
}
