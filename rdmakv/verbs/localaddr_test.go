//go:build linux && cgo

package verbs

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// fakeSysfs lays out DEV/ports/1/gid_attrs/ndevs/0 = NETDEV for each pair.
func fakeSysfs(t *testing.T, devNetdev ...string) string {
	t.Helper()
	root := t.TempDir()
	for i := 0; i+1 < len(devNetdev); i += 2 {
		d := filepath.Join(root, devNetdev[i], "ports", "1", "gid_attrs", "ndevs")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "0"), []byte(devNetdev[i+1]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func ipNets(t *testing.T, cidrs ...string) []net.Addr {
	var as []net.Addr
	for _, c := range cidrs {
		ip, n, err := net.ParseCIDR(c)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		as = append(as, n)
	}
	return as
}

func TestLocalAddr(t *testing.T) {
	ifaces := map[string][]net.Addr{
		"lo": ipNets(t, "127.0.0.1/8"),
		"d0": ipNets(t, "fe80::1/64", "10.0.0.1/24"),
		"v6": ipNets(t, "fe80::2/64", "fd00::5/64"),
		"no": nil,
	}
	addrs := func(name string) ([]net.Addr, error) {
		if as, ok := ifaces[name]; ok {
			return as, nil
		}
		return nil, errors.New("no such interface")
	}
	for _, c := range []struct {
		pairs []string
		want  string // an address, or a piece of the error
	}{
		{[]string{"rxe0", "d0"}, "10.0.0.1"},
		{[]string{"rxe0", "lo", "rxe1", "d0"}, "10.0.0.1"},
		{[]string{"rxe0", "v6", "rxe1", "d0"}, "10.0.0.1"}, // IPv4 first
		{[]string{"rxe0", "v6"}, "fd00::5"},
		{[]string{"rxe0", "no", "rxe1", "gone"}, "(rxe0 on no, rxe1 on gone)"},
		{nil, "no RDMA device with a network interface"},
	} {
		got, err := localAddr(fakeSysfs(t, c.pairs...), addrs)
		if ip, perr := netip.ParseAddr(c.want); perr == nil {
			if err != nil || got != ip {
				t.Errorf("%v: got %v, %v; want %v", c.pairs, got, err, ip)
			}
			continue
		}
		if err == nil || !errors.Is(err, transport.ErrNoDevice) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, %v; want ErrNoDevice saying %q", c.pairs, got, err, c.want)
		}
	}
}
