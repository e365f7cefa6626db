package results

import (
	"fmt"
	"slices"
)

// WorkloadDiff finds the first field, by dotted path in key order, where
// two runs' workload documents differ, skipping the paths in ignore. A
// section one side lacks compares field by field with an empty one.
func WorkloadDiff(a, b any, ignore ...string) (path string, x, y any, differ bool) {
	return diff(a, b, "", ignore)
}

func diff(a, b any, path string, ignore []string) (string, any, any, bool) {
	if slices.Contains(ignore, path) {
		return "", nil, nil, false
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && b == nil || bok && a == nil {
		aok, bok = true, true
	}
	if !aok || !bok {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			return path, a, b, true
		}
		return "", nil, nil, false
	}
	keys := make([]string, 0, len(am)+len(bm))
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		p := k
		if path != "" {
			p = path + "." + k
		}
		if q, x, y, ok := diff(am[k], bm[k], p, ignore); ok {
			return q, x, y, true
		}
	}
	return "", nil, nil, false
}

// Show prints a workload value for messages, "absent" for none.
func Show(v any) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(v)
}
