package compare

import (
	"bytes"
	"slices"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
)

// withCPU gives every cell of run CPU figures of client and server ns
// per operation (server 0: not measured) over the cell's count.
func withCPU(run *results.Run, scope string, client, server int64) {
	for i := range run.Cells {
		c := &run.Cells[i]
		var s *results.CPUTime
		if server > 0 {
			s = &results.CPUTime{UserNs: server * c.Count}
		}
		c.CPU = results.NewCellCPU(scope, c.Count, results.CPUTime{SysNs: client * c.Count}, s)
	}
}

// CPU per operation is shown for both sides with its change, higher
// being worse, but never judged: no mark, no regression, no verdict.
func TestCPUInformational(t *testing.T) {
	a, b := build(t, "", spec(1, nil)), build(t, "", spec(2, map[string]float64{"set": 1.3}))
	plain, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	withCPU(a, results.CPUScopeClient, 5000, 2000)
	withCPU(b, results.CPUScopeClient, 6000, 1000)
	a.Cells[0].CPU.Server = nil // get/64B: the client's alone
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Cells {
		cpu, _ := c.Figure("cpu")
		if want := 2 - btoi(i == 0); len(cpu.Metrics) != want || cpu.Qualifier != "client" {
			t.Fatalf("%s: CPU %+v, want %d metrics", c.Key, cpu, want)
		}
		cc, cs := cpu.Metrics[0], cpu.Metrics[len(cpu.Metrics)-1]
		if cc.Name != "cpu_c" || cc.A.Est != 5000 || cc.B.Est != 6000 || cc.Change != 0.2 || cc.Worse() <= 0 ||
			(i > 0 && (cs.Name != "cpu_s" || cs.Change != -0.5 || cs.Worse() >= 0)) {
			t.Errorf("%s: %+v %+v", c.Key, cc, cs)
		}
		for _, m := range cpu.Metrics {
			if !m.Informational || m.Significant || m.Regression || m.delta() != fmtChange(m.Change) {
				t.Errorf("%s %s: judged %+v, delta %q", c.Key, m.Name, m, m.delta())
			}
		}
		if c.verdict() != plain.Cells[i].verdict() {
			t.Errorf("%s: verdict %q, %q without CPU figures", c.Key, c.verdict(), plain.Cells[i].verdict())
		}
	}
	if !slices.Equal(res.Regressions(0, false), plain.Regressions(0, false)) {
		t.Errorf("regressions %v, %v without CPU figures", res.Regressions(0, false), plain.Regressions(0, false))
	}
	var buf bytes.Buffer
	if err := res.Write(&buf, "table"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, buf.String(), "compare-cpu.table.golden")
}

func fmtChange(c float64) string { return (Metric{Change: c, Known: true}).delta() }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A process's CPU is not a client's: runs of different scopes, or a side
// without figures, compare no CPU; a side without the server's compares
// the client's alone.
func TestCPUOnlyAlike(t *testing.T) {
	for name, c := range map[string]struct {
		scopeB  string
		serverB int64
		want    []string
	}{
		"scope":     {results.CPUScopeProcess, 0, nil},
		"no server": {results.CPUScopeClient, 0, []string{"cpu_c"}},
		"absent":    {"", 0, nil},
	} {
		a, b := build(t, "", spec(1, nil)), build(t, "", spec(2, nil))
		withCPU(a, results.CPUScopeClient, 5000, 2000)
		if c.scopeB != "" {
			withCPU(b, c.scopeB, 6000, c.serverB)
		}
		res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Cells {
			var got []string
			cpu, _ := d.Figure("cpu")
			for _, m := range cpu.Metrics {
				got = append(got, m.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %s compares %v, want %v", name, d.Key, got, c.want)
			}
		}
		if res.hasFigure(figure.CPU) != (c.want != nil) {
			t.Errorf("%s: CPU columns %v", name, res.hasFigure(figure.CPU))
		}
	}
}

// With several runs a side CPU shows each side's median and range, and
// leaves the test over the runs as it is without it: the same p-values,
// adjusted over the same family.
func TestCPUManyRuns(t *testing.T) {
	sides := func() ([]Run, []Run) {
		as, err := LoadSide(side(t, 3, 1, func(int) float64 { return 1 }))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := LoadSide(side(t, 3, 11, func(int) float64 { return 1.3 }))
		if err != nil {
			t.Fatal(err)
		}
		return as, bs
	}
	plainA, plainB := sides()
	plain, err := CompareRuns(plainA, plainB, Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	as, bs := sides()
	for i, ns := range []int64{4800, 5000, 5200} {
		withCPU(as[i].Run, results.CPUScopeClient, ns, 0)
		withCPU(bs[i].Run, results.CPUScopeClient, ns+1000, 0)
	}
	res, err := CompareRuns(as, bs, Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Cells {
		cpu, _ := c.Figure("cpu")
		m := cpu.Metrics[0]
		if len(cpu.Metrics) != 1 || m.A != (stats.Interval{Est: 5000, Lo: 4800, Hi: 5200}) || m.B.Est != 6000 || m.Change != 0.2 || m.Significant {
			t.Errorf("%s: CPU %+v", c.Key, cpu)
		}
		for j, m := range c.Metrics {
			if p := plain.Cells[i].Metrics[j].P; m.P != p {
				t.Errorf("%s %s: p %g, %g without CPU figures", c.Key, m.Name, m.P, p)
			}
		}
	}
}
