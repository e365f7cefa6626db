package results

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostFixture reads a fixture host taken at atNs on the harness's clock.
func hostFixture(t *testing.T, name string, atNs int64) HostSample {
	t.Helper()
	s := ReadHostSample(filepath.Join("testdata", "host", name))
	if !s.StatOK || !s.OwnOK || len(s.FreqKHz) != 2 {
		t.Fatalf("fixture %s read as %+v", name, s)
	}
	s.AtNs = atNs
	return s
}

// fixturePair is a fixture host's samples before and after a 10 s cell.
func fixturePair(t *testing.T, name string) (before, after HostSample) {
	return hostFixture(t, name+"-before", 0), hostFixture(t, name+"-after", int64(10*time.Second))
}

// verdicts maps each host check's method to its verdict.
func verdicts(checks []Check) map[string]bool {
	out := map[string]bool{}
	for _, k := range checks {
		if k.Name != CheckHost {
			continue
		}
		out[k.Method] = k.Pass
	}
	return out
}

func TestHostChecksQuietHostPasses(t *testing.T) {
	b, a := fixturePair(t, "quiet")
	if b.Own != 4000 || a.Own != 5800 || a.Active-b.Active != 1850 {
		t.Fatalf("readings: own %d then %d, active %d then %d", b.Own, a.Own, b.Active, a.Active)
	}
	got := verdicts(HostChecks(b, a, 0, 4))
	want := map[string]bool{"other processes": true, "steal time": true, "cpu frequency": true}
	if len(got) != len(want) {
		t.Fatalf("checks %v, want %v", got, want)
	}
	for m, pass := range want {
		if got[m] != pass {
			t.Errorf("%s: pass %v, want %v", m, got[m], pass)
		}
	}
}

func TestHostChecksBusyHostFails(t *testing.T) {
	b, a := fixturePair(t, "busy")
	checks := HostChecks(b, a, 0, 4)
	got := verdicts(checks)
	for _, m := range []string{"other processes", "steal time", "cpu frequency"} {
		if pass, ok := got[m]; !ok || pass {
			t.Errorf("%s: made %v, pass %v; want a failed check", m, ok, pass)
		}
	}
	ws := CheckWarnings(checks)
	for _, want := range []string{"12.0% of the host's CPU time stolen", "other processes used 2.48 of 4 CPUs during the cell's 10s"} {
		if len(ws) != 3 || !slices.ContainsFunc(ws, func(w Warning) bool { return strings.Contains(w.Message, want) }) {
			t.Errorf("warnings %+v, want one with %q", ws, want)
		}
	}
}

// cpuSample is a host whose CPUs have worked active jiffies in all, own
// of them this process's, taken at atNs.
func cpuSample(active, own uint64, atNs int64) HostSample {
	return HostSample{AtNs: atNs, Total: 4 * active, Active: active, StatOK: true, Own: own, OwnOK: true}
}

// The run's own threads are no reason to fail: on 2 CPUs, a run whose
// client and embedded server kept 1.1 CPUs busy, with nothing else
// running, passes, though its runnable threads put the load average
// above 2. An external server's CPU time is the run's as well; without
// it, the same busy time is another program's.
func TestHostChecksCountTheRunsOwnCPU(t *testing.T) {
	wall := int64(10 * time.Second)
	alone := verdicts(HostChecks(cpuSample(1000, 1000, 0), cpuSample(2100, 2100, wall), 0, 2))
	if pass, ok := alone["other processes"]; !ok || !pass {
		t.Errorf("a run alone on its host: made %v, pass %v", ok, pass)
	}
	b, a := cpuSample(1000, 1000, 0), cpuSample(2700, 2100, wall)
	if other, _, _ := OtherCPUs(b, a, 6*time.Second); other > 0.001 {
		t.Errorf("external server's 6s subtracted: other %.3f CPUs, want 0", other)
	}
	if got := verdicts(HostChecks(b, a, 6*time.Second, 2)); !got["other processes"] {
		t.Error("a run with its external server on the host failed")
	}
	if got := verdicts(HostChecks(b, a, 0, 2)); got["other processes"] {
		t.Error("0.6 CPUs of another program passed")
	}
}

