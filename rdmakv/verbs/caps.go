package verbs

import (
	"fmt"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// caps is what a device must offer the transport: reliable connected
// queue pairs (an InfiniBand, RoCE or iWARP device; EFA and usNIC have
// none) and, to serve, a shared receive queue (irdma's E810 and X722
// have none). docs/NICS.md has the providers' sources.
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

// serve is nil if a server can listen on the device.
func (c caps) serve() error {
	if err := c.dial(); err != nil {
		return err
	}
	if !c.srq {
		return unusable(c.name, "has no shared receive queue, which a verbs server posts its receives to")
	}
	return nil
}

// unusable is transport.ErrNoDevice naming the device, what it lacks and
// the way out: transport auto falls back to tcp on it.
func unusable(name, lacks string) error {
	return fmt.Errorf("%w usable: %s %s; use --transport tcp (or auto, which falls back to it)",
		transport.ErrNoDevice, name, lacks)
}
