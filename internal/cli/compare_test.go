package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/compare"
)

// runsInterleaved makes n runs of the workload into each of dirs A and B,
// interleaved as a comparison on a shared machine should be, and in the
// order A B B A A B ...: a pair's second run (after the first's garbage,
// in a warmer cache) is A's as often as B's, so neither side always
// carries it. extra are flags for B's runs only.
func runsInterleaved(t *testing.T, n int, extra ...string) (string, string) {
	t.Helper()
	root := t.TempDir()
	a, b := filepath.Join(root, "A"), filepath.Join(root, "B")
	type side struct {
		dir   string
		extra []string
	}
	for i := range n {
		pair := []side{{a, nil}, {b, extra}}
		if i%2 == 1 {
			pair[0], pair[1] = pair[1], pair[0]
		}
		for _, side := range pair {
			args := append([]string{"run", "testdata/compare-aa.yaml", "-q", "-o", side.dir}, side.extra...)
			if err := execute(hangGuard(t), &bytes.Buffer{}, args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	return a, b
}

func compareJSON(t *testing.T, a, b string) compare.Result {
	t.Helper()
	var out bytes.Buffer
	if err := execute(hangGuard(t), &out, "compare", a, b, "--format", "json"); err != nil {
		t.Fatal(err)
	}
	var res compare.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// Five runs a side of one build, interleaved: run-to-run noise is not a
// change, and compare marks nothing. Holm's adjustment holds the chance
// that a comparison marks anything in pure noise to alpha (5%), so one
// comparison in twenty of A against A may mark a metric; the test then
// makes a second, fresh one, which must mark nothing: a compare that
// flags noise at its stated rate fails both 1 time in 400, one that
// flags it more often fails the test far more.
func TestCompareAA(t *testing.T) {
	for round := 1; ; round++ {
		flagged := aaFlags(t)
		if len(flagged) == 0 {
			return
		}
		if round == 2 {
			t.Fatalf("A/A, twice in a row: %s", strings.Join(flagged, "; "))
		}
		t.Logf("A/A, round 1: %s; the rate alpha allows, so once more", strings.Join(flagged, "; "))
	}
}

// aaFlags compares five runs a side of one build and lists what compare
// marked significant.
func aaFlags(t *testing.T) []string {
	a, b := runsInterleaved(t, 5)
	res := compareJSON(t, a, b)
	if res.RunsA != 5 || res.RunsB != 5 || len(res.Cells) != 2 {
		t.Fatalf("%d and %d runs, %d cells", res.RunsA, res.RunsB, len(res.Cells))
	}
	var flagged []string
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if m.Significant {
				flagged = append(flagged, fmt.Sprintf("%s %s %+.1f%% marked significant (p %.3g)", c.Key, m.Name, 100*m.Change, m.P))
			}
		}
	}
	return flagged
}

// B runs sixteen operations in flight on its one connection where A runs
// one: each waits behind the others, a real slowdown of every latency,
// which compare finds in every cell and the gate fails on. Eight runs a
// side, and a slowdown of several times, not the +30% of four in flight:
// a few A runs slowed by the packages tested beside this one must not
// leave p above alpha once Holm has adjusted it over six metrics.
func TestCompareAB(t *testing.T) {
	a, b := runsInterleaved(t, 8, "--depth", "16")
	res := compareJSON(t, a, b)
	for _, c := range res.Cells {
		if m := c.Metrics[0]; m.Name != "p50" || !m.Regression {
			t.Errorf("A/B: %s p50 %+.1f%% (p %.3g) not a significant regression", c.Key, 100*m.Change, m.P)
		}
	}
	// --strict: the packages tested beside this one load the host, whose
	// check then fails and would have the gate pass over the slowdown
	// (TestFailOnRegressionSkipsUntrustedUnlessStrict tests that).
	err := execute(hangGuard(t), &bytes.Buffer{}, "compare", a, b, "--fail-on-regression", "10", "--strict")
	if ExitCode(err) != 3 {
		t.Errorf("--fail-on-regression 10 on a slowdown: %v (exit %d), want exit 3", err, ExitCode(err))
	}
}
