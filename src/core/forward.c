/*
 * Forwarding: a router sends on a message whose destination is another
 * node (reference/routing.md §7.2-§7.4, §7.6, §8; health.md §3).
 *
 * The life of a forwarded message (states in msg.h):
 *   parse    routing must be on; the sender's peer NI is found or made
 *            and marked UP. When the sender has a router credit and the
 *            pool of the payload's size a buffer, and nobody waits for
 *            either, both are taken and the payload goes straight into
 *            the buffer. Otherwise it is received eagerly into memory of
 *            its own, as LNet lets an LND receive while a message waits.
 *   RX       payload coming; rx_done ends it.
 *   QUEUED_RTR     waiting for a router credit of its sender (§7.3),
 *                  FIFO per sending peer NI;
 *   QUEUED_RTRBUF  then for a buffer of its pool (§7.2), FIFO per pool.
 *            The eager copy moves into the buffer when it comes.
 *   NEW      on ul_node.fwd_ready, sent from ul_msg_drain_ready(): full
 *            selection toward the header's destination with the
 *            originator's header kept, then the send path (credits,
 *            health, resend) as for any message, but never dropped for
 *            its age.
 *   DONE     the buffer and the router credit go back, releasing the
 *            next waiter; route_count and route_length grow on success.
 *
 * Timers: none. Every move happens in an LND upcall, a credit coming
 * back or a drain of the node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/health.h"
#include "core/msg.h"

static int drop(struct ul_node *n, struct ul_ni *ni, struct ul_peer_ni *lpni,
		const struct ul_wire_lnet_hdr *hdr,
		const struct ulnet_nid *from_nid, const char *why)
{
	char a[64], b[64];

	ul_msg_count_drop(n, ni, lpni, hdr->type, hdr->payload_length);
	ul_node_log(n, UL_D_NET, "drop %s from %s for %s: %s",
		    ul_wire_msg_type_name(hdr->type),
		    ulnet_nid_format(from_nid, a, sizeof(a)),
		    ulnet_nid_format(&hdr->dest_nid, b, sizeof(b)), why);
	return 0;
}

/*
 * §7.3: a sender's router credits, set from its net when it first sends
 * us something to forward: the net's peer_buffer_credits, else its peer
 * credits.
 */
static void rtr_credits_init(struct ul_node *n, struct ul_peer_ni_msgs *pm)
{
	const struct ul_net *net;
	int v = 1;

	if (pm->has_rtr_credits)
		return;
	net = ul_net_find(n->core, pm->lpni->peer_net->net_id);
	if (net && net->tun.peer_buffer_credits > 0)
		v = net->tun.peer_buffer_credits;
	else if (net && net->tun.peer_tx_credits > 0)
		v = net->tun.peer_tx_credits;
	pm->rtrcredits = v;
	pm->minrtrcredits = v;
	pm->has_rtr_credits = true;
}

static void take_rtr_credit(struct ul_peer_ni_msgs *pm, struct ul_msg *m)
{
	m->has_rtr_credit = true;
	if (--pm->rtrcredits < pm->minrtrcredits)
		pm->minrtrcredits = pm->rtrcredits;
}

/*
 * m has its router credit and its buffer: the payload moves in from the
 * eager copy, and m waits for the next drain to be sent on.
 */
static void fwd_ready(struct ul_node *n, struct ul_msg *m)
{
	if (m->eager) {
		memcpy(m->rtrbuf->data, m->eager, m->rx_hdr.payload_length);
		free(m->eager);
		m->eager = NULL;
	}
	ul_msg_set_state(n, m, UL_MSG_STATE_NEW);
	ul_node_add_work(n, &n->fwd_ready, &m->link);
}

/*
 * Take what m still lacks, the sender's router credit first: 0 when it
 * has both, -EAGAIN when it now waits on a queue, -ENOMEM.
 */
static int take_rtr_credits(struct ul_node *n, struct ul_msg *m)
{
	struct ul_peer_ni_msgs *pm = m->rtr_lpni->msgs;
	int rc;

	if (!m->has_rtr_credit) {
		take_rtr_credit(pm, m);
		if (pm->rtrcredits < 0) {
			ul_msg_set_state(n, m, UL_MSG_STATE_QUEUED_RTR);
			ul_list_add_tail(&pm->rtrq, &m->link);
			return -EAGAIN;
		}
	}
	if (!m->has_rtrbuf_credit) {
		rc = ul_rtrpool_get(
			m->rtrpool,
			ul_rtrpool_kind_of(m->rx_hdr.payload_length),
			&m->rtrbuf);
		if (rc == -ENOMEM)
			return rc;
		m->has_rtrbuf_credit = true;
		if (rc == -EAGAIN) {
			ul_msg_set_state(n, m, UL_MSG_STATE_QUEUED_RTRBUF);
			ul_list_add_tail(&m->rtrpool->waitq, &m->link);
			return rc;
		}
	}
	return 0;
}

