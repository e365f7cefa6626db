package tunebench_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/merge"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/tune/tunebench"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// A run of GETs of keys never set, one in ten timing out: run's table,
// report's table, a merge of two such ranks and tune's count of failed
// operations all give the timeouts alone as the cell's errors, the misses
// being the store's answers.
func TestEveryErrorsFigureLeavesOutMisses(t *testing.T) {
	cfg := tunebench.BenchConfig(&benchtest.Fake{FailEvery: 10, FailErr: bench.ErrTimeout})
	cfg.ValueSizes, cfg.Thresholds, cfg.Mix = []int{64}, []int{4096}, workload.Mix{Get: 1}
	rep, err := bench.Run(context.Background(), cfg)
	if err != nil || len(rep.Measurements) != 1 {
		t.Fatalf("%v, %d measurements, want one get cell", err, len(rep.Measurements))
	}
	m := &rep.Measurements[0]
	timeouts, misses := m.Errors[bench.KindTimeout], m.Errors[bench.KindNotFound]
	if timeouts != 20 || misses != 180 {
		t.Fatalf("%d timeouts and %d misses of %d gets, want 20 and 180", timeouts, misses, m.Count)
	}
	if got := tunebench.Failures(m); got != timeouts {
		t.Errorf("tune counts %d failed operations, want %d", got, timeouts)
	}

	cells, err := rep.CellLogs()
	if err != nil {
		t.Fatal(err)
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Workload: map[string]any{"name": "misses"},
		Start: rep.Start, End: rep.End, EndReason: "completed", Rank: &results.Rank{Rank: 0, Ranks: 2}}
	dir, err := results.WriteRun(t.TempDir(), "misses", run, cells, report.WriteSummary)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := report.Write(&table, run, "table"); err != nil {
		t.Fatal(err)
	}
	want := strconv.FormatInt(timeouts, 10)
	for name, out := range map[string]string{"run's table": string(summary), "report's table": table.String()} {
		if got := errorsColumn(t, out); got != want {
			t.Errorf("%s: errors %s, want %s:\n%s", name, got, want, out)
		}
	}

	other := *run
	other.Rank = &results.Rank{Rank: 1, Ranks: 2}
	merged, logs, _, err := merge.Runs([]merge.Part{{Run: run, Dir: dir}, {Run: &other, Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range merged.Ranks {
		if got := r.Cells[0].Errors; got != timeouts {
			t.Errorf("merge: rank %d's errors %d, want %d", r.Rank, got, timeouts)
		}
	}
	if got := logs[0].Cell.Failures(); got != 2*timeouts {
		t.Errorf("merge: the merged cell's errors %d, want %d", got, 2*timeouts)
	}
}

// A tune measurement whose GETs all miss measured answers: tune takes it.
func TestTuneTakesMisses(t *testing.T) {
	m := &tunebench.Measurer{Config: tunebench.BenchConfig(&benchtest.Fake{NoStore: true})}
	if _, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpGet, Size: 64, Protocol: tune.Eager, Load: tune.Load{Connections: 1, Depth: 1}}); err != nil {
		t.Errorf("a measurement of misses: %v", err)
	}
}

// errorsColumn is the errors figure of the one row under a table's header.
func errorsColumn(t *testing.T, table string) string {
	t.Helper()
	lines := strings.Split(table, "\n")
	for i, line := range lines[:len(lines)-1] {
		head := strings.Fields(line)
		col := slices.Index(head, "errors")
		if row := strings.Fields(lines[i+1]); col >= 0 && len(row) == len(head) {
			return row[col]
		}
	}
	t.Fatalf("no row under an errors column in:\n%s", table)
	return ""
}
