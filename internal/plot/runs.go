package plot

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// RunDir is one run of a comparison and the directory it was read from.
type RunDir struct {
	Run *results.Run
	Dir string
}

// RunLabels names each run by what sets it apart from the others: the
// store it measured ("redis 7.0.15", "rdmakv tcp") when the runs measured
// different kinds of store, else "4 conn" when they differ in connections (with " depth 8" added when depth
// differs too), else "depth 8" when they differ in depth, else the run
// directory's base name. A label two runs would share gets the directory's
// base name, then the run's position, added.
func RunLabels(runs []RunDir) []string {
	labels, _ := runLabels(runs)
	return labels
}

// runLabels is RunLabels plus what the labels vary by: "target",
// "connections", "depth" or "" (directory names).
func runLabels(runs []RunDir) (labels []string, by string) {
	conns, depths := make([]int, len(runs)), make([]int, len(runs))
	for i, r := range runs {
		conns[i], depths[i] = runLoad(r.Run)
	}
	differ := func(xs []int) bool { return slices.ContainsFunc(xs, func(x int) bool { return x != xs[0] }) }
	labels = make([]string, len(runs))
	switch {
	case kindsDiffer(runs):
		by, labels = byTarget, targetLabels(runs)
	case differ(conns):
		by = "connections"
		for i := range runs {
			labels[i] = fmt.Sprintf("%d conn", conns[i])
			if differ(depths) {
				labels[i] += fmt.Sprintf(" depth %d", depths[i])
			}
		}
	case differ(depths):
		by = "depth"
		for i := range runs {
			labels[i] = fmt.Sprintf("depth %d", depths[i])
		}
	default:
		for i, r := range runs {
			labels[i] = baseName(r.Dir)
		}
	}
	if by != "" && !unique(labels) {
		for i, r := range runs {
			labels[i] += " (" + baseName(r.Dir) + ")"
		}
	}
	if !unique(labels) {
		for i := range labels {
			labels[i] += fmt.Sprintf(" #%d", i+1)
		}
	}
	return labels, by
}

func unique(xs []string) bool {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

func baseName(dir string) string {
	if dir == "" {
		return "run"
	}
	return filepath.Base(filepath.Clean(dir))
}

// runLoad is the connections and depth a run was driven with: from its
// cells, else from its workload document; 0 when neither says.
func runLoad(run *results.Run) (conns, depth int) {
	for _, c := range run.Cells {
		if c.Load.Connections > 0 {
			conns, depth = c.Load.Connections, c.Load.Depth
			break
		}
	}
	load, _ := workloadDoc(run)["load"].(map[string]any)
	num := func(k string) int {
		f, _ := load[k].(float64)
		return int(f)
	}
	if conns == 0 {
		conns = num("connections")
	}
	if depth == 0 {
		depth = num("depth")
	}
	return conns, depth
}

// workloadDoc is the run's workload as a generic JSON document, whether
// it was read from results.json (already generic) or built in memory.
func workloadDoc(run *results.Run) map[string]any {
	b, err := json.Marshal(run.Workload)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// RunDifferences warns about what the runs differ in beyond connections
// and depth, which an overlay of one store is meant to vary: another
// workload (named by the fields that differ) or another transport. Runs
// of different kinds of store are meant to differ in their target and
// nothing else (comparedDoc); their labels name the transport. Each run
// is compared with the first.
func RunDifferences(runs []RunDir) []error {
	if len(runs) < 2 {
		return nil
	}
	stores := kindsDiffer(runs)
	first := runs[0]
	w0 := comparedDoc(first, stores)
	var warnings []error
	for _, r := range runs[1:] {
		if diff := docDiff(w0, comparedDoc(r, stores), ""); len(diff) > 0 {
			warnings = append(warnings, fmt.Errorf("%s and %s ran different workloads (%s differ); the lines differ in more than the labels say",
				first.Dir, r.Dir, strings.Join(diff, ", ")))
		}
		if a, b := first.Run.Transport.Name, r.Run.Transport.Name; a != b && !stores {
			warnings = append(warnings, fmt.Errorf("%s ran on %s, %s on %s", first.Dir, a, r.Dir, b))
		}
	}
	return warnings
}

// docDiff lists the dotted paths at which two JSON documents differ,
// descending into objects and comparing anything else whole.
func docDiff(a, b any, prefix string) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if reflect.DeepEqual(a, b) {
			return nil
		}
		return []string{strings.TrimSuffix(prefix, ".")}
	}
	var keys []string
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		out = append(out, docDiff(am[k], bm[k], prefix+k+".")...)
	}
	return out
}
