//go:build linux && cgo

/* cm.c: rdma_cm plumbing. Events are read non-blocking: Go waits on the
 * channel's fd through its netpoller, so no thread sleeps in C. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "verbs.h"

struct rdma_event_channel *kv_channel_open(void)
{
	struct rdma_event_channel *ch;
	int flags;

	ch = rdma_create_event_channel();
	if (!ch)
		return NULL;
	flags = fcntl(ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int e = errno;

		rdma_destroy_event_channel(ch);
		errno = e;
		return NULL;
	}
	return ch;
}

/*
 * kv_cm_next copies the next event out and acks it at once, so that
 * rdma_destroy_id never waits on an event still held here. Returns 0, or
 * -EAGAIN when the channel is empty, or another -errno.
 */
int kv_cm_next(struct rdma_event_channel *ch, struct kv_event *ev)
{
	struct rdma_cm_event *e;

	if (rdma_get_cm_event(ch, &e))
		return errno ? -errno : -EIO;
	ev->event = e->event;
	ev->status = e->status;
	ev->id = e->id;
	ev->listen_id = e->listen_id;
	ev->responder_resources = e->param.conn.responder_resources;
	ev->initiator_depth = e->param.conn.initiator_depth;
	rdma_ack_cm_event(e);
	return 0;
}

static socklen_t fill_addr(struct sockaddr_storage *ss, int family, const uint8_t *ip, int port, uint32_t scope)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, ip, 16);
		s6->sin6_scope_id = scope;
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	memcpy(&s4->sin_addr, ip, 4);
	return sizeof(*s4);
}

int kv_resolve_addr(struct rdma_cm_id *id, int family, const uint8_t *ip, int port, uint32_t scope, int ms)
{
	struct sockaddr_storage ss;

	fill_addr(&ss, family, ip, port, scope);
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, ms))
		return errno ? -errno : -EIO;
	return 0;
}

int kv_bind_listen(struct rdma_cm_id *id, int family, const uint8_t *ip, int port, uint32_t scope, int backlog)
{
	struct sockaddr_storage ss;

	fill_addr(&ss, family, ip, port, scope);
	if (rdma_bind_addr(id, (struct sockaddr *)&ss))
		return errno ? -errno : -EIO;
	if (rdma_listen(id, backlog))
		return errno ? -errno : -EIO;
	return 0;
}

int kv_local_port(struct rdma_cm_id *id)
{
	return ntohs(rdma_get_src_port(id));
}

/* Retry counts at their maximum: 7 for rnr_retry means retry forever, so a
 * peer that is merely slow to repost receives is waited for, not dropped. */
int kv_connect(struct rdma_cm_id *id, int rd_atom, int init_depth)
{
	struct rdma_conn_param p = {
		.responder_resources = rd_atom,
		.initiator_depth = init_depth,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	if (rdma_connect(id, &p))
		return errno ? -errno : -EIO;
	return 0;
}

int kv_accept(struct rdma_cm_id *id, int rd_atom, int init_depth)
{
	struct rdma_conn_param p = {
		.responder_resources = rd_atom,
		.initiator_depth = init_depth,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	if (rdma_accept(id, &p))
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * kv_set_rnr_timer sets how long a peer whose SEND found no posted receive
 * here waits before sending it again (the IB encoding: 12 is 0.64 ms, the
 * value rc_pingpong uses). rdma_cm moves the QP to RTR with 0, which the
 * encoding makes 655.36 ms, and offers no option for it; RTS to RTS may
 * change it, so it is set once the connection is up.
 */
int kv_set_rnr_timer(struct ibv_qp *qp, int code)
{
	struct ibv_qp_attr a = { .min_rnr_timer = code };

	return kv_neg(ibv_modify_qp(qp, &a, IBV_QP_MIN_RNR_TIMER));
}

/* kv_rnr_timer reads the QP's minimum RNR timer back, or returns -errno. */
int kv_rnr_timer(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int ret = ibv_query_qp(qp, &a, IBV_QP_MIN_RNR_TIMER, &ia);

	return ret ? kv_neg(ret) : a.min_rnr_timer;
}

/* kv_set_tos sets the id's IP type of service: on RoCE the traffic class
 * of the route resolved after it, on iWARP the TCP connection's. */
int kv_set_tos(struct rdma_cm_id *id, uint8_t tos)
{
	errno = 0;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)))
		return KV_ERR(EIO);
	return 0;
}

/* kv_route_tclass is the traffic class of the id's resolved route, or -1
 * when it has no path record. */
int kv_route_tclass(struct rdma_cm_id *id)
{
	if (!id->route.path_rec || !id->route.num_paths)
		return -1;
	return id->route.path_rec->traffic_class;
}

/* Best effort: older kernels lack the option and keep rdma_cm's default. */
void kv_set_ack_timeout(struct rdma_cm_id *id, uint8_t t)
{
	rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t));
}

/* kv_addr_str formats the local or peer address of an id as host:port. */
int kv_addr_str(struct rdma_cm_id *id, int peer, char *buf, int len)
{
	struct sockaddr *sa = peer ? rdma_get_peer_addr(id) : rdma_get_local_addr(id);
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		return snprintf(buf, len, "[%s]:%d", host, ntohs(s6->sin6_port));
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

	inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
	return snprintf(buf, len, "%s:%d", host, ntohs(s4->sin_port));
}
