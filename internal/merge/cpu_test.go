package merge

import (
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// withCPU gives every cell of rank i client figures that grow with i and
// server figures whose largest total is rank 2's, though rank 1 has the
// largest user time alone.
func withCPU(i int, r *results.Run) {
	server := []results.CPUTime{{UserNs: 3e6, SysNs: 1e6}, {UserNs: 5e6, SysNs: 5e5}, {UserNs: 4e6, SysNs: 2e6}}[i%3]
	for k := range r.Cells {
		c := &r.Cells[k]
		c.CPU = results.NewCellCPU(results.CPUScopeClient, c.Count+100*int64(i+1),
			results.CPUTime{UserNs: int64(i+1) * 1e6, SysNs: int64(i+1) * 2e5}, &server)
	}
}

// Client CPU and the phase's operations sum over the ranks; the server's
// figure is the rank's with the largest total, user and system as that
// rank read them; the figures per operation divide the merged totals by
// the merged operations.
func TestMergeCPU(t *testing.T) {
	parts := ranks(t, 3, withCPU)
	_, logs, warnings, err := Runs(parts)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	for k, cl := range logs {
		var ops int64
		for _, p := range parts {
			ops += p.Run.Cells[k].CPU.PhaseOps
		}
		want := results.NewCellCPU(results.CPUScopeClient, ops, results.CPUTime{UserNs: 6e6, SysNs: 12e5},
			&results.CPUTime{UserNs: 4e6, SysNs: 2e6})
		got := cl.Cell.CPU
		if got == nil || got.Scope != want.Scope || got.PhaseOps != ops || got.Client != want.Client || got.Server == nil || *got.Server != *want.Server {
			t.Errorf("%s: merged CPU %+v server %+v, want %+v server %+v", cl.Cell.Name(), got, got.Server, want, *want.Server)
		}
	}
}

// A cell some rank has no CPU figures for, or figures in another scope,
// merges without them, and the merge says which; the other cells keep
// theirs.
func TestMergeCPUUneven(t *testing.T) {
	for name, mod := range map[string]func(*results.Cell){
		"absent": func(c *results.Cell) { c.CPU = nil },
		"scope":  func(c *results.Cell) { c.CPU.Scope, c.CPU.Server = results.CPUScopeProcess, nil },
	} {
		t.Run(name, func(t *testing.T) {
			parts := ranks(t, 3, func(i int, r *results.Run) {
				withCPU(i, r)
				if i == 1 {
					mod(&r.Cells[0])
				}
			})
			_, logs, warnings, err := Runs(parts)
			if err != nil {
				t.Fatal(err)
			}
			first := parts[0].Run.Cells[0].Name()
			if len(warnings) != 1 || !strings.Contains(warnings[0], "cells "+first+":") {
				t.Errorf("warnings %q, want one naming %s alone", warnings, first)
			}
			for _, cl := range logs {
				if got, want := cl.Cell.CPU != nil, cl.Cell.Name() != first; got != want {
					t.Errorf("%s: CPU %+v", cl.Cell.Name(), cl.Cell.CPU)
				}
			}
		})
	}
}

// With a rank missing, the server's figure would count the missing rank's
// work over the merged ranks' operations: the merge leaves it out and
// says so, keeping the client's.
func TestMergeCPUMissingRank(t *testing.T) {
	parts := ranks(t, 3, withCPU)
	_, logs, warnings, err := Runs(parts[:2])
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(warnings, "\n"); !strings.Contains(w, "leave out the server's CPU time") {
		t.Errorf("warnings %q", w)
	}
	for k, cl := range logs {
		c := cl.Cell.CPU
		if c == nil || c.Server != nil || c.Client.UserNs != 3e6 || c.PhaseOps != parts[0].Run.Cells[k].CPU.PhaseOps+parts[1].Run.Cells[k].CPU.PhaseOps {
			t.Errorf("%s: CPU %+v, want two ranks' client figures and no server", cl.Cell.Name(), c)
		}
	}
}
