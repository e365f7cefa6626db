package workload

import (
	"testing"
	"time"
)

func TestUntilDecodes(t *testing.T) {
	w, err := LoadFile("testdata/good/until.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wu, mu := w.Phases.Warmup, w.Phases.Measure
	if wu.Until == nil || !wu.Until.Stable || wu.MaxDuration != Duration(20*time.Second) || wu.Duration != Duration(2*time.Second) {
		t.Errorf("warmup %+v until %+v", wu, wu.Until)
	}
	if mu.Until == nil || mu.Until.P99CI != 0.05 || mu.Until.P50CI != 0.005 || mu.Until.Stable {
		t.Errorf("measure until %+v", mu.Until)
	}
	if mu.MaxDuration != Duration(time.Minute) || mu.MaxOps != 5000000 || !mu.Capped() {
		t.Errorf("measure caps %+v", mu)
	}
}

// --duration asks for a fixed length: the file's until and caps go with
// the rest of its phases.measure, and what is left validates.
func TestDurationFlagReplacesUntil(t *testing.T) {
	w, err := LoadFile("testdata/good/until.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w.ApplyOverrides(Overrides{"duration": 3 * time.Second})
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if w.Phases.Measure != (Phase{Duration: Duration(3 * time.Second)}) {
		t.Errorf("measure %+v", w.Phases.Measure)
	}
	if w.Phases.Warmup.Until == nil {
		t.Error("--duration dropped the warmup's until")
	}
}

func TestWarmupUntilWithRamp(t *testing.T) {
	_, err := Parse("r.yaml", []byte("values: {sizes: [1]}\nload: {mode: open, ramp: {start: 10, end: 20, step: 10, step_duration: 1s}}\n"+
		"phases: {warmup: {until: stable, max_duration: 5s}}\n"))
	if err != nil {
		t.Fatalf("a warmup's until beside a ramp: %v", err)
	}
}
