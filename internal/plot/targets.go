package plot

import (
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// byTarget is what runLabels says runs vary by when they measured
// different kinds of store (rdmakv against redis or memcached).
const byTarget = "target"

// kindsDiffer says the runs measured more than one kind of store: the
// overlay then compares the stores, not the load.
func kindsDiffer(runs []RunDir) bool {
	return slices.ContainsFunc(runs, func(r RunDir) bool { return r.Run.TargetKind() != runs[0].Run.TargetKind() })
}

// targetLabels names each run by the store it measured: "redis 7.0.15",
// "rdmakv verbs".
func targetLabels(runs []RunDir) []string {
	labels := make([]string, len(runs))
	for i, r := range runs {
		labels[i] = r.Run.TargetLabel()
	}
	return labels
}

// targetMetrics are the figures of an overlay of stores: the ones of any
// overlay plus p99, since a baseline's tail is often where it differs.
var targetMetrics = append(slices.Clip(compareMetrics), compareMetric{
	"compare-latency-p99-", "p99 latency", "p99 latency", durationLabel,
	func(c results.Cell) float64 { return float64(c.Latency.P99) }, true})

// metricsFor are the figures CompareFigures draws for runs labelled by.
func metricsFor(by string) []compareMetric {
	if by == byTarget {
		return targetMetrics
	}
	return compareMetrics
}

// runLines names and dashes one run's lines; the name follows the run's
// label. Overlaying stores, a run of one line is its label alone, and a
// run's threshold lines are named by bare threshold ("rdmakv tcp 4KiB"):
// no line stands for a threshold it did not measure at.
func runLines(gs []group, by string) (names []string, dash [][]vg.Length, byProtocol bool) {
	names, dash, byProtocol = lineStyles(gs)
	if by != byTarget {
		return names, dash, byProtocol
	}
	switch {
	case len(gs) == 1:
		names[0], dash[0] = "", nil
	case !byProtocol:
		for j, g := range gs {
			names[j] = units.Bytes(int64(g.threshold))
			if g.protocol != "" {
				names[j] += " " + g.protocol
			}
		}
	}
	return names, dash, byProtocol
}

// lineLabel joins a run's label and its line's name.
func lineLabel(label, name string) string {
	if name == "" {
		return label
	}
	return label + " " + name
}

// comparedDoc is the part of a run's workload an overlay expects to be
// the same in every run: all but the load's connections and depth, which
// an overlay of one store varies; overlaying stores, all but the target
// and the thresholds, which only rdmakv has, since stores are compared
// under one load.
func comparedDoc(r RunDir, stores bool) map[string]any {
	m := workloadDoc(r.Run)
	if stores {
		delete(m, "target")
		delete(m, "thresholds")
		return m
	}
	if load, ok := m["load"].(map[string]any); ok {
		delete(load, "connections")
		delete(load, "depth")
	}
	return m
}
