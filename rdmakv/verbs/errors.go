//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// softRoCEHint tells a user without an RNIC how to get a software one.
const softRoCEHint = "for Soft-RoCE, load the driver and attach it to " +
	"the interface that holds the address: `modprobe rdma_rxe && rdma link add rxe0 type rxe netdev IFACE`"

func noDevice(detail string) error {
	if detail != "" {
		return fmt.Errorf("%w: %s (%s)", transport.ErrNoDevice, softRoCEHint, detail)
	}
	return fmt.Errorf("%w: %s", transport.ErrNoDevice, softRoCEHint)
}

var (
	errPeerClosed = fmt.Errorf("%w: peer disconnected", transport.ErrClosed)
	errRemoved    = errors.New("verbs: device removed")
	errNotVerbs   = errors.New("verbs: region does not belong to the verbs transport")
	errOtherPD    = errors.New("verbs: region is registered on another device")
	errQueueFull  = errors.New("verbs: send queue full")
)

// errno turns a negative errno returned by the C side into an error.
func errno(r C.int) error {
	if r >= 0 {
		return nil
	}
	return syscall.Errno(-r)
}

// cmErr is the error of a librdmacm call that returned -1, given the
// errno cgo read right after it; a call that failed without setting errno
// reads as EIO, as the kv_ wrappers report it.
func cmErr(err error) error {
	if err == nil {
		return syscall.EIO
	}
	return err
}

func wcStatusString(s uint32) string {
	return C.GoString(C.ibv_wc_status_str(C.enum_ibv_wc_status(s)))
}

// statusErr maps a failed completion onto the transport's errors. A flush
// only says the QP is in the error state; the reason is the connection's.
func (c *conn) statusErr(wc *C.struct_kv_wc) error {
	switch wc.status {
	case C.IBV_WC_SUCCESS:
		return nil
	case C.IBV_WC_WR_FLUSH_ERR:
		return c.closedErr()
	case C.IBV_WC_REM_ACCESS_ERR, C.IBV_WC_REM_INV_REQ_ERR, C.IBV_WC_MW_BIND_ERR:
		return fmt.Errorf("%w (%s, vendor error %#x)", transport.ErrRemoteAccess,
			wcStatusString(uint32(wc.status)), uint32(wc.vendor_err))
	case C.IBV_WC_RETRY_EXC_ERR, C.IBV_WC_RNR_RETRY_EXC_ERR:
		return fmt.Errorf("%w: peer not responding (%s)", transport.ErrClosed, wcStatusString(uint32(wc.status)))
	case C.IBV_WC_LOC_LEN_ERR:
		return fmt.Errorf("%w (%s)", transport.ErrTooLarge, wcStatusString(uint32(wc.status)))
	}
	return fmt.Errorf("verbs: work completion failed: %s (vendor error %#x)",
		wcStatusString(uint32(wc.status)), uint32(wc.vendor_err))
}
