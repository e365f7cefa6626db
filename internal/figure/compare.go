package figure

import "github.com/kvbench/kvbench/internal/results"

// Compare is how compare sets a figure of two sides side by side.
type Compare struct {
	// Tested metrics join p50, p99 and ops/s: judged with them (Holm's
	// family over several runs a side) and able to make a regression,
	// higher being worse. Otherwise the metrics are informational: shown
	// beside the tested ones under the figure's name, never judged.
	Tested bool
	// Names are the metrics' names, in the order of their columns.
	Names []string
	// Values are each metric's figures over the runs of side A and of
	// side B (one cell a run, the same cell in each), for the metrics the
	// runs have alike, and what qualifies them all (CPU's scope; ""
	// none). No values: the figure does not compare for these runs.
	Values func(as, bs []results.Cell) (vals []Values, qualifier string)
	// Qualifier is the key of the qualifier in compare's JSON.
	Qualifier string
	// Note explains the metrics under compare's table.
	Note string
}

// Values are one metric's figures, run by run.
type Values struct {
	Name string
	A, B []float64
}

// Each is values read from each cell by get, for sides as and bs.
func Each(name string, as, bs []results.Cell, get func(results.Cell) float64) Values {
	v := Values{Name: name, A: make([]float64, len(as)), B: make([]float64, len(bs))}
	for i, c := range as {
		v.A[i] = get(c)
	}
	for i, c := range bs {
		v.B[i] = get(c)
	}
	return v
}
