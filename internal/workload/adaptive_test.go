package workload

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// The adaptive block reaches rdmakv field by field, says what it set, and
// is recorded as given; without one the policy takes rdmakv's defaults
// and nothing is recorded.
func TestAdaptiveBlock(t *testing.T) {
	w, err := LoadFile("testdata/good/adaptive.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := rdmakv.AdaptiveConfig{MaxThreshold: 16 << 10, Explore: 0.05, Window: 2 * time.Second, Dwell: time.Second,
		Margin: 0.1, BackMargin: 0.25, Samples: 128}
	if got := w.AdaptiveConfig(); got != want {
		t.Errorf("config %+v, want %+v", got, want)
	}
	if got, want := w.Adaptive.String(), "adaptive: {explore: 0.05, window: 2s, dwell: 1s, margin: 0.1, back_margin: 0.25, samples: 128, max_threshold: 16KiB}"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if rec := `"adaptive":{"explore":0.05,"window":2000000000,"dwell":1000000000,"margin":0.1,"back_margin":0.25,"samples":128,"max_threshold":16384}`; !strings.Contains(string(b), rec) {
		t.Errorf("recorded as %s, want %s in it", b, rec)
	}

	w, err = Parse("w.yaml", []byte("values: {sizes: [64]}\nthresholds: [adaptive]\nadaptive: {per_connection: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !w.Adaptive.PerConnection || w.Adaptive.String() != "adaptive: {per_connection: true}" {
		t.Errorf("per_connection: %+v, %q", w.Adaptive, w.Adaptive.String())
	}

	w, err = Parse("w.yaml", []byte("values: {sizes: [64]}\nthresholds: [adaptive]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w.AdaptiveConfig() != (rdmakv.AdaptiveConfig{}) || w.Adaptive.String() != "" {
		t.Errorf("no block: config %+v, %q", w.AdaptiveConfig(), w.Adaptive.String())
	}
	if b, _ := json.Marshal(w); strings.Contains(string(b), `"adaptive":{`) {
		t.Errorf("no block, recorded as %s", b)
	}
}

// The block applies to the adaptive threshold alone: with a profile, which
// replaces the thresholds, it is refused at its line.
func TestAdaptiveWithProfile(t *testing.T) {
	_, err := Parse("w.yaml", []byte("target: {profile: p.json}\nvalues: {sizes: [64]}\nthresholds: [adaptive]\nadaptive: {explore: 0.1}\n"))
	if err == nil || !strings.Contains(err.Error(), "w.yaml:4:1: adaptive: target.profile (line 1) replaces the thresholds") {
		t.Errorf("error %v, want the block refused beside target.profile", err)
	}
}
