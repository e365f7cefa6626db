package results

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestPrecisionCheckFailsOnTooFewOps(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// 60 operations, each 10% slower than the one before: the p99's
	// interval spans the slowest four, ±12%.
	few := NewHistogram()
	for i := range 60 {
		few.RecordValue(int64(20000 * math.Pow(1.1, float64(i))))
	}
	enc, _ := EncodeHistogram(few)
	k, ok := PrecisionCheck(Cell{Histogram: enc})
	if !ok || k.Pass || k.Statistic <= PrecisionBound || !strings.Contains(k.Figure, "60 ops") {
		t.Errorf("60 ops: %+v %v", k, ok)
	}
	iv := shapedIntervals(start, 2000, []float64{20, 20, 20, 20, 20}, 0)
	if k, ok := PrecisionCheck(checkCell(t, iv)); !ok || !k.Pass || k.Statistic > 0.05 {
		t.Errorf("12k ops: %+v", k)
	}
	if _, ok := PrecisionCheck(Cell{}); ok {
		t.Error("a cell without a histogram got a precision check")
	}
}
