package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// kvbenchRound is what the table takes from one round's kvbench run of a
// case: the one measured cell of the case's op and value size.
type kvbenchRound struct {
	// p50NS is the cell's median latency in nanoseconds.
	p50NS float64
	// mibPerSec is value bytes per second in MiB (2^20), perftest's unit.
	mibPerSec float64
	// poll is the client's completion polling mode ("busy" or "event").
	poll string
}

// loadKvbenchRuns reads every run directory under dir, oldest first (their
// names end in the start time; the latest link is skipped), one per draw,
// and returns each run's cell of op at size, which must have travelled by
// protocol and finished without errors.
func loadKvbenchRuns(dir, op string, size int, protocol string) ([]kvbenchRound, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var runs []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != results.LatestLink {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no run directory in %s", dir)
	}
	sort.Strings(runs)
	out := make([]kvbenchRound, 0, len(runs))
	for i, name := range runs {
		run, err := results.Load(filepath.Join(dir, name))
		if err == nil {
			var r kvbenchRound
			if r, err = roundOf(run, op, size, protocol); err == nil {
				out = append(out, r)
				continue
			}
		}
		return nil, fmt.Errorf("run %d (%s): %w", i+1, name, err)
	}
	return out, nil
}

// roundOf picks the measured cell of op at size out of run.
func roundOf(run *results.Run, op string, size int, protocol string) (kvbenchRound, error) {
	var cells []results.Cell
	for _, c := range run.Cells {
		if c.Op == op && c.ValueSize == size && c.Count > 0 {
			cells = append(cells, c)
		}
	}
	if len(cells) != 1 {
		return kvbenchRound{}, fmt.Errorf("%d measured %s cells of %d bytes, want 1", len(cells), op, size)
	}
	c := cells[0]
	if c.Protocol != protocol {
		return kvbenchRound{}, fmt.Errorf("protocol %s, want %s", c.Protocol, protocol)
	}
	var errs []string
	for kind, n := range c.Errors {
		if n > 0 {
			errs = append(errs, fmt.Sprintf("%d %s", n, kind))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return kvbenchRound{}, fmt.Errorf("operations failed: %s", strings.Join(errs, ", "))
	}
	return kvbenchRound{p50NS: float64(c.Latency.P50), mibPerSec: c.ThroughputBytes / (1 << 20), poll: run.Transport.ClientPoll}, nil
}

// median is the middle value (the mean of the two middle ones for an even
// count): one slow or fast run of several does not move it.
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
