package stats

import "math"

// Holm adjusts p-values for testing them together (Holm's step-down
// method): with them, the chance that any true null is rejected stays at
// most alpha however many hypotheses are tested.
func Holm(ps []float64) []float64 {
	idx := order(ps)
	adj := make([]float64, len(ps))
	run := 0.0
	for k, i := range idx {
		run = math.Max(run, math.Min(1, float64(len(ps)-k)*ps[i]))
		adj[i] = run
	}
	return adj
}
