//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// lbErr reads one kv_loopback result: a negative errno or a positive
// work completion status.
func lbErr(r C.int) error {
	switch {
	case r == 0:
		return nil
	case r < 0:
		return syscall.Errno(-r)
	}
	return fmt.Errorf("completed with %s", C.GoString(C.ibv_wc_status_str(uint32(r))))
}

// ProbeSRQWR is the C side's probe depth too.
var _ = [1]struct{}{}[ProbeSRQWR-C.KV_PROBE_SRQ_WR]

// Devices describes every RDMA device of this machine, opening each one to
// query it and to probe windows and inline data. It returns none, and no
// error, on a machine without devices; NoDeviceAdvice says what to do then.
func Devices() ([]DeviceInfo, error) {
	var p *C.struct_kv_dev_info
	n := C.kv_devices_query(&p)
	if n < 0 {
		return nil, fmt.Errorf("verbs: list devices: %w", errno(n))
	}
	if n == 0 {
		return nil, nil
	}
	defer C.free(unsafe.Pointer(p))
	out := make([]DeviceInfo, n)
	ds := unsafe.Slice(p, int(n))
	for i := range ds {
		out[i] = deviceInfo(&ds[i])
	}
	return out, nil
}

// NoDeviceAdvice is what to do on a machine without an RDMA device: the
// advice of the transport's own no-device error.
func NoDeviceAdvice() string { return softRoCEHint }

func deviceInfo(d *C.struct_kv_dev_info) DeviceInfo {
	di := DeviceInfo{
		Name:      C.GoString(&d.name[0]),
		NodeType:  C.GoString(C.ibv_node_type_str(int32(d.node_type))),
		Transport: "unknown",
	}
	switch d.transport_type {
	case C.IBV_TRANSPORT_IB:
		di.Transport = "InfiniBand"
	case C.IBV_TRANSPORT_IWARP:
		di.Transport = "iWARP"
	}
	if d.err != 0 {
		di.Err = syscall.Errno(-d.err)
		return di
	}
	di.Firmware = C.GoString(&d.fw[0])
	di.VendorID = uint32(d.vendor_id)
	di.MaxQPWR, di.MaxSGE, di.MaxCQE, di.MaxMR = int(d.max_qp_wr), int(d.max_sge), int(d.max_cqe), int(d.max_mr)
	di.MaxSRQ, di.MaxSRQWR, di.MaxSRQSGE = int(d.max_srq), int(d.max_srq_wr), int(d.max_srq_sge)
	di.WindowsClaimed, di.Windows = d.mw_caps != 0, d.mw_type2 != 0
	di.SendWithInv = d.mem_mgt != 0
	di.MaxInline = int(d.max_inline)
	if d.srq_err != 0 {
		di.SRQErr = syscall.Errno(-d.srq_err)
	}
	if di.Loopback.Err = lbErr(d.lb.err); di.Loopback.Err == nil {
		di.Loopback.Window, di.Loopback.WriteImm, di.Loopback.Invalidate = lbErr(d.lb.bind_err), lbErr(d.lb.imm_err), lbErr(d.lb.inv_err)
		if di.Loopback.Window != nil {
			di.Loopback.Invalidate = errors.New("untried: no window bound")
		}
	}
	for i := range int(d.nports) {
		p := d.ports[i]
		di.Ports = append(di.Ports, PortInfo{
			Num:       i + 1,
			State:     portState(p.state),
			LinkLayer: linkLayer(p.link_layer),
			MTU:       int(p.mtu),
			GIDs:      int(p.gids),
		})
	}
	return di
}

// portState names a port state as sysfs does ("4: ACTIVE"), so a port
// reads the same whether libibverbs or sysfs described it;
// ibv_port_state_str's words are lower case.
func portState(s C.int) string {
	switch s {
	case C.IBV_PORT_DOWN:
		return "DOWN"
	case C.IBV_PORT_INIT:
		return "INIT"
	case C.IBV_PORT_ARMED:
		return "ARMED"
	case C.IBV_PORT_ACTIVE:
		return "ACTIVE"
	case C.IBV_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER"
	}
	return strings.ToUpper(C.GoString(C.ibv_port_state_str(uint32(s))))
}

func linkLayer(l C.int) string {
	switch l {
	case C.IBV_LINK_LAYER_ETHERNET:
		return "Ethernet"
	case C.IBV_LINK_LAYER_INFINIBAND, C.IBV_LINK_LAYER_UNSPECIFIED:
		return "InfiniBand"
	}
	return "unknown"
}

// RegisteredBytes is the memory a connection with cfg registers for its
// messages: its receive buffers with their heads (a listener registers one
// set, which its connections share) and its send ring (every connection
// its own, with its first message too large to go inline).
func RegisteredBytes(cfg transport.Config) (recv, ring int64, err error) {
	cfg, err = checkConfig(cfg)
	if err != nil {
		return 0, 0, err
	}
	n, size := recvBuffers(cfg.RecvDepth, cfg.Poll), cfg.MaxMessage
	recv = int64(n) * int64(size)
	if size > headSize {
		recv = (recv+63)&^63 + int64(n)*headSize
	}
	recv *= int64(recvChunks(cfg.RecvDepth, cfg.MaxRecvDepth)) // a listener's grown to its most
	return recv, int64(ringBytes(cfg.SendDepth, cfg.MaxMessage, cfg.MaxSend)), nil
}
