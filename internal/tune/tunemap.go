package tune

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// MapCell is one (op, size, load) of the threshold map: the winner and
// the point's ratio (above 1: rendezvous better; 0 when nothing was
// compared).
type MapCell = plot.MapCell

// Map is, for op, the winner at each size (rows, ascending) and load
// (columns, in Config.Loads order).
func (r *Result) Map(op rdmakv.Op) (sizes []int, cells [][]MapCell) {
	sizes = r.Config.Sizes
	cells = make([][]MapCell, len(sizes))
	for i := range sizes {
		cells[i] = make([]MapCell, len(r.Loads))
	}
	for j, l := range r.Loads {
		for _, o := range l.Ops {
			if o.Op != op {
				continue
			}
			for i, p := range o.Points {
				cells[i][j] = MapCell{Winner: p.Winner, Ratio: p.Ratio}
			}
		}
	}
	return sizes, cells
}

// writeMaps prints, per op, the winner at each size and load with its
// ratio, then each load's recommended threshold.
func (r *Result) writeMaps(b *strings.Builder) {
	for _, op := range r.Config.Ops {
		fmt.Fprintf(b, "%s: winner by %s at each load (ratio above 1: rendezvous better)\n", op, r.Config.objectiveName())
		head := []string{"size"}
		for _, l := range r.Loads {
			head = append(head, l.Load.String())
		}
		rows := [][]string{head}
		sizes, cells := r.Map(op)
		for i, s := range sizes {
			row := []string{units.Bytes(int64(s))}
			for _, c := range cells[i] {
				row = append(row, mapCell(c))
			}
			rows = append(rows, row)
		}
		last := []string{"threshold"}
		for _, l := range r.Loads {
			t := "none"
			if l.Recommended > 0 {
				t = units.Bytes(int64(l.Recommended))
			}
			last = append(last, t)
		}
		writeGridAligned(b, append(rows, last), len(last))
		b.WriteString("\n")
	}
}

// mapCell is "rdv 1.42", "eager 0.31", "tie 0.98", "eager only", "n/a".
func mapCell(c MapCell) string {
	switch c.Winner {
	case "unmeasured", "":
		return "n/a"
	case "neither":
		return "neither"
	}
	name := c.Winner
	if name == "rendezvous" {
		name = "rdv"
	}
	if c.Ratio == 0 {
		return name + " only" // the other met the goal at no rate
	}
	return fmt.Sprintf("%s %.2f", name, c.Ratio)
}
