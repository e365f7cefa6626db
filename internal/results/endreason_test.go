package results

import "testing"

func TestEndFailure(t *testing.T) {
	for _, c := range []struct {
		reason, msg string
		failed      bool
	}{
		{EndError("dial tcp: refused"), "dial tcp: refused", true},
		{"error: rank 2: error: late", "rank 2: error: late", true},
		{EndCompleted, EndCompleted, false},
		{EndInterrupted, EndInterrupted, false},
		{EndPartial, EndPartial, false},
		{"errors: 3", "errors: 3", false},
	} {
		if msg, failed := EndFailure(c.reason); msg != c.msg || failed != c.failed {
			t.Errorf("EndFailure(%q) = %q, %v; want %q, %v", c.reason, msg, failed, c.msg, c.failed)
		}
	}
}

// Runs written before the reasons had names must read the same.
func TestEndReasonsOnDisk(t *testing.T) {
	for got, want := range map[string]string{EndCompleted: "completed", EndInterrupted: "interrupted", EndError("x"): "error: x"} {
		if got != want {
			t.Errorf("end reason %q, want %q as results.json has always said", got, want)
		}
	}
}
