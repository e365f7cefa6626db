package main

import (
	"io"
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/testutil/clidoc"
)

// The README's kvserver synopsis names exactly kvserver's flags, and
// --help has an example.
func TestREADMEAgreesWithHelp(t *testing.T) {
	doc, err := clidoc.Synopses("../../README.md", "kvserver")
	if err != nil {
		t.Fatal(err)
	}
	readme, ok := doc[""]
	if !ok || len(doc) != 1 {
		t.Fatalf("want one kvserver synopsis in the README, have %v", doc)
	}
	cmd := newCommand(io.Discard, io.Discard)
	slices.Sort(readme)
	if have := clidoc.Flags(cmd); !slices.Equal(readme, have) {
		t.Errorf("the README names flags %v, kvserver has %v", readme, have)
	}
	if cmd.Example == "" {
		t.Error("kvserver --help has no example")
	}
}
