package report

import (
	"strconv"

	"github.com/kvbench/kvbench/internal/results"
)

// cpuScopes says whether any cell has CPU figures, and whether any has
// them in process scope.
func cpuScopes(cells []results.Cell) (cpu, proc bool) {
	for _, c := range cells {
		if c.CPU != nil {
			cpu = true
			proc = proc || c.CPU.Scope == results.CPUScopeProcess
		}
	}
	return cpu, proc
}

// cpuCells are a cell's client and server CPU time per operation, each
// nanosecond figure shown by dur: "-" where not measured, "proc" for the
// server of a process-scope cell (its CPU is in the client's).
func cpuCells(c *results.CellCPU, dur func(ns float64) string) []string {
	switch {
	case c == nil:
		return []string{"-", "-"}
	case c.Scope == results.CPUScopeProcess:
		return []string{dur(c.Client.NsPerOp), "proc"}
	case c.Server == nil:
		return []string{dur(c.Client.NsPerOp), "-"}
	}
	return []string{dur(c.Client.NsPerOp), dur(c.Server.NsPerOp)}
}

// csvCPUColumns are the CSV's CPU columns, every row having them: empty
// where not measured.
var csvCPUColumns = []string{"cpu_scope", "cpu_phase_ops",
	"cpu_client_user_ns", "cpu_client_sys_ns", "cpu_client_ns_per_op",
	"cpu_server_user_ns", "cpu_server_sys_ns", "cpu_server_ns_per_op"}

func csvCPU(c *results.CellCPU) []string {
	out := make([]string, len(csvCPUColumns))
	if c == nil {
		return out
	}
	times := func(t results.CPUTime) []string {
		return []string{strconv.FormatInt(t.UserNs, 10), strconv.FormatInt(t.SysNs, 10), strconv.FormatFloat(t.NsPerOp, 'f', -1, 64)}
	}
	copy(out, append([]string{c.Scope, strconv.FormatInt(c.PhaseOps, 10)}, times(c.Client)...))
	if c.Server != nil {
		copy(out[5:], times(*c.Server))
	}
	return out
}
