package results

import (
	"strings"
	"testing"
)

// cpuRun is the sample run with two more cells, as a run of one phase
// split three ways; server is the server's phase totals (nil: not
// measured) and scope the cells' scope.
func cpuRun(t *testing.T, scope string, server *CPUTime) *Run {
	r := sampleRun(t, "")
	get := r.Cells[0]
	set, del := get, get
	set.Op, set.Count, set.Errors = "set", 1000, map[string]int64{}
	del.Op, del.Count, del.Errors = "delete", 2, map[string]int64{}
	r.Cells = append(r.Cells, set, del)
	ops := get.Count + set.Count + del.Count
	for i := range r.Cells {
		r.Cells[i].CPU = NewCellCPU(scope, ops, CPUTime{UserNs: 9_000_000, SysNs: 3_012_000}, server)
	}
	return r
}

func TestNewCellCPU(t *testing.T) {
	c := NewCellCPU(CPUScopeClient, 4, CPUTime{UserNs: 10, SysNs: 6}, &CPUTime{UserNs: 2, SysNs: 1})
	want := CellCPU{Scope: "client", PhaseOps: 4,
		Client: CPUTime{UserNs: 10, SysNs: 6, UserNsPerOp: 2.5, SysNsPerOp: 1.5, NsPerOp: 4},
		Server: &CPUTime{UserNs: 2, SysNs: 1, UserNsPerOp: 0.5, SysNsPerOp: 0.25, NsPerOp: 0.75}}
	if c.Scope != want.Scope || c.PhaseOps != want.PhaseOps || c.Client != want.Client || *c.Server != *want.Server {
		t.Errorf("got %+v server %+v, want %+v server %+v", c, c.Server, want, want.Server)
	}
}

// A cell's CPU figures survive results.json, and a cell without them
// writes no cpu field.
func TestCPURoundTrip(t *testing.T) {
	r := cpuRun(t, CPUScopeClient, &CPUTime{UserNs: 5_000_000, SysNs: 1_000_000})
	r.Cells[2].CPU = nil
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	c, w := got.Cells[0].CPU, r.Cells[0].CPU
	if c == nil || c.Scope != w.Scope || c.PhaseOps != w.PhaseOps || c.Client != w.Client || *c.Server != *w.Server {
		t.Errorf("read back %+v, wrote %+v", c, w)
	}
	if got.Cells[2].CPU != nil || strings.Count(string(b), `"cpu":`) != 2 {
		t.Errorf("a cell without CPU figures: %+v, %d cpu fields written", got.Cells[2].CPU, strings.Count(string(b), `"cpu":`))
	}
}

func TestDecodeRejectsBadCPU(t *testing.T) {
	cell := func(cpu string) string {
		return `{"schema_version": 1, "cells": [{"op": "get", "count": 10, "cpu": ` + cpu + `}]}`
	}
	for doc, want := range map[string]string{
		cell(`{"scope": "both", "phase_ops": 10}`):                                `cpu.scope "both"`,
		cell(`{"scope": "process", "phase_ops": 10, "server": {"user_ns": 1}}`):   "process-scope cell has no server",
		cell(`{"scope": "client", "phase_ops": 0}`):                               "phase_ops 0",
		cell(`{"scope": "client", "phase_ops": 9}`):                               "the cell's count 10",
		cell(`{"scope": "client", "phase_ops": 10, "client": {"sys_ns": -1}}`):    "cpu.client: negative",
		cell(`{"scope": "client", "phase_ops": 10, "server": {"ns_per_op": -1}}`): "cpu.server: negative",
	} {
		if _, err := Decode([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", doc, err, want)
		}
	}
}
