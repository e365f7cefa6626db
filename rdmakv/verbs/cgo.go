package verbs

/*
#cgo LDFLAGS: -libverbs -lrdmacm
#cgo nocallback kv_send
#cgo nocallback kv_post_rdma
#cgo nocallback kv_post_write_send_inv
#cgo noescape kv_post_recvs
#cgo nocallback kv_post_recvs
#cgo noescape kv_poll
#cgo nocallback kv_poll
#cgo noescape kv_arm_poll
#cgo nocallback kv_arm_poll
#cgo noescape kv_cq_events
#cgo nocallback kv_cq_events
#include "verbs.h"
*/
import "C"

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
