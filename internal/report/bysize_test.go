package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// mixedRun is a run of one mixed op at two thresholds: at 8KiB its small
// classes went eager and its large ones rendezvous, at 1MiB all eager; its
// sizes were clamped, which a warning says.
func mixedRun() *results.Run {
	const law = "uniform: {min: 1KiB, max: 64KiB}, max: 8KiB"
	cell := func(th int, proto string, ks ...results.SizeClass) results.Cell {
		return results.Cell{Op: "set", ValueSize: 7700, Distribution: law, Threshold: th, Protocol: proto, Store: "rdmakv", SizeClasses: ks}
	}
	k := func(class, n, bytes, p50 int64) results.SizeClass {
		return results.SizeClass{Class: class, Count: n, Bytes: bytes, P50: p50, P99: 3 * p50}
	}
	cells := []results.Cell{
		cell(8192, "eager", k(2048, 60, 90000, 21000), k(4096, 140, 420000, 24000)),
		cell(8192, "rendezvous", k(8192, 800, 6553600, 61000)),
		cell(1<<20, "eager", k(2048, 55, 82000, 20000), k(4096, 150, 450000, 23000), k(8192, 795, 6512640, 30000)),
	}
	for i := range cells {
		c := &cells[i]
		c.Sizes = &results.SizeMix{Protocols: map[string]results.ProtocolShare{}}
		for _, o := range cells {
			if o.Threshold != c.Threshold {
				continue
			}
			var s results.ProtocolShare
			for _, k := range o.SizeClasses {
				s.Count, s.Bytes = s.Count+k.Count, s.Bytes+k.Bytes
			}
			c.Sizes.Protocols[o.Protocol] = s
		}
		c.Sizes.SetShares()
		c.Warnings = []results.Warning{{Kind: results.WarnSizesOffLaw, Message: "sizes off the law (fixture)"}}
	}
	return &results.Run{Workload: map[string]any{"name": "mixed"}, Cells: cells}
}

func TestBySizeGolden(t *testing.T) {
	assertGoldens(t, mixedRun(), textOf(viewFormats), WriteBySize, "report-bysize")
	gs := SizeGroups(mixedRun())
	if len(gs) != 2 || len(gs[0].Classes) != 3 || gs[0].Classes[2].Protocol != "rendezvous" {
		t.Errorf("groups %+v", gs)
	}
	if err := WriteBySize(&bytes.Buffer{}, mixedRun(), "summary"); err == nil || !strings.Contains(err.Error(), `"summary"`) {
		t.Errorf("format summary: %v, want an error naming it", err)
	}
	run, _, err := results.Open("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteBySize(&bytes.Buffer{}, run, "table"); !errors.Is(err, ErrNoSizeClasses) {
		t.Errorf("a run of fixed sizes: %v, want ErrNoSizeClasses", err)
	}
}
