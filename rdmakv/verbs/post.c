//go:build linux && cgo

/* post.c: work requests, built here from scalars. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbs.h"

/* KV_RECV_CHAIN is how many receives one ibv_post_recv call takes. */
#define KV_RECV_CHAIN 16

/* recv_sges fills sge with where buffer b of q receives into: the buffer,
 * or its head and the rest of the buffer after KV_HEAD. Returns the count. */
static int recv_sges(const struct kv_rq *q, uint32_t b, struct ibv_sge *sge)
{
	const struct kv_rq_chunk *c = &q->chunks[b / q->per_chunk];
	uint32_t j = b % q->per_chunk;
	uint64_t addr = c->base + (uint64_t)j * q->size;

	if (!c->heads) {
		sge[0] = (struct ibv_sge){ .addr = addr, .length = q->size, .lkey = c->lkey };
		return 1;
	}
	sge[0] = (struct ibv_sge){ .addr = c->heads + (uint64_t)j * KV_HEAD, .length = KV_HEAD, .lkey = c->lkey };
	sge[1] = (struct ibv_sge){ .addr = addr + KV_HEAD, .length = q->size - KV_HEAD, .lkey = c->lkey };
	return 2;
}

/* kv_post_recvs posts buffers idx[0..n) of q, chained: one provider call,
 * one lock, per KV_RECV_CHAIN buffers. */
int kv_post_recvs(struct kv_rq *q, const uint32_t *idx, int n)
{
	struct ibv_sge sge[2 * KV_RECV_CHAIN];
	struct ibv_recv_wr wr[KV_RECV_CHAIN], *bad;
	int i, j, k, ret;

	for (i = 0; i < n; i += k) {
		k = n - i < KV_RECV_CHAIN ? n - i : KV_RECV_CHAIN;
		for (j = 0; j < k; j++) {
			wr[j] = (struct ibv_recv_wr){
				.wr_id = (uint64_t)KV_KIND_RECV << KV_KIND_SHIFT | idx[i + j],
				.next = j + 1 < k ? &wr[j + 1] : NULL,
				.sg_list = &sge[2 * j],
				.num_sge = recv_sges(q, idx[i + j], &sge[2 * j]),
			};
		}
		ret = q->srq ? ibv_post_srq_recv(q->srq, wr, &bad) : ibv_post_recv(q->qp, wr, &bad);
		if (ret)
			return kv_neg(ret);
	}
	return 0;
}

/*
 * slot_send fills wr (and sge) with a send of n bytes already gathered into
 * a registered ring slot, inline when it fits: the caller's memory is never
 * named in a work request. A non-zero inv_rkey makes it a SEND_WITH_INV
 * that invalidates that window at the peer.
 */
static void slot_send(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t slot, uint32_t n, uint32_t lkey,
		      int max_inline, int signaled, uint32_t inv_rkey, uint64_t wr_id)
{
	*sge = (struct ibv_sge){ .addr = slot, .length = n, .lkey = lkey };
	*wr = (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = n ? 1 : 0,
		.opcode = inv_rkey ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND,
		.invalidate_rkey = inv_rkey,
	};
	if (signaled)
		wr->send_flags |= IBV_SEND_SIGNALED;
	if (n && n <= (uint32_t)max_inline)
		wr->send_flags |= IBV_SEND_INLINE;
}

/* kv_send posts one slot_send. */
int kv_send(struct ibv_qp *qp, uint64_t slot, uint32_t n, uint32_t lkey, int max_inline, int signaled,
	    uint32_t inv_rkey, uint64_t wr_id)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;

	slot_send(&wr, &sge, slot, n, lkey, max_inline, signaled, inv_rkey, wr_id);
	return kv_neg(ibv_post_send(qp, &wr, &bad));
}

int kv_post_rdma(struct ibv_qp *qp, int opcode, uint64_t laddr, uint32_t len, uint32_t lkey,
		 uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	if (opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(imm);
	return kv_neg(ibv_post_send(qp, &wr, &bad));
}

/* kv_post_bind binds a type-2 window to this QP alone. */
int kv_post_bind(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr, uint64_t len,
		 int access, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = {
			.mw = mw,
			.rkey = rkey,
			.bind_info = {
				.mr = mr,
				.addr = addr,
				.length = len,
				.mw_access_flags = access,
			},
		},
	}, *bad;

	return kv_neg(ibv_post_send(qp, &wr, &bad));
}

int kv_post_inv(struct ibv_qp *qp, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = rkey,
	}, *bad;

	return kv_neg(ibv_post_send(qp, &wr, &bad));
}

/*
 * kv_post_write_send posts, in one call, a signaled RDMA WRITE through the
 * peer's rkey and a message (already in a ring slot) that, when inv_rkey
 * is not 0, invalidates that window at the peer. RC ordering places the
 * data before the message lands. Returns 0, -errno when nothing was
 * posted, or +errno when only the WRITE was.
 */
int kv_post_write_send(struct ibv_qp *qp, uint64_t laddr, uint32_t len, uint32_t lkey, uint64_t raddr,
		       uint32_t rkey, uint64_t write_wr_id, uint64_t slot, uint32_t n, uint32_t slot_lkey,
		       int max_inline, int signaled, uint32_t inv_rkey, uint64_t send_wr_id)
{
	struct ibv_sge wsge = { .addr = laddr, .length = len, .lkey = lkey }, ssge;
	struct ibv_send_wr send;
	struct ibv_send_wr write = {
		.wr_id = write_wr_id,
		.next = &send,
		.sg_list = &wsge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad = NULL;
	int ret;

	slot_send(&send, &ssge, slot, n, slot_lkey, max_inline, signaled, inv_rkey, send_wr_id);
	ret = -kv_neg(ibv_post_send(qp, &write, &bad));
	if (ret && bad == &send)
		return ret;
	return -ret;
}

/*
 * kv_post_drain posts a signaled empty send on a QP already in the error
 * state. It flushes after every earlier send work request, so its
 * completion proves the send queue is empty.
 */
int kv_post_drain(struct ibv_qp *qp, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return kv_neg(ibv_post_send(qp, &wr, &bad));
}
