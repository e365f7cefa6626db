package report

import (
	"bytes"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/results"
)

// The summary format keeps misses apart from errors; a warned cell gets a
// "!" and its warnings follow the table; cpu_c and cpu_s appear when some
// cell has CPU figures, "-" where the server was not measured, "proc"
// where it ran inside kvbench, with a note saying what cpu_c then is.
func TestSummaryGolden(t *testing.T) {
	for fixture, want := range map[string]string{
		"sample":       "summary.golden",
		"warnings":     "summary-warnings.golden",
		"cpu":          "summary-cpu.golden",
		"cpu-noserver": "summary-cpu-noserver.golden",
		"cpu-process":  "summary-cpu-process.golden",
	} {
		t.Run(fixture, func(t *testing.T) {
			run, _, err := results.Open("testdata/summary/" + fixture + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, run, "summary"); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, buf.String(), want)
		})
	}
}

// The summary lists the cells in the order they ran, as run printed them
// while it went, where the other formats sort them.
func TestSummaryKeepsRunOrder(t *testing.T) {
	run, _, err := results.Open("testdata/summary/cpu.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSummary(&buf, run); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n"))[1:4] {
		ops = append(ops, string(bytes.Fields(line)[3]))
	}
	if got := ops[0] + " " + ops[1] + " " + ops[2]; got != "get set delete" {
		t.Errorf("rows %s, want get set delete as the cells ran", got)
	}
}