/* Take credits for m and send it on when it has them; else it waits. */
static void fwd_take_and_go(struct ul_node *n, struct ul_msg *m)
{
	int rc = take_rtr_credits(n, m);

	/* Both credits held means a buffer was lent: never without one. */
	if (!rc && !m->rtrbuf)
		rc = -EPROTO;
	if (!rc) {
		fwd_ready(n, m);
		return;
	}
	if (rc == -EAGAIN)
		return;
	ul_msg_count_drop(n, m->ni, m->lpni, m->type, m->rx_hdr.payload_length);
	m->is_no_resend = true;
	ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
}

int ul_fwd_parse(struct ul_node *n, struct ul_node_ni *nni,
		 const struct ul_wire_lnet_hdr *hdr,
		 const struct ulnet_nid *from_nid, struct ul_lnd_rx *rx)
{
	struct ul_core *c = n->core;
	struct ul_ni *ni = nni->ni;
	uint32_t len = hdr->payload_length;
	struct ul_peer_ni_msgs *pm;
	struct ul_peer_ni *lpni;
	struct ul_rtrpool *pool;
	struct ul_msg *m;
	unsigned char *dst = NULL;
	char a[64];

	if (n->state != UL_NODE_STATE_RUNNING || nni->is_stopping)
		return drop(n, ni, NULL, hdr, from_nid, "shutting down");
	/* §7.4 step 2: LNet's lnet_parse drops when not routing. */
	if (!ul_routing_is_on(&c->routing))
		return drop(n, ni, NULL, hdr, from_nid,
			    "not for this node and routing is disabled");
	/* A header nobody could have sent: log and drop. */
	if (ulnet_nid_is_any(&hdr->dest_nid) ||
	    ulnet_nid_is_any(&hdr->src_nid) ||
	    hdr->src_nid.nid_type == ULNET_LND_LO ||
	    ni->nid.nid_type == ULNET_LND_LO)
		return drop(n, ni, NULL, hdr, from_nid,
			    "forged source or destination");
	/* §7.4 step 3: receive-side rules, then the sender's peer NI. */
	if (ul_fault_on_rx(n, ni, hdr, from_nid))
		return drop(n, ni, NULL, hdr, from_nid, "fault rule");
	if (ul_peer_ni_find_or_create(c, from_nid, ni, &lpni) ||
	    !ul_msg_lpni_msgs(n, lpni))
		return drop(n, ni, NULL, hdr, from_nid,
			    "no peer for the sender");
	pm = lpni->msgs;
	pm->last_alive_ns = n->opts.timers->now_ns;
	lpni->ns_status = UL_NS_STATUS_UP;
	rtr_credits_init(n, pm);
	pool = ul_routing_pool(&c->routing, from_nid, ul_rtrpool_kind_of(len));
	if (!pool)
		return drop(n, ni, lpni, hdr, from_nid, "no router buffers");
	m = ul_msg_alloc_rx(n, hdr, from_nid, nni, lpni);
	if (!m)
		return drop(n, ni, lpni, hdr, from_nid, "out of memory");
	m->rtr_lpni = lpni;
	ul_peer_ni_get(lpni);
	m->rtrpool = pool;
	m->is_forward = true;
	/* §7.4 step 5: straight into a buffer when nobody waits before it. */
	if (ul_list_empty(&pm->rtrq) && ul_list_empty(&pool->waitq) &&
	    pm->rtrcredits > 0 && pool->credits > 0) {
		take_rtr_credit(pm, m);
		if (ul_rtrpool_get(pool, ul_rtrpool_kind_of(len), &m->rtrbuf)) {
			pm->rtrcredits++;
			m->has_rtr_credit = false;
			ul_msg_free(n, m);
			return drop(n, ni, lpni, hdr, from_nid,
				    "out of memory");
		}
		m->has_rtrbuf_credit = true;
		dst = m->rtrbuf->data;
	} else if (len) {
		m->eager = malloc(len);
		if (!m->eager) {
			ul_msg_free(n, m);
			return drop(n, ni, lpni, hdr, from_nid,
				    "out of memory");
		}
		dst = m->eager;
	}
	m->iov_one.iov_base = dst;
	m->iov_one.iov_len = len;
	m->rx.iov = &m->iov_one;
	m->rx.niov = len ? 1 : 0;
	m->rx.mlen = len;
	ul_msg_set_state(n, m, UL_MSG_STATE_RX);
	rx->iov = m->rx.iov;
	rx->niov = m->rx.niov;
	rx->mlen = len;
	rx->msg = m;
	ul_node_log(n, UL_D_NET, "rx %s from %s to forward, len %u%s",
		    ul_wire_msg_type_name(hdr->type),
		    ulnet_nid_format(from_nid, a, sizeof(a)), len,
		    m->rtrbuf ? "" : " (waits for router credits)");
	return 0;
}

