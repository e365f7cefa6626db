package cli

import (
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/testutil/clidoc"
)

// The README's synopsis of every command names exactly the flags the
// command has, and every command has an example in its --help.
func TestREADMEAgreesWithHelp(t *testing.T) {
	doc, err := clidoc.Synopses("../../README.md", "kvbench")
	if err != nil {
		t.Fatal(err)
	}
	root := NewRoot()
	if root.Example == "" {
		t.Error("kvbench --help has no example")
	}
	for _, cmd := range root.Commands() {
		name := cmd.Name()
		if name == "help" || name == "completion" {
			continue
		}
		if cmd.Example == "" {
			t.Errorf("kvbench %s --help has no example", name)
		}
		readme, ok := doc[name]
		if !ok {
			t.Errorf("the README has no synopsis of kvbench %s", name)
			continue
		}
		slices.Sort(readme)
		if have := clidoc.Flags(cmd); !slices.Equal(readme, have) {
			t.Errorf("kvbench %s: the README names flags %v, the command has %v", name, readme, have)
		}
		delete(doc, name)
	}
	delete(doc, "")
	for name := range doc {
		t.Errorf("the README has a synopsis of kvbench %s, which does not exist", name)
	}
}
