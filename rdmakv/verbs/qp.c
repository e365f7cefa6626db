//go:build linux && cgo

/* qp.c: completion queues, shared receive queues, queue pairs, registered
 * buffers and memory windows. Each constructor unwinds in reverse on error. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "verbs.h"

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
 * kv_inline_ladder asks create for a QP with want bytes of inline data,
 * then for less, step by step down to none, until one is made: providers
 * refuse sizes they cannot do rather than clamp them, and not always with
 * EINVAL (bnxt_re returns NULL with errno untouched). Every failure steps
 * down; errno is cleared before each call, so a NULL that sets none reads
 * as EIO, not as a stale error. Returns 0 or the last failure's -errno.
 */
int kv_inline_ladder(kv_qp_create_fn create, void *arg, struct ibv_qp_init_attr *a, int want,
		     struct ibv_qp **out)
{
	static const int ladder[] = { 256, 192, 128, 96, 64, 32, 0 };
	size_t i;
	int ret = -EINVAL;

	for (i = 0; i < sizeof(ladder) / sizeof(ladder[0]); i++) {
		if (ladder[i] > want)
			continue;
		a->cap.max_inline_data = ladder[i];
		errno = 0;
		*out = create(arg, a);
		if (*out)
			return 0;
		ret = KV_ERR(EIO);
	}
	return ret;
}

struct cm_create {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
};

static struct ibv_qp *cm_create_qp(void *arg, struct ibv_qp_init_attr *a)
{
	struct cm_create *c = arg;

	return rdma_create_qp(c->id, c->pd, a) ? NULL : c->id->qp;
}

/* kv_qp_open creates the RC QP on a cm id, with as much inline data up to
 * inline_want as the provider gives. */
int kv_qp_open(struct rdma_cm_id *id, struct kv_dev *d, struct kv_cq *scq, struct kv_cq *rcq,
	       struct ibv_srq *srq, int send_wr, int recv_wr, int inline_want, int *inline_got)
{
	struct cm_create c = { .id = id, .pd = d->pd };
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
		},
	};
	struct ibv_qp *qp;
	int ret = kv_inline_ladder(cm_create_qp, &c, &a, inline_want, &qp);

	if (!ret)
		*inline_got = a.cap.max_inline_data;
	return ret;
}

int kv_qp_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return kv_neg(ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

/* kv_rq_open makes a kv_rq with no chunks yet: the caller fills
 * chunks[c] before it posts any buffer of chunk c. */
struct kv_rq *kv_rq_open(uint32_t size, uint32_t per_chunk, int defer_max)
{
	struct kv_rq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->size = size;
	q->per_chunk = per_chunk;
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
