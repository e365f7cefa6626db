package trace

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bounds of a fitted workload (FitWorkload).
const (
	// FitMaxKeys caps keys.count: the preload writes every key, and a
	// zipfian's set-up takes time in proportion to the count.
	FitMaxKeys = 10_000_000
	// fitMaxKeySize is keys.size's largest.
	fitMaxKeySize = 1024
	// fitMaxValue is the largest value size a workload draws (1 GiB).
	fitMaxValue = 1 << 30
	// fitTheta bounds zipfian_constant inside (0, 1).
	fitThetaMin, fitThetaMax = 0.01, 0.99
)

// Fitted is a workload fitted to a trace: the YAML, and the CSV of value
// sizes it names, to be written beside it.
type Fitted struct {
	YAML, Sizes []byte
}

// FitWorkload writes a synthetic workload that stands in for the trace s
// summarises: its op mix, its distinct keys drawn zipfian at the fitted
// exponent, its median key size, its value sizes (ValueSizes) drawn from
// the histogram in sizesFile (a path relative to the workload file), and
// an open loop at its median rate for its span. name is the workload's
// name. Comments in the YAML say what was approximated.
func FitWorkload(s *Summary, name, sizesFile string) (*Fitted, error) {
	if s.Requests == 0 {
		return nil, fmt.Errorf("%s: no requests to fit a workload to", s.File)
	}
	vs := s.ValueSizes
	if len(vs.Rows) == 0 {
		return nil, fmt.Errorf("%s: no set and no get that found a value: no value sizes to fit", s.File)
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# Fitted by kvbench trace stats to %s (%s): %d requests over %d s.", s.File, s.Format, s.Requests, s.Rate.Seconds)
	p("# It needs neither the trace nor its keys: it keeps the op mix, the number")
	p("# of distinct keys and how skewed they are, the key and value sizes and the")
	p("# rate, and draws the rest (which key, in what order, when) afresh.")
	p("name: %s", fitName(name))
	p("description: %s", strconv.Quote(fmt.Sprintf("Fitted to %s: mix, distinct keys, zipf skew, key and value sizes, median rate.", s.File)))
	p("seed: 1")
	p("target:\n  transport: auto")
	fitKeys(p, s)
	fitValues(p, vs, sizesFile)
	fitMix(p, s.Ops, s.Requests)
	p("preload: true  # every key is written first, so gets find values as in a warm cache")
	p("phases:\n  measure: {duration: %ds}  # the trace's span", max(s.Rate.Seconds, 1))
	fitLoad(p, s.Rate)
	return &Fitted{YAML: b.Bytes(), Sizes: sizesCSV(vs)}, nil
}

// fitName makes name a valid workload name: letters, digits, '-', '_'
// and '.' only.
func fitName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, name)
	if name == "" || len(name) > 100 {
		return "fitted"
	}
	return name
}

func fitKeys(p func(string, ...any), s *Summary) {
	k := s.Keys
	count, note := k.Distinct, "distinct keys in the trace"
	if !k.DistinctExact {
		note = "distinct keys in the trace, estimated"
	}
	if count > FitMaxKeys {
		count, note = FitMaxKeys, fmt.Sprintf("the trace has %d distinct keys; capped", k.Distinct)
	}
	count = max(count, 1)
	size, sizeNote := s.KeySize.P50, "the median recorded key size"
	if digits := int64(len(strconv.FormatInt(count-1, 10))) + 1; size < digits {
		size, sizeNote = digits, fmt.Sprintf("the median recorded key size is %d; %d bytes hold %d keys", s.KeySize.P50, digits, count)
	}
	if size > fitMaxKeySize {
		size, sizeNote = fitMaxKeySize, fmt.Sprintf("the median recorded key size is %d; keys.size is at most %d", s.KeySize.P50, fitMaxKeySize)
	}
	p("keys:")
	p("  count: %d  # %s", count, note)
	p("  size: %d  # %s", size, sizeNote)
	z := k.Zipf
	if z.Ranks < 3 || z.Alpha <= 0 {
		p("  distribution: uniform  # no zipf exponent could be fitted (see kvbench trace stats)")
		return
	}
	theta := min(max(z.Alpha, fitThetaMin), fitThetaMax)
	p("  distribution: zipfian")
	if theta != z.Alpha {
		p("  # The fitted zipf exponent %.3f lies outside (0, 1), where zipfian draws: clamped.", z.Alpha)
	}
	p("  zipfian_constant: %.3f  # fitted to the top %d keys: alpha %.3f, R² %.3f", theta, z.Ranks, z.Alpha, z.R2)
}

func fitValues(p func(string, ...any), vs ValueSizes, sizesFile string) {
	p("values:")
	p("  # The sizes of the trace's %s, as a histogram: sizes below %d bytes", vs.Of, sizeExact)
	p("  # exactly, larger ones in buckets of at most 1/%d of a power of two, each", sizeSteps)
	p("  # at the mean of its sizes.")
	p("  distribution:")
	p("    histogram: %s", strconv.Quote(sizesFile))
	if vs.Rows[len(vs.Rows)-1].Size > fitMaxValue {
		p("    max: 1GiB  # the largest value a workload writes; the trace has larger")
	}
}

// fitMix writes the op shares. set is what get and delete leave, so the
// three sum to 1 as validation wants.
func fitMix(p func(string, ...any), ops OpCounts, n int64) {
	get, _ := strconv.ParseFloat(fmt.Sprintf("%.12g", float64(ops.Get)/float64(n)), 64)
	del, _ := strconv.ParseFloat(fmt.Sprintf("%.12g", float64(ops.Delete)/float64(n)), 64)
	p("mix: {get: %.12g, set: %.12g, delete: %.12g}  # the trace's: %d gets, %d sets, %d deletes",
		get, math.Max(1-get-del, 0), del, ops.Get, ops.Set, ops.Delete)
}

func fitLoad(p func(string, ...any), r Rate) {
	rate, note := float64(r.Median), "the trace's median requests in a second"
	if r.Median == 0 {
		rate, note = r.Mean, "the trace's mean rate (more than half its seconds are empty)"
	}
	p("load:")
	p("  mode: open")
	p("  rate: %.6g  # %s; it ranged from %d to %d", rate, note, r.Min, r.Max)
	p("  connections: 4")
	p("  depth: 16  # room for requests queued behind a stall")
}

// sizesCSV is the histogram as ReadHistogram reads it.
func sizesCSV(vs ValueSizes) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The value sizes of the trace's %s, bucketed.\nsize,count\n", vs.Of)
	for _, r := range vs.Rows {
		fmt.Fprintf(&b, "%d,%d\n", r.Size, r.Count)
	}
	return b.Bytes()
}
