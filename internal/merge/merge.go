// Package merge combines the results of one workload run by several load
// generators (kvbench merge, and rank 0 of an MPI job) into one run:
// histograms added exactly, counts and errors summed, throughput the sum
// of the ranks', each optional figure of a cell (CPU time, phases, RDMA
// device counters, ...) as its declaration in package figure says, and
// each rank's own figures kept beside the merged ones. It
// also holds what a rank of an MPI job sends rank 0 (EncodeRank, Gathered)
// and keeps on its own disk until then (Checkpoint).
package merge

import (
	"errors"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// Part is one rank's run and the directory its interval logs are in, or
// the logs themselves (HdrHistogram log format, by cell name), as ranks
// of an MPI job send them.
type Part struct {
	Run   *results.Run
	Dir   string
	Hlogs map[string][]byte
}

// Runs merges parts, which must be the ranks of one run: the same
// workload, the same number of ranks, each rank once. It returns the
// merged run and its cells' interval logs, ready for results.WriteRun, and
// warnings (missing ranks, measure windows that do not overlap, and what
// the figures' merges left out: CPU figures, hosts without device
// counters, ...).
func Runs(parts []Part) (*results.Run, []results.CellLog, []string, error) {
	if len(parts) == 0 {
		return nil, nil, nil, errors.New("nothing to merge")
	}
	warnings, err := check(parts)
	if err != nil {
		return nil, nil, nil, err
	}
	first := parts[0].Run
	out := &results.Run{
		SchemaVersion: results.SchemaVersion, Workload: first.Workload, Seed: first.Seed,
		Version: first.Version, Revision: first.Revision, Protocol: first.Protocol, Start: first.Start, End: first.End,
		EndReason: results.EndCompleted, Host: first.Host, Target: first.Target, Transport: first.Transport,
	}
	for _, p := range parts {
		r := p.Run
		out.Start = minTime(out.Start, r.Start)
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.EndReason = endReason(out.EndReason, r)
		out.Verify.Checked += r.Verify.Checked
		out.Verify.Mismatches += r.Verify.Mismatches
		out.Verify.Missing += r.Verify.Missing
		out.Verify.Torn += r.Verify.Torn
		out.Ranks = append(out.Ranks, summary(r))
	}
	logs, figWarn, err := cells(parts)
	if err != nil {
		return nil, nil, nil, err
	}
	return out, logs, append(warnings, figWarn...), nil
}

// check refuses parts that are not the ranks of one run and warns about
// what makes the merge less than a whole run.
func check(parts []Part) ([]string, error) {
	first := parts[0]
	var warnings []string
	seen := map[int]string{}
	for _, p := range parts {
		r := p.Run
		if r.Rank == nil {
			return nil, fmt.Errorf("%s was not run as one of several ranks (kvbench run --rank I --ranks N, or under a launcher): its keys and random streams are every run's, so merging it would count the same work twice", p.Dir)
		}
		if r.Rank.Ranks != first.Run.Rank.Ranks {
			return nil, fmt.Errorf("%s is rank %d of %d, %s of %d: runs of different jobs", p.Dir, r.Rank.Rank, r.Rank.Ranks, first.Dir, first.Run.Rank.Ranks)
		}
		if d, ok := seen[r.Rank.Rank]; ok {
			return nil, fmt.Errorf("%s and %s are both rank %d", d, p.Dir, r.Rank.Rank)
		}
		seen[r.Rank.Rank] = p.Dir
		// Hosts on different networks may reach one server by different
		// addresses.
		if path, a, b, ok := results.WorkloadDiff(first.Run.Workload, r.Workload, "target.server"); ok {
			return nil, fmt.Errorf("%s and %s ran different workloads: %s is %s in the first and %s in the second",
				first.Dir, p.Dir, path, results.Show(a), results.Show(b))
		}
	}
	if n := first.Run.Rank.Ranks; len(seen) < n {
		var missing []int
		for i := range n {
			if _, ok := seen[i]; !ok {
				missing = append(missing, i)
			}
		}
		warnings = append(warnings, fmt.Sprintf("ranks %v of %d are missing: the merged run holds only part of the load", missing, n))
	}
	lastStart, firstEnd := first.Run.Start, first.Run.End
	for _, p := range parts {
		if p.Run.Start.After(lastStart) {
			lastStart = p.Run.Start
		}
		firstEnd = minTime(firstEnd, p.Run.End)
	}
	if !lastStart.Before(firstEnd) {
		warnings = append(warnings, fmt.Sprintf("the runs do not overlap in time (the last started %s after the first ended): the merged figures describe no single moment of load",
			lastStart.Sub(firstEnd).Round(time.Millisecond)))
	}
	return warnings, nil
}

// endReason is the merged run's end reason once rank r is taken in: the
// first failure among the ranks (a rank's partial cells count as one),
// else interrupted if any rank was, else completed.
func endReason(merged string, r *results.Run) string {
	if _, failed := results.EndFailure(merged); failed || r.EndReason == results.EndCompleted || r.EndReason == merged {
		return merged
	}
	if r.EndReason == results.EndInterrupted && merged == results.EndCompleted {
		return r.EndReason
	}
	msg, _ := results.EndFailure(r.EndReason)
	return results.EndError(fmt.Sprintf("rank %d: %s", r.Rank.Rank, msg))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// summary is rank r's own figures.
func summary(r *results.Run) results.RankSummary {
	s := results.RankSummary{Rank: r.Rank.Rank, Host: r.Host.Hostname, Start: r.Start, End: r.End}
	for _, c := range r.Cells {
		s.Cells = append(s.Cells, results.RankCell{Name: c.Name(), Count: c.Count, Errors: c.Failures(),
			ThroughputOps: c.ThroughputOps, P50: c.Latency.P50, P99: c.Latency.P99, Histogram: c.Histogram})
	}
	return s
}

// addTo adds h into *dst, making it on first use.
func addTo(dst **hdrhistogram.Histogram, h *hdrhistogram.Histogram) {
	if *dst == nil {
		*dst = results.NewHistogram()
	}
	(*dst).Merge(h)
}