// A host without cpufreq or /proc (many VMs, other systems) gets no
// check for what it cannot read, rather than a pass; nor does a span too
// short for jiffies to weigh.
func TestHostChecksMissingReadingsMakeNoCheck(t *testing.T) {
	none := ReadHostSample(filepath.Join("testdata", "host", "absent"))
	if none.StatOK || none.OwnOK || len(none.FreqKHz) != 0 {
		t.Fatalf("absent root read as %+v", none)
	}
	if got := HostChecks(none, none, 0, 4); len(got) != 0 {
		t.Errorf("checks without readings: %+v", got)
	}
	q0, q1 := fixturePair(t, "quiet")
	q0.FreqKHz, q1.FreqKHz = nil, nil
	if got := verdicts(HostChecks(q0, q1, 0, 4)); len(got) != 2 || slices.Contains(keys(got), "cpu frequency") {
		t.Errorf("without cpufreq: %v", got)
	}
	q1.OwnOK = false
	if got := verdicts(HostChecks(q0, q1, 0, 4)); slices.Contains(keys(got), "other processes") {
		t.Errorf("without the process's own CPU time: %v", got)
	}
	b, a := fixturePair(t, "busy")
	a.AtNs = int64(200 * time.Millisecond)
	if got := verdicts(HostChecks(b, a, 0, 4)); slices.Contains(keys(got), "other processes") {
		t.Errorf("over 200ms: %v", got)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestBusyPollCheckMoreSpinnersThanCPUsFails(t *testing.T) {
	busy := Transport{Name: "verbs", ClientPoll: "busy", Embedded: true, ServerPoll: "busy"}
	for _, c := range []struct {
		name string
		t    Transport
		load CellLoad
		cpus int
		made bool
		pass bool
	}{
		{"4x2 workers and the server on 8 CPUs", busy, CellLoad{Mode: "closed", Connections: 4, Depth: 2}, 8, true, false},
		{"2 workers and the server on 4 CPUs", busy, CellLoad{Mode: "closed", Connections: 2, Depth: 1}, 4, true, true},
		{"precise open loop adds its dispatcher", Transport{ClientPoll: "busy"}, CellLoad{Mode: "open", Connections: 2, Depth: 1, Pacing: "precise"}, 2, true, false},
		{"event polling spins nothing", Transport{ClientPoll: "event"}, CellLoad{Mode: "closed", Connections: 16, Depth: 4}, 2, false, false},
	} {
		k, ok := BusyPollCheck(c.t, c.load, c.cpus)
		if ok != c.made || ok && k.Pass != c.pass {
			t.Errorf("%s: made %v pass %v (%s), want made %v pass %v", c.name, ok, k.Pass, k.Figure, c.made, c.pass)
		}
	}
}

// The command in /proc/self/stat may hold spaces and parentheses; the
// times are counted from its last closing one.
func TestParseSelfStat(t *testing.T) {
	ticks, ok := parseSelfStat("77 (a) b (c)) R 1 77 77 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0\n")
	if !ok || ticks != 300 {
		t.Errorf("got %d %v, want 300", ticks, ok)
	}
	if _, ok := parseSelfStat("77 (short) R 1 2 3"); ok {
		t.Error("a truncated line parsed")
	}
}

// Softirq and interrupt time serve the run's own traffic (rxe moves
// every RDMA packet in softirq) and belong to no process: they are not
// another program's CPU.
func TestParseStatCPULeavesInterruptsOut(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	total, active, steal, ok := parseStatCPU("cpu  100 10 50 1000 20 7 300 5 0 0\ncpu0 1 2 3\n")
	if !ok || total != 1492 || active != 165 || steal != 5 {
		t.Errorf("total %d, active %d, steal %d, ok %v; want 1492, 165 (user, nice, system, steal), 5", total, active, steal, ok)
	}
}
