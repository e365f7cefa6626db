package compare

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// storeSpec is a run of kind over sizes; rdmakv at thresholds 4KiB and
// 64KiB.
func storeSpec(seed uint64, kind, version string, sizes ...int) resultstest.Spec {
	return resultstest.Spec{Ops: []string{"get", "set"}, Sizes: sizes, Thresholds: []int{4096, 65536},
		Samples: 2000, Intervals: 3, Seed: seed, Model: resultstest.Default, Kind: kind, ServerVersion: version}
}

func TestStoresMatchedByOpAndSize(t *testing.T) {
	a := build(t, "", storeSpec(1, "redis", "7.0.15", 64, 4096, 65536))
	b := build(t, "", storeSpec(2, results.KindRdmakv, "", 64, 4096, 65536, 262144))
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	// Every rdmakv cell of a size redis measured sits beside redis's
	// cell of its op and size, under its own key.
	redis := map[Key]results.Cell{}
	for _, c := range a.Cells {
		redis[Key{Op: c.Op, ValueSize: c.ValueSize}] = c
	}
	var want []Key
	for _, c := range b.Cells {
		if c.ValueSize < 262144 {
			want = append(want, keyOf(c))
		}
	}
	slices.SortFunc(want, orderKeys)
	var got []Key
	for _, d := range res.Cells {
		got = append(got, d.Key)
		ca := redis[Key{Op: d.Key.Op, ValueSize: d.Key.ValueSize}]
		if ops := d.Metrics[2]; ops.A.Est != ca.ThroughputOps {
			t.Errorf("%s: A ops/s %v, want redis's %v", d.Key, ops.A.Est, ca.ThroughputOps)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("matched %v, want %v", got, want)
	}
	if len(res.OnlyA) != 0 || len(res.OnlyB) != 4 {
		t.Errorf("only in A %v, only in B %v; want the 4 rdmakv cells of 256KiB in B", res.OnlyA, res.OnlyB)
	}
	var out bytes.Buffer
	if err := res.Write(&out, "table"); err != nil {
		t.Fatal(err)
	}
	note := "note: A measured redis 7.0.15, B measured rdmakv (tcp); cells are matched by op and value size\n"
	if !strings.Contains(out.String(), note) {
		t.Errorf("table lacks %q:\n%s", note, out.String())
	}
}

func TestTwoBaselines(t *testing.T) {
	a := build(t, "", storeSpec(1, "memcached", "1.6.18", 64, 4096))
	b := build(t, "", storeSpec(2, "redis", "", 64, 4096))
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 4 || res.Cells[0].Key != (Key{Op: "get", ValueSize: 64}) || res.Cells[0].Key.String() != "get/64B" {
		t.Fatalf("cells %+v", res.Cells)
	}
	if res.TargetNote != "A measured memcached 1.6.18, B measured redis; cells are matched by op and value size" {
		t.Errorf("note %q", res.TargetNote)
	}
	var out bytes.Buffer
	if err := res.Write(&out, "table"); err != nil {
		t.Fatal(err)
	}
	// No threshold or protocol to show: each is "-".
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 4 && f[0] == "get" && (f[2] != "-" || f[3] != "-") {
			t.Errorf("row %q: want threshold and protocol -", line)
		}
	}
	// Runs of one store match on the whole key and carry no note.
	same, err := Compare(b, b, Options{MinEffect: DefaultMinEffect})
	if err != nil || same.TargetNote != "" || len(same.Cells) != 4 || same.Cells[0].Key.Store != "redis" || same.Cells[0].Key.Protocol != "eager" ||
		same.Cells[0].Key.String() != "redis get/64B/eager" {
		t.Errorf("redis against redis: %v, note %q, cells %+v", err, same.TargetNote, same.Cells)
	}
	// Its rows show no threshold, and the store before the protocol.
	out.Reset()
	if err := same.Write(&out, "table"); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 5 && f[0] == "get" && (f[2] != "-" || f[3] != "redis" || f[4] != "eager") {
			t.Errorf("row %q: want threshold - and protocol redis eager", line)
		}
	}
}

func TestStoreSidesOfSeveralRuns(t *testing.T) {
	sideOf := func(kind, version string, seed uint64) []Run {
		root := t.TempDir()
		var runs []Run
		for i := range 2 {
			dir := filepath.Join(root, fmt.Sprintf("run-%d", i))
			run := build(t, dir, storeSpec(seed+uint64(i), kind, version, 64, 4096))
			runs = append(runs, Run{run, dir})
		}
		return runs
	}
	res, err := CompareRuns(sideOf(results.KindRdmakv, "", 1), sideOf("memcached", "1.6.18", 10), Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	// 2 ops x 2 sizes x 2 thresholds of rdmakv, each beside memcached's.
	if len(res.Cells) != 8 || len(res.OnlyA)+len(res.OnlyB) != 0 {
		t.Fatalf("%d cells, only %v %v", len(res.Cells), res.OnlyA, res.OnlyB)
	}
	for _, d := range res.Cells {
		if d.Key.Threshold == 0 || d.Key.baseline() {
			t.Errorf("%s: want the rdmakv cell's key", d.Key)
		}
	}
	if !strings.Contains(res.TargetNote, "A measured rdmakv (tcp), B measured memcached 1.6.18") {
		t.Errorf("note %q", res.TargetNote)
	}
}

// A cell whose sizes follow a distribution, named by its mean, matches
// only a cell of the same distribution, never a fixed size that happens
// to equal the mean.
func TestDistributionCellsMatchTheirOwn(t *testing.T) {
	a := build(t, "", storeSpec(1, results.KindRdmakv, "", 64, 4096))
	b := build(t, "", storeSpec(2, results.KindRdmakv, "", 64, 4096))
	c := build(t, "", storeSpec(3, results.KindRdmakv, "", 64, 4096))
	const mix = "weighted: {64B: 1, 8128B: 1}"
	for i := range b.Cells {
		if b.Cells[i].ValueSize == 4096 {
			b.Cells[i].Distribution = mix
		}
	}
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	// B's distribution also has its whole workload at each threshold
	// (results.WholeCells), which A's fixed sizes have not.
	if len(res.Cells) != 4 || len(res.OnlyA) != 4 || len(res.OnlyB) != 6 || res.OnlyB[0].Distribution != mix {
		t.Errorf("fixed against a distribution of the same mean: matched %d, only A %v, only B %v", len(res.Cells), res.OnlyA, res.OnlyB)
	}
	for i := range c.Cells {
		if c.Cells[i].ValueSize == 4096 {
			c.Cells[i].Distribution = mix
		}
	}
	if res, err = Compare(b, c, Options{MinEffect: DefaultMinEffect}); err != nil || len(res.Cells) != 10 {
		t.Errorf("the same distribution: matched %d cells, %v", len(res.Cells), err)
	}
}
