package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// SpreadRow is one (op, value size, protocol) measured at several
// thresholds. The threshold does not change the path a protocol takes, so
// its cells measure the same thing: their spread is the sweep's own
// reproducibility, and a wide one says some of them are not to be
// trusted.
type SpreadRow struct {
	Op         string `json:"op"`
	ValueSize  int    `json:"value_size"`
	Protocol   string `json:"protocol"`
	Thresholds int    `json:"thresholds"`
	// MinP50, MedianP50 and MaxP50 are over the cells' p50s, in ns.
	MinP50    int64 `json:"min_p50_ns"`
	MedianP50 int64 `json:"median_p50_ns"`
	MaxP50    int64 `json:"max_p50_ns"`
	// Spread is MaxP50 / MinP50.
	Spread float64 `json:"spread"`
}

// Spread groups run's cells by (op, value size, protocol) and gives the
// spread of p50 across the thresholds of each group with two or more.
func Spread(run *results.Run) []SpreadRow {
	type key struct {
		op    string
		size  int
		proto string
	}
	p50s := map[key][]int64{}
	for _, c := range run.Cells {
		// A distribution's cells split its sizes between the protocols
		// at each threshold differently: across thresholds they measure
		// different values.
		if c.Count > 0 && c.Distribution == "" {
			k := key{c.Op, c.ValueSize, c.Protocol}
			p50s[k] = append(p50s[k], c.Latency.P50)
		}
	}
	var rows []SpreadRow
	for k, v := range p50s {
		if len(v) < 2 {
			continue
		}
		slices.Sort(v)
		r := SpreadRow{Op: k.op, ValueSize: k.size, Protocol: k.proto, Thresholds: len(v),
			MinP50: v[0], MedianP50: v[len(v)/2], MaxP50: v[len(v)-1]}
		if r.MinP50 > 0 {
			r.Spread = float64(r.MaxP50) / float64(r.MinP50)
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b SpreadRow) int {
		return cmp.Or(cmp.Compare(a.Op, b.Op), cmp.Compare(a.ValueSize, b.ValueSize), cmp.Compare(a.Protocol, b.Protocol))
	})
	return rows
}

var spreadColumns = []string{"op", "value", "protocol", "thresholds", "min p50", "median p50", "max p50", "max/min"}

func spreadHuman(r SpreadRow) []string {
	return []string{r.Op, units.Bytes(int64(r.ValueSize)), r.Protocol, strconv.Itoa(r.Thresholds),
		units.Duration(float64(r.MinP50)), units.Duration(float64(r.MedianP50)), units.Duration(float64(r.MaxP50)),
		fmt.Sprintf("%.2f", r.Spread)}
}

// spreadView prints SpreadRows.
var spreadView = view[SpreadRow]{
	title:   "spread of p50 across thresholds",
	empty:   "no (op, value size, protocol) was measured at two or more thresholds",
	columns: spreadColumns, human: spreadHuman,
	head: []string{"op", "value_size", "protocol", "thresholds", "min_p50_ns", "median_p50_ns", "max_p50_ns", "spread"},
	raw: func(r SpreadRow) []string {
		return []string{r.Op, strconv.Itoa(r.ValueSize), r.Protocol, strconv.Itoa(r.Thresholds),
			strconv.FormatInt(r.MinP50, 10), strconv.FormatInt(r.MedianP50, 10), strconv.FormatInt(r.MaxP50, 10),
			strconv.FormatFloat(r.Spread, 'f', -1, 64)}
	},
}

// WriteSpread prints Spread(run) in format (table, markdown, csv or
// json); a run with no group measured at two thresholds says so.
func WriteSpread(w io.Writer, run *results.Run, format string) error {
	return spreadView.write(w, Spread(run), format)
}
