package verbs

import "github.com/kvbench/kvbench/rdmakv/transport"

// Name is the transport's registry name.
const Name = transport.Verbs

// MaxDepth bounds Config.RecvDepth and SendDepth on this transport; the
// other defaults and limits are transport's, the same for every transport.
const MaxDepth = 1 << 14

// DeviceInfo is what libibverbs says of one RDMA device and what rdmakv
// would get from it.
type DeviceInfo struct {
	Name      string
	Firmware  string
	NodeType  string // "CA", "RNIC", ...
	Transport string // "InfiniBand" or "iWARP" (RoCE is InfiniBand over an Ethernet link layer)
	VendorID  uint32
	// Err says why the device could not be opened or queried; the fields
	// below are then zero.
	Err error

	MaxQPWR, MaxSGE, MaxCQE, MaxMR int
	MaxSRQ, MaxSRQWR, MaxSRQSGE    int
	// WindowsClaimed: the device sets a type-2 window capability bit;
	// Windows: one also allocates, so rdmakv grants per-request windows
	// (without them a grant hands out the region-wide key).
	WindowsClaimed, Windows bool
	// SendWithInv: the device claims the memory management extensions,
	// whose SEND_WITH_INV lets a client close its window as it releases it.
	SendWithInv bool
	// MaxInline is the inline data an RC QP gets asking as rdmakv does
	// (256 bytes first, then less).
	MaxInline int
	// SRQErr is why a shared receive queue of ProbeSRQWR WRs of kvserver's default depth
	// (the device's largest, if smaller) with two SGEs could not be made;
	// nil if one was.
	SRQErr error
	// Loopback is what two RC QPs of port 1, connected to each other, did
	// with the operations the transport uses.
	Loopback Loopback
	Ports    []PortInfo
}

// Loopback is the outcome of each operation Devices tries on a loopback
// pair; nil where it worked. Err says why the pair could not be made
// (then the rest are nil, untried).
type Loopback struct {
	Err error
	// Window: a type-2 window bound over a region (an error, without
	// windows).
	Window error
	// WriteImm: a WRITE_WITH_IMM through that window (or, without one,
	// the region's key) landed with its data and immediate.
	WriteImm error
	// Invalidate: the window invalidated, and a write through it then
	// refused.
	Invalidate error
}

// ProbeSRQWR is the depth of the shared receive queue Devices makes on
// each device: kvserver's default --recv-depth.
const ProbeSRQWR = 256 // verbs.h's KV_PROBE_SRQ_WR

// PortInfo is one port of a device.
type PortInfo struct {
	Num       int
	State     string // "ACTIVE", "DOWN", ...
	LinkLayer string // "InfiniBand" or "Ethernet"
	MTU       int    // active MTU in bytes
	GIDs      int    // GID table length
}
