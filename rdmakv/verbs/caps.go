//go:build linux && cgo

package verbs

import (
	"fmt"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// caps is what a device must offer the transport: reliable connected
// queue pairs (an InfiniBand, RoCE or iWARP device; EFA and usNIC have
// none). A server posts its receives to a shared receive queue where the
// device has one (irdma's E810 and X722 have none) and to each
// connection's QP otherwise. docs/NICS.md has the providers' sources.
type caps struct {
	name  string
	rc    bool
	srq   bool
	iwarp bool
}

// dial is nil if a client can connect through the device.
func (c caps) dial() error {
	if !c.rc {
		return unusable(c.name, "has no reliable connected queue pairs")
	}
	return nil
}

// serve reports whether a server listening on the device with receives
// r shares one receive queue among its connections, or fails if it
// cannot listen so.
func (c caps) serve(r transport.Receives) (shared bool, err error) {
	if err := c.dial(); err != nil {
		return false, err
	}
	switch r {
	case transport.ReceivesPerConn:
		return false, nil
	case transport.ReceivesShared:
		if !c.srq {
			return false, fmt.Errorf("%s has no shared receive queue: listen with receives per-connection (or auto)", c.name)
		}
		return true, nil
	}
	return c.srq, nil
}

// unusable is transport.ErrNoDevice naming the device, what it lacks and
// the way out: transport auto falls back to tcp on it.
func unusable(name, lacks string) error {
	return fmt.Errorf("%w usable: %s %s; use --transport tcp (or auto, which falls back to it)",
		transport.ErrNoDevice, name, lacks)
}
