package report

import (
	"strings"
	"unicode/utf8"
)

// writeGrid draws rows (the first is the header) as a +---+ bordered grid,
// the first left columns left-aligned, the others right-aligned.
func writeGrid(b *strings.Builder, rows [][]string, left int) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	rule := func() {
		for _, w := range widths {
			b.WriteString("+" + strings.Repeat("-", w+2))
		}
		b.WriteString("+\n")
	}
	rule()
	for i, row := range rows {
		for j, c := range row {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			if j < left {
				b.WriteString("| " + c + pad + " ")
			} else {
				b.WriteString("| " + pad + c + " ")
			}
		}
		b.WriteString("|\n")
		if i == 0 {
			rule()
		}
	}
	rule()
}
