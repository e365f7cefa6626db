package compare

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
)

// cpuMetrics sets the CPU time per operation of a cell's runs on side A
// against side B: "cpu_c" (the client's, or the process's in process
// scope) and, when every run measured the server's, "cpu_s". None unless
// every run has CPU figures, all in one scope: a process's CPU is not
// comparable with a client's alone.
//
// They are informational. A run has one CPU figure per cell, so one run a
// side gives no noise estimate at all; with several, testing them would
// add up to two metrics per cell to Holm's family and cost the latency
// and throughput metrics their power at the run counts docs/COMPARE.md
// recommends.
func cpuMetrics(as, bs []results.Cell) ([]Metric, string) {
	scope := ""
	server := true
	for _, c := range append(as[:len(as):len(as)], bs...) {
		if c.CPU == nil || (scope != "" && c.CPU.Scope != scope) {
			return nil, ""
		}
		scope = c.CPU.Scope
		server = server && c.CPU.Server != nil
	}
	ms := []Metric{informational("cpu_c", as, bs, func(c *results.CellCPU) float64 { return c.Client.NsPerOp })}
	if server {
		ms = append(ms, informational("cpu_s", as, bs, func(c *results.CellCPU) float64 { return c.Server.NsPerOp }))
	}
	return ms, scope
}

// informational is a metric shown but never judged: each side's figure,
// or with several runs their median and range.
func informational(name string, as, bs []results.Cell, get func(*results.CellCPU) float64) Metric {
	va, vb := make([]float64, len(as)), make([]float64, len(bs))
	for i, c := range as {
		va[i] = get(c.CPU)
	}
	for i, c := range bs {
		vb[i] = get(c.CPU)
	}
	m := Metric{Name: name, A: stats.Spread(va), B: stats.Spread(vb), Informational: true,
		Method: "one figure per run: informational, not judged"}
	if len(va) > 1 || len(vb) > 1 {
		m.Method = fmt.Sprintf("median and range over %d and %d runs: informational, not judged", len(va), len(vb))
	}
	if m.A.Est > 0 {
		m.Change = (m.B.Est - m.A.Est) / m.A.Est
	}
	return m
}
