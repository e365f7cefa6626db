package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/results"
)

// TestRunGolden renders testdata/bench, whose reports differ in how many
// rounds they hold (ratios of medians), testdata/paired, three rounds of
// everything (medians of per-round ratios), and testdata/draws, two rounds
// of three draws (each side's fastest draw per round).
func TestRunGolden(t *testing.T) {
	for dir, file := range map[string]string{
		"testdata/bench":  "table.golden",
		"testdata/paired": "table-paired.golden",
		"testdata/draws":  "table-draws.golden",
	} {
		var out bytes.Buffer
		if err := run(dir, &out); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, out.String(), file)
	}
}

// TestComparisonRatio: runs paired by round give the median of their
// ratios, which here differs from the ratio of the medians (1.0 against
// 0.9); reports of unequal length fall back to the latter.
func TestComparisonRatio(t *testing.T) {
	kv, base := series{30, 50, 36}, series{20, 50, 40}
	v, per := comparison{kv: kv, base: base}.ratio()
	if v == nil || *v != 1.0 || !slices.Equal(per, []float64{1.5, 1.0, 0.9}) {
		t.Errorf("paired: got %v, %v; want 1.0 from [1.5 1 0.9]", deref(v), per)
	}
	v, per = comparison{kv: kv, base: series{20, 40}}.ratio()
	if v == nil || *v != 36.0/30 || per != nil {
		t.Errorf("unpaired: got %v, %v; want 1.2 and no per-round ratios", deref(v), per)
	}
	if v, _ := (comparison{kv: kv}).ratio(); v != nil {
		t.Errorf("missing baseline: got %v, want none", *v)
	}
	if v, _ := (comparison{kv: series{1}, base: series{0}}).ratio(); v != nil {
		t.Errorf("zero baseline: got %v, want none", *v)
	}
}

