package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// Tune's own tests (internal/tune, with its golden files) render whole
// tunes; these check the parts.

func TestTuneProtocolRanges(t *testing.T) {
	tr := newTuneReport(&tune.Result{Config: tune.Config{KeySize: 16}})
	got := fmt.Sprint(tr.protocolRanges(rdmakv.OpGet, 8192)[1:])
	if want := "[[0..8175 eager] [8176..inf rendezvous]]"; got != want {
		t.Errorf("ranges %s, want %s", got, want)
	}
	// Every request carries the key: nothing fits eager.
	if got := fmt.Sprint(tr.protocolRanges(rdmakv.OpGet, 16)[1:]); got != "[[0..inf rendezvous]]" {
		t.Errorf("ranges %s", got)
	}
	// The cells agree with the ranges.
	for size, want := range map[int]string{8175: "eager", 8176: "rendezvous"} {
		p := tune.Point{Size: size, Eager: []tune.Sample{{}}, Winner: tune.WinTie}
		if got := tr.protocolCell(p, 8192); got != want+" (tie)" {
			t.Errorf("%d: %q, want %s (tie)", size, got, want)
		}
	}
}

func TestTuneDisagreementWording(t *testing.T) {
	l := func(c, thr int) tune.LoadResult {
		return tune.LoadResult{Load: tune.Load{Connections: c, Depth: 1}, Recommended: thr}
	}
	for _, c := range []struct {
		loads []tune.LoadResult
		want  string
	}{
		{[]tune.LoadResult{l(1, 4096), l(4, 32768), l(16, 32768)}, "4KiB at 1 connection, 32KiB from 4 connections"},
		{[]tune.LoadResult{l(1, 4096), l(4, 4096), l(16, 0)}, "4KiB at 1 connection to 4 connections, none from 16 connections"},
		{[]tune.LoadResult{l(1, 4096), l(4, 8192), l(16, 4096)}, "4KiB at 1 connection, 8KiB at 4 connections, 4KiB from 16 connections"},
	} {
		if got := disagreement(c.loads); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestGrid(t *testing.T) {
	var b strings.Builder
	writeGrid(&b, [][]string{{"size", "µs", "n"}, {"64B", "1.5", "10"}}, 1)
	want := `+------+-----+----+
| size |  µs |  n |
+------+-----+----+
| 64B  | 1.5 | 10 |
+------+-----+----+
`
	if b.String() != want {
		t.Errorf("grid\n%s\nwant\n%s", b.String(), want)
	}
}
