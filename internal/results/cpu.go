package results

import (
	"errors"
	"fmt"
)

// CPU scopes: whose CPU time a cell's client figure is.
const (
	// CPUScopeClient: the client figure is kvbench's process alone; the
	// server's, when measured, is the server's own.
	CPUScopeClient = "client"
	// CPUScopeProcess: the server ran inside kvbench's process, so the
	// client figure is both sides together and cannot be split.
	CPUScopeProcess = "process"
)

// CellCPU is the CPU time of the measure phase a cell belongs to. A phase
// yields one cell per (op, protocol) it saw, and each of them carries the
// phase's totals and its operations over all of them: with a mixed
// workload the figures per operation are over every kind of operation in
// the phase, not over the cell's alone.
type CellCPU struct {
	// Scope is CPUScopeClient or CPUScopeProcess.
	Scope string `json:"scope"`
	// PhaseOps counts every operation of the phase, failed ones included,
	// over all its (op, protocol)s; the per-operation figures divide by it.
	PhaseOps int64 `json:"phase_ops"`
	// Client is kvbench's process's CPU time over the phase
	// (getrusage RUSAGE_SELF), the server's too in process scope.
	Client CPUTime `json:"client"`
	// Server is the server's CPU time over the phase as the server
	// reported it; absent when not measured, and always in process scope.
	Server *CPUTime `json:"server,omitempty"`
}

// CPUTime is the CPU time of a phase in nanoseconds: the totals, and per
// operation of the phase.
type CPUTime struct {
	UserNs      int64   `json:"user_ns"`
	SysNs       int64   `json:"sys_ns"`
	UserNsPerOp float64 `json:"user_ns_per_op"`
	SysNsPerOp  float64 `json:"sys_ns_per_op"`
	// NsPerOp is user and system time together per operation.
	NsPerOp float64 `json:"ns_per_op"`
}

// NewCellCPU makes a cell's CPU figures from the phase's totals (UserNs
// and SysNs of client and server; server nil when not measured),
// computing the figures per operation.
func NewCellCPU(scope string, phaseOps int64, client CPUTime, server *CPUTime) *CellCPU {
	c := &CellCPU{Scope: scope, PhaseOps: phaseOps, Client: client}
	if server != nil {
		s := *server
		c.Server = &s
	}
	c.SetPerOp()
	return c
}

// SetPerOp recomputes the figures per operation from the totals and
// PhaseOps (none when PhaseOps is not positive).
func (c *CellCPU) SetPerOp() {
	c.Client = c.Client.per(c.PhaseOps)
	if c.Server != nil {
		s := c.Server.per(c.PhaseOps)
		c.Server = &s
	}
}

func (t CPUTime) per(ops int64) CPUTime {
	t.UserNsPerOp, t.SysNsPerOp, t.NsPerOp = 0, 0, 0
	if ops > 0 {
		n := float64(ops)
		t.UserNsPerOp, t.SysNsPerOp = float64(t.UserNs)/n, float64(t.SysNs)/n
		t.NsPerOp = (float64(t.UserNs) + float64(t.SysNs)) / n
	}
	return t
}

// check reports what no reader could make sense of; count is the cell's
// own operation count, which the phase's includes.
func (c *CellCPU) check(count int64) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("cpu."+format, a...)) }
	switch c.Scope {
	case CPUScopeClient:
	case CPUScopeProcess:
		if c.Server != nil {
			bad("server: a process-scope cell has no server figures (the server ran inside the process)")
		}
	default:
		bad("scope %q: want %s or %s", c.Scope, CPUScopeClient, CPUScopeProcess)
	}
	if c.PhaseOps < 1 || c.PhaseOps < count {
		bad("phase_ops %d: want at least 1 and at least the cell's count %d", c.PhaseOps, count)
	}
	for _, t := range []struct {
		side string
		t    *CPUTime
	}{{"client", &c.Client}, {"server", c.Server}} {
		if t.t != nil && (t.t.UserNs < 0 || t.t.SysNs < 0 || t.t.UserNsPerOp < 0 || t.t.SysNsPerOp < 0 || t.t.NsPerOp < 0) {
			bad("%s: negative CPU time %+v", t.side, *t.t)
		}
	}
	return errors.Join(errs...)
}
