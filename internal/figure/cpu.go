package figure

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// CPU is the CPU time of a cell's measure phase (results.CellCPU): the
// client's, or the whole process's where the server ran inside kvbench,
// and the server's where it was measured, per operation of the phase.
var CPU = Figure{
	Name:  "cpu",
	Unit:  NS,
	Has:   func(c results.Cell) bool { return c.CPU != nil },
	Merge: Merge{New: func() Merger { return &cpuAcc{} }, Warn: cpuWarnings},
	Compare: &Compare{
		Names: []string{"cpu_c", "cpu_s"}, Values: cpuValues, Qualifier: "cpu_scope",
		Note: "cpu_c, cpu_s: CPU time per operation of the measure phase, the client's and the server's (cpu_c is the whole process's where the server ran inside kvbench; - where the runs did not measure it alike); shown, never judged.",
	},
	Report: Report{
		Columns: []Column{
			{Head: "cpu_c/op", Summary: "cpu_c[us/op]", Text: func(c results.Cell, num func(float64) string) string { return num(c.CPU.Client.NsPerOp) }},
			{Head: "cpu_s/op", Summary: "cpu_s[us/op]", Text: cpuServerText},
		},
		CSV:         cpuCSV,
		Note:        cpuNote,
		SummaryNote: cpuSummaryNote,
		JSON:        func(c results.Cell) any { return c.CPU },
	},
	Plot: Lines{Title: "CPU time per operation", Series: []Series{
		{Name: results.CPUScopeClient, Value: cpuClient(results.CPUScopeClient)},
		{Name: results.CPUScopeProcess, Value: cpuClient(results.CPUScopeProcess)},
		{Name: "server", Dashed: true, Value: func(c results.Cell) (float64, bool) {
			if c.CPU.Server == nil {
				return 0, false
			}
			return c.CPU.Server.NsPerOp, true
		}},
	}},
}

// cpuServerText is "proc" for the server of a process-scope cell (its CPU
// is in the client's), "-" where not measured.
func cpuServerText(c results.Cell, num func(float64) string) string {
	switch {
	case c.CPU.Scope == results.CPUScopeProcess:
		return "proc"
	case c.CPU.Server == nil:
		return "-"
	}
	return num(c.CPU.Server.NsPerOp)
}

// cpuCSV are the CPU columns: the scope, the phase's operations, and the
// client's and the server's totals and time per operation.
var cpuCSV = []CSVColumn{
	{"cpu_scope", func(c results.Cell) string { return c.CPU.Scope }},
	{"cpu_phase_ops", func(c results.Cell) string { return strconv.FormatInt(c.CPU.PhaseOps, 10) }},
	{"cpu_client_user_ns", cpuTime(false, func(t results.CPUTime) string { return strconv.FormatInt(t.UserNs, 10) })},
	{"cpu_client_sys_ns", cpuTime(false, func(t results.CPUTime) string { return strconv.FormatInt(t.SysNs, 10) })},
	{"cpu_client_ns_per_op", cpuTime(false, func(t results.CPUTime) string { return strconv.FormatFloat(t.NsPerOp, 'f', -1, 64) })},
	{"cpu_server_user_ns", cpuTime(true, func(t results.CPUTime) string { return strconv.FormatInt(t.UserNs, 10) })},
	{"cpu_server_sys_ns", cpuTime(true, func(t results.CPUTime) string { return strconv.FormatInt(t.SysNs, 10) })},
	{"cpu_server_ns_per_op", cpuTime(true, func(t results.CPUTime) string { return strconv.FormatFloat(t.NsPerOp, 'f', -1, 64) })},
}

// cpuTime prints the client's or the server's CPU time through text;
// empty where the server's was not measured.
func cpuTime(server bool, text func(results.CPUTime) string) func(results.Cell) string {
	return func(c results.Cell) string {
		if !server {
			return text(c.CPU.Client)
		}
		if c.CPU.Server == nil {
			return ""
		}
		return text(*c.CPU.Server)
	}
}

