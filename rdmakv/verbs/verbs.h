/*
 * verbs.h: the C half of the verbs transport. Go holds pointers to these
 * structs (allocated here, never on the Go heap) and passes scalars in; work
 * requests are built on the C stack, so no Go pointer is ever stored in C.
 */
#ifndef KV_VERBS_H
#define KV_VERBS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/*
 * wr_id layout: kind in the top two bits, then a 30-bit generation and a
 * 32-bit index. Flushed completions carry no valid opcode, so the kind is
 * what tells the pollers what a completion belongs to.
 */
#define KV_KIND_SHIFT 62
enum kv_kind {
	KV_KIND_RECV = 0,  /* index: receive buffer */
	KV_KIND_OP = 1,    /* index: op slot; gen: slot generation */
	KV_KIND_SEND = 2,  /* index: low bits of the send sequence number */
	KV_KIND_DRAIN = 3, /* marks the end of a closing QP's send queue */
};

/* kv_wc is the part of a work completion the Go side reads. */
struct kv_wc {
	uint64_t wr_id;
	uint32_t status;
	uint32_t opcode;
	uint32_t byte_len;
	uint32_t imm; /* host order */
	uint32_t inv; /* rkey the peer invalidated with this SEND, or 0 */
	uint32_t qp_num;
	uint32_t vendor_err;
};

/* kv_dev is one opened device: its protection domain and what we learned. */
struct kv_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[IBV_SYSFS_NAME_MAX];
	char fw[64];
	int max_cqe;
	int max_qp_wr;
	int max_srq_wr;
	int max_qp_rd_atom;
	int max_qp_init_rd_atom;
	int mw_type2; /* type-2 memory windows allocate and bind */
	int mw_by_mr; /* window bounds come only from the MR beneath (rxe) */
	int transport; /* enum ibv_transport_type */
	int max_srq;
	int wake[2]; /* a pipe: a byte on it ends kv_async_next */
};

/* kv_async is one asynchronous event of a device (dev.c): its type (enum
 * ibv_event_type) and the QP number or port it names, else 0. */
struct kv_async {
	int type;
	uint32_t qp_num;
	int port;
};

/* kv_cq is a completion queue, its channel in event mode, and a wc batch. */
struct kv_cq {
	struct ibv_comp_channel *ch; /* NULL in busy-poll mode */
	struct ibv_cq *cq;
	unsigned int unacked;
	unsigned int inv_mask; /* wc_flags bits that mean "peer invalidated" */
	int nwc;
	struct kv_wc *wcs;
};

/* KV_HEAD is the size of a receive buffer's head (see kv_rq). */
#define KV_HEAD 256

/* KV_RQ_CHUNKS is how many pieces of registered memory a kv_rq's
 * buffers may come in: a shared receive queue grows a piece at a time. */
#define KV_RQ_CHUNKS 256

/* kv_rq_chunk is one piece of a kv_rq's buffers (see kv_rq). */
struct kv_rq_chunk {
	uint64_t base;
	uint64_t heads;
	uint32_t lkey;
};

/*
 * kv_rq is a set of receive buffers of size bytes each, posted to a QP's
 * receive queue or to a shared one. They come in chunks of per_chunk
 * buffers: buffer i is buffer j = i % per_chunk of chunk c = i /
 * per_chunk, at chunks[c].base + j * size. With heads set, a buffer is
 * received into two pieces: its first KV_HEAD bytes into its head (at
 * chunks[c].heads + j * KV_HEAD), the rest into the buffer from offset
 * KV_HEAD (see recvq.go).
 * pend and post hold released buffers waiting to be reposted: the Go side
 * fills one while a poll reposts the other (see recvq.go).
 */
struct kv_rq {
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	uint32_t size;
	uint32_t per_chunk;
	uint32_t *pend;
	uint32_t *post;
	struct kv_rq_chunk chunks[KV_RQ_CHUNKS];
};

/* kv_buf is registered memory. */
struct kv_buf {
	void *addr;
	size_t len;
	struct ibv_mr *mr;
};

/* kv_event is a copied-out (and already acked) rdma_cm event. */
struct kv_event {
	int event;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	uint8_t responder_resources;
	uint8_t initiator_depth;
};

/* kv_link describes the port and GID a connected id uses. */
struct kv_link {
	int port;
	int mtu;
	int link_layer;
	int gid_index;
	int gid_type; /* enum ibv_gid_type, or -1 when unknown */
	uint8_t gid[16];
};

/* kv_dev_info describes a device for a report (query.c). KV_PROBE_SRQ_WR is
 * the shared receive queue the report makes: kvserver's default depth. */
