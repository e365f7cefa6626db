// Package compare sets two kvbench runs side by side, cell by cell, and
// says which changes in p50, p99 and throughput exceed the measurement
// noise. The method is described in docs/COMPARE.md.
package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// DefaultMinEffect is the smallest relative change reported as significant:
// below it a change is too small to matter even when it is real.
const DefaultMinEffect = 0.03

// Options tune Compare.
type Options struct {
	// MinEffect is the smallest relative change (0.03 = 3%) that can be
	// significant.
	MinEffect float64
	// DirA and DirB are the run directories, used to read interval logs
	// for the throughput noise; empty skips them.
	DirA, DirB string
}

// Key identifies a cell across runs. Store is the cell's kind of store
// (results.Cell.Store); empty, with Protocol, in the key two baselines'
// cells are shown under (shownKey).
type Key struct {
	Op        string `json:"op"`
	ValueSize int    `json:"value_size"`
	Threshold int    `json:"threshold"`
	Protocol  string `json:"protocol"`
	Store     string `json:"store,omitempty"`
	// Distribution is the law the cell's values' sizes were drawn from
	// (results.Cell.Distribution), ValueSize then its mean: such a cell
	// matches only a cell of the same law.
	Distribution string `json:"distribution,omitempty"`
}

// String is the cell's name (results.CellName), a baseline's without
// the threshold it has not: redis get/64B/eager, or get/64B for two
// baselines'.
func (k Key) String() string {
	if k.baseline() {
		s := strings.TrimSuffix(fmt.Sprintf("%s/%s/%s", k.Op, units.Bytes(int64(k.ValueSize)), k.Protocol), "/")
		if k.Store != "" {
			s = k.Store + " " + s
		}
		return s
	}
	return results.CellName(k.Store, k.Op, k.ValueSize, k.Threshold, k.Protocol)
}

func keyOf(c results.Cell) Key {
	return Key{c.Op, c.ValueSize, c.Threshold, c.Protocol, c.Store, c.Distribution}
}

// Metric is one quantity compared between the runs.
type Metric struct {
	Name string         `json:"name"` // "p50", "p99", "ops/s", or a figure's (figure.Compare.Names)
	A    stats.Interval `json:"a"`
	B    stats.Interval `json:"b"`
	// Change is (B-A)/A.
	Change float64 `json:"change"`
	// Known is false when no noise estimate was possible; the change is
	// then never significant.
	Known bool `json:"known"`
	// Significant: the intervals do not overlap and |Change| >= MinEffect.
	Significant bool `json:"significant"`
	// Regression: significant and for the worse (latency up, throughput
	// down).
	Regression bool `json:"regression"`
	// Method names how the intervals were obtained.
	Method string `json:"method"`
	// P is, comparing several runs a side, the test's p-value adjusted
	// for the whole comparison; A and B are then the runs' median and
	// range.
	P float64 `json:"p,omitempty"`
	// Informational: the metric is shown but never judged, so never
	// significant and never a regression (CPU time; figure.Compare).
	Informational bool `json:"informational,omitempty"`
}

// Worse is the change expressed so that positive is worse: latency and
// a figure (CPU time, ...) up, throughput down.
func (m Metric) Worse() float64 {
	if m.Name == "ops/s" {
		return -m.Change
	}
	return m.Change
}

// CellDiff is one matched cell.
type CellDiff struct {
	Key Key `json:"cell"`
	// Metrics are p50, p99 and ops/s, and the tested figures' metrics
	// (figure.Compare.Tested) the runs have alike.
	Metrics []Metric `json:"metrics"`
	// Figures are the informational metrics of the figures the runs have
	// alike (figure.Compare), in the order of figure.All: CPU time per
	// operation, "cpu_c" and, where the server's was measured, "cpu_s",
	// unless a run lacks it or the runs' scopes differ. The JSON has each
	// under the figure's name (MarshalJSON).
	Figures []FigureDiff `json:"-"`
	// Untrusted names the failed checks of the cell's runs, side by side
	// (untrusted): the difference is not to be trusted, and
	// --fail-on-regression does not fail on it unless strict.
	Untrusted []string `json:"untrusted,omitempty"`
}

