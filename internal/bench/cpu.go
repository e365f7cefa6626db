package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// serverCPUTimeout bounds each call of Config.ServerCPU, so that a server
// that stops answering costs the cell its server figure, not the run.
const serverCPUTimeout = 5 * time.Second

// CPUTime is CPU time spent in user and in system mode.
type CPUTime struct{ User, Sys time.Duration }

func (t CPUTime) sub(u CPUTime) CPUTime { return CPUTime{t.User - u.User, t.Sys - u.Sys} }

func (t CPUTime) ns() results.CPUTime {
	return results.CPUTime{UserNs: int64(t.User), SysNs: int64(t.Sys)}
}

// PhaseCPU is the CPU time one measure phase took. Each Measurement of
// the phase carries it whole, with the phase's operations over all its
// (op, protocol)s, so figures per operation are over every kind of
// operation in the phase.
type PhaseCPU struct {
	// Process says the server runs inside this process
	// (Config.CPUProcess): Client is then both sides together.
	Process bool
	// Ops is every operation of the phase, failed ones included.
	Ops int64
	// Client is this process's CPU time over the phase.
	Client CPUTime
	// Server is the server's over the phase (Config.ServerCPU); nil when
	// not measured.
	Server *CPUTime
}

// cell is the phase's CPU time as results.json says it.
func (p *PhaseCPU) cell() *results.CellCPU {
	scope := results.CPUScopeClient
	if p.Process {
		scope = results.CPUScopeProcess
	}
	var server *results.CPUTime
	if p.Server != nil {
		s := p.Server.ns()
		server = &s
	}
	return results.NewCellCPU(scope, p.Ops, p.Client.ns(), server)
}

// cpuMark is a reading of both sides' CPU clocks; ok says which were read.
type cpuMark struct {
	client, server     CPUTime
	clientOK, serverOK bool
}

// readCPU reads the CPU clocks at the start (end false) or end of a
// measure phase: the server's first at the start and last at the end, so
// that the client's figure leaves out the client side of the server's
// answer. A reading that fails is logged once per run and side; the
// phase then has no figure for that side.
func (r *runner) readCPU(th, size int, end bool) cpuMark {
	var m cpuMark
	if !end {
		m.server, m.serverOK = r.serverCPU(th, size)
	}
	c, err := processCPU()
	if m.clientOK = err == nil; m.clientOK {
		m.client = c
	} else {
		r.readingFailed(&r.clientCPUWarned, "client CPU time not measured", th, size, err)
	}
	if end {
		m.server, m.serverOK = r.serverCPU(th, size)
	}
	return m
}

// serverCPU asks the server for its CPU time, when the run can: never in
// process scope, where the server's CPU is the process's.
func (r *runner) serverCPU(th, size int) (CPUTime, bool) {
	f := r.cfg.ServerCPU
	if f == nil || r.cfg.CPUProcess {
		return CPUTime{}, false
	}
	ctx, cancel := context.WithTimeout(r.opCtx, serverCPUTimeout)
	defer cancel()
	user, sys, err := f(ctx)
	if err == nil && (user < 0 || sys < 0) {
		err = fmt.Errorf("negative CPU time (user %v, system %v)", user, sys)
	}
	if err != nil {
		r.readingFailed(&r.serverCPUWarned, "server CPU time not measured", th, size, err)
		return CPUTime{}, false
	}
	return CPUTime{user, sys}, true
}

// attachCPU gives every Measurement of a phase the CPU time between the
// phase's two readings, over all their operations.
func (r *runner) attachCPU(ms []Measurement, start, end cpuMark, th, size int) {
	var ops int64
	for _, m := range ms {
		ops += m.Count
	}
	if cpu := r.phaseCPU(start, end, ops, th, size); cpu != nil {
		for i := range ms {
			ms[i].CPU = cpu
		}
	}
}

// phaseCPU is the CPU time between two readings over ops operations; nil
// when the client's clock could not be read at both ends.
func (r *runner) phaseCPU(start, end cpuMark, ops int64, th, size int) *PhaseCPU {
	if !start.clientOK || !end.clientOK {
		return nil
	}
	p := &PhaseCPU{Process: r.cfg.CPUProcess, Ops: ops, Client: end.client.sub(start.client)}
	if start.serverOK && end.serverOK {
		d := end.server.sub(start.server)
		if d.User < 0 || d.Sys < 0 {
			// A restarted server counts from zero again.
			r.readingFailed(&r.serverCPUWarned, "server CPU time not measured", th, size,
				fmt.Errorf("its CPU time went back from %v to %v: was it restarted?", start.server, end.server))
		} else {
			p.Server = &d
		}
	}
	return p
}

// readingFailed logs a failed CPU or counter reading the first time its
// kind fails in the run; the cells it costs simply have no figure for it.
func (r *runner) readingFailed(warned *bool, msg string, th, size int, err error) {
	if *warned || r.cfg.Logger == nil {
		return
	}
	*warned = true
	r.cfg.Logger.Warn(msg+"; cells whose reading fails go without it, and later failures are not logged",
		"threshold", th, "value_size", size, "err", err)
}
