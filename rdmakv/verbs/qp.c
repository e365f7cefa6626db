/* qp.c: completion queues, shared receive queues, queue pairs, registered
 * buffers and memory windows. Each constructor unwinds in reverse on error. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "verbs.h"

#define KV_ERR(fallback) (errno ? -errno : -(fallback))

int kv_cq_open(struct kv_dev *d, int cqe, int event, int nwc, struct kv_cq **out)
{
	struct kv_cq *c;
	int flags, ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->nwc = nwc;
	c->inv_mask = IBV_WC_WITH_INV;
	/* rxe writes the kernel's IB_WC_WITH_INVALIDATE (1 << 2) into the
	 * user CQ, where libibverbs reads IBV_WC_IP_CSUM_OK: accept both. */
	if (d->mw_by_mr)
		c->inv_mask |= 1u << 2;
	c->wcs = calloc(nwc, sizeof(*c->wcs));
	if (!c->wcs) {
		ret = -ENOMEM;
		goto err_free;
	}
	if (event) {
		c->ch = ibv_create_comp_channel(d->ctx);
		if (!c->ch) {
			ret = KV_ERR(ENOMEM);
			goto err_wcs;
		}
		flags = fcntl(c->ch->fd, F_GETFL);
		if (flags < 0 || fcntl(c->ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
			ret = KV_ERR(EIO);
			goto err_ch;
		}
	}
	c->cq = ibv_create_cq(d->ctx, cqe, NULL, c->ch, 0);
	if (!c->cq) {
		ret = KV_ERR(ENOMEM);
		goto err_ch;
	}
	*out = c;
	return 0;

err_ch:
	if (c->ch)
		ibv_destroy_comp_channel(c->ch);
err_wcs:
	free(c->wcs);
err_free:
	free(c);
	return ret;
}

void kv_cq_close(struct kv_cq *c)
{
	if (!c)
		return;
	if (c->unacked)
		ibv_ack_cq_events(c->cq, c->unacked);
	ibv_destroy_cq(c->cq);
	if (c->ch)
		ibv_destroy_comp_channel(c->ch);
	free(c->wcs);
	free(c);
}

struct ibv_srq *kv_srq_open(struct kv_dev *d, int depth)
{
	struct ibv_srq_init_attr a = {
		.attr = {
			.max_wr = depth,
			.max_sge = 2,
		},
	};

	return ibv_create_srq(d->pd, &a);
}

/*
 * kv_qp_open creates the RC QP on a cm id. Inline data is asked for first
 * and given up step by step: providers refuse sizes they cannot do rather
 * than clamp them.
 */
int kv_qp_open(struct rdma_cm_id *id, struct kv_dev *d, struct kv_cq *scq, struct kv_cq *rcq,
	       struct ibv_srq *srq, int send_wr, int recv_wr, int inline_want, int *inline_got)
{
	static const int fallback[] = { 256, 128, 64, 0 };
	size_t i;

	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = scq->cq,
			.recv_cq = rcq->cq,
			.srq = srq,
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 0,
			.cap = {
				.max_send_wr = send_wr,
				.max_recv_wr = srq ? 0 : recv_wr,
				.max_send_sge = 1,
				.max_recv_sge = 2,
				.max_inline_data = inline_want < fallback[i] ? inline_want : fallback[i],
			},
		};

		if (!rdma_create_qp(id, d->pd, &a)) {
			*inline_got = a.cap.max_inline_data;
			return 0;
		}
		if (errno != EINVAL || a.cap.max_inline_data == 0)
			return KV_ERR(EIO);
	}
	return -EINVAL;
}

int kv_qp_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return -ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

struct kv_rq *kv_rq_open(uint64_t base, uint64_t heads, uint32_t size, uint32_t lkey, int defer_max)
{
	struct kv_rq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	*q = (struct kv_rq){ .base = base, .heads = heads, .size = size, .lkey = lkey };
	if (defer_max > 0) {
		q->pend = calloc(defer_max, sizeof(*q->pend));
		q->post = calloc(defer_max, sizeof(*q->post));
		if (!q->pend || !q->post) {
			kv_rq_close(q);
			return NULL;
		}
	}
	return q;
}

void kv_rq_close(struct kv_rq *q)
{
	if (!q)
		return;
	free(q->post);
	free(q->pend);
	free(q);
}

int kv_buf_open(struct kv_dev *d, size_t len, int access, struct kv_buf **out)
{
	struct kv_buf *b;
	size_t size = (len + 4095) & ~(size_t)4095;
	int ret;

	if (size == 0)
		size = 4096;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	ret = posix_memalign(&b->addr, 4096, size);
	if (ret) {
		ret = -ret;
		goto err_free;
	}
	memset(b->addr, 0, size);
	b->len = len;
	b->mr = ibv_reg_mr(d->pd, b->addr, size, access);
	if (!b->mr) {
		ret = KV_ERR(ENOMEM);
		goto err_mem;
	}
	*out = b;
	return 0;

err_mem:
	free(b->addr);
err_free:
	free(b);
	return ret;
}

void kv_buf_close(struct kv_buf *b)
{
	if (!b)
		return;
	ibv_dereg_mr(b->mr);
	free(b->addr);
	free(b);
}

struct ibv_mw *kv_mw_open(struct kv_dev *d)
{
	return ibv_alloc_mw(d->pd, IBV_MW_TYPE_2);
}

struct ibv_mr *kv_mr_open(struct kv_dev *d, uint64_t addr, uint64_t len, int access)
{
	return ibv_reg_mr(d->pd, (void *)(uintptr_t)addr, len, access);
}

void kv_mw_close(struct ibv_mw *mw)
{
	if (mw)
		ibv_dealloc_mw(mw);
}
