package results

import (
	"cmp"
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Whole is the op and protocol of a whole-workload cell (WholeCells): every
// op and both protocols of one threshold of a mixed run.
const Whole = "all"

// WholeCells are the whole workload of each threshold of cells' mixed
// cells (those with a Distribution), in the order of their first cells:
// a cell of op and protocol Whole whose histogram merges the threshold's
// cells' (store, distribution and threshold alike), whose count, errors
// and bytes are their sums and whose throughput is that count over the
// phase they shared. CPU time and receive memory are the phase's, and the
// same in each of its cells. Its checks are its cells' merged, precision
// judged on its own histogram (PartsChecks). A threshold some of whose cells have no
// histogram (a file that kept only summaries) has none. Such a cell answers what the threshold does
// for the workload as a whole: the figure a mixed workload tunes for.
func WholeCells(cells []Cell) ([]Cell, error) {
	type key struct {
		store, dist string
		threshold   int
	}
	var out []Cell
	var hists []*hdrhistogram.Histogram
	var parts [][][]Check
	at := map[key]int{}
	for _, c := range cells {
		if c.Distribution == "" || c.Op == Whole {
			continue
		}
		k := key{c.Store, c.Distribution, c.Threshold}
		i, ok := at[k]
		if !ok {
			i, at[k] = len(out), len(out)
			out = append(out, Cell{Op: Whole, Protocol: Whole, ValueSize: c.ValueSize, Distribution: c.Distribution, Policy: c.Policy,
				Threshold: c.Threshold, Store: c.Store, Errors: map[string]int64{}, Load: c.Load, IntervalNs: c.IntervalNs,
				CPU: c.CPU, ReceiveMemory: c.ReceiveMemory})
			hists, parts = append(hists, NewHistogram()), append(parts, nil)
		}
		h, err := CellHistogram(c)
		switch {
		case errors.Is(err, ErrNoHistogram):
			hists[i] = nil // the threshold's latencies are not all known
			continue
		case err != nil:
			return nil, err
		case hists[i] != nil:
			hists[i].Merge(h)
			addWhole(&out[i], c)
			parts[i] = append(parts[i], c.Checks)
		}
	}
	kept := out[:0]
	for i := range out {
		if hists[i] == nil {
			continue
		}
		if err := out[i].summarizeWhole(hists[i]); err != nil {
			return nil, err
		}
		out[i].Checks = PartsChecks(out[i], parts[i]...)
		kept = append(kept, out[i])
	}
	return kept, nil
}

// addWhole adds c's counts to the whole cell w: its bytes as a total
// until summarizeWhole makes a rate of them.
func addWhole(w *Cell, c Cell) {
	w.Count += c.Count
	for k, n := range c.Errors {
		w.Errors[k] += n
	}
	w.ThroughputBytes += c.ThroughputBytes * float64(c.DurationNs) / 1e9
	w.DurationNs = max(w.DurationNs, c.DurationNs)
	w.CPU, w.ReceiveMemory = cmp.Or(w.CPU, c.CPU), cmp.Or(w.ReceiveMemory, c.ReceiveMemory)
}

// summarizeWhole sets the whole cell's histogram h and its summary, and
// turns its counts into rates over the phase.
func (w *Cell) summarizeWhole(h *hdrhistogram.Histogram) error {
	enc, err := EncodeHistogram(h)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name(), err)
	}
	w.Histogram, w.Latency = enc, Summarize(h)
	if w.DurationNs > 0 {
		secs := float64(w.DurationNs) / 1e9
		w.ThroughputOps, w.ThroughputBytes = float64(w.Count)/secs, w.ThroughputBytes/secs
	}
	return nil
}
