package verbs

/*
#cgo LDFLAGS: -libverbs -lrdmacm
#cgo noescape kv_send
#cgo nocallback kv_send
#cgo noescape kv_post_rdma
#cgo nocallback kv_post_rdma
#cgo noescape kv_post_recv
#cgo nocallback kv_post_recv
#cgo noescape kv_poll
#cgo nocallback kv_poll
#cgo noescape kv_arm_poll
#cgo nocallback kv_arm_poll
#cgo noescape kv_cq_events
#cgo nocallback kv_cq_events
#include "verbs.h"
*/
import "C"

import "unsafe"

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

// bytesPtr is the address of b's first byte, or nil for an empty slice; the
// C side copies from it during the call and keeps nothing.
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}