#define KV_PROBE_SRQ_WR 256
#define KV_MAX_PORTS 8
struct kv_port_info {
	int state;	/* enum ibv_port_state */
	int link_layer; /* IBV_LINK_LAYER_* */
	int mtu;	/* active MTU in bytes */
	int gids;	/* GID table length */
};

/* kv_loopback is what the doctor's loopback pair showed (loopback.c):
 * each 0, a positive work completion status or a negative errno. */
struct kv_loopback {
	int err;      /* the pair could not be made */
	int bind_err; /* a type-2 window bound over a region */
	int imm_err;  /* a WRITE_WITH_IMM through it landed, immediate and all */
	int inv_err;  /* invalidated, and a write through it then refused */
};

struct kv_dev_info {
	char name[IBV_SYSFS_NAME_MAX];
	char fw[64];
	int err; /* negative errno when the device could not be opened or queried */
	int node_type;
	int transport_type;
	uint32_t vendor_id;
	int max_qp_wr;
	int max_sge;
	int max_cqe;
	int max_mr;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	int mw_caps;	/* the device claims type-2 windows */
	int mw_type2;	/* and one allocates */
	int mem_mgt;	/* memory management extensions: SEND_WITH_INV among them */
	int max_inline; /* inline data an RC QP got, asking as kv_qp_open does */
	int srq_err;	/* 0 if an SRQ of KV_PROBE_SRQ_WR WRs was made, else -errno */
	struct kv_loopback lb;
	int nports;
	struct kv_port_info ports[KV_MAX_PORTS];
};

/* KV_ERR is -errno after a call that failed, or -fallback when the call
 * left errno unset (the caller clears it first). */
#define KV_ERR(fallback) (errno ? -errno : -(fallback))

/*
 * kv_neg makes a verbs return code a negative errno. The API returns a
 * positive errno, but some providers' posts return a negative one (siw,
 * qedr): taken as it is, that would read as success.
 */
static inline int kv_neg(int r)
{
	return r > 0 ? -r : r;
}

/* dev.c */
int kv_device_count(void);
int kv_dev_open(struct ibv_context *ctx, struct kv_dev **out);
void kv_dev_close(struct kv_dev *d);
int kv_async_next(struct kv_dev *d, struct kv_async *ev);
void kv_async_wake(struct kv_dev *d);
struct ibv_context *kv_dev_find(const char *name);
int kv_link_query(struct rdma_cm_id *id, struct ibv_qp *qp, struct kv_link *l);
int kv_mtu_bytes(enum ibv_mtu m);

/* query.c */
int kv_devices_query(struct kv_dev_info **out);

/* loopback.c */
void kv_loopback_probe(struct ibv_context *ctx, struct kv_loopback *out);

/* cm.c */
struct rdma_event_channel *kv_channel_open(void);
int kv_cm_next(struct rdma_event_channel *ch, struct kv_event *ev);
int kv_resolve_addr(struct rdma_cm_id *id, int family, const uint8_t *ip, int port, uint32_t scope, int ms);
int kv_bind_listen(struct rdma_cm_id *id, int family, const uint8_t *ip, int port, uint32_t scope, int backlog);
int kv_local_port(struct rdma_cm_id *id);
int kv_connect(struct rdma_cm_id *id, int rd_atom, int init_depth);
int kv_accept(struct rdma_cm_id *id, int rd_atom, int init_depth);
void kv_set_ack_timeout(struct rdma_cm_id *id, uint8_t t);
int kv_set_tos(struct rdma_cm_id *id, uint8_t tos);
int kv_route_tclass(struct rdma_cm_id *id);
int kv_set_rnr_timer(struct ibv_qp *qp, int code);
int kv_rnr_timer(struct ibv_qp *qp);
int kv_addr_str(struct rdma_cm_id *id, int peer, char *buf, int len);

/* qp.c */
int kv_cq_open(struct kv_dev *d, int cqe, int event, int nwc, struct kv_cq **out);
void kv_cq_close(struct kv_cq *c);
struct ibv_srq *kv_srq_open(struct kv_dev *d, int depth);
typedef struct ibv_qp *(*kv_qp_create_fn)(void *arg, struct ibv_qp_init_attr *a);
int kv_inline_ladder(kv_qp_create_fn create, void *arg, struct ibv_qp_init_attr *a, int want,
		     struct ibv_qp **out);
int kv_qp_open(struct rdma_cm_id *id, struct kv_dev *d, struct kv_cq *scq, struct kv_cq *rcq,
	       struct ibv_srq *srq, int send_wr, int recv_wr, int inline_want, int *inline_got);
