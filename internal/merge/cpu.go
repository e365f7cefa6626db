package merge

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// cpuAcc accumulates one cell's CPU figures over the ranks. Each rank
// read its own process's CPU time and counted its own operations, so the
// client's totals and the phase's operations sum. The ranks' server
// figures are readings of one server over windows the barriers align, so
// the merged one is the largest rank's total (user and system as that
// rank read them), over the job's operations.
type cpuAcc struct {
	ranks  int // ranks whose cell has CPU figures
	scope  string
	mixed  bool // the ranks' scopes differ
	ops    int64
	client results.CPUTime
	server *results.CPUTime
}

func (a *cpuAcc) add(c *results.CellCPU) {
	if c == nil {
		return
	}
	if a.ranks == 0 {
		a.scope = c.Scope
	}
	a.ranks++
	a.mixed = a.mixed || c.Scope != a.scope
	a.ops += c.PhaseOps
	a.client.UserNs += c.Client.UserNs
	a.client.SysNs += c.Client.SysNs
	if s := c.Server; s != nil && (a.server == nil || s.UserNs+s.SysNs > a.server.UserNs+a.server.SysNs) {
		v := *s
		a.server = &v
	}
}

// merged is the cell's CPU figures over parts ranks. ok is false when
// figures were left out: some rank's cell had none (the sum would miss
// its work) or the ranks' scopes differ. The server's figure is kept only
// when every rank of the job is merged, since it covers their operations
// too.
func (a *cpuAcc) merged(parts int, allRanks bool) (cpu *results.CellCPU, ok bool) {
	switch {
	case a.ranks == 0:
		return nil, true
	case a.ranks < parts || a.mixed:
		return nil, false
	}
	server := a.server
	if !allRanks {
		server = nil
	}
	return results.NewCellCPU(a.scope, a.ops, a.client, server), true
}

// cpuWarnings say which CPU figures the merge left out and why.
func cpuWarnings(uneven []string, noServer bool) []string {
	var w []string
	if len(uneven) > 0 {
		w = append(w, fmt.Sprintf("cells %s: not every rank recorded CPU time for them, or in the same scope; the merged cells have none",
			strings.Join(uneven, ", ")))
	}
	if noServer {
		w = append(w, "ranks are missing, so the merged cells leave out the server's CPU time: it covers the missing ranks' operations too")
	}
	return w
}
