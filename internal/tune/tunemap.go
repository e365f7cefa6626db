package tune

import "github.com/kvbench/kvbench/rdmakv"

// MapCell is one (op, size, load) of the threshold map: the winner and
// the point's ratio (above 1: rendezvous better; 0 when nothing was
// compared), and whether a measurement it stands on failed a check
// (Point.Untrusted).
type MapCell struct {
	Winner    Winner
	Ratio     float64
	Untrusted bool
}

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
				cells[i][j] = MapCell{Winner: p.Winner, Ratio: p.Ratio, Untrusted: p.Untrusted(r.Config.Tail()) > 0}
			}
		}
	}
	return sizes, cells
}
