package results

import "testing"

// A cell's name says its op, value size, threshold and protocol, sizes in
// binary units.
func TestCellName(t *testing.T) {
	c := Cell{Op: "get", ValueSize: 4096, Threshold: 8192, Protocol: "eager"}
	if got := c.Name(); got != "get/4KiB/t=8KiB/eager" {
		t.Errorf("Name = %q", got)
	}
}

// The adaptive policy's cells, whose threshold is -1, are named for the
// policy.
func TestCellNameAdaptive(t *testing.T) {
	c := Cell{Op: "get", ValueSize: 4096, Threshold: AdaptiveThreshold, Policy: PolicyAdaptive, Protocol: "eager"}
	if got := c.Name(); got != "get/4KiB/t=adaptive/eager" {
		t.Errorf("Name = %q", got)
	}
}
