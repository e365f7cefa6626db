package results

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func hostFixture(t *testing.T, name string) HostSample {
	t.Helper()
	s := ReadHostSample(filepath.Join("testdata", "host", name))
	if !s.LoadOK || !s.StatOK || len(s.FreqKHz) != 2 {
		t.Fatalf("fixture %s read as %+v", name, s)
	}
	return s
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
	got := verdicts(HostChecks(hostFixture(t, "quiet-before"), hostFixture(t, "quiet-after"), 0.9, 4))
	want := map[string]bool{"load average": true, "steal time": true, "cpu frequency": true}
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
	checks := HostChecks(hostFixture(t, "busy-before"), hostFixture(t, "busy-after"), 0.9, 4)
	got := verdicts(checks)
	for _, m := range []string{"load average", "steal time", "cpu frequency"} {
		if pass, ok := got[m]; !ok || pass {
			t.Errorf("%s: made %v, pass %v; want a failed check", m, ok, pass)
		}
	}
	ws := CheckWarnings(checks)
	if len(ws) != 3 || !slices.ContainsFunc(ws, func(w Warning) bool { return strings.Contains(w.Message, "12.0% of the host's CPU time stolen") }) {
		t.Errorf("warnings %+v", ws)
	}
}

// The run's own load is no reason to fail: a load of 6.5 is within a run
// that keeps 6 CPUs busy and the margin.
func TestHostChecksLoadCountsTheRunsOwnCPUs(t *testing.T) {
	got := verdicts(HostChecks(hostFixture(t, "busy-before"), hostFixture(t, "busy-after"), 6, 8))
	if !got["load average"] {
		t.Error("load 6.5 failed a run using 6 of 8 CPUs")
	}
}

// A host without cpufreq or /proc (many VMs, other systems) gets no
// check for what it cannot read, rather than a pass.
func TestHostChecksMissingReadingsMakeNoCheck(t *testing.T) {
	none := ReadHostSample(filepath.Join("testdata", "host", "absent"))
	if none.LoadOK || none.StatOK || len(none.FreqKHz) != 0 {
		t.Fatalf("absent root read as %+v", none)
	}
	if got := HostChecks(none, none, 1, 4); len(got) != 0 {
		t.Errorf("checks without readings: %+v", got)
	}
	q0, q1 := hostFixture(t, "quiet-before"), hostFixture(t, "quiet-after")
	q0.FreqKHz, q1.FreqKHz = nil, nil
	if got := verdicts(HostChecks(q0, q1, 1, 4)); len(got) != 2 || slices.Contains(keys(got), "cpu frequency") {
		t.Errorf("without cpufreq: %v", got)
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
