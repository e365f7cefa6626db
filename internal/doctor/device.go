package doctor

import (
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// sysIB is where the kernel lists RDMA devices.
const sysIB = "/sys/class/infiniband"

// Device is one RDMA device as libibverbs and sysfs describe it.
type Device struct {
	Name   string `json:"name"`
	Driver string `json:"driver,omitempty"`
	// Software names a software provider ("rxe (Soft-RoCE)", "siw
	// (Soft-iWARP)"); empty for hardware.
	Software  string `json:"software,omitempty"`
	Transport string `json:"transport"` // InfiniBand, RoCE or iWARP
	Firmware  string `json:"firmware,omitempty"`
	NUMANode  int    `json:"numa_node"` // -1 when the device has none
	Ports     []Port `json:"ports"`
	Caps      *Caps  `json:"capabilities,omitempty"`
	// Error says why libibverbs could not open or list the device.
	Error string `json:"error,omitempty"`
}

// Port is one port of a device.
type Port struct {
	Num       int    `json:"num"`
	State     string `json:"state"`
	LinkLayer string `json:"link_layer"`
	MTU       int    `json:"active_mtu,omitempty"`
	GIDs      []GID  `json:"gids"`
}

// GID is one populated entry of a port's GID table.
type GID struct {
	Index  int    `json:"index"`
	GID    string `json:"gid"`
	Type   string `json:"type,omitempty"`   // "RoCE v2", "IB/RoCE v1"
	Netdev string `json:"netdev,omitempty"` // the network interface it belongs to
}

// Caps are the device limits rdmakv depends on.
type Caps struct {
	// RC: the device makes reliable connected queue pairs (InfiniBand,
	// RoCE, iWARP), which rdmakv's verbs transport uses; EFA and usNIC
	// make none.
	RC             bool `json:"rc"`
	Windows        bool `json:"mw_type2"`
	WindowsClaimed bool `json:"mw_type2_claimed"`
	// SendWithInv: the device claims SEND_WITH_INV (memory management
	// extensions), with which a client closes its window as it releases it.
	SendWithInv bool `json:"send_with_inv"`
	MaxInline   int  `json:"max_inline"`
	MaxQPWR     int  `json:"max_qp_wr"`
	MaxSGE      int  `json:"max_sge"`
	MaxCQE      int  `json:"max_cqe"`
	MaxMR       int  `json:"max_mr"`
	MaxSRQ      int  `json:"max_srq"`
	MaxSRQWR    int  `json:"max_srq_wr"`
	MaxSRQSGE   int  `json:"max_srq_sge"`
	// SRQError is why the shared receive queue doctor made failed; empty
	// if it was made.
	SRQError string `json:"srq_error,omitempty"`
	// Loopback is what two connected QPs of port 1 did with the
	// operations the transport uses; nil where no device was opened.
	Loopback *Loopback `json:"loopback,omitempty"`
}

// Loopback says, per operation tried on a loopback pair, why it failed;
// empty where it worked.
type Loopback struct {
	Error           string `json:"error,omitempty"` // the pair could not be made
	WindowError     string `json:"window_error,omitempty"`
	WriteImmError   string `json:"write_imm_error,omitempty"`
	InvalidateError string `json:"invalidate_error,omitempty"`
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// device merges what libibverbs said of a device with sysfs.
func (e Env) device(vi verbs.DeviceInfo) Device {
	dir := filepath.Join(sysIB, vi.Name)
	d := Device{Name: vi.Name, Firmware: vi.Firmware, NUMANode: -1}
	if l, err := os.Readlink(e.path(filepath.Join(dir, "device", "driver"))); err == nil {
		d.Driver = filepath.Base(l)
	}
	d.Software = software(vi.Name, d.Driver, vi.VendorID)
	if n, err := strconv.Atoi(e.read(filepath.Join(dir, "device", "numa_node"))); err == nil {
		d.NUMANode = n
	}
	if d.Firmware == "" {
		d.Firmware = e.read(filepath.Join(dir, "fw_ver"))
	}
	if vi.Err != nil {
		d.Error = vi.Err.Error()
		d.Ports = e.sysPorts(vi.Name)
	} else {
		for _, p := range vi.Ports {
			d.Ports = append(d.Ports, Port{Num: p.Num, State: p.State, LinkLayer: p.LinkLayer, MTU: p.MTU,
				GIDs: e.gids(vi.Name, p.Num)})
		}
		d.Caps = &Caps{RC: vi.Transport == "InfiniBand" || vi.Transport == "iWARP", Windows: vi.Windows, WindowsClaimed: vi.WindowsClaimed, SendWithInv: vi.SendWithInv, MaxInline: vi.MaxInline,
			MaxQPWR: vi.MaxQPWR, MaxSGE: vi.MaxSGE, MaxCQE: vi.MaxCQE, MaxMR: vi.MaxMR,
			MaxSRQ: vi.MaxSRQ, MaxSRQWR: vi.MaxSRQWR, MaxSRQSGE: vi.MaxSRQSGE}
		d.Caps.SRQError = errText(vi.SRQErr)
		lb := vi.Loopback
		d.Caps.Loopback = &Loopback{Error: errText(lb.Err), WindowError: errText(lb.Window),
			WriteImmError: errText(lb.WriteImm), InvalidateError: errText(lb.Invalidate)}
	}
	d.Transport = transportOf(vi.Transport, d.Ports)
	return d
}

// software names a software provider by driver, device name or vendor id
// (rxe reports 0xffffff, siw 0x626d74, "bmt").
func software(name, driver string, vendor uint32) string {
	switch {
	case driver == "rdma_rxe" || strings.HasPrefix(name, "rxe") || vendor == 0xffffff:
		return "rxe (Soft-RoCE)"
	case driver == "siw" || strings.HasPrefix(name, "siw") || vendor == 0x626d74:
		return "siw (Soft-iWARP)"
	}
	return ""
}

// transportOf tells RoCE from InfiniBand by the link layer, which
// libibverbs's transport type does not; a device of neither (EFA's
// unspecified transport) keeps libibverbs's word.
func transportOf(t string, ports []Port) string {
	if t != "InfiniBand" {
		return t
	}
	for _, p := range ports {
		if p.LinkLayer == "Ethernet" {
			return "RoCE"
		}
	}
	return "InfiniBand"
}

// sysPorts reads a device's ports from sysfs, for a device libibverbs
// could not open.
func (e Env) sysPorts(dev string) []Port {
	dirs, _ := filepath.Glob(e.path(filepath.Join(sysIB, dev, "ports", "*")))
	var ports []Port
	for _, dir := range dirs {
		n, err := strconv.Atoi(filepath.Base(dir))
		if err != nil {
			continue
		}
		p := filepath.Join(sysIB, dev, "ports", filepath.Base(dir))
		state := e.read(filepath.Join(p, "state")) // "4: ACTIVE"
		if _, s, ok := strings.Cut(state, ": "); ok {
			state = s
		}
		ports = append(ports, Port{Num: n, State: state, LinkLayer: e.read(filepath.Join(p, "link_layer")), GIDs: e.gids(dev, n)})
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i].Num < ports[j].Num })
	return ports
}

// gids reads a port's populated GID entries with their type and network
// interface (gid_attrs, as RoCE devices have).
func (e Env) gids(dev string, port int) []GID {
	p := filepath.Join(sysIB, dev, "ports", strconv.Itoa(port))
	files, _ := filepath.Glob(e.path(filepath.Join(p, "gids", "*")))
	gids := []GID{}
	for _, f := range files {
		i, err := strconv.Atoi(filepath.Base(f))
		if err != nil {
			continue
		}
		a, err := netip.ParseAddr(e.read(filepath.Join(p, "gids", filepath.Base(f))))
		if err != nil || a.IsUnspecified() {
			continue
		}
		idx := strconv.Itoa(i)
		gids = append(gids, GID{Index: i, GID: a.Unmap().String(),
			Type:   e.read(filepath.Join(p, "gid_attrs", "types", idx)),
			Netdev: e.read(filepath.Join(p, "gid_attrs", "ndevs", idx))})
	}
	sort.Slice(gids, func(i, j int) bool { return gids[i].Index < gids[j].Index })
	return gids
}