// Result is a comparison of run A (baseline) with run B.
type Result struct {
	MinEffect float64 `json:"min_effect"`
	// Alpha is the significance level of a comparison of several runs a
	// side; RunsA and RunsB count the runs.
	Alpha float64 `json:"alpha,omitempty"`
	RunsA int     `json:"runs_a"`
	RunsB int     `json:"runs_b"`
	// Note says what the comparison could not judge.
	Note string `json:"note,omitempty"`
	// TargetNote says what A and B measured when they measured different
	// kinds of store (targetNote).
	TargetNote string     `json:"target_note,omitempty"`
	Cells      []CellDiff `json:"cells"`
	// SizeClasses compare the size classes of the matched mixed cells
	// (ClassDiff), by cell and class; never judged into a verdict.
	SizeClasses []ClassDiff `json:"size_classes,omitempty"`
	// OnlyA and OnlyB are cells present in one run only.
	OnlyA []Key `json:"only_a,omitempty"`
	OnlyB []Key `json:"only_b,omitempty"`
}

// Compare matches cells on (op, value size, threshold, protocol), or on
// (op, value size) when the runs measured different kinds of store
// (match).
func Compare(a, b *results.Run, opt Options) (*Result, error) {
	if opt.MinEffect < 0 {
		return nil, fmt.Errorf("min effect %g: want >= 0", opt.MinEffect)
	}
	res := &Result{MinEffect: opt.MinEffect, RunsA: 1, RunsB: 1, TargetNote: targetNote(a, b)}
	cas, err := withWhole(a.Cells)
	if err != nil {
		return nil, err
	}
	cbs, err := withWhole(b.Cells)
	if err != nil {
		return nil, err
	}
	pairs, onlyA, onlyB := match(keysOf(cas), keysOf(cbs), a.TargetKind(), b.TargetKind())
	for _, p := range pairs {
		d, err := compareCell(cas[p.a], cbs[p.b], opt)
		if err != nil {
			return nil, err
		}
		d.Key = p.key
		d.trust(cas[p.a:p.a+1], cbs[p.b:p.b+1])
		res.Cells = append(res.Cells, d)
		ks, err := classDiffs(p.key, cas[p.a:p.a+1], cbs[p.b:p.b+1], opt.MinEffect)
		if err != nil {
			return nil, err
		}
		res.SizeClasses = append(res.SizeClasses, ks...)
	}
	res.OnlyA, res.OnlyB = onlyA, onlyB
	slices.SortFunc(res.Cells, func(x, y CellDiff) int { return orderKeys(x.Key, y.Key) })
	slices.SortFunc(res.SizeClasses, orderClasses)
	slices.SortFunc(res.OnlyA, orderKeys)
	slices.SortFunc(res.OnlyB, orderKeys)
	return res, nil
}

func orderKeys(x, y Key) int {
	return cmp.Or(cmp.Compare(x.Op, y.Op), cmp.Compare(x.ValueSize, y.ValueSize),
		cmp.Compare(x.Threshold, y.Threshold), cmp.Compare(x.Protocol, y.Protocol), cmp.Compare(x.Store, y.Store),
		cmp.Compare(x.Distribution, y.Distribution))
}

func compareCell(ca, cb results.Cell, opt Options) (CellDiff, error) {
	d := CellDiff{Key: keyOf(ca)}
	ha, errA := results.CellHistogram(ca)
	hb, errB := results.CellHistogram(cb)
	for _, q := range []struct {
		name string
		q    float64
		sum  func(results.Latency) int64
	}{{"p50", 0.50, func(l results.Latency) int64 { return l.P50 }}, {"p99", 0.99, func(l results.Latency) int64 { return l.P99 }}} {
		m := Metric{Name: q.name, Method: "order-statistic CI from the histogram"}
		if errA == nil && errB == nil && ha.TotalCount() > 0 && hb.TotalCount() > 0 {
			m.A, m.B, m.Known = stats.QuantileCI(ha, q.q), stats.QuantileCI(hb, q.q), true
		} else {
			m.A = stats.Interval{Est: float64(q.sum(ca.Latency))}
			m.B = stats.Interval{Est: float64(q.sum(cb.Latency))}
			m.Method = "summary only (no histogram): no noise estimate"
		}
		d.Metrics = append(d.Metrics, judge(m, opt.MinEffect))
	}
	d.Metrics = append(d.Metrics, judge(throughput(ca, cb, ha, hb, opt), opt.MinEffect))
	tested, info := figureMetrics([]results.Cell{ca}, []results.Cell{cb}, false)
	for _, m := range tested {
		d.Metrics = append(d.Metrics, judge(m, opt.MinEffect))
	}
	d.Figures = info
	return d, nil
}

