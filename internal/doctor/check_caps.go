package doctor

import (
	"fmt"

	"github.com/kvbench/kvbench/rdmakv"
)

const secCaps = "capabilities"

// What rdmakv asks of a device at its defaults: a server's QPs share one
// SRQ of --recv-depth buffers (or, without one, each QP has as many), each posted as two pieces (head and rest);
// a connection posts up to two send WRs a message plus one to drain
// (verbs sendWR), and a client's send depth is twice its depth plus 8.
const (
	needSGE      = 2
	serverSendWR = 2*rdmakv.DefaultRecvDepth + 1
	clientSendWR = 2*(2*rdmakv.DefaultDepth+8) + 1
)

func checkCapabilities(r *Report, devs []Device) {
	for _, d := range devs {
		if d.Caps != nil {
			checkCaps(r, d.Name, *d.Caps)
		}
	}
}

func checkCaps(r *Report, name string, c Caps) {
	if !c.RC {
		r.add(secCaps, name+" queue pairs", Fail,
			"no reliable connected queue pairs (the transport is neither InfiniBand, RoCE nor iWARP, as on EFA): rdmakv's verbs transport cannot use it",
			"use --transport tcp")
		return
	}
	switch {
	case c.Windows:
		r.add(secCaps, name+" memory windows", OK, "type-2 windows: each rendezvous grant opens only its value", "")
	case c.WindowsClaimed:
		r.add(secCaps, name+" memory windows", Warn, "the device claims type-2 windows but cannot allocate one: grants hand out the pool's region-wide key",
			"update the driver and firmware, or trust every client with the whole pool")
	default:
		r.add(secCaps, name+" memory windows", Warn, "no type-2 windows: grants hand out the pool's region-wide key, so a client can reach all of it",
			"use a device with type-2 windows where clients are not trusted")
	}
	if c.Windows {
		checkSendWithInv(r, name, c.SendWithInv)
	}
	if c.MaxInline > 0 {
		r.add(secCaps, name+" inline", OK, fmt.Sprintf("%d bytes inline a QP (rdmakv asks for 256)", c.MaxInline), "")
	} else {
		r.add(secCaps, name+" inline", Warn, "no inline data: every small message is read by the NIC from the send ring, a DMA more", "")
	}
	switch {
	case c.MaxSRQ == 0:
		r.add(secCaps, name+" srq", Warn,
			"no shared receive queues: kvserver gives each connection --recv-depth receives of its own, registered per connection",
			"lower kvserver --recv-depth for many clients (docs/USAGE.md, Receive queues)")
	case c.SRQError != "":
		r.add(secCaps, name+" srq", Fail,
			fmt.Sprintf("the device reports %d SRQs, but making one of %d WRs and %d SGEs failed: %s", c.MaxSRQ, min(c.MaxSRQWR, rdmakv.DefaultRecvDepth), needSGE, c.SRQError),
			"start kvserver with --receives per-connection, or update the driver")
	case c.MaxSRQWR < rdmakv.DefaultRecvDepth || c.MaxSRQSGE < needSGE:
		r.add(secCaps, name+" srq", Fail,
			fmt.Sprintf("SRQ of %d WRs and %d SGEs: a kvserver needs %d (--recv-depth) and %d", c.MaxSRQWR, c.MaxSRQSGE, rdmakv.DefaultRecvDepth, needSGE),
			fmt.Sprintf("start kvserver with --recv-depth %d or less, or with --receives per-connection", c.MaxSRQWR))
	default:
		r.add(secCaps, name+" srq", OK, fmt.Sprintf("%d SRQs of up to %d WRs and %d SGEs", c.MaxSRQ, c.MaxSRQWR, c.MaxSRQSGE), "")
	}
	if c.Loopback != nil {
		checkLoopback(r, name, c)
	}
	need := max(serverSendWR, clientSendWR)
	switch {
	case c.MaxQPWR < need || c.MaxSGE < needSGE:
		r.add(secCaps, name+" queue pairs", Fail,
			fmt.Sprintf("QPs of %d WRs and %d SGEs: the defaults need %d and %d", c.MaxQPWR, c.MaxSGE, need, needSGE),
			"lower kvserver --recv-depth and the client's depth (--depth in a workload) until 2 × depth + 1 fits")
	default:
		r.add(secCaps, name+" queue pairs", OK, fmt.Sprintf("up to %d WRs and %d SGEs a queue, %d CQEs a CQ, %d MRs", c.MaxQPWR, c.MaxSGE, c.MaxCQE, c.MaxMR), "")
	}
}

// checkSendWithInv: with windows, a client releases a rendezvous value
// with a SEND_WITH_INV naming its window, so the window closes in the
// NIC before the server hears of the release.
func checkSendWithInv(r *Report, name string, ok bool) {
	if ok {
		r.add(secCaps, name+" send with invalidate", OK, "SEND_WITH_INV: a client closes its window as it releases it", "")
		return
	}
	r.add(secCaps, name+" send with invalidate", Warn,
		"the device does not claim SEND_WITH_INV (memory management extensions), which a client's release of a window uses",
		"update the driver and firmware")
}

// checkLoopback reports what a loopback pair did with the operations the
// transport uses, and so what it will use on the device.
func checkLoopback(r *Report, name string, c Caps) {
	lb := c.Loopback
	if lb.Error != "" {
		r.add(secCaps, name+" loopback", Warn, "two connected QPs of port 1 could not be made ("+lb.Error+
			"): windows and WRITE_WITH_IMM are untried", "bring port 1 up with an address (rdma link, ip addr)")
		return
	}
	uses := "per-grant windows"
	switch {
	case lb.WindowError != "":
		uses = "the pool's region-wide key (no window bound: " + lb.WindowError + ")"
	case lb.InvalidateError != "":
		r.add(secCaps, name+" loopback", Fail, "a window was bound but invalidating it failed: "+lb.InvalidateError,
			"update the driver and firmware")
		return
	}
	commit := "WRITE_WITH_IMM"
	if lb.WriteImmError != "" {
		commit = "RDMA WRITE and a SET_FIN (no WRITE_WITH_IMM: " + lb.WriteImmError + ")"
	}
	recv := "a shared receive queue"
	switch {
	case c.MaxSRQ == 0:
		recv = "a receive queue per connection (the device has no shared one)"
	case c.SRQError != "":
		recv = "a receive queue per connection given --receives per-connection (making a shared one failed)"
	}
	r.add(secCaps, name+" loopback", OK, fmt.Sprintf("on a loopback pair: rdmakv grants %s, commits a rendezvous SET with %s, serves from %s, and sends up to %d bytes inline",
		uses, commit, recv, c.MaxInline), "")
}
