package results

import "testing"

// Every kind of error is a failure but a miss.
func TestFailuresLeaveOutMisses(t *testing.T) {
	c := Cell{Errors: map[string]int64{"timeout": 2, NotFound: 5, "verify_mismatch": 1}}
	if got := c.Failures(); got != 3 {
		t.Errorf("%v: %d failures, want 3", c.Errors, got)
	}
}
