package cli

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// trustSides writes A and B, B's gets 30% slower; when stalled, B's get
// cells carry a failed stationarity check.
func trustSides(t *testing.T, stalled bool) (string, string) {
	t.Helper()
	root := t.TempDir()
	a, b := filepath.Join(root, "A"), filepath.Join(root, "B")
	spec := resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64}, Thresholds: []int{4096},
		Samples: 5000, Intervals: 5, Seed: 1, Model: resultstest.Default}
	if _, err := resultstest.Build(a, spec); err != nil {
		t.Fatal(err)
	}
	spec.Seed, spec.Scale = 2, map[string]float64{"get": 1.3}
	run, err := resultstest.Build(b, spec)
	if err != nil {
		t.Fatal(err)
	}
	if stalled {
		for i, c := range run.Cells {
			if c.Op == "get" {
				run.Cells[i].Checks = []results.Check{{Name: results.CheckStationarity, Method: results.MethodIntervalMax,
					Figure: "5 of 5 1s intervals stalled", Pass: false}}
			}
		}
		if err := run.Save(b); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

func TestFailOnRegressionSkipsUntrustedUnlessStrict(t *testing.T) {
	exit := func(a, b string, extra ...string) (string, int) {
		var out bytes.Buffer
		err := execute(hangGuard(t), &out, append([]string{"compare", a, b, "--fail-on-regression", "10"}, extra...)...)
		var ee *ExitError
		switch {
		case err == nil:
			return out.String(), 0
		case errors.As(err, &ee):
			return out.String(), ee.Code
		}
		t.Fatal(err)
		return "", -1
	}
	a, b := trustSides(t, true)
	out, code := exit(a, b)
	if code != 0 || !strings.Contains(out, "REGRESSED !") || !strings.Contains(out, "B: stationarity (interval max)") {
		t.Errorf("untrusted regression: exit %d, output\n%s", code, out)
	}
	if _, code := exit(a, b, "--strict"); code != 3 {
		t.Errorf("untrusted regression with --strict: exit %d, want 3", code)
	}
	a, b = trustSides(t, false)
	if out, code := exit(a, b); code != 3 || strings.Contains(out, "!") {
		t.Errorf("trusted regression: exit %d, want 3; output\n%s", code, out)
	}
}
