package browsertest

import "testing"

// Assert fails the test for each of the page's problems (see Problems) and
// logs its console warnings.
func Assert(t testing.TB, r Result) {
	t.Helper()
	for _, m := range r.Console {
		if m.Level == "warning" {
			t.Logf("browsertest: %s: console %s", r.URL, m)
		}
	}
	for _, p := range r.Problems() {
		t.Errorf("browsertest: %s: %s", r.URL, p)
	}
}
