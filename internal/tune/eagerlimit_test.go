package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/rdmakv"
)

func TestEagerUnsupported(t *testing.T) {
	m := newLinear(6)
	m.eagerBase, m.eagerPerByte = 100, 0.01 // eager always faster where it can go
	m.maxEager = 16384
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(4096, 65536), Repeats: 5}, m)
	if err != nil {
		t.Fatal(err)
	}
	// Eager refused at 32KiB and 64KiB is no rendezvous win: the limit is
	// not a crossover.
	o := res.Loads[0].Ops[0]
	if o.Found || o.Crossover != 0 || o.Threshold != 0 || res.Recommended != 0 {
		t.Errorf("found=%v crossover=%d threshold=%d recommended=%d", o.Found, o.Crossover, o.Threshold, res.Recommended)
	}
	if fmt.Sprint(o.EagerUnmeasured) != "[32768 65536]" {
		t.Errorf("eager unmeasured %v", o.EagerUnmeasured)
	}
	for _, p := range o.Points {
		if want := p.Size > 16384; (p.Winner == "unmeasured") != want {
			t.Errorf("%d: winner %q", p.Size, p.Winner)
		}
	}
	// Eager is tried once per unsupported size, then skipped.
	n := 0
	for _, c := range m.calls {
		if c == "get/65536/eager" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("eager at 64KiB tried %d times", n)
	}
}

