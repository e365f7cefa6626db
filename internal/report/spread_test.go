package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

func TestSpreadAcrossThresholds(t *testing.T) {
	cell := func(size, threshold int, proto string, p50 int64) results.Cell {
		return results.Cell{Op: "get", ValueSize: size, Threshold: threshold, Protocol: proto, Count: 100,
			Latency: results.Latency{P50: p50}}
	}
	run := &results.Run{Cells: []results.Cell{
		cell(64, 1024, "eager", 40_000), cell(64, 4096, "eager", 7_400_000), cell(64, 16384, "eager", 46_000),
		cell(4096, 1024, "rendezvous", 1_000_000), cell(4096, 16384, "eager", 200_000),
		cell(65536, 1024, "rendezvous", 2_000_000), cell(65536, 4096, "rendezvous", 2_200_000),
	}}
	rows := Spread(run)
	if len(rows) != 2 {
		t.Fatalf("rows %+v: want 64B eager and 64KiB rendezvous (4KiB has one cell per protocol)", rows)
	}
	if r := rows[0]; r.ValueSize != 64 || r.Thresholds != 3 || r.MinP50 != 40_000 || r.MedianP50 != 46_000 || r.MaxP50 != 7_400_000 || r.Spread != 185 {
		t.Errorf("64B: %+v", r)
	}
	if r := rows[1]; r.ValueSize != 65536 || r.Spread != 1.1 {
		t.Errorf("64KiB: %+v", r)
	}
	var b bytes.Buffer
	if err := WriteSpread(&b, run, "table"); err != nil || !strings.Contains(b.String(), "185.00") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteSpread(&b, &results.Run{}, "table"); err != nil || !strings.Contains(b.String(), "no (op, value size, protocol)") {
		t.Errorf("empty: %v %q", err, b.String())
	}
	if err := WriteSpread(&b, run, "xml"); err == nil {
		t.Error("format xml accepted")
	}
}

// A distribution's cells are not spread across thresholds (each
// threshold splits its sizes between the protocols anew), and the report
// says which distribution its cells' sizes came from.
func TestDistributionCellsReported(t *testing.T) {
	const mix = "weighted: {64B: 1, 1MiB: 1}"
	cell := func(threshold int, proto string, p50 int64) results.Cell {
		return results.Cell{Op: "get", ValueSize: 524320, Distribution: mix, Threshold: threshold, Protocol: proto, Count: 100,
			Latency: results.Latency{P50: p50}}
	}
	run := &results.Run{Cells: []results.Cell{cell(1024, "eager", 40_000), cell(4096, "eager", 45_000), cell(16384, "eager", 90_000)}}
	if rows := Spread(run); len(rows) != 0 {
		t.Errorf("spread of a distribution's cells: %+v", rows)
	}
	var b bytes.Buffer
	if err := Write(&b, run, "table"); err != nil || !strings.Contains(b.String(), "values:     "+mix+", drawn for each value (the value size of its cells, 512.03KiB, is its mean") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := Write(&b, run, "json"); err != nil || strings.Count(b.String(), `"distribution": "`+mix+`"`) != 3 {
		t.Errorf("json: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteSummary(&b, run); err != nil || !strings.Contains(b.String(), "values: "+mix) {
		t.Errorf("summary: %v\n%s", err, b.String())
	}
}

// A replay's note names the trace and sets the gets it recorded as
// misses beside the store's.
func TestReplayNote(t *testing.T) {
	tr := func(misses int64) *results.CellTrace {
		return &results.CellTrace{File: "t.csv", Format: "twitter", Window: "all", Speed: "1", RecordedMisses: misses}
	}
	cells := []results.Cell{
		{Op: "get", Threshold: 1024, ValueSize: 200, Distribution: "trace t.csv (twitter), all, speed 1", Trace: tr(7)},
		{Op: "get", Threshold: 1024, ValueSize: 200, Distribution: "trace t.csv (twitter), all, speed 1", Trace: tr(2)},
		{Op: "get", Threshold: 4096, ValueSize: 200, Distribution: "trace t.csv (twitter), all, speed 1", Trace: tr(9)},
	}
	if n := distributionNote(cells); !strings.HasPrefix(n, "trace t.csv (twitter), all, speed 1, each value of its recorded size") ||
		!strings.HasSuffix(n, "the trace recorded 9 of each threshold's gets as misses, beside the store's not_found answers") {
		t.Errorf("note %q", n)
	}
}
