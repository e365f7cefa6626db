package workload

import (
	"strings"
	"testing"
	"time"
)

// Each override has a flag of its own, help to show and a default that
// overrides nothing (a type's zero).
func TestOverrideFlags(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range OverrideFlags() {
		if seen[o.Flag] || o.Flag == "" || strings.HasPrefix(o.Flag, "-") || o.Help == "" {
			t.Errorf("override %+v: want a new flag name without dashes, and help", o)
		}
		seen[o.Flag] = true
		switch o.Zero().(type) {
		case string, int, uint64, float64, bool, time.Duration:
		default:
			t.Errorf("--%s holds a %T", o.Flag, o.Zero())
		}
	}
}

// An override the table lacks, or a value of another type, is the
// caller's bug, not a setting quietly left alone.
func TestApplyOverridesRefusesUnknown(t *testing.T) {
	for name, o := range map[string]Overrides{
		"unknown flag": {"server": "a:1", "sever": "b:1"},
		"wrong type":   {"connections": "4"},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("ApplyOverrides(%v) did not panic", o)
				}
			}()
			var w Workload
			w.ApplyOverrides(o)
		})
	}
}
