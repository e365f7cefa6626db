package report

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// checkedRun has a cell whose stationarity check failed, one whose checks
// all passed and one never checked.
func checkedRun() *results.Run {
	pass := []results.Check{
		{Name: results.CheckPrecision, Method: results.MethodOrderStatistics, Figure: "p50 ±0.4%, p99 ±3%", Pass: true},
		{Name: results.CheckStationarity, Method: results.MethodIntervalMax, Figure: "0 of 8 1s intervals stalled", Pass: true},
	}
	fail := []results.Check{pass[0], {Name: results.CheckStationarity, Method: results.MethodIntervalMax,
		Figure: "8 of 8 1s intervals stalled", Pass: false}}
	cell := func(op string, size int, checks []results.Check) results.Cell {
		return results.Cell{Op: op, ValueSize: size, Threshold: 4096, Protocol: "eager", Store: "rdmakv", Count: 1000,
			Checks: checks, Warnings: results.CheckWarnings(checks)}
	}
	return &results.Run{Cells: []results.Cell{cell("get", 64, fail), cell("get", 128, pass), cell("set", 64, nil)}}
}

func TestReportShowsChecks(t *testing.T) {
	run := checkedRun()
	want := []string{"get/64B/t=4KiB/eager: 1 of 2 checks passed; stationarity failed: 8 of 8 1s intervals stalled (interval max)",
		"every check passed in 1 cell"}
	for _, format := range []string{"table", "markdown", "summary"} {
		out := write(t, run, format)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", format, w, out)
			}
		}
	}
	recs, err := csv.NewReader(strings.NewReader(write(t, run, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	field := func(row int, name string) string {
		for i, h := range recs[0] {
			if h == name {
				return recs[row][i]
			}
		}
		return "?"
	}
	if field(1, "checks_passed") != "1/2" || field(1, "checks_failed") != "stationarity/interval max" ||
		field(2, "checks_passed") != "2/2" || field(3, "checks_passed") != "" {
		t.Errorf("csv rows %q", recs[1:])
	}
	var doc struct {
		Cells []struct{ Checks []results.Check }
	}
	if err := json.Unmarshal([]byte(write(t, run, "json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cells) != 3 || len(doc.Cells[0].Checks) != 2 || doc.Cells[0].Checks[1].Pass || len(doc.Cells[2].Checks) != 0 {
		t.Errorf("json cells %+v", doc.Cells)
	}
}
