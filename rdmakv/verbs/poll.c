//go:build linux && cgo

/* poll.c: batched completion polling into the CQ's kv_wc array. */
#include <errno.h>
#include <sched.h>
#include <arpa/inet.h>
#include "verbs.h"

#define KV_BATCH 32

static int poll_batch(struct kv_cq *c)
{
	struct ibv_wc wc[KV_BATCH];
	int want = c->nwc < KV_BATCH ? c->nwc : KV_BATCH;
	int n, i;

	n = ibv_poll_cq(c->cq, want, wc);
	for (i = 0; i < n; i++) {
		struct kv_wc *o = &c->wcs[i];

		o->wr_id = wc[i].wr_id;
		o->status = wc[i].status;
		o->opcode = wc[i].opcode;
		o->byte_len = wc[i].byte_len;
		o->imm = (wc[i].wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc[i].imm_data) : 0;
		o->inv = (wc[i].wc_flags & c->inv_mask) && wc[i].opcode == IBV_WC_RECV ? wc[i].invalidated_rkey : 0;
		o->qp_num = wc[i].qp_num;
		o->vendor_err = wc[i].vendor_err;
	}
	return n;
}

/* kv_poll first reposts the n receive buffers idx names on q (a busy
 * receive poller's deferred reposts: see recvq.go), then polls once, or up
 * to spins times while the CQ is empty, so a busy poller crosses into C
 * once per spin burst and per batch of reposts, not once per probe or
 * per buffer. A failed repost is not reported: it fails only once the
 * queue is in the error state, when its connection is going anyway.
 * With yield, a burst that found nothing ends in sched_yield: on rxe part
 * of a one-sided operation runs as deferred kernel work, which may be
 * queued on the waiter's own CPU, and a waiter that never enters the
 * kernel holds it off until the scheduler preempts the spinner. */
int kv_poll(struct kv_cq *c, int spins, int yield, struct kv_rq *q, const uint32_t *idx, int n)
{
	if (n > 0)
		kv_post_recvs(q, idx, n);

	do {
		n = poll_batch(c);
	} while (n == 0 && --spins > 0);
	if (n == 0 && yield)
		sched_yield();
	return n;
}

/* kv_arm_poll requests a notification, then polls once more to catch
 * completions that slipped in before the CQ was armed. */
int kv_arm_poll(struct kv_cq *c)
{
	int ret = ibv_req_notify_cq(c->cq, 0);

	if (ret)
		return -ret;
	return poll_batch(c);
}

/*
 * kv_cq_events consumes every pending notification without blocking; acks
 * are batched because each ack takes a lock. Returns the number consumed,
 * or -EAGAIN when there was none.
 */
int kv_cq_events(struct kv_cq *c)
{
	struct ibv_cq *cq;
	void *ctx;
	int n = 0;

	while (!ibv_get_cq_event(c->ch, &cq, &ctx))
		n++;
	if (n == 0)
		return errno == EAGAIN ? -EAGAIN : (errno ? -errno : -EIO);
	c->unacked += n;
	if (c->unacked >= 64) {
		ibv_ack_cq_events(c->cq, c->unacked);
		c->unacked = 0;
	}
	return n;
}
