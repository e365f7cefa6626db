package merge

import (
	"encoding/json"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/figure/figuretest"
	"github.com/kvbench/kvbench/internal/results"
)

// figureJSON is f's value in cell c's results.json (f.Name is its key);
// empty when the cell has none.
func figureJSON(t *testing.T, c results.Cell, f figure.Figure) string {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	return string(keys[f.Name])
}

// Every declared figure comes through the merge of a job of one rank as
// the rank wrote it, and through a merge of three ranks present.
func TestEveryFigureMerges(t *testing.T) {
	fill := func(_ int, r *results.Run) { figuretest.FillRun(t, r) }
	one := ranks(t, 1, fill)
	_, logs, warnings, err := Runs(one)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	for k, cl := range logs {
		for _, f := range figure.All() {
			if got, want := figureJSON(t, cl.Cell, f), figureJSON(t, one[0].Run.Cells[k], f); got != want || got == "" {
				t.Errorf("%s %s: merged %s, the rank's %s", cl.Cell.Name(), f.Name, got, want)
			}
		}
	}
	_, logs, warnings, err = Runs(ranks(t, 3, fill))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	for _, cl := range logs {
		for _, f := range figure.All() {
			if !f.Has(cl.Cell) {
				t.Errorf("%s: three ranks merged without %s", cl.Cell.Name(), f.Name)
			}
		}
	}
}

// A figure declared by the test alone merges as its declaration says: the
// ranks' ticks sum, and a cell a rank has none for loses them, with the
// declaration's warning naming it.
func TestRegisteredFigureMerges(t *testing.T) {
	t.Cleanup(figure.Register(figuretest.Fake()))
	parts := ranks(t, 3, func(i int, r *results.Run) {
		for k := range r.Cells {
			r.Cells[k].IntervalNs = int64(10 * (i + 1))
		}
		if i == 2 {
			r.Cells[0].IntervalNs = 0
		}
	})
	_, logs, warnings, err := Runs(parts)
	if err != nil {
		t.Fatal(err)
	}
	first := parts[0].Run.Cells[0].Name()
	if len(warnings) != 1 || warnings[0] != "cells "+first+": some rank counted no fake ticks" {
		t.Errorf("warnings %q", warnings)
	}
	for _, cl := range logs {
		want := int64(60)
		if cl.Cell.Name() == first {
			want = 0
		}
		if cl.Cell.IntervalNs != want {
			t.Errorf("%s: fake ticks %d, want %d", cl.Cell.Name(), cl.Cell.IntervalNs, want)
		}
	}
}
