package merge

import (
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// Each rank's clients wait for credit on their own connections: the
// merged cell's waits are the ranks' sum, a rank without the figure adds
// nothing, and ranks that all lack it merge to none.
func TestMergeCreditWaits(t *testing.T) {
	waits := func(ns ...int) func(int, *results.Run) {
		return func(i int, r *results.Run) {
			for k := range r.Cells {
				if ns[i] >= 0 {
					w := uint64(ns[i])
					r.Cells[k].CreditWaits = &w
				}
			}
		}
	}
	for _, tc := range []struct {
		ns   []int
		want int
	}{{[]int{3, 0, 5}, 8}, {[]int{-1, 4, -1}, 4}, {[]int{-1, -1}, -1}} {
		_, logs, _, err := Runs(ranks(t, len(tc.ns), waits(tc.ns...)))
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range logs {
			got := cl.Cell.CreditWaits
			if (tc.want < 0) != (got == nil) || (got != nil && int(*got) != tc.want) {
				t.Errorf("ranks %v: %s merged to %v, want %d", tc.ns, cl.Cell.Name(), got, tc.want)
			}
		}
	}
}
