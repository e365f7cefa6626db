//go:build linux && cgo

package verbs

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// LocalAddr is an IP address of this machine that rdma_cm routes over an
// RDMA device: the first address of the first network interface an RDMA
// device's port is bound to (IPv4 before IPv6, link-local and loopback
// never). A server meant for clients on this machine listens there, since
// loopback (127.0.0.1) does not route over RDMA. It fails with
// transport.ErrNoDevice when no device has such an address.
func LocalAddr() (netip.Addr, error) {
	return localAddr("/sys/class/infiniband", func(name string) ([]net.Addr, error) {
		ifc, err := net.InterfaceByName(name)
		if err != nil {
			return nil, err
		}
		return ifc.Addrs()
	})
}

// localAddr reads the devices' netdevs under sysfs (DEV/ports/N/gid_attrs/
// ndevs/I, as RoCE devices have) and asks addrs for each one's addresses.
func localAddr(sysfs string, addrs func(netdev string) ([]net.Addr, error)) (netip.Addr, error) {
	files, _ := filepath.Glob(filepath.Join(sysfs, "*", "ports", "*", "gid_attrs", "ndevs", "*"))
	sort.Strings(files)
	seen := map[string]bool{}
	var v6 netip.Addr
	var tried []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		name := strings.TrimSpace(string(b))
		if err != nil || name == "" || seen[name] {
			continue
		}
		seen[name] = true
		dev := strings.Split(strings.TrimPrefix(f, sysfs+string(filepath.Separator)), string(filepath.Separator))[0]
		tried = append(tried, dev+" on "+name)
		as, err := addrs(name)
		if err != nil {
			continue
		}
		for _, a := range as {
			p, err := netip.ParsePrefix(a.String())
			if err != nil {
				continue
			}
			ip := p.Addr().Unmap()
			switch {
			case ip.IsLoopback() || ip.IsLinkLocalUnicast():
			case ip.Is4():
				return ip, nil
			case !v6.IsValid():
				v6 = ip
			}
		}
	}
	if v6.IsValid() {
		return v6, nil
	}
	if len(tried) == 0 {
		return netip.Addr{}, noDevice("no RDMA device with a network interface under " + sysfs)
	}
	return netip.Addr{}, fmt.Errorf("%w: no usable IP address on the network interfaces of the RDMA devices (%s); rdma_cm needs one to route over",
		transport.ErrNoDevice, strings.Join(tried, ", "))
}
