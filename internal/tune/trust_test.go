package tune_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// checkedRun is a tune of gets at 64B and 1KiB, 2 repeats, every
// measurement carrying a passed precision check and the third (repeat 1
// of 1KiB, eager first) a failed stationarity check too.
func checkedRun(t *testing.T) *tune.Result {
	t.Helper()
	lin := tune.NewLinear(1)
	n := 0
	m := tune.MeasurerFunc(func(ctx context.Context, r tune.Request) (tune.Sample, error) {
		s, err := lin.Measure(ctx, r)
		s.Checks = []results.Check{{Name: results.CheckPrecision, Method: "bootstrap", Pass: true}}
		if n++; n == 3 {
			s.Checks = append(s.Checks, results.Check{Name: results.CheckStationarity, Method: "mann-kendall", Figure: "p50 drifts", Pass: false})
		}
		return s, err
	})
	return run(t, tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 1024}, Repeats: 2}, m)
}

// A measurement whose cell failed a check is untrusted in tune.json,
// which names the check, and counted so in tune.txt's tally; the others
// are trusted.
func TestUntrustedSampleInTuneFiles(t *testing.T) {
	res := checkedRun(t)
	js, back := tuneJSON(t, res)
	if strings.Count(js, `"trusted": false`) != 1 || strings.Count(js, `"trusted": true`) != 7 {
		t.Errorf("tune.json: want 1 untrusted and 7 trusted measurements:\n%s", js)
	}
	if !strings.Contains(js, "\"failed_checks\": [\n") || !strings.Contains(js, `"stationarity"`) {
		t.Errorf("tune.json does not name the failed check:\n%s", js)
	}
	bad := back.Loads[0].Ops[0].Points[1].Eager[0]
	if bad.Trusted() || len(bad.Checks) != 2 {
		t.Errorf("read back, repeat 1 of 1KiB eager: trusted %v, checks %+v", bad.Trusted(), bad.Checks)
	}
	if got := back.Trust(); got.Checked != 8 || got.Passed != 7 || got.Failed[results.CheckStationarity] != 1 {
		t.Errorf("tally read back %+v, want 7 of 8 passed, stationarity failed in 1", got)
	}
	contains(t, table(t, res), "checks (docs/TRUST.md): 7 of 8 measurements passed every check its median needs; failed: stationarity in 1\n")
}

// A measurement whose p99 only is imprecise (tail_precision) serves a p50
// tune, its map tile unmarked, and not a p99 tune.
func TestTailPrecisionServesAMedianTune(t *testing.T) {
	for _, obj := range []tune.Objective{tune.ObjP50, tune.ObjP99} {
		lin := tune.NewLinear(1)
		m := tune.MeasurerFunc(func(ctx context.Context, r tune.Request) (tune.Sample, error) {
			s, err := lin.Measure(ctx, r)
			s.Count, s.P99 = 5000, 2*s.P50 // enough for a p99 tune to compare
			s.Checks = []results.Check{
				{Name: results.CheckPrecision, Method: results.MethodOrderStatistics, Pass: true},
				{Name: results.CheckTailPrecision, Method: results.MethodOrderStatistics, Pass: r.Size != 1024},
			}
			return s, err
		})
		res := run(t, tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 1024}, Repeats: 2, Objective: obj}, m)
		tr := res.Trust()
		_, cells := res.Map(rdmakv.OpGet)
		median := obj == tune.ObjP50
		if want := map[bool]int{true: 8, false: 4}[median]; tr.Passed != want || tr.Failed[results.CheckTailPrecision] != 4 {
			t.Errorf("%s: tally %+v, want %d passed and tail_precision failed in 4", obj, tr, want)
		}
		if cells[1][0].Untrusted == median {
			t.Errorf("%s: the 1KiB tile untrusted %v", obj, cells[1][0].Untrusted)
		}
	}
}

// A tune whose measurements carry no checks (one saved before they did)
// says nothing of them.
func TestNoChecksNoTally(t *testing.T) {
	res := run(t, tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 1024}, Repeats: 2}, tune.NewLinear(1))
	if txt := table(t, res); strings.Contains(txt, "checks (docs/TRUST.md)") {
		t.Errorf("a tally of no checks:\n%s", txt)
	}
	if js, _ := tuneJSON(t, res); strings.Contains(js, `"trusted"`) {
		t.Errorf("tune.json judges unchecked measurements")
	}
}

// Drawn from trusted measurements alone, the eager curve has no point at
// the size whose repetition failed a check, rendezvous's keeps both, and
// the caption says one point was left out; TuneFigures draws it. The
// map's tile at that size is untrusted.
func TestTrustedTuneFigures(t *testing.T) {
	res := checkedRun(t)
	points := func(f *plot.Figure) map[string]int {
		out := map[string]int{}
		for _, s := range f.Panels[0].Series {
			out[s.Name] = len(s.Points)
		}
		return out
	}
	all, trusted := plot.TuneFigures(res)[0], plot.TrustedTuneFigures(res)[0]
	if got := points(all); got["forced eager"] != 2 || got["forced rendezvous"] != 2 || all.Note != "" {
		t.Errorf("all points: %v, note %q", got, all.Note)
	}
	if got := points(trusted); got["forced eager"] != 1 || got["forced rendezvous"] != 2 {
		t.Errorf("trusted points: %v", got)
	}
	if want := res.Build.String() + "; trusted points only, 1 untrusted point left out"; trusted.Caption != want {
		t.Errorf("caption %q, want %q", trusted.Caption, want)
	}
	if _, cells := res.Map(rdmakv.OpGet); cells[0][0].Untrusted || !cells[1][0].Untrusted {
		t.Errorf("map cells %+v, want 1KiB's alone untrusted", cells)
	}
}
