// Command flowcheck compares kvbench runs made at the same time against
// different servers (guest-flow.sh) over the window in which every one of
// them was measuring, read from their interval logs: runs started side by
// side under emulation begin measuring seconds apart, and one measuring
// while the others have finished runs partly alone.
//
//	flowcheck [-min-ops 0.8] [-max-p99 2] [-min-window 3s] ROUND...
//
// A ROUND is a comma-separated list of run directories (or their latest
// links), the reference first, each with one cell; every round lists its runs in the same order. Over all
// rounds, each run's ops/s in the common windows must be at least min-ops
// times the reference's and its p99 at most max-p99 times; it prints the
// ratios and exits 1 when one is out.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "flowcheck:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("flowcheck", flag.ContinueOnError)
	minOps := fs.Float64("min-ops", 0.8, "least ops/s of each run against the reference's")
	maxP99 := fs.Float64("max-p99", 2, "most p99 of each run against the reference's")
	minWindow := fs.Duration("min-window", 3*time.Second, "shortest window a round's runs must all have measured in")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no round given")
	}
	var total []arm
	for _, round := range fs.Args() {
		arms, err := measureRound(strings.Split(round, ","), *minWindow)
		if err != nil {
			return err
		}
		if total == nil {
			total = arms
		} else if err := addRound(total, arms); err != nil {
			return err
		}
	}
	return judge(out, total, *minOps, *maxP99)
}

// arm is what one run (by its place in the rounds) measured inside the
// common windows.
type arm struct {
	name string
	ops  int64
	span time.Duration
	hist *hdrhistogram.Histogram
}

func (a arm) rate() float64 { return float64(a.ops) / a.span.Seconds() }

func (a arm) p99() float64 { return float64(a.hist.ValueAtQuantile(99)) }

// measureRound reads each run's intervals and keeps those inside the
// window every run measured in.
func measureRound(dirs []string, minWindow time.Duration) ([]arm, error) {
	ivs := make([][]*hdrhistogram.Histogram, len(dirs))
	var from, to int64
	for i, d := range dirs {
		hs, err := intervals(d)
		if err != nil {
			return nil, err
		}
		ivs[i] = hs
		s, e := hs[0].StartTimeMs(), hs[len(hs)-1].EndTimeMs()
		if i == 0 || s > from {
			from = s
		}
		if i == 0 || e < to {
			to = e
		}
	}
	if w := time.Duration(to-from) * time.Millisecond; w < minWindow {
		return nil, fmt.Errorf("the runs %s measured together for %v, less than %v: lengthen their measure phases", strings.Join(dirs, ", "), max(w, 0), minWindow)
	}
	arms := make([]arm, len(dirs))
	for i, hs := range ivs {
		a := arm{name: dirs[i], hist: results.NewHistogram()}
		for _, h := range hs {
			if h.StartTimeMs() < from || h.EndTimeMs() > to {
				continue
			}
			a.ops += h.TotalCount()
			a.span += time.Duration(h.EndTimeMs()-h.StartTimeMs()) * time.Millisecond
			a.hist.Merge(h)
		}
		if a.ops == 0 {
			return nil, fmt.Errorf("%s: no whole interval inside the common window", dirs[i])
		}
		arms[i] = a
	}
	return arms, nil
}

// intervals reads the interval log of the one cell of the run in dir.
func intervals(dir string) ([]*hdrhistogram.Histogram, error) {
	r, rdir, err := results.Open(dir)
	if err != nil {
		return nil, err
	}
	if len(r.Cells) != 1 {
		return nil, fmt.Errorf("%s: %d cells, want one", dir, len(r.Cells))
	}
	hs, err := results.CellIntervals(rdir, r.Cells[0])
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("%s: no interval measured", dir)
	}
	return hs, nil
}

// addRound adds a round's arms to the totals, place by place.
func addRound(total, arms []arm) error {
	if len(arms) != len(total) {
		return fmt.Errorf("a round of %d runs after one of %d", len(arms), len(total))
	}
	for i := range total {
		total[i].ops += arms[i].ops
		total[i].span += arms[i].span
		total[i].hist.Merge(arms[i].hist)
	}
	return nil
}

// judge prints each run's ratios to the reference and fails if one is out.
func judge(out io.Writer, arms []arm, minOps, maxP99 float64) error {
	ref := arms[0]
	fmt.Fprintf(out, "%s: %.0f ops/s, p99 %.0f us (reference)\n", ref.name, ref.rate(), ref.p99()/1e3)
	var bad []string
	for _, a := range arms[1:] {
		r, q := a.rate()/ref.rate(), a.p99()/ref.p99()
		fmt.Fprintf(out, "%s: %.0f ops/s (%.2fx), p99 %.0f us (%.2fx)\n", a.name, a.rate(), r, a.p99()/1e3, q)
		if r < minOps || q > maxP99 {
			bad = append(bad, a.name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: ops/s below %.2fx or p99 above %.2fx the reference's", strings.Join(bad, ", "), minOps, maxP99)
	}
	return nil
}
