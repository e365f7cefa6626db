package figure_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/figure/figuretest"
	"github.com/kvbench/kvbench/internal/results"
)

// Every declared figure is whole: a name that is its key in results.json,
// Has, a merge, a sample for the readers' tests; and no two figures share
// a name, a compare metric or a CSV column, nor take p50, p99 or ops/s.
func TestDeclarations(t *testing.T) {
	names, metrics, csv := map[string]bool{}, map[string]bool{"p50": true, "p99": true, "ops/s": true}, map[string]bool{}
	once := func(seen map[string]bool, what, name string) {
		if seen[name] {
			t.Errorf("%s %q declared twice", what, name)
		}
		seen[name] = true
	}
	for _, f := range figure.All() {
		once(names, "figure", f.Name)
		if f.Has == nil || f.Merge.New == nil || f.Unit == "" {
			t.Errorf("%s: Has, Merge.New or Unit missing", f.Name)
		}
		if c := f.Compare; c != nil {
			if len(c.Names) == 0 || c.Values == nil {
				t.Errorf("%s: compared without names or values", f.Name)
			}
			for _, n := range c.Names {
				once(metrics, "compare metric", n)
			}
		}
		for _, col := range f.Report.CSV {
			once(csv, "CSV column", col.Head)
		}
		if _, ok := figuretest.Samples[f.Name]; !ok {
			t.Errorf("%s: no sample in figuretest.Samples", f.Name)
		}
	}
	if extra := slices.Collect(maps.Keys(figuretest.Samples)); len(extra) != len(names) {
		t.Errorf("samples %v for figures %v", extra, slices.Collect(maps.Keys(names)))
	}
}

// A figure's name is its cell's key in results.json: present when the
// cell has the figure, absent when not.
func TestNamesAreResultsKeys(t *testing.T) {
	for _, f := range figure.All() {
		var with, without results.Cell
		figuretest.Samples[f.Name](t, &with)
		if !f.Has(with) || f.Has(without) {
			t.Errorf("%s: Has %v on its sample, %v on an empty cell", f.Name, f.Has(with), f.Has(without))
		}
		for cell, want := range map[*results.Cell]bool{&with: true, &without: false} {
			b, err := json.Marshal(cell)
			if err != nil {
				t.Fatal(err)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(b, &keys); err != nil {
				t.Fatal(err)
			}
			if _, ok := keys[f.Name]; ok != want {
				t.Errorf("%s: key in results.json %v, want %v", f.Name, ok, want)
			}
		}
	}
}

// Register adds a figure after the declared ones, refuses a name taken,
// and takes it back.
func TestRegister(t *testing.T) {
	n := len(figure.All())
	unregister := figure.Register(figuretest.Fake())
	if all := figure.All(); len(all) != n+1 || all[n].Name != figuretest.FakeName {
		t.Errorf("figures after Register: %d, last %q", len(all), all[len(all)-1].Name)
	}
	if _, ok := figure.Lookup(figuretest.FakeName); !ok {
		t.Error("Lookup does not find the registered figure")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a name registered twice was accepted")
			}
		}()
		figure.Register(figuretest.Fake())
	}()
	unregister()
	if _, ok := figure.Lookup(figuretest.FakeName); ok || len(figure.All()) != n {
		t.Errorf("after unregister: %d figures, fake found %v", len(figure.All()), ok)
	}
}