void ul_fwd_rx_done(struct ul_node *n, struct ul_msg *m)
{
	/* §7.6: anything a router receives makes its sender healthy. */
	ul_health_ni_inc(n, m->ni);
	ul_peer_ni_set_healthv(m->lpni, UL_HEALTH_MAX);
	ul_health_lpni_queue(n, m->lpni);
	if (!ul_routing_is_on(&n->core->routing)) {
		/* §7.1: routing stopped while the payload came in. */
		ul_msg_count_drop(n, m->ni, m->lpni, m->type,
				  m->rx_hdr.payload_length);
		m->is_no_resend = true;
		ul_msg_finalize(n, m, -ECANCELED, UL_HSTATUS_OK);
		return;
	}
	/* The receive counts on the NI and the sender (msg_stats.c). */
	ul_msg_stats(n, m, 0);
	if (m->rtrbuf) {
		fwd_ready(n, m);
		return;
	}
	fwd_take_and_go(n, m);
}

/* Send m (credits held, payload in its buffer) toward its destination. */
static void fwd_start(struct ul_node *n, struct ul_msg *m)
{
	const struct ul_wire_lnet_hdr *rh = &m->rx_hdr;
	uint32_t len = rh->payload_length;
	bool is_reserved = false;
	char a[64];
	int rc;

	if (rh->type == UL_WIRE_MSG_PUT)
		is_reserved = rh->msg.put.ptl_index == UL_WIRE_RESERVED_PORTAL;
	else if (rh->type == UL_WIRE_MSG_GET)
		is_reserved = rh->msg.get.ptl_index == UL_WIRE_RESERVED_PORTAL;
	/* The receive is over: the message is a transmit from here on. */
	ul_ni_put(m->ni);
	m->ni = NULL;
	m->nni = NULL;
	ul_peer_ni_put(m->lpni);
	m->lpni = NULL;
	m->is_committed = false;
	m->tx.hdr = *rh;
	m->iov_one.iov_base = m->rtrbuf->data;
	m->iov_one.iov_len = len;
	m->tx.iov = &m->iov_one;
	m->tx.niov = len ? 1 : 0;
	m->tx.nob = len;
	/* §7.4 step 7: no source, no router: the whole selection. */
	rc = ul_msg_route(n, m, NULL, &rh->dest_nid, NULL, UL_NUMA_ANY,
			  is_reserved);
	if (rc) {
		ul_node_log_limit(n, UL_D_NETERROR,
				  "cannot forward %s to %s: %d",
				  ul_wire_msg_type_name(rh->type),
				  ulnet_nid_format(&rh->dest_nid, a, sizeof(a)),
				  rc);
		ul_msg_count_drop(n, NULL, NULL, rh->type, len);
		m->is_no_resend = true;
		ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
		return;
	}
	ul_msg_post(n, m);
}

void ul_fwd_run(struct ul_node *n)
{
	struct ul_list batch;

	ul_list_take(&n->fwd_ready, &batch);
	while (!ul_list_empty(&batch)) {
		struct ul_msg *m =
			ul_list_first_entry(&batch, struct ul_msg, link);

		ul_list_del(&m->link);
		if (n->state != UL_NODE_STATE_RUNNING) {
			ul_msg_finalize(n, m, -ESHUTDOWN, UL_HSTATUS_OK);
			continue;
		}
		fwd_start(n, m);
	}
}

/*
 * Give back m's buffer and router credit (lnet_return_rx_credits_locked).
 * What m only waited for (it sat on that queue) is a debt cancelled, not
 * a credit released.
 */
static void return_rtr_credits(struct ul_node *n, struct ul_msg *m,
			       enum ul_msg_state was)
{
	struct ul_peer_ni_msgs *pm = m->rtr_lpni->msgs;