int kv_qp_error(struct ibv_qp *qp);
int kv_buf_open(struct kv_dev *d, size_t len, int access, struct kv_buf **out);
void kv_buf_close(struct kv_buf *b);
struct kv_rq *kv_rq_open(uint32_t size, uint32_t per_chunk, int defer_max);
void kv_rq_close(struct kv_rq *q);
struct ibv_mw *kv_mw_open(struct kv_dev *d);
struct ibv_mr *kv_mr_open(struct kv_dev *d, uint64_t addr, uint64_t len, int access);
void kv_mw_close(struct ibv_mw *mw);

/* post.c */
int kv_post_recvs(struct kv_rq *q, const uint32_t *idx, int n);
int kv_send(struct ibv_qp *qp, uint64_t slot, uint32_t n, uint32_t lkey, int max_inline, int signaled,
	    uint32_t inv_rkey, uint64_t wr_id);
int kv_post_rdma(struct ibv_qp *qp, int opcode, uint64_t laddr, uint32_t len, uint32_t lkey,
		 uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t wr_id);
int kv_post_bind(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr, uint64_t len,
		 int access, uint32_t rkey, uint64_t wr_id);
int kv_post_inv(struct ibv_qp *qp, uint32_t rkey, uint64_t wr_id);
int kv_post_write_send(struct ibv_qp *qp, uint64_t laddr, uint32_t len, uint32_t lkey, uint64_t raddr,
		       uint32_t rkey, uint64_t write_wr_id, uint64_t slot, uint32_t n, uint32_t slot_lkey,
		       int max_inline, int signaled, uint32_t inv_rkey, uint64_t send_wr_id);
int kv_post_drain(struct ibv_qp *qp, uint64_t wr_id);

/* poll.c */
int kv_poll(struct kv_cq *c, int spins, int yield, struct kv_rq *q, const uint32_t *idx, int n);
int kv_arm_poll(struct kv_cq *c);
int kv_cq_events(struct kv_cq *c);

/*
 * The _h forms of the calls on the data path take their C pointers as
 * integers. cgo checks at run time every pointer argument whose type holds
 * pointers (about 5 ns a pointer natively, many times that under CPU
 * emulation), and these are all C memory, which the check only confirms.
 */
static inline int kv_poll_h(uintptr_t c, int spins, int yield, uintptr_t q, const uint32_t *idx, int n)
{
	return kv_poll((struct kv_cq *)c, spins, yield, (struct kv_rq *)q, idx, n);
}

static inline int kv_post_recvs_h(uintptr_t q, const uint32_t *idx, int n)
{
	return kv_post_recvs((struct kv_rq *)q, idx, n);
}

static inline int kv_send_h(uintptr_t qp, uint64_t slot, uint32_t n, uint32_t lkey, int max_inline, int signaled,
			    uint32_t inv_rkey, uint64_t wr_id)
{
	return kv_send((struct ibv_qp *)qp, slot, n, lkey, max_inline, signaled, inv_rkey, wr_id);
}

static inline int kv_post_rdma_h(uintptr_t qp, int opcode, uint64_t laddr, uint32_t len, uint32_t lkey,
				 uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t wr_id)
{
	return kv_post_rdma((struct ibv_qp *)qp, opcode, laddr, len, lkey, raddr, rkey, imm, wr_id);
}

static inline int kv_post_write_send_h(uintptr_t qp, uint64_t laddr, uint32_t len, uint32_t lkey,
				       uint64_t raddr, uint32_t rkey, uint64_t write_wr_id, uint64_t slot,
				       uint32_t n, uint32_t slot_lkey, int max_inline, int signaled,
				       uint32_t inv_rkey, uint64_t send_wr_id)
{
	return kv_post_write_send((struct ibv_qp *)qp, laddr, len, lkey, raddr, rkey, write_wr_id, slot, n,
				  slot_lkey, max_inline, signaled, inv_rkey, send_wr_id);
}

static inline int kv_post_bind_h(uintptr_t qp, uintptr_t mw, uintptr_t mr, uint64_t addr, uint64_t len,
				 int access, uint32_t rkey, uint64_t wr_id)
{
	return kv_post_bind((struct ibv_qp *)qp, (struct ibv_mw *)mw, (struct ibv_mr *)mr, addr, len, access,
			    rkey, wr_id);
}

static inline int kv_post_inv_h(uintptr_t qp, uint32_t rkey, uint64_t wr_id)
{
	return kv_post_inv((struct ibv_qp *)qp, rkey, wr_id);
}

#endif
