package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
)

// DefaultAlpha is the significance level of the test over runs, for all
// the cells and metrics of one comparison together (Holm's method).
const DefaultAlpha = 0.05

// SingleRunMinEffect is the smallest change judged when a side has one
// run: its within-run intervals measure sampling noise inside the run,
// not the run-to-run variation (A/A runs on a shared machine differ by up
// to about 10%), so only a change well beyond that is marked.
const SingleRunMinEffect = 0.20

// Run is one run of a side and the directory it was read from.
type Run struct {
	*results.Run
	Dir string
}

// LoadSide reads one side of a comparison: a results directory (or
// results.json), or a directory holding several run directories of one
// workload (what kvbench run -o DIR leaves; the latest link is skipped).
func LoadSide(path string) ([]Run, error) {
	run, dir, err := results.Open(path)
	if err == nil {
		return []Run{{run, dir}}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	entries, derr := os.ReadDir(path)
	if derr != nil {
		return nil, err
	}
	var runs []Run
	for _, e := range entries {
		if !e.IsDir() || e.Name() == results.LatestLink { // a link is not a directory entry's IsDir
			continue
		}
		dir := filepath.Join(path, e.Name())
		r, err := results.Load(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, Run{r, dir})
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no results.json and no run directories in it", path)
	}
	for _, r := range runs[1:] {
		if p, a, b, ok := results.WorkloadDiff(runs[0].Workload, r.Workload); ok {
			return nil, fmt.Errorf("%s: runs of different workloads: %s is %s in %s and %s in %s",
				path, p, results.Show(a), runs[0].Dir, results.Show(b), r.Dir)
		}
	}
	slices.SortFunc(runs, func(a, b Run) int { return a.Start.Compare(b.Start) })
	return runs, nil
}

// CompareRuns compares two sides of one run or more each. With at least
// two runs a side, each metric's runs are tested against each other
// (stats.MannWhitney), the p-values of the whole comparison adjusted
// together (stats.Holm): a change is significant when its adjusted p is
// at most alpha and it is at least opt.MinEffect. With one run on a side
// the within-run intervals are used (Compare), and only changes of
// SingleRunMinEffect or more can be significant.
func CompareRuns(as, bs []Run, opt Options, alpha float64) (*Result, error) {
	if len(as) == 0 || len(bs) == 0 {
		return nil, errors.New("compare: a side has no runs")
	}
	if alpha <= 0 || alpha >= 1 {
		return nil, fmt.Errorf("alpha %g: want a significance level in (0, 1)", alpha)
	}
	if len(as) < 2 || len(bs) < 2 {
		a, b := as[len(as)-1], bs[len(bs)-1]
		o := opt
		o.MinEffect, o.DirA, o.DirB = math.Max(opt.MinEffect, SingleRunMinEffect), a.Dir, b.Dir
		res, err := Compare(a.Run, b.Run, o)
		if err != nil {
			return nil, err
		}
		res.RunsA, res.RunsB = len(as), len(bs)
		res.Note = fmt.Sprintf("%d run(s) of A and %d of B: one run cannot show run-to-run noise, so only changes of %.0f%% or more beyond the within-run intervals are marked; make 5 or more runs a side (kvbench run --repeat 5) to judge smaller ones",
			len(as), len(bs), 100*SingleRunMinEffect)
		return res, nil
	}
	return compareMany(as, bs, opt, alpha)
}

// metricOf reads one metric of a cell.
var metricOf = []struct {
	name string
	get  func(results.Cell) float64
}{
	{"p50", func(c results.Cell) float64 { return float64(c.Latency.P50) }},
	{"p99", func(c results.Cell) float64 { return float64(c.Latency.P99) }},
	{"ops/s", func(c results.Cell) float64 { return c.ThroughputOps }},
}

func compareMany(as, bs []Run, opt Options, alpha float64) (*Result, error) {
	res := &Result{MinEffect: opt.MinEffect, Alpha: alpha, RunsA: len(as), RunsB: len(bs), TargetNote: targetNote(as[0].Run, bs[0].Run)}
	ka, err := cellsInAll(as)
	if err != nil {
		return nil, err
	}
	kb, err := cellsInAll(bs)
	if err != nil {
		return nil, err
	}
	keysA, keysB := sortedKeys(ka), sortedKeys(kb)
	pairs, onlyA, onlyB := match(keysA, keysB, as[0].TargetKind(), bs[0].TargetKind())
	res.OnlyA, res.OnlyB = onlyA, onlyB
	var ps []float64
	for _, p := range pairs {
		ca, cb := ka[keysA[p.a]], kb[keysB[p.b]]
		ks, err := classDiffs(p.key, ca, cb, opt.MinEffect)
		if err != nil {
			return nil, err
		}
		res.SizeClasses = append(res.SizeClasses, ks...)
		d := CellDiff{Key: p.key}
		d.trust(ca, cb)
		for _, mo := range metricOf {
			d.Metrics = append(d.Metrics, overRuns(mo.name, values(ca, mo.get), values(cb, mo.get)))
		}
		tested, info := figureMetrics(ca, cb, true)
		d.Metrics, d.Figures = append(d.Metrics, tested...), info
		for _, m := range d.Metrics {
			ps = append(ps, m.P)
		}
		res.Cells = append(res.Cells, d)
	}
	adj := stats.Holm(ps)
	i := 0
	for c := range res.Cells {
		for j := range res.Cells[c].Metrics {
			m := &res.Cells[c].Metrics[j]
			m.P = adj[i]
			i++
			m.Significant = m.A.Est > 0 && m.P <= alpha && math.Abs(m.Change) >= opt.MinEffect
			m.Regression = m.Significant && m.Worse() > 0
		}
	}
	slices.SortFunc(res.SizeClasses, orderClasses)
	return res, nil
}

// cellsInAll maps each cell every run has, the whole workload's of a
// mixed run's thresholds among them (withWhole), to its instances, run by
// run.
func cellsInAll(runs []Run) (map[Key][]results.Cell, error) {
	out := map[Key][]results.Cell{}
	for i, r := range runs {
		cells, err := withWhole(r.Cells)
		if err != nil {
			return nil, err
		}
		for _, c := range cells {
			k := keyOf(c)
			if len(out[k]) == i {
				out[k] = append(out[k], c)
			}
		}
	}
	for k, cs := range out {
		if len(cs) != len(runs) {
			delete(out, k)
		}
	}
	return out, nil
}

func sortedKeys(m map[Key][]results.Cell) []Key {
	keys := make([]Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, orderKeys)
	return keys
}

func values(cs []results.Cell, get func(results.Cell) float64) []float64 {
	v := make([]float64, len(cs))
	for i, c := range cs {
		v[i] = get(c)
	}
	return v
}
