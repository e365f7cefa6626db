//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"fmt"
	"net/netip"
	"sync"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// device is an opened RDMA device with its single protection domain. The
// listener, its connections, client connections on the same device and
// every region registered through any of them share it, so a region can be
// used on any connection of the process on that device.
type device struct {
	d    *C.struct_kv_dev
	refs int // guarded by devMu
	name string
	fw   string
	mw   bool // type-2 memory windows work
	// mwByMR: the device bounds window accesses by the underlying MR only,
	// so each window gets an MR of its own covering exactly its range.
	mwByMR bool
	caps   caps
	ev     *events
}

var (
	devMu   sync.Mutex
	devices = map[*C.struct_ibv_context]*device{}
)

// acquireDevice returns the device for a verbs context, opening it on first
// use. Every acquire is paired with one release.
func acquireDevice(ctx *C.struct_ibv_context) (*device, error) {
	if ctx == nil {
		return nil, noDevice("the address is not on an RDMA device")
	}
	devMu.Lock()
	defer devMu.Unlock()
	if d := devices[ctx]; d != nil {
		d.refs++
		return d, nil
	}
	var kd *C.struct_kv_dev
	if err := errno(C.kv_dev_open(ctx, &kd)); err != nil {
		return nil, fmt.Errorf("verbs: open device: %w", err)
	}
	d := &device{
		d:      kd,
		refs:   1,
		name:   C.GoString(&kd.name[0]),
		fw:     C.GoString(&kd.fw[0]),
		mw:     kd.mw_type2 != 0,
		mwByMR: kd.mw_by_mr != 0,
		caps: caps{name: C.GoString(&kd.name[0]), rc: kd.transport == C.IBV_TRANSPORT_IB || kd.transport == C.IBV_TRANSPORT_IWARP,
			srq: kd.max_srq > 0 && kd.max_srq_wr > 0, iwarp: kd.transport == C.IBV_TRANSPORT_IWARP},
	}
	devices[ctx] = d
	d.watch()
	return d, nil
}

func (d *device) acquire() {
	devMu.Lock()
	d.refs++
	devMu.Unlock()
}

func (d *device) release() {
	devMu.Lock()
	defer devMu.Unlock()
	d.refs--
	if d.refs > 0 {
		return
	}
	delete(devices, d.d.ctx)
	d.unwatch()
	C.kv_dev_close(d.d)
	d.d = nil
}

func (d *device) ctx() *C.struct_ibv_context { return d.d.ctx }

// checkDevices fails fast, before any rdma_cm call, when the machine has no
// RDMA device at all.
func checkDevices() error {
	if C.kv_device_count() == 0 {
		return noDevice("")
	}
	return nil
}

// linkInfo describes the link of a connected cm id.
func linkInfo(d *device, id *C.struct_rdma_cm_id, qp *C.struct_ibv_qp, maxInline int) transport.Info {
	info := transport.Info{
		Transport: Name,
		Link:      transport.Link{Device: d.name, Firmware: d.fw, MaxInline: maxInline},
	}
	var l C.struct_kv_link
	if C.kv_link_query(id, qp, &l) != 0 {
		return info
	}
	info.Port = int(l.port)
	info.MTU = int(l.mtu)
	switch l.link_layer {
	case C.IBV_LINK_LAYER_ETHERNET:
		info.LinkLayer = "Ethernet"
	case C.IBV_LINK_LAYER_INFINIBAND:
		info.LinkLayer = "InfiniBand"
	}
	if l.gid_index >= 0 {
		var raw [16]byte
		for i := range raw {
			raw[i] = byte(l.gid[i])
		}
		typ := "IB/RoCE v1"
		switch l.gid_type {
		case C.IBV_GID_TYPE_ROCE_V2:
			typ = "RoCE v2"
		case C.IBV_GID_TYPE_ROCE_V1:
			typ = "RoCE v1"
		case C.IBV_GID_TYPE_IB:
			typ = "IB"
		}
		info.GID = fmt.Sprintf("%s (index %d, %s)", netip.AddrFrom16(raw), int(l.gid_index), typ)
	}
	return info
}

// devCount is the number of RDMA devices present.
func devCount() int { return int(C.kv_device_count()) }
