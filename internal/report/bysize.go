package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// ErrNoSizeClasses is WriteBySize's error for a run without mixed cells.
var ErrNoSizeClasses = errors.New("no cell has size classes: they are recorded for workloads with values.distribution")

// SizeGroup is one op at one threshold of a mixed run: its cells' size
// classes, each protocol's, and the warnings of its cells.
type SizeGroup struct {
	Store        string                           `json:"store"`
	Op           string                           `json:"op"`
	Threshold    int                              `json:"threshold"`
	Policy       string                           `json:"policy,omitempty"`
	Distribution string                           `json:"distribution"`
	Protocols    map[string]results.ProtocolShare `json:"protocols,omitempty"`
	Classes      []SizeRow                        `json:"classes"`
	Warnings     []string                         `json:"warnings,omitempty"`
}

// SizeRow is one size class of one protocol, with its shares of the
// group's requests and bytes.
type SizeRow struct {
	Protocol string `json:"protocol"`
	results.SizeClass
	Requests  float64 `json:"requests"`
	ByteShare float64 `json:"bytes_share"`
}

// SizeGroups are the run's mixed cells grouped by op and threshold, in
// the order their first cells appear, each group's rows by class, then
// protocol.
func SizeGroups(run *results.Run) []SizeGroup {
	var out []SizeGroup
	type groupKey struct {
		store, op, dist string
		threshold       int
	}
	at := map[groupKey]int{}
	for _, c := range run.Cells {
		if len(c.SizeClasses) == 0 {
			continue
		}
		key := groupKey{c.Store, c.Op, c.Distribution, c.Threshold}
		i, ok := at[key]
		if !ok {
			i, at[key] = len(out), len(out)
			out = append(out, SizeGroup{Store: c.Store, Op: c.Op, Threshold: c.Threshold, Policy: c.Policy, Distribution: c.Distribution})
		}
		g := &out[i]
		if c.Sizes != nil {
			g.Protocols = c.Sizes.Protocols
		}
		for _, k := range c.SizeClasses {
			g.Classes = append(g.Classes, SizeRow{Protocol: c.Protocol, SizeClass: k})
		}
		for _, w := range c.Warnings {
			if !slices.Contains(g.Warnings, w.Message) {
				g.Warnings = append(g.Warnings, w.Message)
			}
		}
	}
	for i := range out {
		out[i].share()
	}
	return out
}

// share sorts the group's rows and sets their shares.
func (g *SizeGroup) share() {
	var n, b int64
	for _, r := range g.Classes {
		n, b = n+r.Count, b+r.Bytes
	}
	for i := range g.Classes {
		r := &g.Classes[i]
		r.Requests, r.ByteShare = frac(r.Count, n), frac(r.Bytes, b)
	}
	slices.SortStableFunc(g.Classes, func(a, b SizeRow) int {
		if a.Class != b.Class {
			return int(a.Class - b.Class)
		}
		return strings.Compare(a.Protocol, b.Protocol)
	})
}

func frac(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteBySize renders each mixed cell's size classes in format: table and
// markdown, a table per op and threshold of size class by protocol with
// count, shares of requests and bytes, p50 and p99; csv, a row per group
// and row with every number in full; json, the groups.
func WriteBySize(w io.Writer, run *results.Run, format string) error {
	gs := SizeGroups(run)
	if len(gs) == 0 {
		return ErrNoSizeClasses
	}
	switch format {
	case "table":
		return writeSizeTables(w, run, gs)
	case "markdown":
		return writeSizeMarkdown(w, run, gs)
	case "csv":
		return writeSizeCSV(w, gs)
	case "html":
		return writeSizeHTML(w, run, gs)
	case "json":
		return indentJSON(w, struct {
			Workload string      `json:"workload"`
			Groups   []SizeGroup `json:"cells"`
		}{WorkloadName(run), gs})
	}
	return unknownFormat(format, viewFormats)
}

func writeSizeTables(w io.Writer, run *results.Run, gs []SizeGroup) error {
	fmt.Fprintf(w, "workload %s: operations by value size class\n", WorkloadName(run))
	for _, g := range gs {
		fmt.Fprintf(w, "\n%s at threshold %s, sizes %s\n", g.Op, thresholdText(g.Threshold, g.Store, g.Policy), g.Distribution)
		for _, p := range slices.Sorted(maps.Keys(g.Protocols)) {
			s := g.Protocols[p]
			fmt.Fprintf(w, "  %s: %s of requests, %s of bytes\n", results.ProtocolLabel(g.Store, p), pct(s.Requests), pct(s.ByteShare))
		}
		for _, m := range g.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", m)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(sizeColumns, "\t")+"\t")
		for _, r := range g.Classes {
			fmt.Fprintln(tw, strings.Join(sizeRowText(g, r), "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

var sizeColumns = []string{"class", "protocol", "count", "requests", "bytes", "p50", "p99"}

// sizeRowText is a row of the table and markdown formats.
func sizeRowText(g SizeGroup, r SizeRow) []string {
	return []string{results.ClassText(r.Class), results.ProtocolLabel(g.Store, r.Protocol),
		strconv.FormatInt(r.Count, 10), pct(r.Requests), pct(r.ByteShare),
		units.Duration(float64(r.P50)), units.Duration(float64(r.P99))}
}

func writeSizeMarkdown(w io.Writer, run *results.Run, gs []SizeGroup) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## kvbench run %s: operations by value size class\n", WorkloadName(run))
	for _, g := range gs {
		fmt.Fprintf(&b, "\n### %s at threshold %s\n\n", g.Op, thresholdText(g.Threshold, g.Store, g.Policy))
		fmt.Fprintf(&b, "- **sizes**: %s\n", mdEscape(g.Distribution))
		for _, p := range slices.Sorted(maps.Keys(g.Protocols)) {
			s := g.Protocols[p]
			fmt.Fprintf(&b, "- **%s**: %s of requests, %s of bytes\n", results.ProtocolLabel(g.Store, p), pct(s.Requests), pct(s.ByteShare))
		}
		for _, m := range g.Warnings {
			fmt.Fprintf(&b, "- **warning**: %s\n", mdEscape(m))
		}
		b.WriteString("\n")
		rows := make([][]string, len(g.Classes))
		for i, r := range g.Classes {
			rows[i] = sizeRowText(g, r)
		}
		mdTable(&b, sizeColumns, rows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSizeCSV writes a row per size class and protocol of each group,
// the class as its upper bound in bytes (0: no value moved), shares as
// fractions and latencies in nanoseconds.
func writeSizeCSV(w io.Writer, gs []SizeGroup) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"store", "op", "threshold", "distribution", "class", "protocol", "count", "bytes",
		"requests", "bytes_share", "p50_ns", "p99_ns", "warnings"})
	for _, g := range gs {
		for _, r := range g.Classes {
			_ = cw.Write([]string{g.Store, g.Op, thresholdField(g.Threshold, g.Store), g.Distribution,
				strconv.FormatInt(r.Class, 10), r.Protocol, strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Bytes, 10),
				strconv.FormatFloat(r.Requests, 'f', -1, 64), strconv.FormatFloat(r.ByteShare, 'f', -1, 64),
				strconv.FormatInt(r.P50, 10), strconv.FormatInt(r.P99, 10), strings.Join(g.Warnings, "; ")})
		}
	}
	cw.Flush()
	return cw.Error()
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }
