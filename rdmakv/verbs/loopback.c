//go:build linux && cgo

/*
 * loopback.c: the doctor's proof that a device does what the transport
 * asks of it, on two RC QPs of its first port connected to each other
 * (rc_pingpong's way, without rdma_cm): a type-2 window bound over a
 * region, a WRITE_WITH_IMM through it, and the window invalidated, after
 * which a write through it must fail.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "verbs.h"

#define LB_LEN 4096
#define LB_IMM 0x6b76u /* "kv" */

struct lb {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cqa, *cqb; /* a's and b's: a wait never drops the other's */
	struct ibv_qp *a, *b;     /* a is the target, b the initiator */
	struct ibv_mr *mr;    /* a's region: its first half the target, its second b's source */
	char *buf;
	int bindable; /* mr has the bind right */
	union ibv_gid gid;
	struct ibv_port_attr port;
};

/* lb_wait polls cq for a completion of wr_id for up to a second and
 * returns its status, or -ETIMEDOUT; completions of other ids are dropped. */
static int lb_wait(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *out)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n == 1 && wc.wr_id == wr_id) {
			if (out)
				*out = wc;
			return wc.status;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > 1000000000L)
			return -ETIMEDOUT;
	}
}

/* lb_connect takes qp through INIT, RTR and RTS towards peer on port 1. */
static int lb_connect(struct lb *l, struct ibv_qp *qp, uint32_t peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	int r;

	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (r)
		return -r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = l->port.active_mtu;
	a.dest_qp_num = peer;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = l->port.lid;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = l->gid;
	a.ah_attr.grh.hop_limit = 1;
	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (r)
		return -r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC);
	return -r;
}

static struct ibv_qp *lb_qp(struct lb *l, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(l->pd, &a);
}

/* lb_write posts a WRITE (with imm, if imm) of n bytes from b to a's
 * window and returns the send's completion status. */
static int lb_write(struct lb *l, uint32_t rkey, int imm, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)l->buf + LB_LEN, .length = 64, .lkey = l->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(LB_IMM),
		.wr.rdma = { .remote_addr = (uintptr_t)l->buf, .rkey = rkey },
	}, *bad;
	int r = ibv_post_send(l->b, &wr, &bad);

	return r ? kv_neg(r) : lb_wait(l->cqb, wr_id, NULL);
}

/*
 * lb_run does the proofs on an opened lb: the window's bind, a
 * WRITE_WITH_IMM through it (data and immediate checked at a), and the
 * refusal once it is invalidated; without windows, the WRITE_WITH_IMM
 * through the region's own key. Each result is 0, a positive work
 * completion status or a negative errno.
 */
static void lb_run(struct lb *l, struct kv_loopback *out)
{
	struct ibv_mw *mw = ibv_alloc_mw(l->pd, IBV_MW_TYPE_2);
	struct ibv_sge rsge = { .addr = (uintptr_t)l->buf, .length = LB_LEN, .lkey = l->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_wc wc;
	uint32_t rkey = l->mr->rkey;
	int r;

	if (!mw || !l->bindable) {
		out->bind_err = mw ? -EOPNOTSUPP : KV_ERR(EOPNOTSUPP);
	} else {
		rkey = ibv_inc_rkey(mw->rkey);
		wr.wr_id = 1;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = rkey;
		wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
			.mr = l->mr, .addr = (uintptr_t)l->buf, .length = LB_LEN, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};
		r = ibv_post_send(l->a, &wr, &bad);
		out->bind_err = r ? kv_neg(r) : lb_wait(l->cqa, 1, NULL);
		if (out->bind_err)
			goto out;
	}
	memset(l->buf + LB_LEN, 0x5a, 64);
	r = ibv_post_recv(l->a, &rwr, &rbad);
	out->imm_err = r ? kv_neg(r) : lb_write(l, rkey, 1, 2);
	if (!out->imm_err) {
		out->imm_err = lb_wait(l->cqa, 3, &wc);
		if (!out->imm_err && (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || ntohl(wc.imm_data) != LB_IMM ||
				      l->buf[0] != 0x5a || l->buf[63] != 0x5a))
			out->imm_err = -EPROTO;
	}
	if (out->bind_err)
		goto out;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 4;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	r = ibv_post_send(l->a, &wr, &bad);
	out->inv_err = r ? kv_neg(r) : lb_wait(l->cqa, 4, NULL);
	/* Through the invalidated window the write must fail. */
	if (!out->inv_err && lb_write(l, rkey, 0, 5) == IBV_WC_SUCCESS)
		out->inv_err = -EPERM;
out:
	if (mw)
		ibv_dealloc_mw(mw);
}

/*
 * kv_loopback_probe runs the proofs on ctx's first port and fills out;
 * out->err is set when the pair could not be made (no GID, no PD, ...).
 */
void kv_loopback_probe(struct ibv_context *ctx, struct kv_loopback *out)
{
	struct lb l = { .ctx = ctx };
	int r;

	memset(out, 0, sizeof(*out));
	if (ibv_query_port(ctx, 1, &l.port) || ibv_query_gid(ctx, 1, 0, &l.gid)) {
		out->err = KV_ERR(EIO);
		return;
	}
	if (!(l.pd = ibv_alloc_pd(ctx))) {
		out->err = KV_ERR(ENOMEM);
		return;
	}
	if (!(l.cqa = ibv_create_cq(ctx, 8, NULL, NULL, 0))) {
		out->err = KV_ERR(ENOMEM);
		goto err_pd;
	}
	if (!(l.cqb = ibv_create_cq(ctx, 8, NULL, NULL, 0))) {
		out->err = KV_ERR(ENOMEM);
		goto err_cqa;
	}
	if (!(l.buf = calloc(1, 2 * LB_LEN))) {
		out->err = -ENOMEM;
		goto err_cqb;
	}
	/* With the bind right where the device takes it, else without. */
	l.mr = ibv_reg_mr(l.pd, l.buf, 2 * LB_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
	l.bindable = l.mr != NULL;
	if (!l.mr)
		l.mr = ibv_reg_mr(l.pd, l.buf, 2 * LB_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!l.mr) {
		out->err = KV_ERR(EOPNOTSUPP);
		goto err_buf;
	}
	if (!(l.a = lb_qp(&l, l.cqa))) {
		out->err = KV_ERR(EOPNOTSUPP);
		goto err_mr;
	}
	if (!(l.b = lb_qp(&l, l.cqb))) {
		out->err = KV_ERR(EOPNOTSUPP);
		goto err_a;
	}
	r = lb_connect(&l, l.a, l.b->qp_num);
	if (!r)
		r = lb_connect(&l, l.b, l.a->qp_num);
	if (r)
		out->err = r;
	else
		lb_run(&l, out);
	ibv_destroy_qp(l.b);
err_a:
	ibv_destroy_qp(l.a);
err_mr:
	ibv_dereg_mr(l.mr);
err_buf:
	free(l.buf);
err_cqb:
	ibv_destroy_cq(l.cqb);
err_cqa:
	ibv_destroy_cq(l.cqa);
err_pd:
	ibv_dealloc_pd(l.pd);
}