// limitedRun tunes get over 64B..256KiB against a fake external server that
// refuses eager above 32KiB, as a server with max eager 64KiB refuses
// 64KiB values with their key: the real case that once recommended the
// limit as the crossover.
func limitedRun(t *testing.T, m *linear) *Result {
	t.Helper()
	m.maxEager = 32768
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 256<<10), Repeats: 5, KeySize: 16}, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// tableRow is the table line starting with the size range rng, its cells'
// padding squeezed to one space.
func tableRow(txt, rng string) string {
	for _, l := range strings.Split(txt, "\n") {
		if strings.HasPrefix(l, "| "+rng) {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}

func TestLimitIsNotACrossover(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		// The lines cross near 43KiB: eager wins at every size it can be
		// measured at, rendezvous would win only where eager is refused.
		m := newLinear(seed)
		m.eagerPerByte, m.rdvPerByte = 0.1, 0.01
		res := limitedRun(t, m)
		o := res.Loads[0].Ops[0]
		if o.Found || o.Crossover != 0 || res.Recommended != 0 {
			t.Fatalf("seed %d: found=%v crossover=%d recommended=%d (%s)", seed, o.Found, o.Crossover, res.Recommended, o.Verdict)
		}
		if fmt.Sprint(o.EagerUnmeasured) != "[65536 131072 262144]" {
			t.Errorf("eager unmeasured %v", o.EagerUnmeasured)
		}
		if !strings.Contains(o.EagerUnmeasuredReason, "at 64KiB: size 65536 above max eager") {
			t.Errorf("reason %q", o.EagerUnmeasuredReason)
		}
		var buf bytes.Buffer
		if err := res.WriteTable(&buf); err != nil {
			t.Fatal(err)
		}
		txt := buf.String()
		for _, want := range []string{
			"no crossover was found among the sizes where both protocols were measured, so no threshold is recommended",
			"eager is faster at every size both protocols were measured at (64B to 32KiB)",
			"rendezvous did not win below the server's eager limit, and the crossover, if any, lies at or above 64KiB, where eager was not measured: unknown",
			"a limit set by the server, not a measured crossover",
			"get: eager not measured at 64KiB, 128KiB, 256KiB: the target refused eager there",
			"to measure eager from 64KiB on, raise the server's max eager",
		} {
			if !strings.Contains(txt, want) {
				t.Errorf("seed %d: table lacks %q:\n%s", seed, want, txt)
			}
		}
		if row := tableRow(txt, "[64KiB, 128KiB)"); !strings.Contains(row, "| eager n/a |") || !strings.Contains(row, "| n/a |") {
			t.Errorf("64KiB row %q", row)
		}
		if row := tableRow(txt, "[32KiB, 64KiB)"); !strings.Contains(row, "| eager ") {
			t.Errorf("32KiB row %q", row)
		}
		for _, bad := range []string{"recommended eager threshold", "rendezvous is faster from", "extend values.range.max"} {
			if strings.Contains(txt, bad) {
				t.Errorf("seed %d: table says %q:\n%s", seed, bad, txt)
			}
		}
		js, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"eager_unmeasured":[65536,131072,262144]`) {
			t.Errorf("tune.json lacks eager_unmeasured: %s", js)
		}
		// The chart marks neither a crossover nor a threshold, and the
		// eager curve stops at 32KiB.
		figs := res.Figures()
		if len(figs) != 1 || len(figs[0].Panels[0].Markers) != 0 {
			t.Errorf("figure markers %v", figs[0].Panels[0].Markers)
		}
	}
}

func TestLimitedRunWithMeasuredCrossover(t *testing.T) {
	// The lines cross near 4KiB, far below the limit: that crossover is
	// recommended, and the sizes above the limit are still reported.
	res := limitedRun(t, newLinear(11))
	o := res.Loads[0].Ops[0]
	if !o.Found || o.Crossover != 8192 || o.Threshold != 8192 || res.Recommended != 8192 {
		t.Fatalf("found=%v crossover=%d threshold=%d recommended=%d (%s)", o.Found, o.Crossover, o.Threshold, res.Recommended, o.Verdict)
	}
	if fmt.Sprint(o.EagerUnmeasured) != "[65536 131072 262144]" {
		t.Errorf("eager unmeasured %v", o.EagerUnmeasured)
	}
	var buf bytes.Buffer
	if err := res.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	txt := buf.String()
	for _, want := range []string{
		"recommended eager threshold: 8KiB (8192 bytes), the smallest per-op crossover (get, rendezvous faster from 8KiB)",
		"get: eager not measured at 64KiB, 128KiB, 256KiB: the target refused eager there",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("table lacks %q:\n%s", want, txt)
		}
	}
	if row := tableRow(txt, "[64KiB, 128KiB)"); !strings.Contains(row, "| rendezvous (eager n/a) |") || !strings.Contains(row, "| n/a |") {
		t.Errorf("64KiB row %q", row)
	}
	if figs := res.Figures(); len(figs[0].Panels[0].Markers) != 1 || figs[0].Panels[0].Markers[0] != 8192 {
		t.Errorf("figure markers %v", figs[0].Panels[0].Markers)
	}
}

func TestLoneWinBelowLimitIsNotACrossover(t *testing.T) {
	s := []Sample{{P50: 1}}
	pt := func(size int, winner string) Point {
		return Point{Size: size, Eager: s, Rendezvous: s, Winner: winner}
	}
	unmeasured := Point{Size: 8192, Rendezvous: s, Winner: "unmeasured"}
	o := Analyze(rdmakv.OpGet, []Point{pt(1024, "eager"), pt(2048, "tie"), pt(4096, "rendezvous"), unmeasured}, 0)
	if o.Found || !strings.Contains(o.Verdict, "at or above 8KiB, where eager was not measured: unknown") ||
		!strings.Contains(o.Suggestion, "raise the server's max eager") {
		t.Errorf("found=%v verdict %q suggestion %q", o.Found, o.Verdict, o.Suggestion)
	}
	o = Analyze(rdmakv.OpGet, []Point{{Size: 64, Rendezvous: s}, {Size: 128, Rendezvous: s}}, 0)
	if o.Found || !strings.Contains(o.Verdict, "eager could not be measured at any size (64B to 128B)") {
		t.Errorf("found=%v verdict %q", o.Found, o.Verdict)
	}
}

func TestEmbeddedEagerEverywhere(t *testing.T) {
	// Embedded-like: eager measured at every size, so nothing is reported
	// unmeasured and the measured crossover is recommended as before.
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1<<20), Repeats: 5, KeySize: 16}, newLinear(12))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if !o.Found || o.Crossover != 8192 || res.Recommended != 8192 || len(o.EagerUnmeasured) != 0 {
		t.Errorf("found=%v crossover=%d recommended=%d unmeasured=%v", o.Found, o.Crossover, res.Recommended, o.EagerUnmeasured)
	}
	var buf bytes.Buffer
	if err := res.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "n/a") || strings.Contains(buf.String(), "not measured") {
		t.Errorf("table reports unmeasured sizes:\n%s", buf.String())
	}
	if js, _ := json.Marshal(res); strings.Contains(string(js), "eager_unmeasured") {
		t.Errorf("tune.json: %s", js)
	}
}

func TestCheckEagerLimit(t *testing.T) {
	c := Config{Sizes: []int{1 << 20, 16<<20 - 17, 16 << 20, 32 << 20}, KeySize: 16}
	err := c.CheckEagerLimit(rdmakv.MaxEagerLimit)
	for _, want := range []string{"value size 16MiB needs eager threshold 16777233", "largest max eager 16777216 (16MiB)",
		"eager could not be measured at 16MiB, 32MiB", "at or below 16777199 bytes"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	c.Sizes = c.Sizes[:2] // 16 MiB - 17 with a 16-byte key: threshold exactly 16 MiB
	if err := c.CheckEagerLimit(rdmakv.MaxEagerLimit); err != nil {
		t.Errorf("within the bound: %v", err)
	}
}

func TestSaveGoldenLimited(t *testing.T) {
	// The server-limited case of TestLimitIsNotACrossover, as saved.
	m := newLinear(1)
	m.eagerPerByte, m.rdvPerByte = 0.1, 0.01
	res := limitedRun(t, m)
	dir := t.TempDir()
	if _, err := res.Save(dir); err != nil {
		t.Fatal(err)
	}
	txt, err := os.ReadFile(filepath.Join(dir, TextFile))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, string(txt), "tune-limited.txt.golden")
	var back Result
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &back); err != nil || fmt.Sprint(back.Loads[0].Ops[0].EagerUnmeasured) != "[65536 131072 262144]" {
		t.Errorf("tune.json round trip: %v, %v", err, back.Loads[0].Ops[0].EagerUnmeasured)
	}
}
