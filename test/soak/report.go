package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// report is the soak's figures.
type report struct {
	o              options
	work           string
	warmup, faults time.Duration
	// start: before any client; warm: after warm-up; settled: after the
	// faults and the settle, load still running; cleaned: every key
	// deleted, clients gone; end: open files and goroutines back.
	start, warm, settled, cleaned, end sample
	loaders                            []loaderTally
	ledger                             findings
	ft                                 faultTally
	dials                              dialTally
}

// dialTally keeps the count and the slowest of the soak's own connects.
type dialTally struct {
	n, slowest atomic.Int64
}

func (d *dialTally) add(took time.Duration) {
	d.n.Add(1)
	for {
		old := d.slowest.Load()
		if int64(took) <= old || d.slowest.CompareAndSwap(old, int64(took)) {
			return
		}
	}
}

// memSlack is how far the memory the server holds (memory.held) may end
// above its level after warm-up.
const memSlack = 0.10

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func (r *report) print(w io.Writer) {
	t := &r.ft
	fmt.Fprintf(w, "soak: %s, %v (warm-up %v, faults %v, settle %v)\n", r.o.transport, r.o.duration, r.warmup, r.faults, settle)
	var runs, killed, ops, checked int64
	errs := map[string]int64{}
	for _, l := range r.loaders {
		runs, killed, ops, checked = runs+l.Runs, killed+l.Killed, ops+l.Ops, checked+l.Verify.Checked
		for k, n := range l.Errors {
			errs[k] += n
		}
	}
	fmt.Fprintf(w, "load: %d kvbench runs (%d killed), %d measured ops, %d gets verified; errors %s\n", runs, killed, ops, checked, kinds(errs))
	fmt.Fprintf(w, "writers: %d ops (%d failed, %d reconnects), %d reads checked incl. every key at the end\n",
		r.ledger.Ops, r.ledger.Failed, r.ledger.Reconnects, r.ledger.Checked)
	fmt.Fprintf(w, "faults: %d server stops of 1s, %d clients killed mid-rendezvous, %d connections churned (%d closed under rendezvous gets, %d failed)\n",
		t.Stops.Load(), t.Kills.Load(), t.Churned.Load(), t.Abandoned.Load(), t.ChurnFail.Load())
	fmt.Fprintf(w, "        %d floods, %d of %d idle connections dropped; %d of %d garbage connections dropped\n",
		t.Floods.Load(), t.IdleDropped.Load(), t.Idle.Load(), t.GarbageDropped.Load(), t.Garbage.Load())
	fmt.Fprintf(w, "        %d connects by kvsoak's own clients, the slowest in %v\n",
		r.dials.n.Load(), time.Duration(r.dials.slowest.Load()).Round(time.Millisecond))
	if t.SlowDials > 0 {
		fmt.Fprintf(w, "        %d churn connects took over %v; the first's %s\n", t.SlowDials, stuckAfter, t.slowSnap)
	}
	var mm, miss, torn int64
	for _, l := range r.loaders {
		mm, miss, torn = mm+l.Verify.Mismatches, miss+l.Verify.Missing, torn+l.Verify.Torn
	}
	fmt.Fprintf(w, "values: writers %d lost, %d wrong, %d torn; kvbench verify %d mismatches, %d missing, %d torn\n",
		r.ledger.Lost, r.ledger.Wrong, r.ledger.Torn, mm, miss, torn)
	fmt.Fprintf(w, "server: open files %d before the load, %d after; goroutines %d before, %d after\n",
		r.start.fds, r.end.fds, r.start.goroutines, r.end.goroutines)
	if wm, sm := r.warm.mem, r.settled.mem; wm.anon > 0 {
		fmt.Fprintf(w, "        memory held %s after warm-up, %s after faults and settle (%+.1f%%): anonymous resident %s and %s, less freed heap not yet returned %s and %s (RSS %s and %s)\n",
			mib(wm.held()), mib(sm.held()), 100*(float64(sm.held())/float64(wm.held())-1), mib(wm.anon), mib(sm.anon), mib(wm.retained), mib(sm.retained), mib(wm.rss), mib(sm.rss))
		fmt.Fprintf(w, "        %d keys and %d pool bytes left after deleting every key\n", r.cleaned.keys, r.cleaned.poolUsed)
	}
}

// kinds formats error counts by kind.
func kinds(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// failures lists every reason the soak fails.
func (r *report) failures() []string {
	var out []string
	add := func(cond bool, format string, a ...any) {
		if cond {
			out = append(out, fmt.Sprintf(format, a...))
		}
	}
	l := r.ledger
	add(l.Lost+l.Wrong+l.Torn > 0, "writers found %d lost, %d wrong, %d torn values: %s", l.Lost, l.Wrong, l.Torn, strings.Join(l.Examples, "; "))
	add(l.Failed > 0, "%d writer operations failed: %s", l.Failed, strings.Join(l.Examples, "; "))
	for i, lt := range r.loaders {
		name := loaderSpecs[i].name
		v := lt.Verify
		add(v.Mismatches+v.Missing+v.Torn > 0, "kvbench %s verify: %d mismatches, %d missing, %d torn", name, v.Mismatches, v.Missing, v.Torn)
		for k, n := range lt.Errors {
			add(k != "not_found" && n > 0, "kvbench %s: %d %s errors", name, n, k)
		}
		for _, f := range lt.Failures {
			add(true, "%s", f)
		}
		add(lt.Runs == 0, "kvbench %s never ran", name)
	}
	t := &r.ft
	for _, f := range t.failures {
		add(true, "%s", f)
	}
	add(t.Stops.Load() == 0 || t.Kills.Load() == 0 || t.Floods.Load() == 0 || t.Garbage.Load() == 0 || t.Churned.Load() == 0,
		"the fault schedule did not run every fault (a longer -duration gives it time)")
	add(r.end.fds > r.start.fds, "open files leaked: %d before the load, %d after", r.start.fds, r.end.fds)
	add(r.end.goroutines > r.start.goroutines, "goroutines leaked: %d before the load, %d after", r.start.goroutines, r.end.goroutines)
	add(r.end.conns != 0, "%d connections still open after every client left", r.end.conns)
	add(float64(r.settled.mem.held()) > (1+memSlack)*float64(r.warm.mem.held()), "memory held grew from %s after warm-up to %s, more than %.0f%%",
		mib(r.warm.mem.held()), mib(r.settled.mem.held()), 100*memSlack)
	add(r.cleaned.keys != 0 || r.cleaned.poolUsed != 0, "after deleting every key the server still holds %d keys and %d pool bytes",
		r.cleaned.keys, r.cleaned.poolUsed)
	return out
}