	if (m->has_rtrbuf_credit) {
		struct ul_rtrpool *p = m->rtrpool;

		m->has_rtrbuf_credit = false;
		if (was == UL_MSG_STATE_QUEUED_RTRBUF) {
			ul_rtrpool_unwait(p);
		} else {
			struct ul_rtrbuf *b = ul_rtrpool_put(p, m->rtrbuf);

			m->rtrbuf = NULL;
			if (b) {
				struct ul_msg *w = ul_list_first_entry(
					&p->waitq, struct ul_msg, link);

				ul_list_del(&w->link);
				w->rtrbuf = b;
				fwd_ready(n, w);
			}
		}
	}
	if (m->has_rtr_credit) {
		m->has_rtr_credit = false;
		if (++pm->rtrcredits <= 0 && was != UL_MSG_STATE_QUEUED_RTR &&
		    !ul_list_empty(&pm->rtrq)) {
			struct ul_msg *w = ul_list_first_entry(
				&pm->rtrq, struct ul_msg, link);

			ul_list_del(&w->link);
			/* Its credit is the one just given back. */
			fwd_take_and_go(n, w);
		}
	}
}

void ul_fwd_finalize(struct ul_node *n, struct ul_msg *m, enum ul_msg_state was,
		     int status)
{
	struct ul_counters *g = &n->core->counters;

	if (!status && m->is_tx) {
		/* §7.4 step 11 (stats show: route_count, route_length). */
		g->route_count++;
		g->route_length += m->tx.nob;
	}
	return_rtr_credits(n, m, was);
	ul_msg_free(n, m);
}

/* Drop the messages of q, each counted; true if it had any. */
static bool drop_queue(struct ul_node *n, struct ul_list *q, int status)
{
	bool had = !ul_list_empty(q);

	while (!ul_list_empty(q)) {
		struct ul_msg *m = ul_list_first_entry(q, struct ul_msg, link);

		ul_msg_count_drop(n, m->ni, m->lpni, m->type,
				  m->rx_hdr.payload_length);
		m->is_no_resend = true;
		ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
	}
	return had;
}

void ul_fwd_drop_waiting(struct ul_node *n, int status)
{
	struct ul_routing *r = &n->core->routing;
	struct ul_peer_ni_msgs *pm;
	bool again = true;
	unsigned int cpt;
	int kind;

	/* A drop returns credits, which may release another waiter. */
	while (again) {
		again = false;
		ul_list_for_each_entry(pm, &n->lpni_msgs, link)
			again |= drop_queue(n, &pm->rtrq, status);
		for (cpt = 0; cpt < r->ncpt; cpt++)
			for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
				again |= drop_queue(
					n, &r->pools[cpt][kind].waitq, status);
		/* Ready ones hold their credits: only a shutdown ends them. */
		if (n->state != UL_NODE_STATE_RUNNING)
			again |= drop_queue(n, &n->fwd_ready, status);
	}
}

bool ul_fwd_next_hop_is_alive(struct ul_node *n, const struct ul_msg *m)
{
	const struct ul_core *c = n->core;
	const struct ul_peer_ni *lpni = m->lpni;

	/*
	 * LNet's lnet_peer_alive_locked: only a router checks, only where
	 * the net has a peer_timeout, never for a resend, a recovery ping
	 * or a response.
	 */
	if (!ul_routing_is_on(&c->routing) || !lpni || !m->ni ||
	    m->ni->net->tun.peer_timeout_sec <= 0)
		return true;
	if (m->retry_count || m->is_recovery || m->type == UL_MSG_ACK ||
	    m->type == UL_MSG_REPLY)
		return true;
	/*
	 * lnet_is_peer_ni_alive: its status is UP and its health at least
	 * router_sensitivity percent of full.
	 */
	if (lpni->ns_status != UL_NS_STATUS_UP)
		return false;
	return (int64_t)lpni->healthv * 100 >=
	       (int64_t)UL_HEALTH_MAX * c->tun.router_sensitivity;
}

bool ul_fwd_is_asym(struct ul_node *n, const struct ul_wire_lnet_hdr *hdr,
		    const struct ulnet_nid *from_nid)
{
	const struct ul_core *c = n->core;
	uint32_t src_net = ulnet_nid_net(&hdr->src_nid);
	const struct ul_peer *gw;
	const struct ul_rnet *rnet;
	const struct ul_route *r;

	/* Routed to us: the hop that handed it over is on another net. */
	if (!c->tun.drop_asym_route || src_net == ulnet_nid_net(from_nid))
		return false;
	gw = ul_peer_find(c, from_nid);
	rnet = ul_rnet_find(c, src_net);
	if (!gw || !rnet)
		return true;
	ul_list_for_each_entry(r, &rnet->routes, rnet_link) {
		if (r->gateway == gw && !r->is_dead)
			return false;
	}
	return true;
}
