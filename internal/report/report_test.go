package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
	"gotest.tools/v3/golden"
)

func TestGolden(t *testing.T) {
	run, _, err := results.Open("testdata")
	if err != nil {
		t.Fatal(err)
	}
	// Listed here, not taken from Formats, so a format that goes missing
	// fails the test instead of dropping out of it.
	want := []string{"table", "markdown", "csv", "json", "html", "summary"}
	if !slices.Equal(Formats, want) {
		t.Errorf("Formats = %v, want %v", Formats, want)
	}
	assertGoldens(t, run, textOf(want), Write, "report")
}

// assertGoldens holds what write makes of run in each of formats against
// the golden file name.FORMAT.golden.
func assertGoldens(t *testing.T, run *results.Run, formats []string, write func(io.Writer, *results.Run, string) error, name string) {
	t.Helper()
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := write(&buf, run, format); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, buf.String(), name+"."+format+".golden")
		})
	}
}

func TestRowsOrderAndErrors(t *testing.T) {
	run, _, err := results.Open("testdata/results.json")
	if err != nil {
		t.Fatal(err)
	}
	rows := Rows(run)
	var got []string
	for _, r := range rows {
		got = append(got, r.Op+"/"+units.Bytes(int64(r.ValueSize))+"/"+units.Bytes(int64(r.Threshold)))
	}
	want := "get/64B/4KiB get/4KiB/0B get/4KiB/8KiB get/1MiB/4KiB set/64B/4KiB"
	if strings.Join(got, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(got, " "), want)
	}
	if rows[3].Errors != 2 {
		t.Errorf("errors summed to %d, want 2", rows[3].Errors)
	}
	// A miss (not_found) is the store's answer, not an error.
	if rows[0].Errors != 0 {
		t.Errorf("3 misses counted as %d errors, want 0", rows[0].Errors)
	}
}

func TestUnknownFormat(t *testing.T) {
	run, _, err := results.Open("testdata")
	if err != nil {
		t.Fatal(err)
	}
	err = Write(&bytes.Buffer{}, run, "xml")
	if err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("err = %v, want unknown format naming xml", err)
	}
}

func FuzzDecode(f *testing.F) {
	data, err := os.ReadFile("testdata/results.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"schema_version":1}`))
	for _, dir := range []string{"phases", "cpu"} {
		if b, err := os.ReadFile("testdata/" + dir + "/results.json"); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		run, err := results.Decode(b)
		if err != nil {
			return
		}
		for _, format := range Formats {
			if err := Write(&bytes.Buffer{}, run, format); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			err := WritePhases(&bytes.Buffer{}, run, format)
			if err != nil && !errors.Is(err, ErrNoPhases) && slices.Contains(viewFormats, format) {
				t.Fatalf("%s phases: %v", format, err)
			}
		}
	})
}

func TestPhasesGolden(t *testing.T) {
	run, _, err := results.Open("testdata/phases")
	if err != nil {
		t.Fatal(err)
	}
	assertGoldens(t, run, textOf(viewFormats), WritePhases, "report-phases")
	rows, names := PhaseRows(run)
	if len(rows) != len(run.Cells) || strings.Join(names, " ") != "client network server read release write commit" {
		t.Errorf("%d rows of %d cells, phases %v", len(rows), len(run.Cells), names)
	}
}

// The summary is the cells' alone: the phases and the spread refuse it,
// naming the formats they have.
func TestViewsRefuseSummary(t *testing.T) {
	run, _, err := results.Open("testdata/phases")
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(io.Writer, *results.Run, string) error{"phases": WritePhases, "spread": WriteSpread} {
		err := write(&bytes.Buffer{}, run, "summary")
		if err == nil || !strings.Contains(err.Error(), `"summary" (want one of table, markdown, csv, json, html)`) {
			t.Errorf("%s: %v, want an error naming the view's formats", name, err)
		}
	}
}

func TestPhasesAbsent(t *testing.T) {
	run, _, err := results.Open("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePhases(&bytes.Buffer{}, run, "table"); !errors.Is(err, ErrNoPhases) {
		t.Errorf("a run without phases: %v, want ErrNoPhases", err)
	}
}

// A run with CPU figures gets cpu_c/op and cpu_s/op in table and markdown
// ("-" where not measured), a note in the header, the figures in CSV
// columns every row has and the cell's cpu object in JSON.
func TestCPUGolden(t *testing.T) {
	run, _, err := results.Open("testdata/cpu")
	if err != nil {
		t.Fatal(err)
	}
	assertGoldens(t, run, textOf(Formats), Write, "report-cpu")
}

// In process scope the server's column says proc, and the header says
// that cpu_c holds both sides.
func TestCPUProcessScope(t *testing.T) {
	run, _, err := results.Open("testdata/cpu")
	if err != nil {
		t.Fatal(err)
	}
	for i := range run.Cells {
		if c := run.Cells[i].CPU; c != nil {
			c.Scope, c.Server = results.CPUScopeProcess, nil
		}
	}
	for _, format := range []string{"table", "markdown"} {
		var buf bytes.Buffer
		if err := Write(&buf, run, format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Count(out, "proc") < 4 || !strings.Contains(out, "cpu_c is the process's, both sides together") {
			t.Errorf("%s:\n%s", format, out)
		}
	}
}