// throughput compares ops/s. The noise comes from the per-interval rates
// of the interval logs when both runs have at least three intervals;
// otherwise from the latency histogram: in a closed loop throughput is the
// concurrency over the mean latency, so it carries the mean's relative
// standard error.
func throughput(ca, cb results.Cell, ha, hb *hdrhistogram.Histogram, opt Options) Metric {
	m := Metric{Name: "ops/s", A: stats.Interval{Est: ca.ThroughputOps}, B: stats.Interval{Est: cb.ThroughputOps}}
	if opt.DirA != "" && opt.DirB != "" {
		ra, okA := intervalRates(opt.DirA, ca)
		rb, okB := intervalRates(opt.DirB, cb)
		if okA && okB {
			ia, _ := stats.MeanCI(ra)
			ib, _ := stats.MeanCI(rb)
			// Centre the intervals on the cell's throughput (whole-phase
			// count over duration), keeping the interval-derived width.
			m.A = stats.Interval{Est: ca.ThroughputOps, Lo: ca.ThroughputOps - (ia.Est - ia.Lo), Hi: ca.ThroughputOps + (ia.Hi - ia.Est)}
			m.B = stats.Interval{Est: cb.ThroughputOps, Lo: cb.ThroughputOps - (ib.Est - ib.Lo), Hi: cb.ThroughputOps + (ib.Hi - ib.Est)}
			m.Known, m.Method = true, "mean of per-interval rates (t interval)"
			return m
		}
	}
	if ha != nil && hb != nil && ha.TotalCount() > 1 && hb.TotalCount() > 1 && ha.Mean() > 0 && hb.Mean() > 0 {
		rel := func(h *hdrhistogram.Histogram) float64 {
			return stats.Z95 * h.StdDev() / (h.Mean() * math.Sqrt(float64(h.TotalCount())))
		}
		m.A.Lo, m.A.Hi = m.A.Est*(1-rel(ha)), m.A.Est*(1+rel(ha))
		m.B.Lo, m.B.Hi = m.B.Est*(1-rel(hb)), m.B.Est*(1+rel(hb))
		m.Known, m.Method = true, "standard error of the mean latency"
		return m
	}
	m.Method = "no histogram or intervals: no noise estimate"
	return m
}

func intervalRates(dir string, c results.Cell) ([]float64, bool) {
	hs, err := results.CellIntervals(dir, c)
	if err != nil {
		return nil, false
	}
	var rates []float64
	for _, h := range hs {
		if secs := float64(h.EndTimeMs()-h.StartTimeMs()) / 1000; secs > 0 {
			rates = append(rates, float64(h.TotalCount())/secs)
		}
	}
	return rates, len(rates) >= 3
}

func judge(m Metric, minEffect float64) Metric {
	if m.A.Est > 0 {
		m.Change = (m.B.Est - m.A.Est) / m.A.Est
	}
	m.Significant = m.Known && m.A.Est > 0 && !m.A.Overlaps(m.B) && math.Abs(m.Change) >= minEffect
	m.Regression = m.Significant && m.Worse() > 0
	return m
}

// Regressions lists the significant regressions worse than pct percent,
// those of untrusted cells (CellDiff.Untrusted) only when strict.
func (r *Result) Regressions(pct float64, strict bool) []string {
	var out []string
	for _, c := range r.Cells {
		if !strict && !c.Trusted() {
			continue
		}
		for _, m := range c.Metrics {
			if m.Regression && 100*m.Worse() > pct {
				out = append(out, fmt.Sprintf("%s %s %+.1f%%", c.Key, m.Name, 100*m.Change))
			}
		}
	}
	return out
}

// RegressionError lists the significant regressions beyond the limit.
type RegressionError struct {
	Pct   float64
	Cells []string
}

func (e *RegressionError) Error() string {
	return fmt.Sprintf("%d significant regression(s) over %g%%: %s", len(e.Cells), e.Pct, strings.Join(e.Cells, "; "))
}

// Check returns a *RegressionError when a significant regression is worse
// than pct percent; one of an untrusted cell counts only when strict.
func (r *Result) Check(pct float64, strict bool) error {
	if cells := r.Regressions(pct, strict); len(cells) > 0 {
		return &RegressionError{Pct: pct, Cells: cells}
	}
	return nil
}
