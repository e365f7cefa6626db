package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPrecisionCheckFailsOnTooFewOps(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// A Pareto tail (paretoCell): the p99 is within ±8% at 15k
	// operations and ±22% at 2000.
	for n, pass := range map[int]bool{15000: true, 2000: false} {
		k, ok := tailCheck(paretoCell(t, n))
		if !ok || k.Pass != pass || k.Statistic < 0 {
			t.Errorf("%d ops: %+v %v", n, k, ok)
		}
	}
	// 27 alike operations: the p99's "interval" would be the slowest of
	// them, ±1%, but nothing lies beyond the p99 to bound it.
	alike := NewHistogram()
	for i := range 27 {
		alike.RecordValue(int64(20000 + i))
	}
	enc, _ := EncodeHistogram(alike)
	k, ok := tailCheck(Cell{Histogram: enc})
	if !ok || k.Pass || k.Statistic != -1 || !strings.Contains(k.Figure, "p99 unbounded") {
		t.Errorf("27 alike ops: %+v %v", k, ok)
	}
	iv := shapedIntervals(start, 2000, []float64{20, 20, 20, 20, 20}, 0)
	if k, ok := tailCheck(checkCell(t, iv)); !ok || !k.Pass || k.Statistic > 0.05 {
		t.Errorf("12k ops: %+v", k)
	}
	if _, ok := tailCheck(Cell{}); ok {
		t.Error("a cell without a histogram got a precision check")
	}
}

// paretoCell is a cell of n operations laid out on a Pareto law of tail
// index 2 (latency 20µs/sqrt(1-u)), whose p99 interval is about
// ±19.5/(2·sqrt(n)) wide: ±8% at 15k operations.
func paretoCell(t *testing.T, n int, checks ...Check) Cell {
	t.Helper()
	h := NewHistogram()
	for i := range n {
		h.RecordValue(int64(20000 / math.Sqrt(1-(float64(i)+0.5)/float64(n))))
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return Cell{Histogram: enc, Count: h.TotalCount(), Checks: checks}
}

func independenceAt(rho float64) Check {
	return Check{Name: CheckIndependence, Method: "spearman lag-1", Statistic: rho, Pass: true}
}

// Consecutive latencies correlated by rho are worth fewer operations: a
// p99 of ±8% over 15k independent ones is over ±10% when they correlate
// by 0.6 (an effective quarter of them), and the figure says so; an
// uncorrelated or alternating cell is judged on its count.
func TestPrecisionCheckWidensWithCorrelation(t *testing.T) {
	plain, ok := tailCheck(paretoCell(t, 15000))
	if !ok || !plain.Pass || plain.Statistic < 0.07 || plain.Statistic > 0.09 {
		t.Fatalf("independent: %+v", plain)
	}
	for _, rho := range []float64{0, -0.3} {
		if k, _ := tailCheck(paretoCell(t, 15000, independenceAt(rho))); k != plain {
			t.Errorf("rho %g: %+v, want %+v", rho, k, plain)
		}
	}
	k, _ := tailCheck(paretoCell(t, 15000, independenceAt(0.6)))
	if k.Pass || k.Statistic <= PrecisionBound || !strings.Contains(k.Figure, "an effective 3.75k of 15k ops, lag-1 rho 0.60") {
		t.Errorf("rho 0.6: %+v", k)
	}
}

// A rewrite recomputes the precision checks from the cell (AddWarnings)
// and reads the correlation from the independence check the harness
// recorded, which it keeps.
func TestAddWarningsPrecisionReadsRecordedIndependence(t *testing.T) {
	logs := []CellLog{{Cell: paretoCell(t, 15000, independenceAt(0.6), Check{Name: CheckPrecision, Method: MethodOrderStatistics, Pass: true})}}
	AddWarnings(logs)
	var got []string
	for _, k := range logs[0].Cell.Checks {
		got = append(got, fmt.Sprintf("%s %v", k.Name, k.Pass))
	}
	if !slices.Equal(got, []string{"independence true", "precision true", "tail_precision false"}) {
		t.Errorf("checks after a rewrite: %v", got)
	}
}

// tailCheck is the cell's tail_precision check (PrecisionChecks).
func tailCheck(c Cell) (Check, bool) {
	for _, k := range PrecisionChecks(c) {
		if k.Name == CheckTailPrecision {
			return k, true
		}
	}
	return Check{}, false
}

// A cell can know its median and not its tail: 2000 operations on a
// Pareto tail put the p50 within ±3% and the p99 at ±22%, and such a
// cell is trusted for its median alone.
func TestPrecisionChecksJudgeMedianAndTailApart(t *testing.T) {
	c := paretoCell(t, 2000)
	c.Checks = PrecisionChecks(c)
	if len(c.Checks) != 2 || c.Checks[0].Name != CheckPrecision || !c.Checks[0].Pass || c.Checks[1].Pass {
		t.Fatalf("checks: %+v", c.Checks)
	}
	if !strings.HasPrefix(c.Checks[0].Figure, "p50 ±") || !strings.HasPrefix(c.Checks[1].Figure, "p99 ±") {
		t.Errorf("figures: %q, %q", c.Checks[0].Figure, c.Checks[1].Figure)
	}
	if c.Trusted() || !c.TrustedMedian() {
		t.Errorf("Trusted %v, TrustedMedian %v: want false, true", c.Trusted(), c.TrustedMedian())
	}
	c.Checks = append(c.Checks, Check{Name: CheckStationarity, Method: "mann-kendall"})
	if c.TrustedMedian() {
		t.Error("a failed stationarity check left the median trusted")
	}
}
