//go:build linux && cgo

/* fake.c: a provider that lives only in memory. The tests drive the
 * shim's handling of what real providers return (fake.go) without a
 * device: posts go through the context's ops, as libibverbs' inline
 * ibv_post_* do, and QP creation through the inline ladder. */
#include <stdlib.h>
#include "verbs.h"

struct kv_fake {
	struct ibv_context ctx; /* first: a post finds the fake from its QP */
	struct ibv_qp qp;
	struct ibv_srq srq;
	int post_ret;	   /* every post returns this */
	int inline_max;	   /* a create asking more inline data fails */
	int create_errno;  /* and sets this errno, 0 for none */
	int creates;	   /* creates asked */
};

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct kv_fake *f = (struct kv_fake *)qp->context;

	if (f->post_ret)
		*bad = wr;
	return f->post_ret;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct kv_fake *f = (struct kv_fake *)qp->context;

	if (f->post_ret)
		*bad = wr;
	return f->post_ret;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct kv_fake *f = (struct kv_fake *)srq->context;

	if (f->post_ret)
		*bad = wr;
	return f->post_ret;
}

struct kv_fake *kv_fake_open(int post_ret, int inline_max, int create_errno)
{
	struct kv_fake *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->ctx.ops.post_send = fake_post_send;
	f->ctx.ops.post_recv = fake_post_recv;
	f->ctx.ops.post_srq_recv = fake_post_srq_recv;
	f->qp.context = &f->ctx;
	f->srq.context = &f->ctx;
	f->post_ret = post_ret;
	f->inline_max = inline_max;
	f->create_errno = create_errno;
	return f;
}

void kv_fake_close(struct kv_fake *f)
{
	free(f);
}

int kv_fake_send(struct kv_fake *f)
{
	return kv_send(&f->qp, 0, 0, 0, 0, 1, 0, 0);
}

int kv_fake_recv(struct kv_fake *f, int shared)
{
	struct kv_rq q = { .size = 64, .per_chunk = 1 };
	uint32_t idx = 0;

	if (shared)
		q.srq = &f->srq;
	else
		q.qp = &f->qp;
	return kv_post_recvs(&q, &idx, 1);
}

static struct ibv_qp *fake_create(void *arg, struct ibv_qp_init_attr *a)
{
	struct kv_fake *f = arg;

	f->creates++;
	if ((int)a->cap.max_inline_data > f->inline_max) {
		if (f->create_errno)
			errno = f->create_errno;
		return NULL;
	}
	return &f->qp;
}

/* kv_fake_create runs the inline ladder against the fake, errno holding
 * stale beforehand as a failed call before it would leave it. */
int kv_fake_create(struct kv_fake *f, int want, int stale, int *got, int *creates)
{
	struct ibv_qp_init_attr a = { .qp_type = IBV_QPT_RC };
	struct ibv_qp *qp;
	int ret;

	errno = stale;
	ret = kv_inline_ladder(fake_create, f, &a, want, &qp);
	*got = a.cap.max_inline_data;
	*creates = f->creates;
	return ret;
}

int kv_fake_write_send(struct kv_fake *f)
{
	return kv_post_write_send(&f->qp, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
}
