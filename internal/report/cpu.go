package report

import (
	"strconv"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// cpuScopes says whether any row has CPU figures, and whether any has
// them in process scope.
func cpuScopes(rows []Row) (cpu, proc bool) {
	for _, r := range rows {
		if r.CPU != nil {
			cpu = true
			proc = proc || r.CPU.Scope == results.CPUScopeProcess
		}
	}
	return cpu, proc
}

// cpuCells are a row's cpu_c/op and cpu_s/op: "-" where not measured,
// "proc" for the server of a process-scope cell (its CPU is in cpu_c).
func cpuCells(c *results.CellCPU) []string {
	switch {
	case c == nil:
		return []string{"-", "-"}
	case c.Scope == results.CPUScopeProcess:
		return []string{units.Duration(c.Client.NsPerOp), "proc"}
	case c.Server == nil:
		return []string{units.Duration(c.Client.NsPerOp), "-"}
	}
	return []string{units.Duration(c.Client.NsPerOp), units.Duration(c.Server.NsPerOp)}
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