func TestRoundTrip(t *testing.T) {
	if got := roundTrip(series{10, 12}, series{100, 200}); !slices.Equal(got, series{120, 224}) {
		t.Errorf("per round: got %v, want [120 224]", got)
	}
	if got := roundTrip(series{10, 12, 14}, series{100}); !slices.Equal(got, series{124}) {
		t.Errorf("rounds differ: got %v, want the medians' sum [124]", got)
	}
	if got := roundTrip(series{10}, nil); got != nil {
		t.Errorf("missing term: got %v, want nil", got)
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// benchCopy copies testdata/bench into a new directory, without the
// named case directories.
func benchCopy(t *testing.T, without ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/bench")); err != nil {
		t.Fatal(err)
	}
	for _, w := range without {
		if err := os.RemoveAll(filepath.Join(dir, w)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// saveRound writes one round of case name into dir with cell c.
func saveRound(t *testing.T, dir, name, stamp string, c results.Cell) {
	t.Helper()
	rd := filepath.Join(dir, "kvbench-"+name, name+"-"+stamp)
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Transport: results.Transport{Name: "verbs", ClientPoll: "busy"}, Cells: []results.Cell{c}}
	if err := run.Save(rd); err != nil {
		t.Fatal(err)
	}
}

func TestRunBadCell(t *testing.T) {
	eager := results.Cell{Op: "get", ValueSize: smallSize, Protocol: "eager", Count: 100, Latency: results.Latency{P50: 30000}}
	for _, c := range []struct {
		name string
		cell func(results.Cell) results.Cell
		want string
	}{
		{"wrong protocol", func(c results.Cell) results.Cell { c.Protocol = "rendezvous"; return c }, "protocol rendezvous, want eager"},
		{"errors", func(c results.Cell) results.Cell { c.Errors = map[string]int64{"timeout": 3, "not_found": 0}; return c },
			"operations failed: 3 timeout"},
		{"wrong size", func(c results.Cell) results.Cell { c.ValueSize = 128; return c }, "0 measured get cells of 64 bytes, want 1"},
	} {
		dir := benchCopy(t, "kvbench-get-eager-64")
		saveRound(t, dir, "get-eager-64", "20261125-000001", c.cell(eager))
		var out bytes.Buffer
		err := run(dir, &out)
		if err == nil || !strings.Contains(err.Error(), "kvbench-get-eager-64: run 1 (get-eager-64-20261125-000001): "+c.want) {
			t.Errorf("%s: want an error naming the case, the run and %q, got %v", c.name, c.want, err)
		}
	}
}

func TestRunMedianOfRounds(t *testing.T) {
	dir := benchCopy(t, "kvbench-get-eager-64")
	for i, p50 := range []int64{40000, 20000, 30000} {
		c := results.Cell{Op: "get", ValueSize: smallSize, Protocol: "eager", Count: 100, Latency: results.Latency{P50: p50}}
		saveRound(t, dir, "get-eager-64", fmt.Sprintf("20261125-00000%d", i), c)
	}
	// The latest link kvbench leaves is not a round.
	if err := os.Symlink("get-eager-64-20261125-000000", filepath.Join(dir, "kvbench-get-eager-64", results.LatestLink)); err != nil {
		t.Fatal(err)
	}
	r := load(dir)
	if len(r.eagerGet) != 3 || r.eagerGet[0] != 40 || r.eagerGet[1] != 20 || r.eagerGet[2] != 30 {
		t.Fatalf("rounds %v, want 40 20 30 us in run order", r.eagerGet)
	}
	if m := r.eagerGet.med(); m == nil || *m != 30 {
		t.Errorf("median %v, want 30", deref(m))
	}
}

func TestRunMissing(t *testing.T) {
	var out bytes.Buffer
	err := run(t.TempDir(), &out)
	if err == nil {
		t.Fatal("no error for an empty directory")
	}
	for _, f := range []string{"ib_send_lat-64.txt", "ib_send_lat-2.txt", "ib_read_lat-2.txt", "ib_read_lat-65536.txt",
		"ib_write_bw-1048576.txt", "kvbench-get-eager-64", "kvbench-get-rdv-64k", "kvbench-set-1m"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "missing") {
		t.Errorf("table does not mark missing figures:\n%s", out.String())
	}
}

func TestPollNote(t *testing.T) {
	cases := []struct {
		polls map[string]bool
		want  string
	}{
		{map[string]bool{}, "not reported"},
		{map[string]bool{"busy": true}, "busy, client and server"},
		{map[string]bool{"event": true}, "event, client and server (perftest busy-polls"},
		{map[string]bool{"event": true, "busy": true}, "mixed"},
	}
	for _, c := range cases {
		if got := pollNote(c.polls); !strings.HasPrefix(got, c.want) {
			t.Errorf("pollNote(%v) = %q, want prefix %q", c.polls, got, c.want)
		}
	}
}

func TestGuestNotes(t *testing.T) {
	cases := []struct {
		note     func(string) string
		in, want string
	}{
		{clockNote, "", "not recorded"},
		{clockNote, "tsc", "tsc"},
		{clockNote, "hpet", "hpet (slow to read under emulation"},
		{aslrNote, "", "not recorded"},
		{aslrNote, "0", "off"},
		{aslrNote, "2", "on, randomize_va_space=2"},
		{pinNote, "", "not recorded"},
		{pinNote, "off", "off (the guest places threads"},
		{pinNote, "servers on CPU 1, clients on CPU 0", "servers on CPU 1, clients on CPU 0 (perftest and rdmakv alike)"},
		{serverNote, "", "not recorded"},
		{serverNote, "--poll busy --busy-idle 5ms", "--poll busy --busy-idle 5ms"},
	}
	for _, c := range cases {
		if got := c.note(c.in); !strings.HasPrefix(got, c.want) {
			t.Errorf("note(%q) = %q, want prefix %q", c.in, got, c.want)
		}
	}
	var out bytes.Buffer
	run(t.TempDir(), &out)
	for _, want := range []string{"guest clock source: not recorded", "guest address space randomisation: not recorded", "CPU pinning: not recorded"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("a bench dir without guest notes does not say %q:\n%s", want, out.String())
		}
	}
}

func TestGoalVerdict(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lat, bw := goal{limit: 1.3}, goal{limit: 0.8, atLeast: true}
	cases := []struct {
		g    goal
		v    *float64
		want string
	}{
		{lat, f(1.21), "<= 1.3x: met"},
		{lat, f(1.3004), "<= 1.3x: met"}, // printed as 1.30x
		{lat, f(1.306), "<= 1.3x: missed"},
		{lat, f(1.68), "<= 1.3x: missed"},
		{lat, nil, "<= 1.3x: -"},
		{bw, f(0.83), ">= 0.8x: met"},
		{bw, f(0.7996), ">= 0.8x: met"}, // printed as 0.80x
		{bw, f(0.79), ">= 0.8x: missed"},
		{bw, nil, ">= 0.8x: -"},
	}
	for _, c := range cases {
		if got := c.g.verdict(c.v); got != c.want {
			v := "nil"
			if c.v != nil {
				v = fmt.Sprint(*c.v)
			}
			t.Errorf("goal %+v, ratio %s: %q, want %q", c.g, v, got, c.want)
		}
	}
}

func TestBestOfDraws(t *testing.T) {
	s := series{40, 28, 45, 30, 50, 29}
	if got, err := bestOfDraws(s, 3, false); err != nil || !slices.Equal(got, series{28, 29}) {
		t.Errorf("latency: got %v, %v; want [28 29]", got, err)
	}
	if got, err := bestOfDraws(s, 3, true); err != nil || !slices.Equal(got, series{45, 50}) {
		t.Errorf("throughput: got %v, %v; want [45 50]", got, err)
	}
	if got, err := bestOfDraws(s, 1, false); err != nil || !slices.Equal(got, s) {
		t.Errorf("one draw: got %v, %v; want the series as it is", got, err)
	}
	if _, err := bestOfDraws(s, 4, false); err == nil || !strings.Contains(err.Error(), "6 reports are not whole rounds of 4 draws") {
		t.Errorf("6 values in draws of 4: got %v", err)
	}
}

// TestRunDraws: the draws a round holds come from draws.txt; a count that
// does not divide the reports, or a bad file, is an error naming it.
func TestRunDraws(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/draws")); err != nil {
		t.Fatal(err)
	}
	r := load(dir)
	if len(r.errs) > 0 || r.draws != 3 || r.rounds != 2 {
		t.Fatalf("draws %d, rounds %d, errors %v; want 3 draws, 2 rounds, none", r.draws, r.rounds, r.errs)
	}
	if !slices.Equal(r.eagerGet, series{28, 29}) || len(r.every.eagerGet) != 6 {
		t.Errorf("eager GET per round %v (want [28 29]), every draw %v", r.eagerGet, r.every.eagerGet)
	}
	for content, want := range map[string]string{
		"4\n":  "ib_send_lat-64.txt: 6 reports are not whole rounds of 4 draws",
		"many": `draws.txt: want a positive count, got "many"`,
		"0":    `draws.txt: want a positive count, got "0"`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "draws.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(dir, &out); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("draws.txt %q: want an error containing %q, got %v", content, want, err)
		}
	}
}
