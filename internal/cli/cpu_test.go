package cli

import (
	"path/filepath"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

// Against a server of its own, run asks that server for its CPU time
// around every measure phase: each cell has both sides' figures.
func TestRunMeasuresTheServersCPU(t *testing.T) {
	srv := keyServer(t, nil)
	out := t.TempDir()
	if _, err := runCLI(t, "run", "testdata/run-quick.yaml", "--server", srv, "--verify=false", "-o", out, "-q"); err != nil {
		t.Fatal(err)
	}
	run, _, err := results.Open(filepath.Join(out, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range run.Cells {
		cpu := c.CPU
		if cpu == nil || cpu.Scope != results.CPUScopeClient || cpu.Server == nil || cpu.Server.NsPerOp <= 0 || cpu.Client.NsPerOp <= 0 {
			t.Errorf("%s %d %s: cpu %+v", c.Op, c.ValueSize, c.Protocol, cpu)
		}
	}
}

// tune --objective cpu compares the server's CPU per operation, which it
// reads the same way.
func TestTuneObjectiveCPUAgainstAServer(t *testing.T) {
	srv := keyServer(t, nil)
	out := t.TempDir()
	if _, err := runCLI(t, "tune", "testdata/tune-quick.yaml", "--server", srv, "--ops", "get", "--objective", "cpu",
		"--repeats", "2", "-o", out); err != nil {
		t.Fatal(err)
	}
	res := tuneResult(t, out, "tune-quick")
	if res.Objective != tune.ObjCPU || res.Build.Protocol == 0 || res.Build.Revision == "" {
		t.Errorf("objective %q, build %+v", res.Objective, res.Build)
	}
	for _, p := range res.Loads[0].Ops[0].Points {
		for _, s := range append(p.Eager, p.Rendezvous...) {
			if s.CPUScope != "client" || s.ServerCPU <= 0 || s.ClientCPU <= 0 {
				t.Errorf("%d: sample %+v", p.Size, s)
			}
		}
		// The server's default max eager refuses eager at 64KiB.
		if p.RdvValue != median(p.Rendezvous, serverCPU) || (len(p.Eager) > 0 && p.EagerValue != median(p.Eager, serverCPU)) {
			t.Errorf("%d: compared %g and %g, not the server's CPU", p.Size, p.EagerValue, p.RdvValue)
		}
	}
}

func serverCPU(s tune.Sample) float64 { return s.ServerCPU }

func median(ss []tune.Sample, f func(tune.Sample) float64) float64 {
	if len(ss) != 2 {
		return -1
	}
	return (f(ss[0]) + f(ss[1])) / 2
}
