package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/testutil/clidoc"
)

// The README's synopsis of every command names exactly the flags the
// command has, and every command has an example in its --help. A group of
// commands (kvbench trace) has a synopsis per command in it.
func TestREADMEAgreesWithHelp(t *testing.T) {
	doc, err := clidoc.Synopses("../../README.md", "kvbench")
	if err != nil {
		t.Fatal(err)
	}
	root := NewRoot()
	if root.Example == "" {
		t.Error("kvbench --help has no example")
	}
	var check func(cmd *cobra.Command, path string)
	check = func(cmd *cobra.Command, path string) {
		if cmd.Example == "" {
			t.Errorf("kvbench %s --help has no example", path)
		}
		if cmd.HasSubCommands() {
			// A group: its commands have the synopses.
			for _, sub := range cmd.Commands() {
				check(sub, path+" "+sub.Name())
			}
			return
		}
		readme, ok := doc[path]
		if !ok {
			t.Errorf("the README has no synopsis of kvbench %s", path)
			return
		}
		slices.Sort(readme)
		if have := clidoc.Flags(cmd); !slices.Equal(readme, have) {
			t.Errorf("kvbench %s: the README names flags %v, the command has %v", path, readme, have)
		}
		delete(doc, path)
	}
	for _, cmd := range root.Commands() {
		if name := cmd.Name(); name != "help" && name != "completion" {
			check(cmd, name)
		}
	}
	delete(doc, "")
	for name := range doc {
		t.Errorf("the README has a synopsis of kvbench %s, which does not exist", name)
	}
}
