//go:build linux && cgo

package verbs

import (
	"context"
	"net"
	"strings"
	"testing"
)

// An IPv6 link-local address reaches rdma_cm with the interface its zone
// names, by name or number; without a zone it is refused, by name.
func TestParseAddrScope(t *testing.T) {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr      string
		wantScope int
		wantErr   string
	}{
		{"[fe80::1%lo]:7471", lo.Index, ""},
		{"[fe80::1%7]:7471", 7, ""},
		{"[2001:db8::1]:7471", 0, ""},
		{"10.0.0.1:7471", 0, ""},
		{"[fe80::1]:7471", 0, "needs its interface: fe80::1%IFACE"},
		{"[fe80::1%nosuch0]:7471", 0, `zone "nosuch0"`},
	} {
		sa, err := parseAddr(context.Background(), c.addr)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want one saying %q", c.addr, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.addr, err)
		case int(sa.scope) != c.wantScope:
			t.Errorf("%s: scope %d, want %d", c.addr, sa.scope, c.wantScope)
		}
	}
}
