package merge

import (
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// A check one rank failed stays failed on the merged cell, and warns
// there; one every rank passed stays passed.
func TestMergeKeepsFailedChecks(t *testing.T) {
	parts := ranks(t, 2, func(i int, r *results.Run) {
		for j := range r.Cells {
			r.Cells[j].Checks = []results.Check{
				{Name: results.CheckIndependence, Method: "spearman lag-1", Pass: true},
				{Name: results.CheckLateStarts, Method: "share late", Statistic: float64(i), Pass: i == 0},
			}
		}
	})
	_, logs, _, err := Runs(parts)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range logs {
		ks := cl.Cell.Checks
		if len(ks) != 2 || !ks[0].Pass || ks[1].Pass || ks[1].Statistic != 1 {
			t.Errorf("%s: checks %+v, want independence passed and rank 1's late starts failed", cl.Cell.Name(), ks)
		}
		one := []results.CellLog{cl}
		results.AddWarnings(one)
		if !hasWarning(one[0].Cell.Warnings, results.WarnCheckPrefix+results.CheckLateStarts) {
			t.Errorf("%s: warnings %+v", cl.Cell.Name(), one[0].Cell.Warnings)
		}
	}
}

func hasWarning(ws []results.Warning, kind string) bool {
	for _, w := range ws {
		if w.Kind == kind {
			return true
		}
	}
	return false
}
