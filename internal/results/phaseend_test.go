package results

import (
	"strings"
	"testing"
)

func TestUntilNotMet(t *testing.T) {
	for _, tc := range []struct {
		name            string
		warmup, measure *PhaseEnd
		want            string // "" for no warning
	}{
		{"no ends", nil, nil, ""},
		{"fixed length", nil, &PhaseEnd{Reason: EndDuration, DurationNs: 1e9}, ""},
		{"precision", nil, &PhaseEnd{Reason: EndPrecision, DurationNs: 1e9, Until: true}, ""},
		{"measure capped", nil, &PhaseEnd{Reason: EndMaxOps, DurationNs: 1e9, Until: true}, "measure phase ended at its max_ops"},
		{"warmup capped", &PhaseEnd{Reason: EndMaxDuration, DurationNs: 2e9, Until: true},
			&PhaseEnd{Reason: EndDuration, DurationNs: 1e9}, "warmup phase ended at its max_duration"},
		{"interrupted", nil, &PhaseEnd{Reason: EndInterrupted, DurationNs: 1e9, Until: true}, ""},
	} {
		w, ok := UntilNotMet(Cell{WarmupEnd: tc.warmup, MeasureEnd: tc.measure})
		if ok != (tc.want != "") || (ok && (w.Kind != WarnUntilNotMet || !strings.Contains(w.Message, tc.want))) {
			t.Errorf("%s: %+v %v, want %q", tc.name, w, ok, tc.want)
		}
	}
}
