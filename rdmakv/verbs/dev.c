//go:build linux && cgo

/* dev.c: device discovery, protection domains, asynchronous events and
 * link description. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "verbs.h"

int kv_device_count(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return 0;
	ibv_free_device_list(list);
	return n;
}

/*
 * kv_dev_open allocates the one protection domain of a device context and
 * records its limits. Type-2 memory windows are probed by allocating one:
 * the capability bits alone do not prove the provider implements them.
 */
int kv_dev_open(struct ibv_context *ctx, struct kv_dev **out)
{
	struct ibv_device_attr attr;
	struct kv_dev *d;
	struct ibv_mw *mw;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->ctx = ctx;
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		ret = -ret;
		goto err_free;
	}
	if (pipe2(d->wake, O_CLOEXEC)) {
		ret = -errno;
		goto err_free;
	}
	d->pd = ibv_alloc_pd(ctx);
	if (!d->pd) {
		ret = errno ? -errno : -ENOMEM;
		goto err_pipe;
	}
	strncpy(d->name, ibv_get_device_name(ctx->device), sizeof(d->name) - 1);
	strncpy(d->fw, attr.fw_ver, sizeof(d->fw) - 1);
	d->max_cqe = attr.max_cqe;
	d->max_qp_wr = attr.max_qp_wr;
	d->max_srq_wr = attr.max_srq_wr;
	d->max_srq = attr.max_srq;
	d->transport = ctx->device->transport_type;
	d->max_qp_rd_atom = attr.max_qp_rd_atom;
	d->max_qp_init_rd_atom = attr.max_qp_init_rd_atom;
	/*
	 * Soft-RoCE (vendor id 0xffffff) checks an access through a window
	 * against the bounds of the MR the window is bound to, not the
	 * window's own: windows there are bound to an MR covering exactly
	 * the window.
	 */
	d->mw_by_mr = attr.vendor_id == 0xffffff;
	if (attr.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) {
		mw = ibv_alloc_mw(d->pd, IBV_MW_TYPE_2);
		if (mw) {
			d->mw_type2 = 1;
			ibv_dealloc_mw(mw);
		}
	}
	*out = d;
	return 0;

err_pipe:
	close(d->wake[1]);
	close(d->wake[0]);
err_free:
	free(d);
	return ret;
}

void kv_dev_close(struct kv_dev *d)
{
	if (!d)
		return;
	close(d->wake[1]);
	close(d->wake[0]);
	ibv_dealloc_pd(d->pd);
	free(d);
}

/*
 * kv_async_next waits for the device's next asynchronous event, acks it
 * (a QP or SRQ is destroyed only once its events are acked) and returns
 * 1 with ev filled; 0 when kv_async_wake ended the wait; a negative errno
 * on failure.
 */
int kv_async_next(struct kv_dev *d, struct kv_async *ev)
{
	struct pollfd p[2] = { { .fd = d->ctx->async_fd, .events = POLLIN }, { .fd = d->wake[0], .events = POLLIN } };
	struct ibv_async_event e;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return 0;
		if (p[0].revents)
			break;
	}
	if (ibv_get_async_event(d->ctx, &e))
		return errno ? -errno : -EIO;
	*ev = (struct kv_async){ .type = e.event_type };
	switch (e.event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		ev->qp_num = e.element.qp->qp_num;
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		ev->port = e.element.port_num;
		break;
	default:
		break;
	}
	ibv_ack_async_event(&e);
	return 1;
}

/* kv_async_wake ends a kv_async_next in progress, or the next one. */
void kv_async_wake(struct kv_dev *d)
{
	char b = 1;

	while (write(d->wake[1], &b, 1) < 0 && errno == EINTR)
		;
}

/* kv_dev_find returns librdmacm's context for the named device, or NULL. */
struct ibv_context *kv_dev_find(const char *name)
{
	struct ibv_context **list, *found = NULL;
	int i, n = 0;

	list = rdma_get_devices(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]->device), name)) {
			found = list[i];
			break;
		}
	}
	rdma_free_devices(list);
	return found;
}

int kv_mtu_bytes(enum ibv_mtu m)
{
	switch (m) {
	case IBV_MTU_256: return 256;
	case IBV_MTU_512: return 512;
	case IBV_MTU_1024: return 1024;
	case IBV_MTU_2048: return 2048;
	case IBV_MTU_4096: return 4096;
	}
	return 0;
}

/*
 * kv_link_query reads the port and the source GID index rdma_cm programmed
 * into the QP's address vector, so Info reports what is really in use.
 */
int kv_link_query(struct rdma_cm_id *id, struct ibv_qp *qp, struct kv_link *l)
{
	struct ibv_port_attr pattr;
	struct ibv_qp_attr qattr;
	struct ibv_qp_init_attr iattr;
	struct ibv_gid_entry ge;
	int ret;

	memset(l, 0, sizeof(*l));
	l->port = id->port_num;
	l->gid_index = -1;
	l->gid_type = -1;
	ret = ibv_query_port(id->verbs, id->port_num, &pattr);
	if (ret)
		return -ret;
	l->mtu = kv_mtu_bytes(pattr.active_mtu);
	l->link_layer = pattr.link_layer;
	if (!qp)
		return 0;
	ret = ibv_query_qp(qp, &qattr, IBV_QP_AV, &iattr);
	if (ret)
		return 0;
	l->gid_index = qattr.ah_attr.grh.sgid_index;
	if (!ibv_query_gid_ex(id->verbs, id->port_num, l->gid_index, &ge, 0)) {
		l->gid_type = ge.gid_type;
		memcpy(l->gid, ge.gid.raw, 16);
	} else {
		union ibv_gid g;

		if (!ibv_query_gid(id->verbs, id->port_num, l->gid_index, &g))
			memcpy(l->gid, g.raw, 16);
	}
	return 0;
}
