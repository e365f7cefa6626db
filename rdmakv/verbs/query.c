//go:build linux && cgo

/* query.c: what each RDMA device offers, for a report (Devices). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "verbs.h"

static struct ibv_qp *probe_create_qp(void *pd, struct ibv_qp_init_attr *a)
{
	return ibv_create_qp(pd, a);
}

/*
 * max_inline asks a throwaway RC QP for inline data as kv_qp_open does
 * (kv_inline_ladder) and returns what it got.
 */
static int max_inline(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 2,
		},
	};
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	int got = 0;

	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cq)
		return 0;
	a.send_cq = a.recv_cq = cq;
	if (!kv_inline_ladder(probe_create_qp, pd, &a, 256, &qp)) {
		got = a.cap.max_inline_data;
		ibv_destroy_qp(qp);
	}
	ibv_destroy_cq(cq);
	return got;
}

/*
 * srq_probe creates a shared receive queue as a kvserver would at its
 * default depth (or the device's largest, if smaller) with two SGEs, and
 * returns 0 or the -errno it failed with: the limits a device reports do
 * not prove it makes one.
 */
static int srq_probe(struct ibv_pd *pd, const struct ibv_device_attr *attr)
{
	struct ibv_srq_init_attr a = {
		.attr = {
			.max_wr = attr->max_srq_wr < KV_PROBE_SRQ_WR ? attr->max_srq_wr : KV_PROBE_SRQ_WR,
			.max_sge = 2,
		},
	};
	struct ibv_srq *srq;

	errno = 0;
	srq = ibv_create_srq(pd, &a);
	if (!srq)
		return KV_ERR(EOPNOTSUPP);
	ibv_destroy_srq(srq);
	return 0;
}

/* probe fills what needs the device opened: a PD, a window, a QP. */
static void probe(struct ibv_context *ctx, const struct ibv_device_attr *attr, struct kv_dev_info *d)
{
	struct ibv_pd *pd;
	struct ibv_mw *mw;

	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return;
	if (attr->device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) {
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		if (mw) {
			d->mw_type2 = 1;
			ibv_dealloc_mw(mw);
		}
	}
	d->max_inline = max_inline(ctx, pd);
	d->srq_err = srq_probe(pd, attr);
	ibv_dealloc_pd(pd);
	kv_loopback_probe(ctx, &d->lb);
}

static void query_one(struct ibv_device *dev, struct kv_dev_info *d)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	struct ibv_context *ctx;
	int p, ret;

	strncpy(d->name, ibv_get_device_name(dev), sizeof(d->name) - 1);
	d->node_type = dev->node_type;
	d->transport_type = dev->transport_type;
	ctx = ibv_open_device(dev);
	if (!ctx) {
		d->err = KV_ERR(ENODEV);
		return;
	}
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		d->err = -ret;
		ibv_close_device(ctx);
		return;
	}
	strncpy(d->fw, attr.fw_ver, sizeof(d->fw) - 1);
	d->vendor_id = attr.vendor_id;
	d->max_qp_wr = attr.max_qp_wr;
	d->max_sge = attr.max_sge;
	d->max_cqe = attr.max_cqe;
	d->max_mr = attr.max_mr;
	d->max_srq = attr.max_srq;
	d->max_srq_wr = attr.max_srq_wr;
	d->max_srq_sge = attr.max_srq_sge;
	d->mw_caps = !!(attr.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	d->mem_mgt = !!(attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS);
	d->nports = attr.phys_port_cnt < KV_MAX_PORTS ? attr.phys_port_cnt : KV_MAX_PORTS;
	for (p = 0; p < d->nports; p++) {
		if (ibv_query_port(ctx, p + 1, &pattr))
			continue;
		d->ports[p].state = pattr.state;
		d->ports[p].link_layer = pattr.link_layer;
		d->ports[p].mtu = kv_mtu_bytes(pattr.active_mtu);
		d->ports[p].gids = pattr.gid_tbl_len;
	}
	probe(ctx, &attr, d);
	ibv_close_device(ctx);
}

/*
 * kv_devices_query describes every device into *out (n entries, calloc'ed;
 * the caller frees it). A device that cannot be opened keeps its name and
 * types and says why in err. Returns n, or a negative errno.
 */
int kv_devices_query(struct kv_dev_info **out)
{
	struct ibv_device **list;
	struct kv_dev_info *d;
	int i, n = 0;

	*out = NULL;
	list = ibv_get_device_list(&n);
	/* ENOSYS: the kernel has no RDMA support, which is no device either */
	if (!list)
		return errno == ENOSYS ? 0 : KV_ERR(EIO);
	if (n == 0) {
		ibv_free_device_list(list);
		return 0;
	}
	d = calloc(n, sizeof(*d));
	if (!d) {
		ibv_free_device_list(list);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		query_one(list[i], &d[i]);
	ibv_free_device_list(list);
	*out = d;
	return n;
}
