//go:build rdmavm

package verbs

import "testing"

// TestDevicesRXE: the guest's Soft-RoCE device is listed with an active
// Ethernet port, type-2 windows and some inline data, as rdmakv uses it.
func TestDevicesRXE(t *testing.T) {
	ds, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Err != nil || len(d.Ports) == 0 || d.MaxQPWR == 0 {
			continue
		}
		p := d.Ports[0]
		if p.State != "ACTIVE" || p.LinkLayer != "Ethernet" || p.MTU == 0 || !d.Windows || d.MaxInline == 0 {
			t.Errorf("%s: %+v; want an active Ethernet port with an MTU, windows and inline data", d.Name, d)
		}
		return
	}
	t.Fatalf("no usable device among %+v", ds)
}