// cpuProcess says whether some cell's CPU figures are in process scope.
func cpuProcess(cells []results.Cell) bool {
	return slices.ContainsFunc(cells, func(c results.Cell) bool {
		return c.CPU != nil && c.CPU.Scope == results.CPUScopeProcess
	})
}

func cpuNote(cells []results.Cell) string {
	if !slices.ContainsFunc(cells, func(c results.Cell) bool { return c.CPU != nil }) {
		return ""
	}
	note := "per operation of the cell's measure phase, over all its operations: cpu_c the client's, cpu_s the server's"
	if cpuProcess(cells) {
		note += "; proc: the server ran inside kvbench, so cpu_c is the process's, both sides together"
	}
	return note
}

func cpuSummaryNote(cells []results.Cell) string {
	if !cpuProcess(cells) {
		return ""
	}
	return "proc marks cells whose server ran inside kvbench: cpu_c is the process's CPU, client and server together"
}

// cpuClient is the client's CPU time per operation where the cell's scope
// is scope.
func cpuClient(scope string) func(results.Cell) (float64, bool) {
	return func(c results.Cell) (float64, bool) { return c.CPU.Client.NsPerOp, c.CPU.Scope == scope }
}

// cpuValues are the CPU time per operation of a cell's runs on side A and
// B: "cpu_c" (the client's, or the process's in process scope) and, when
// every run measured the server's, "cpu_s". None unless every run has CPU
// figures, all in one scope: a process's CPU is not comparable with a
// client's alone.
//
// They are informational. A run has one CPU figure per cell, so one run a
// side gives no noise estimate at all; with several, testing them would
// add up to two metrics per cell to Holm's family and cost the latency
// and throughput metrics their power at the run counts docs/COMPARE.md
// recommends.
func cpuValues(as, bs []results.Cell) ([]Values, string) {
	scope := ""
	server := true
	for _, c := range append(as[:len(as):len(as)], bs...) {
		if c.CPU == nil || (scope != "" && c.CPU.Scope != scope) {
			return nil, ""
		}
		scope = c.CPU.Scope
		server = server && c.CPU.Server != nil
	}
	vs := []Values{Each("cpu_c", as, bs, func(c results.Cell) float64 { return c.CPU.Client.NsPerOp })}
	if server {
		vs = append(vs, Each("cpu_s", as, bs, func(c results.Cell) float64 { return c.CPU.Server.NsPerOp }))
	}
	return vs, scope
}

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

// The issues of a CPU merge (cpuWarnings).
const (
	cpuUneven   = "uneven"    // some rank's cell has none, or the scopes differ
	cpuNoServer = "no server" // ranks are missing: the server's figure is left out
)

func (a *cpuAcc) Add(_ *results.Run, cell results.Cell) error {
	c := cell.CPU
	if c == nil {
		return nil
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
	return nil
}

// Put sets the cell's CPU figures over the job's ranks, the figures per
// operation recomputed from the merged totals. It leaves them out when
// some rank's cell had none (the sum would miss its work) or the ranks'
// scopes differ. The server's figure is kept only when every rank of the
// job is merged, since it covers their operations too.
func (a *cpuAcc) Put(c *results.Cell, job Job) ([]string, error) {
	c.CPU = nil
	switch {
	case a.ranks == 0:
		return nil, nil
	case a.ranks < job.Parts || a.mixed:
		return []string{cpuUneven}, nil
	}
	server := a.server
	if !job.AllRanks {
		server = nil
	}
	c.CPU = results.NewCellCPU(a.scope, a.ops, a.client, server)
	if server == nil && a.server != nil {
		return []string{cpuNoServer}, nil
	}
	return nil, nil
}

// cpuWarnings say which CPU figures the merge left out and why.
func cpuWarnings(issues map[string][]string) []string {
	var w []string
	if cells := issues[cpuUneven]; len(cells) > 0 {
		w = append(w, fmt.Sprintf("cells %s: not every rank recorded CPU time for them, or in the same scope; the merged cells have none",
			strings.Join(cells, ", ")))
	}
	if len(issues[cpuNoServer]) > 0 {
		w = append(w, "ranks are missing, so the merged cells leave out the server's CPU time: it covers the missing ranks' operations too")
	}
	return w
}
