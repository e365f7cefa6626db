package bench_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/workload"
)

// cellOps is what one cell issued, told apart by the connections that were
// open when it started and how far each one's log had got.
type cellOps struct {
	threshold, size int
	conns           []*benchtest.Conn
	from            []int
}

// cellRecorder watches a run over f without preload and notes, when each
// cell's warmup starts (the workers are idle then), which connections it
// runs on.
type cellRecorder struct {
	f     *benchtest.Fake
	cells []cellOps
}

func (c *cellRecorder) Observe(s bench.Status) {
	if s.Event != bench.PhaseStart || s.Phase != "warmup" {
		return
	}
	cell := cellOps{threshold: s.Threshold, size: s.ValueSize}
	for _, conn := range c.f.Conns() {
		if !conn.Closed() {
			cell.conns = append(cell.conns, conn)
			cell.from = append(cell.from, len(conn.Ops()))
		}
	}
	c.cells = append(c.cells, cell)
}

// ops is cell i's operations on its j-th connection: from where its log
// stood at the cell's start to where it stood at the next start on the
// same connection, or to its end.
func (c *cellRecorder) ops(i, j int) []benchtest.Rec {
	conn, log := c.cells[i].conns[j], c.cells[i].conns[j].Ops()
	end := len(log)
	for _, later := range c.cells[i+1:] {
		if k := slices.Index(later.conns, conn); k >= 0 {
			end = later.from[k]
			break
		}
	}
	return log[c.cells[i].from[j]:end]
}

// render prints every cell's operations per connection, cells in grid
// order (thresholds, then sizes, ascending) whatever order they ran in.
func (c *cellRecorder) render() string {
	idx := make([]int, len(c.cells))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := c.cells[a], c.cells[b]
		return cmp.Or(cmp.Compare(x.threshold, y.threshold), cmp.Compare(x.size, y.size))
	})
	var b strings.Builder
	for _, i := range idx {
		for j := range c.cells[i].conns {
			fmt.Fprintf(&b, "threshold %d value size %d connection %d:", c.cells[i].threshold, c.cells[i].size, j)
			for _, r := range c.ops(i, j) {
				fmt.Fprintf(&b, " %s %s", r.Op, r.Key)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// gridConfig is a 2 x 2 sweep whose every connection has one worker, so
// that each connection's operations are a function of the seed.
func gridConfig(f *benchtest.Fake) bench.Config {
	cfg := baseConfig(f)
	cfg.Keys = workload.Keys{Count: 50, Size: 8, Distribution: "uniform"}
	cfg.ValueSizes = []int{16, 64}
	cfg.Thresholds = []int{32, 4096}
	cfg.Warmup = workload.Phase{Ops: 6}
	cfg.Measure = workload.Phase{Ops: 10}
	cfg.Load = workload.Load{Mode: "closed", Connections: 2, Depth: 1}
	return cfg
}

// The operations each cell issues are a function of the seed and the
// cell's place in the grid, not of the order the cells run in: both
// orders issue exactly the operations in testdata/cell-ops.golden, which
// was written by the harness before it had a choice of order (thresholds
// outermost, streams numbered by run order), so a run in the thresholds
// order replays a run made before it.
func TestCellOperationsIgnoreOrder(t *testing.T) {
	for _, order := range []string{"", workload.OrderInterleaved, workload.OrderThresholds} {
		t.Run("order="+order, func(t *testing.T) {
			f := &benchtest.Fake{Record: true}
			rec := &cellRecorder{f: f}
			cfg := gridConfig(f)
			cfg.Order, cfg.Observer = order, rec
			run(t, cfg)
			if len(rec.cells) != 4 {
				t.Fatalf("%d cells started, want 4", len(rec.cells))
			}
			golden.Assert(t, rec.render(), "cell-ops.golden")
		})
	}
}
