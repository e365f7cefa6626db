//go:build linux && cgo

package verbs

/*
#cgo LDFLAGS: -libverbs -lrdmacm
#cgo nocallback kv_send_h
#cgo nocallback kv_post_rdma_h
#cgo nocallback kv_post_write_send_h
#cgo nocallback kv_post_bind_h
#cgo nocallback kv_post_inv_h
#cgo noescape kv_post_recvs_h
#cgo nocallback kv_post_recvs_h
#cgo noescape kv_poll_h
#cgo nocallback kv_poll_h
#cgo noescape kv_arm_poll
#cgo nocallback kv_arm_poll
#cgo noescape kv_cq_events
#cgo nocallback kv_cq_events
#include "verbs.h"
*/
import "C"

import "unsafe"

// h passes C memory to a C function's _h form (verbs.h) as an integer,
// which cgo does not check at run time as it does a pointer.
func h[T any](p *T) C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(p))) }

// wr_id layout, mirrored from verbs.h.
const (
	kindShift = C.KV_KIND_SHIFT
	kindRecv  = C.KV_KIND_RECV
	kindOp    = C.KV_KIND_OP
	kindSend  = C.KV_KIND_SEND
	kindDrain = C.KV_KIND_DRAIN

	genMask = 1<<30 - 1
	seqMask = 1<<62 - 1
)

// headSize is a receive buffer's head, mirrored from verbs.h (recvQueue).
const headSize = C.KV_HEAD
