package stats_test

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/stats"
)

// Eight repeats, each measuring both protocols back to back: rendezvous
// was faster in seven pairs. The sign test asks how likely seven or more
// wins of eight are if neither protocol were faster.
func ExampleSignTestP() {
	p := stats.SignTestP(8, 7)
	fmt.Printf("p = %.4f, significant at 0.05: %v\n", p, p <= 0.05)
	fmt.Println("repeats a winner needs at 0.05:", stats.SignTestMinN(0.05))
	// Output:
	// p = 0.0352, significant at 0.05: true
	// repeats a winner needs at 0.05: 5
}

// The p50s of five runs before a change and five after: every run after
// is slower than every run before. Of the 252 ways to split ten runs into
// two groups of five, only that one and its mirror are as extreme, so
// p = 2/252.
func ExampleMannWhitney() {
	before := []float64{10200, 10350, 10100, 10420, 10280}
	after := []float64{10900, 11020, 10850, 11100, 10960}
	p := stats.MannWhitney(before, after)
	fmt.Printf("p = %.4f\n", p)
	fmt.Println("median before and after:", stats.Median(before), stats.Median(after))
	// Tested with two other metrics, the p-values are adjusted together.
	fmt.Printf("Holm-adjusted: %.4f\n", stats.Holm([]float64{p, 0.03, 0.4}))
	// Output:
	// p = 0.0079
	// median before and after: 10280 10960
	// Holm-adjusted: [0.0238 0.0600 0.4000]
}
