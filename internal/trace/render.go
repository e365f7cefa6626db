package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/kvbench/kvbench/internal/units"
)

// WriteJSON writes s as indented JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes s for people.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format+"\n", args...) }
	p("trace\t%s (%s)", s.File, s.Format)
	if s.Problems > 0 {
		p("problems\t%s skipped; the first: %s", units.Plural(s.Problems, "malformed line"), s.FirstProblem)
	}
	if s.Requests == 0 {
		p("requests\t0")
		return tw.Flush()
	}
	p("requests\t%d over %s (%d s of trace time)", s.Requests, units.Duration(float64(s.DurationNs)), s.Rate.Seconds)
	pct := func(n int64) string { return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(s.Requests)) }
	p("ops\tget %s, set %s, delete %s", pct(s.Ops.Get), pct(s.Ops.Set), pct(s.Ops.Delete))
	p("value size\t%s (gets and sets)", sizes(s.ValueSize))
	p("key size\t%s", sizes(s.KeySize))
	r := s.Rate
	p("rate\tmin %s/s, median %s/s, max %s/s, mean %s/s", units.Rate(float64(r.Min)), units.Rate(float64(r.Median)),
		units.Rate(float64(r.Max)), units.Rate(r.Mean))
	if len(r.Series) > 1 {
		p("rate over time\t%s (%d s a mark, %s/s at the top)", sparkline(r.Series), r.IntervalS, units.Rate(maxOf(r.Series)))
	}
	k := s.Keys
	exact := "exact"
	if !k.DistinctExact {
		exact = "HyperLogLog estimate, about ±0.8%"
	}
	p("distinct keys\t%d (%s)", k.Distinct, exact)
	if k.Zipf.Ranks >= 3 {
		p("zipf alpha\t%.3f (R² %.3f, fitted to the top %d keys)", k.Zipf.Alpha, k.Zipf.R2, k.Zipf.Ranks)
	} else {
		p("zipf alpha\t- (fewer than 3 keys requested %d times or more)", ZipfMinCount)
	}
	for i, kc := range k.Top {
		label := ""
		if i == 0 {
			label = "top keys"
		}
		over := ""
		if kc.Overcount > 0 {
			over = fmt.Sprintf(", at most %d too high", kc.Overcount)
		}
		p("%s\t%s\t%d (%.2f%%%s)", label, showKey(kc.Key), kc.Count, 100*kc.Share, over)
	}
	return tw.Flush()
}

func sizes(z Sizes) string {
	if z.Count == 0 {
		return "-"
	}
	b := func(v int64) string { return units.Bytes(v) }
	return fmt.Sprintf("min %s, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s, mean %s",
		b(z.Min), b(z.P50), b(z.P90), b(z.P99), b(z.P999), b(z.Max), units.Bytes(int64(z.Mean+0.5)))
}

// sparkline draws vs as block characters scaled to their maximum.
func sparkline(vs []float64) string {
	const marks = "▁▂▃▄▅▆▇█"
	bars := []rune(marks)
	top := maxOf(vs)
	var b strings.Builder
	for _, v := range vs {
		i := 0
		if top > 0 {
			i = int(v / top * float64(len(bars)-1))
		}
		b.WriteRune(bars[min(max(i, 0), len(bars)-1)])
	}
	return b.String()
}

func maxOf(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// showKey prints a key as is when it is printable text, quoted otherwise.
func showKey(k string) string {
	if !utf8.ValidString(k) || strings.ContainsFunc(k, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Sprintf("%q", k)
	}
	return k
}
