package compare

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/figure/figuretest"
	"github.com/kvbench/kvbench/internal/results"
)

func write(t *testing.T, res *Result, format string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := res.Write(&buf, format); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Every declared figure compare knows of, both sides having it, is in
// every matched cell's metrics (tested) or under its name (shown only),
// has its columns in the table, and comes back from the JSON.
func TestEveryFigureCompares(t *testing.T) {
	a, b := build(t, "", spec(1, nil)), build(t, "", spec(2, nil))
	figuretest.FillRun(t, a)
	figuretest.FillRun(t, b)
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	table := write(t, res, "table")
	var back Result
	if err := json.Unmarshal([]byte(write(t, res, "json")), &back); err != nil {
		t.Fatal(err)
	}
	for _, f := range figure.All() {
		if f.Compare == nil {
			continue
		}
		for i, d := range res.Cells {
			ms := d.Metrics
			if fd, ok := d.Figure(f.Name); ok {
				ms = fd.Metrics
			}
			for _, name := range f.Compare.Names {
				if !slices.ContainsFunc(ms, func(m Metric) bool { return m.Name == name && m.Informational == !f.Compare.Tested }) {
					t.Errorf("%s: %s has no metric %s: %+v", d.Key, f.Name, name, d)
				}
			}
			if got, want := back.Cells[i].Figures, d.Figures; len(got) != len(want) || (len(got) > 0 && got[0].Qualifier != want[0].Qualifier) {
				t.Errorf("%s: figures read back %+v, written %+v", d.Key, got, want)
			}
		}
		for _, name := range f.Compare.Names {
			if !strings.Contains(table, name+" A") {
				t.Errorf("%s: no column %s in\n%s", f.Name, name, table)
			}
		}
	}
}

// fakeTicks sets the fake figure's ticks in every cell of run.
func fakeTicks(run *results.Run, n int64) {
	for i := range run.Cells {
		run.Cells[i].IntervalNs = n
	}
}

// A figure declared by the test alone, and tested, joins p50, p99 and
// ops/s in compare with no edit of compare's: a column in the table and
// a metric of every cell, without a noise estimate from one run a side,
// and judged with the others over several, where it can regress.
func TestRegisteredFigureCompares(t *testing.T) {
	t.Cleanup(figure.Register(figuretest.Fake()))
	a, b := build(t, "", spec(1, nil)), build(t, "", spec(2, nil))
	fakeTicks(a, 100)
	fakeTicks(b, 150)
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Cells {
		m := d.Metrics[len(d.Metrics)-1]
		if len(d.Metrics) != 4 || m.Name != "fake" || m.Change != 0.5 || m.Known || m.Significant || m.Informational {
			t.Errorf("%s: metrics %+v", d.Key, d.Metrics)
		}
	}
	if table := write(t, res, "table"); !strings.Contains(table, "Δfake") || !strings.Contains(table, "+50.0% ?") {
		t.Errorf("table:\n%s", table)
	}

	as, bs := loadSides(t, 6)
	for i := range as {
		fakeTicks(as[i].Run, int64(100+i))
		fakeTicks(bs[i].Run, int64(200+i))
	}
	res, err = CompareRuns(as, bs, Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Regressions(0, false); len(got) != len(res.Cells) || !strings.Contains(got[0], " fake +") {
		t.Errorf("regressions %v, want the fake ticks of every cell", got)
	}
}

// loadSides are n runs of one build a side.
func loadSides(t *testing.T, n int) ([]Run, []Run) {
	t.Helper()
	as, err := LoadSide(side(t, n, 1, func(int) float64 { return 1 }))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := LoadSide(side(t, n, 11, func(int) float64 { return 1 }))
	if err != nil {
		t.Fatal(err)
	}
	return as, bs
}
