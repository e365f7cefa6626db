package compare

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
)

// FigureDiff is one figure's informational metrics of a matched cell
// (figure.Compare): each side's figures, never judged.
type FigureDiff struct {
	// Figure is the figure's name (figure.Figure.Name).
	Figure  string
	Metrics []Metric
	// Qualifier is what qualifies the metrics, as the figure says (CPU's
	// scope: "client", or "process" where the server ran inside kvbench
	// and cpu_c is both sides'); empty when nothing does.
	Qualifier string
}

// figureMetrics sets the declared figures of a cell's runs on side A
// against side B: the tested figures' metrics, to judge with p50, p99
// and ops/s, and the informational ones by figure. A figure the runs do
// not have alike has none.
func figureMetrics(as, bs []results.Cell, many bool) (tested []Metric, info []FigureDiff) {
	for _, f := range figure.All() {
		if f.Compare == nil {
			continue
		}
		vals, qualifier := f.Compare.Values(as, bs)
		if len(vals) == 0 {
			continue
		}
		d := FigureDiff{Figure: f.Name, Qualifier: qualifier}
		for _, v := range vals {
			switch {
			case !f.Compare.Tested:
				d.Metrics = append(d.Metrics, informational(v.Name, v.A, v.B))
			case many:
				tested = append(tested, overRuns(v.Name, v.A, v.B))
			default:
				tested = append(tested, oneRun(v.Name, v.A[0], v.B[0]))
			}
		}
		if len(d.Metrics) > 0 {
			info = append(info, d)
		}
	}
	return tested, info
}

// informational is a metric shown but never judged: each side's figure,
// or with several runs their median and range.
func informational(name string, va, vb []float64) Metric {
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

// oneRun is a tested metric of one run a side: one figure each, so no
// noise estimate, and never significant (judge).
func oneRun(name string, a, b float64) Metric {
	return Metric{Name: name, A: stats.Interval{Est: a}, B: stats.Interval{Est: b},
		Method: "one figure per run: no noise estimate"}
}

// overRuns is a tested metric of several runs a side: their median and
// range, and the p-value of Mann-Whitney's test, to adjust with the
// whole comparison's.
func overRuns(name string, va, vb []float64) Metric {
	m := Metric{Name: name, A: stats.Spread(va), B: stats.Spread(vb), Known: true, P: stats.MannWhitney(va, vb),
		Method: fmt.Sprintf("Mann-Whitney U over %d and %d runs, Holm-adjusted", len(va), len(vb))}
	if m.A.Est > 0 {
		m.Change = (m.B.Est - m.A.Est) / m.A.Est
	}
	return m
}

// Figure is the cell's informational metrics of the figure named name.
func (c CellDiff) Figure(name string) (FigureDiff, bool) {
	for _, d := range c.Figures {
		if d.Figure == name {
			return d, true
		}
	}
	return FigureDiff{}, false
}

// qualifierKey is the key of a figure's qualifier in compare's JSON.
func qualifierKey(name string) string {
	if f, ok := figure.Lookup(name); ok && f.Compare != nil && f.Compare.Qualifier != "" {
		return f.Compare.Qualifier
	}
	return name + "_qualifier"
}

// MarshalJSON writes the cell's key and tested metrics, then each
// figure's informational metrics under the figure's name and its
// qualifier under the figure's key for it ("cpu", "cpu_scope").
func (c CellDiff) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	add := func(key string, v any) error {
		sep := byte(',')
		if b.Len() == 0 {
			sep = '{'
		}
		k, _ := json.Marshal(key)
		val, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.WriteByte(sep)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
		return nil
	}
	if err := add("cell", c.Key); err != nil {
		return nil, err
	}
	if err := add("metrics", c.Metrics); err != nil {
		return nil, err
	}
	for _, d := range c.Figures {
		if err := add(d.Figure, d.Metrics); err != nil {
			return nil, err
		}
		if d.Qualifier != "" {
			if err := add(qualifierKey(d.Figure), d.Qualifier); err != nil {
				return nil, err
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes, the figures declared.
func (c *CellDiff) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*c = CellDiff{}
	if err := unmarshalKey(raw, "cell", &c.Key); err != nil {
		return err
	}
	if err := unmarshalKey(raw, "metrics", &c.Metrics); err != nil {
		return err
	}
	for _, f := range figure.All() {
		d := FigureDiff{Figure: f.Name}
		if _, ok := raw[f.Name]; !ok || f.Compare == nil || f.Compare.Tested {
			continue
		}
		if err := unmarshalKey(raw, f.Name, &d.Metrics); err != nil {
			return err
		}
		if err := unmarshalKey(raw, qualifierKey(f.Name), &d.Qualifier); err != nil {
			return err
		}
		c.Figures = append(c.Figures, d)
	}
	return nil
}

// unmarshalKey decodes raw[key] into v, leaving v when key is absent.
func unmarshalKey(raw map[string]json.RawMessage, key string, v any) error {
	r, ok := raw[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(r, v); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}
