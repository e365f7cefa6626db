//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// region is memory allocated and registered in C. With memory windows
// available it is also registered for window binding, so Grant can hand out
// per-connection windows on it.
type region struct {
	buf    *C.struct_kv_buf
	b      []byte
	dev    *device
	access transport.Access
	mwBind bool
	addr   uint64
	rkey   uint32
	lkey   uint32
	once   sync.Once
	subs   subCache // window MRs on mwByMR devices
}

// regionAccess is the verbs access of a region registered for a. Any
// region may be the sink of an RDMA READ (a client's staging is), and on
// iWARP a Read Response is a tagged write into the sink's STag (RFC 5040,
// 4.4), which must allow it: there every region takes remote writes.
func regionAccess(a transport.Access, iwarp bool) C.int {
	f := C.IBV_ACCESS_LOCAL_WRITE | ibvAccess(a)
	if iwarp {
		f |= C.IBV_ACCESS_REMOTE_WRITE
	}
	return f
}

// ibvAccess is the remote access a grants (AccessGrantOnly aside).
func ibvAccess(a transport.Access) C.int {
	f := C.int(0)
	if a&transport.AccessRemoteRead != 0 {
		f |= C.IBV_ACCESS_REMOTE_READ
	}
	if a&transport.AccessRemoteWrite != 0 {
		f |= C.IBV_ACCESS_REMOTE_WRITE
	}
	return f
}

func newRegion(d *device, size int, access transport.Access) (*region, error) {
	if size <= 0 {
		return nil, fmt.Errorf("verbs: register: size %d must be positive", size)
	}
	if access&^transport.AccessKnown != 0 {
		return nil, fmt.Errorf("verbs: register: unknown access bits %#x", uint8(access))
	}
	flags := regionAccess(access, d.caps.iwarp)
	r := &region{dev: d, access: access}
	var buf *C.struct_kv_buf
	rc := C.int(-1)
	if d.mw {
		bind := flags
		if access&transport.AccessGrantOnly != 0 {
			// A window's remote rights need none of the MR's (IB
			// C10-74/75: local write for a writable window, and the
			// bind right), so the MR's own rkey grants nothing.
			bind = regionAccess(transport.AccessLocal, d.caps.iwarp)
		}
		rc = C.kv_buf_open(d.d, C.size_t(size), bind|C.IBV_ACCESS_MW_BIND, &buf)
		r.mwBind = rc == 0
	}
	if rc != 0 {
		rc = C.kv_buf_open(d.d, C.size_t(size), flags, &buf)
	}
	if err := errno(rc); err != nil {
		return nil, fmt.Errorf("verbs: register %d bytes: %w", size, err)
	}
	d.acquire()
	r.buf = buf
	r.b = unsafe.Slice((*byte)(buf.addr), size)
	r.addr = uint64(uintptr(buf.addr))
	r.rkey = uint32(buf.mr.rkey)
	r.lkey = uint32(buf.mr.lkey)
	return r, nil
}

func (r *region) Bytes() []byte { return r.b }
func (r *region) Addr() uint64  { return r.addr }
func (r *region) RKey() uint32  { return r.rkey }
func (r *region) LKey() uint32  { return r.lkey }

// Close deregisters and frees the memory. The caller must not have
// operations in flight on it.
func (r *region) Close() error {
	r.once.Do(func() {
		r.closeSubs()
		C.kv_buf_close(r.buf)
		r.b = nil
		r.dev.release()
	})
	return nil
}

// localRange checks that [off, off+n) lies in a verbs region of device d.
func localRange(d *device, lr transport.Region, off, n int) (*region, error) {
	r, ok := lr.(*region)
	if !ok || r == nil {
		return nil, errNotVerbs
	}
	if r.dev != d {
		return nil, errOtherPD
	}
	if off < 0 || n < 0 || off > len(r.b)-n {
		return nil, errRange(off, n, len(r.b))
	}
	return r, nil
}

func errRange(off, n, size int) error {
	return fmt.Errorf("verbs: range [%d, %d+%d) outside a %d-byte region", off, off, n, size)
}

var errUint32 = errors.New("verbs: length does not fit a work request")
