package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

func storeRun(t *testing.T, kind, version string) *results.Run {
	t.Helper()
	run, err := resultstest.Build("", resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096},
		Thresholds: []int{4096}, Samples: 200, Intervals: 1, Seed: 1, Model: resultstest.Default,
		Kind: kind, ServerVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func write(t *testing.T, run *results.Run, format string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, run, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The header names the store beside the transport; a baseline's rows
// show no threshold, and its store before the protocol its operations
// took (eager); csv and json have the store in a field of its own.
func TestBaselineReport(t *testing.T) {
	run := storeRun(t, "redis", "7.0.15")
	table := write(t, run, "table")
	if !strings.Contains(table, "target:     redis 7.0.15\ntransport:  tcp\n") {
		t.Errorf("table header lacks the target:\n%s", table)
	}
	rows := 0
	for line := range strings.Lines(table) {
		if f := strings.Fields(line); len(f) > 4 && (f[0] == "get" || f[0] == "set") {
			rows++
			if f[2] != "-" || f[3] != "redis" || f[4] != "eager" {
				t.Errorf("row %q: want threshold - and protocol redis eager", line)
			}
		}
	}
	if rows != len(run.Cells) {
		t.Errorf("%d rows, want %d", rows, len(run.Cells))
	}
	if md := write(t, run, "markdown"); !strings.Contains(md, "- **target**: redis 7.0.15\n") || !strings.Contains(md, "| get | 64B | - | redis eager |") {
		t.Errorf("markdown:\n%s", md)
	}
	recs, err := csv.NewReader(strings.NewReader(write(t, run, "csv"))).ReadAll()
	last := len(recs[0]) - 1
	if err != nil || recs[0][2] != "threshold" || recs[1][2] != "" || recs[1][3] != "eager" || recs[0][last] != "store" || recs[1][last] != "redis" {
		t.Errorf("csv %v: %q", err, recs[:2])
	}
	var doc struct {
		Target results.Target
		Cells  []Row
	}
	if err := json.Unmarshal([]byte(write(t, run, "json")), &doc); err != nil || doc.Target != *run.Target {
		t.Errorf("json target %+v (%v), want %+v", doc.Target, err, *run.Target)
	}
	for _, r := range doc.Cells {
		if r.Store != "redis" || r.Protocol != "eager" {
			t.Errorf("json row %+v: want store redis, protocol eager", r)
		}
	}
	rows = 0
	for line := range strings.Lines(write(t, run, "summary")) {
		if f := strings.Fields(line); len(f) > 4 && f[2] == "redis" {
			rows++
			if f[0] != "-" || f[3] != "eager" {
				t.Errorf("summary row %q: want threshold - and protocol redis eager", line)
			}
		}
	}
	if rows != len(run.Cells) {
		t.Errorf("summary: %d rows of redis, want %d", rows, len(run.Cells))
	}
}

// An rdmakv run names its protocol version; a run recorded before the
// kind was kept is rdmakv.
func TestRdmakvTarget(t *testing.T) {
	run := storeRun(t, "", "")
	run.Protocol = 5
	table := write(t, run, "table")
	if !strings.Contains(table, "target:     rdmakv, protocol 5\n") {
		t.Errorf("table header lacks the target:\n%s", table)
	}
	for line := range strings.Lines(table) {
		if f := strings.Fields(line); len(f) > 4 && f[0] == "get" && f[2] != "4KiB" {
			t.Errorf("row %q: want threshold 4KiB", line)
		}
	}
}

// A baseline run recorded when its cells had the kind in protocol reads
// as the same run recorded now, in every format.
func TestLegacyBaselineReport(t *testing.T) {
	old, err := results.Load("../results/testdata/baseline-protocol-kind")
	if err != nil {
		t.Fatal(err)
	}
	now, err := resultstest.Build(t.TempDir(), resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096},
		Samples: 400, Intervals: 2, Seed: 7, Model: resultstest.Default, Kind: "redis", ServerVersion: "7.0.15"})
	if err != nil {
		t.Fatal(err)
	}
	now.Version, now.Transport = old.Version, old.Transport
	// An html page names the interval logs it could not draw, whose file
	// names changed with the kind.
	for _, format := range textOf(Formats) {
		if a, b := write(t, old, format), write(t, now, format); a != b {
			t.Errorf("%s: the old run reads\n%s\nthe run recorded now\n%s", format, a, b)
		}
	}
	if table := write(t, old, "table"); !strings.Contains(table, "get    64B          -  redis eager") {
		t.Errorf("table:\n%s", table)
	}
}
