package results_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// legacyBaseline is a redis run recorded before cells kept their store:
// each cell's protocol is the kind's name, its interval log named after
// it (hlog/t0-v64-get-redis.hlog), and so are the cells of its ranks.
const legacyBaseline = "testdata/baseline-protocol-kind"

// A results.json whose baseline cells have the kind in protocol loads as
// the form that replaced it: the kind as the cell's store, eager as its
// protocol, the cell named after its store, its interval log read under
// its old name. Its cells are those of the same run recorded now, but for
// the logs' names.
func TestLegacyBaselineCells(t *testing.T) {
	old, err := results.Load(legacyBaseline)
	if err != nil {
		t.Fatal(err)
	}
	if old.TargetKind() != "redis" || old.TargetLabel() != "redis 7.0.15" || len(old.Cells) != 4 {
		t.Fatalf("target %+v, %d cells", old.Target, len(old.Cells))
	}
	for _, c := range old.Cells {
		if c.Store != "redis" || c.Protocol != "eager" || c.Threshold != 0 || !c.Baseline() {
			t.Errorf("%s: store %q protocol %q threshold %d baseline %v", c.Name(), c.Store, c.Protocol, c.Threshold, c.Baseline())
		}
		if want := "redis " + c.Op + "/"; !strings.HasPrefix(c.Name(), want) || !strings.HasSuffix(c.Name(), "/t=0B/eager") {
			t.Errorf("cell named %q", c.Name())
		}
		if !strings.HasSuffix(c.Hlog, "-redis.hlog") || c.Hlog == results.HlogName(c) {
			t.Errorf("%s: interval log %q, want its old name", c.Name(), c.Hlog)
		}
		h, err := results.CellHlogMerged(legacyBaseline, c)
		if err != nil || h.TotalCount() != c.Count {
			t.Errorf("%s: interval log %v, %d values for %d operations", c.Name(), err, h.TotalCount(), c.Count)
		}
	}
	for _, rc := range old.Ranks[0].Cells {
		if !strings.HasPrefix(rc.Name, "redis ") || !strings.HasSuffix(rc.Name, "/t=0B/eager") {
			t.Errorf("rank cell %q keeps its old name", rc.Name)
		}
	}

	now, err := resultstest.Build(t.TempDir(), resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096},
		Samples: 400, Intervals: 2, Seed: 7, Model: resultstest.Default, Kind: "redis", ServerVersion: "7.0.15"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range now.Cells {
		o, n := old.Cells[i], now.Cells[i]
		if n.Hlog != results.HlogName(n) || !strings.HasPrefix(filepath.Base(n.Hlog), "redis-t0-") {
			t.Errorf("%s: recorded now, interval log %q", n.Name(), n.Hlog)
		}
		o.Hlog, n.Hlog = "", ""
		if !reflect.DeepEqual(o, n) {
			t.Errorf("cell %d loaded %+v, recorded now %+v", i, o, n)
		}
	}

	// Saved again, the run keeps the new form, and its logs' old names.
	dir := t.TempDir()
	if err := old.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := results.Load(dir)
	if err != nil || !reflect.DeepEqual(back.Cells, old.Cells) || !reflect.DeepEqual(back.Ranks, old.Ranks) {
		t.Errorf("saved and loaded again: %v\n%+v\nwant %+v", err, back.Cells, old.Cells)
	}
}

// rdmakv's cells recorded before the store was kept are rdmakv's, their
// names and interval logs' names unchanged.
func TestLegacyRdmakvCells(t *testing.T) {
	run, err := results.Load("testdata/threshold-sweep-tcp.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range run.Cells {
		if c.Store != results.KindRdmakv || c.Baseline() || strings.Contains(c.Name(), " ") || (c.Hlog != "" && c.Hlog != results.HlogName(c)) {
			t.Errorf("%s: store %q, hlog %q (named now %q)", c.Name(), c.Store, c.Hlog, results.HlogName(c))
		}
	}
}

// A cell's name and interval log carry its store when it is not rdmakv's,
// so two stores' cells of one op, size and protocol never share either.
func TestNamesPerStore(t *testing.T) {
	c := results.Cell{Op: "get", ValueSize: 64, Protocol: "eager", Store: "rdmakv"}
	r, m := c, c
	r.Store, m.Store = "redis", "memcached"
	names := map[string]bool{}
	logs := map[string]bool{}
	for _, x := range []results.Cell{c, r, m} {
		names[x.Name()], logs[results.HlogName(x)] = true, true
	}
	if len(names) != 3 || len(logs) != 3 {
		t.Errorf("names %v, logs %v: want one each per store", names, logs)
	}
	if c.Name() != "get/64B/t=0B/eager" || r.Name() != "redis get/64B/t=0B/eager" || results.HlogName(r) != "hlog/redis-t0-v64-get-eager.hlog" ||
		results.HlogName(c) != "hlog/t0-v64-get-eager.hlog" {
		t.Errorf("names %q %q, logs %q %q", c.Name(), r.Name(), results.HlogName(c), results.HlogName(r))
	}
	if got := results.ProtocolLabel("redis", "eager") + "|" + results.ProtocolLabel("rdmakv", "eager"); got != "redis eager|eager" {
		t.Errorf("protocol labels %q", got)
	}
}
