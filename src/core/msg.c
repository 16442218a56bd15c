/*
 * Message life cycle: allocation, the state table, path and commit,
 * posting, and the completion funnel (reference/health.md §4). Credits
 * are credits.c, statistics and latency msg_stats.c, health health.c,
 * resend resend.c, response tracking rspt.c, fault rules fault_node.c;
 * the receive side is msg_rx.c.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_send.h"
#include "core/health.h"
#include "core/msg.h"
#include "util/poison.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

/* Pooled messages are poisoned under ASan (util/poison.h). */
#define MSG_POISON(m) UL_POISON((m), sizeof(struct ul_msg))
#define MSG_UNPOISON(m) UL_UNPOISON((m), sizeof(struct ul_msg))

/* The pool's link lives in the first bytes of a free message. */
static struct ul_msg **pool_next(struct ul_msg *m)
{
	return (struct ul_msg **)(void *)m;
}

static struct ul_msg *msg_get(struct ul_node *n)
{
	struct ul_msg *m = n->msg_pool;

	if (!m)
		return calloc(1, sizeof(*m));
	MSG_UNPOISON(m);
	n->msg_pool = *pool_next(m);
	n->msg_pool_len--;
	memset(m, 0, sizeof(*m));
	return m;
}

static void msg_put(struct ul_node *n, struct ul_msg *m)
{
	if (n->msg_pool_len >= UL_MSG_POOL_MAX) {
		free(m);
		return;
	}
	*pool_next(m) = n->msg_pool;
	n->msg_pool = m;
	n->msg_pool_len++;
	MSG_POISON(m);
}

void ul_msg_pool_drain(struct ul_node *n)
{
	while (n->msg_pool) {
		struct ul_msg *m = n->msg_pool;

		MSG_UNPOISON(m);
		n->msg_pool = *pool_next(m);
		free(m);
	}
	n->msg_pool_len = 0;
}

struct ul_msg *ul_msg_alloc(struct ul_node *n)
{
	struct ul_msg *m = msg_get(n);
	struct ul_counters *cnt = &n->core->counters;

	if (!m)
		return NULL;
	ul_list_init(&m->link);
	ul_list_init(&m->mev.link);
	m->mev.owner_msg = m;
	ul_list_add_tail(&n->msgs, &m->all_link);
	cnt->msgs_alloc++;
	if (cnt->msgs_alloc > cnt->msgs_max)
		cnt->msgs_max = cnt->msgs_alloc;
	return m;
}

/*
 * m is committed to local NI nni and peer NI lpni (NULL for 0@lo): it
 * holds a reference on each, and its deadline counts from now.
 */
static void msg_bind(struct ul_node *n, struct ul_msg *m,
		     struct ul_node_ni *nni, struct ul_peer_ni *lpni)
{
	m->nni = nni;
	m->ni = nni->ni;
	ul_ni_get(m->ni);
	m->lpni = lpni;
	if (lpni)
		ul_peer_ni_get(lpni);
	m->is_committed = true;
	m->deadline_ns = ul_msg_deadline(n, m->ni);
}

struct ul_msg *ul_msg_alloc_rx(struct ul_node *n,
			       const struct ul_wire_lnet_hdr *hdr,
			       const struct ulnet_nid *from_nid,
			       struct ul_node_ni *nni, struct ul_peer_ni *lpni)
{
	struct ul_msg *m = ul_msg_alloc(n);

	if (!m)
		return NULL;
	m->type = (enum ul_msg_type)hdr->type;
	m->rx_hdr = *hdr;
	m->from_nid = *from_nid;
	msg_bind(n, m, nni, lpni);
	return m;
}

/*
 * The life cycle (msg.h): bit t of allowed[f] says f -> t is legal.
 * A failure may end a message from any live state.
 */
#define ST(x) (1u << UL_MSG_STATE_##x)
static const uint32_t allowed[] = {
	[UL_MSG_STATE_NEW] = ST(QUEUED_PEER) | ST(QUEUED_NI) | ST(DELAYED) |
			     ST(LND) | ST(RX) | ST(DONE) | ST(WAIT_DISC),
	[UL_MSG_STATE_QUEUED_PEER] = ST(READY) | ST(RESEND) | ST(DONE),
	[UL_MSG_STATE_QUEUED_NI] = ST(READY) | ST(RESEND) | ST(DONE),
	[UL_MSG_STATE_READY] = ST(QUEUED_PEER) | ST(QUEUED_NI) | ST(DELAYED) |
			       ST(LND) | ST(RESEND) | ST(DONE),
	[UL_MSG_STATE_DELAYED] = ST(LND) | ST(NEW) | ST(DONE),
	[UL_MSG_STATE_LND] = ST(RESEND) | ST(DONE),
	[UL_MSG_STATE_RESEND] = ST(NEW) | ST(DONE),
	/*
	 * A GET's receive turns into its REPLY's send (msg_rx.c); a
	 * forwarded message's into its send on, maybe after waiting for
	 * router credits (forward.c).
	 */
	[UL_MSG_STATE_RX] = ST(NEW) | ST(DELAYED) | ST(DONE) | ST(QUEUED_RTR) |
			    ST(QUEUED_RTRBUF),
	[UL_MSG_STATE_DONE] = 0,
	/* discovery ended: selected now, or failed with its error */
	[UL_MSG_STATE_WAIT_DISC] = ST(NEW) | ST(DONE),
	[UL_MSG_STATE_QUEUED_RTR] = ST(QUEUED_RTRBUF) | ST(NEW) | ST(DONE),
	[UL_MSG_STATE_QUEUED_RTRBUF] = ST(NEW) | ST(DONE),
};
#undef ST

static const char *const state_names[] = {
	"new",	   "queued_peer", "queued_ni",	"ready",
	"delayed", "lnd",	  "resend",	"rx",
	"done",	   "wait_disc",	  "queued_rtr", "queued_rtrbuf",
};

bool ul_msg_set_state(struct ul_node *n, struct ul_msg *m, enum ul_msg_state to)
{
	if (m->state == to || (allowed[m->state] & (1u << to)))
		goto move;
	ul_node_log(n, UL_D_ERROR, "%s message: %s -> %s refused",
		    ul_wire_msg_type_name(m->type), state_names[m->state],
		    state_names[to]);
	assert(!"illegal message state transition");
	return false;
move:
	m->state = to;
	return true;
}

void ul_msg_free(struct ul_node *n, struct ul_msg *m)
{
	ul_list_del(&m->link);
	ul_list_del(&m->all_link);
	if (m->ni)
		ul_ni_put(m->ni);
	if (m->lpni)
		ul_peer_ni_put(m->lpni);
	if (m->rtr_lpni)
		ul_peer_ni_put(m->rtr_lpni);
	assert(!m->rtrbuf); /* forward.c gives it back first */
	free(m->eager);
	free(m->iov_alloc);
	msg_put(n, m);
	n->core->counters.msgs_alloc--;
}

uint64_t ul_msg_clock_ns(const struct ul_node *n)
{
	return n->opts.clock_ns ? n->opts.clock_ns() : n->opts.timers->now_ns;
}

uint64_t ul_msg_deadline(struct ul_node *n, const struct ul_ni *ni)
{
	const struct ul_tunables *t = &n->core->tun;
	int lndt = ul_node_lnd_timeout(n, ni->nid.nid_type);
	uint64_t sec;

	/*
	 * health.md §3: an LND with a timeout of its own gives each attempt
	 * that timeout once per try, plus a second; else the transaction
	 * timeout.
	 */
	if (lndt > 0)
		sec = (uint64_t)lndt * (t->retry_count + 1) + 1;
	else
		sec = t->transaction_timeout;
	return n->opts.timers->now_ns + sec * NSEC_PER_SEC;
}

struct ul_peer_ni_msgs *ul_msg_lpni_msgs(struct ul_node *n,
					 struct ul_peer_ni *lpni)
{
	struct ul_peer_ni_msgs *pm = lpni->msgs;

	if (pm)
		return pm;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	ul_list_init(&pm->txq);
	ul_list_init(&pm->rtrq);
	ul_list_init(&pm->rec.link);
	pm->lpni = lpni;
	lpni->msgs = pm;
	ul_list_add_tail(&n->lpni_msgs, &pm->link);
	return pm;
}

void ul_msg_free_lpni_msgs(struct ul_node *n)
{
	struct ul_peer_ni_msgs *pm, *tmp;

	ul_list_for_each_entry_safe(pm, tmp, &n->lpni_msgs, link) {
		pm->lpni->msgs = NULL;
		ul_peer_ni_msgs_free(pm);
	}
}

void ul_peer_ni_msgs_free(struct ul_peer_ni_msgs *pm)
{
	ul_list_del(&pm->link);
	if (pm->rec.is_queued)
		ul_list_del(&pm->rec.link);
	free(pm);
}

static bool is_lo_nid(const struct ulnet_nid *nid)
{
	return nid->nid_type == ULNET_LND_LO;
}

int ul_msg_route(struct ul_node *n, struct ul_msg *m,
		 const struct ulnet_nid *src, const struct ulnet_nid *dst,
		 const struct ulnet_nid *rtr, int numa_node, bool is_reserved)
{
	struct ul_core *c = n->core;
	struct ul_wire_lnet_hdr *hdr = &m->tx.hdr;
	struct ul_select_req req;
	struct ul_select_res res;
	struct ul_node_ni *nni;
	struct ul_peer_ni *lpni = NULL;
	int rc;

	/*
	 * selection.md §6.9: only 0@lo goes over lolnd without selection.
	 * One of our own NIDs is a peer like any other (LNet creates a
	 * peer for it and sends through the LND, to itself), so its NIs
	 * and peer NI count the traffic.
	 */
	if (is_lo_nid(dst)) {
		nni = n->lo;
		if (!nni || nni->is_stopping)
			return -ENETDOWN;
		hdr->src_nid = nni->ni->nid;
		hdr->dest_nid = nni->ni->nid;
		m->tx.target_nid = nni->ni->nid;
	} else {
		ul_select_req_init(&req, dst, m->type);
		if (src)
			req.src_nid = *src;
		if (rtr)
			req.rtr_nid = *rtr;
		req.md_numa_node = numa_node;
		req.is_reserved_portal = is_reserved;
		req.is_recovery = m->is_recovery;
		/* routing.md §7.4 step 7: the originator's header stays. */
		req.is_forward = m->is_forward;
		if (m->is_forward)
			req.hdr_src_nid = m->rx_hdr.src_nid;
		rc = ul_select(c, &req, &res, NULL);
		if (rc)
			return rc;
		if (res.is_loopback || !res.lpni) {
			nni = n->lo;
			if (!nni || nni->is_stopping)
				return -ENETDOWN;
			hdr->src_nid = nni->ni->nid;
			hdr->dest_nid = nni->ni->nid;
			m->tx.target_nid = nni->ni->nid;
		} else {
			nni = res.ni->node_ni;
			if (!nni || nni->is_stopping)
				return -ENETDOWN;
			lpni = res.lpni;
			if (!ul_msg_lpni_msgs(n, lpni))
				return -ENOMEM;
			hdr->src_nid = res.hdr_src_nid;
			hdr->dest_nid = res.hdr_dst_nid;
			m->tx.target_nid = lpni->nid;
		}
	}
	/* What a resend selects with again (health.md §7). */
	m->has_self = src != NULL;
	if (src)
		m->self = *src;
	m->numa_node = numa_node;
	m->is_reserved = is_reserved;
	msg_bind(n, m, nni, lpni);
	m->tx.target_pid = hdr->dest_pid;
	m->tx.deadline_ns = m->deadline_ns;
	/* Only a PUT's egress is timed (msg_stats.c): no clock read else. */
	if (m->type == UL_MSG_PUT)
		m->t_start_ns = ul_msg_clock_ns(n);
	m->is_tx = true;
	return 0;
}

void ul_msg_post(struct ul_node *n, struct ul_msg *m)
{
	struct ul_node_ni *nni = m->nni;

	if (n->state != UL_NODE_STATE_RUNNING || nni->is_stopping) {
		ul_msg_finalize(n, m, -ESHUTDOWN, UL_HSTATUS_OK);
		return;
	}
	if (!ul_fwd_next_hop_is_alive(n, m)) {
		/* routing.md §7.4 step 10: maybe another NID of the hop. */
		ul_msg_count_drop(n, m->ni, m->lpni, m->type, m->tx.nob);
		ul_msg_finalize(n, m, -EHOSTUNREACH, UL_HSTATUS_REMOTE_DROPPED);
		return;
	}
	if (!m->is_forward && n->opts.timers->now_ns > m->deadline_ns) {
		/*
		 * lnet_post_send_locked's drop: the deadline passed before
		 * the message reached the LND. LNet never gets here for
		 * loopback, which has no peer NI. A router never drops what
		 * it forwards for its age (health.md §3, routing.md §7.4).
		 */
		if (m->lpni)
			ul_msg_count_drop(n, m->ni, m->lpni, m->type,
					  m->tx.nob);
		ul_msg_finalize(n, m, -ETIMEDOUT, UL_HSTATUS_NETWORK_TIMEOUT);
		return;
	}
	/*
	 * health.md §8: MD unlinked while queued. After the deadline check,
	 * so a request whose tracker expired while it waited for a credit
	 * past its deadline ends as timed out (§14.16).
	 */
	if (m->md && m->md->is_aborted && m->mev.ev.type == ULNET_EVENT_SEND) {
		m->is_no_resend = true;
		ul_msg_finalize(n, m, -ECANCELED, UL_HSTATUS_OK);
		return;
	}
	if (!ul_msg_take_credits(n, m))
		return;
	/* fault.md §4.2, §6: the rules see it with its credits held. */
	if (ul_fault_on_tx(n, m))
		return;
	ul_msg_lnd_send(n, m);
}

void ul_msg_lnd_send(struct ul_node *n, struct ul_msg *m)
{
	struct ul_node_ni *nni = m->nni;
	int rc;

	if (!ul_msg_set_state(n, m, UL_MSG_STATE_LND))
		return;
	if (nni->is_stopping) {
		ul_msg_finalize(n, m, -ESHUTDOWN, UL_HSTATUS_OK);
		return;
	}
	if (n->opts.log && (n->opts.log->mask & UL_D_NET)) {
		char a[64], b[64];

		ul_node_log(
			n, UL_D_NET, "tx %s to %s via %s len %u md %#llx%s",
			ul_wire_msg_type_name(m->type),
			ulnet_nid_format(&m->tx.target_nid, a, sizeof(a)),
			ulnet_nid_format(&m->ni->nid, b, sizeof(b)), m->tx.nob,
			(unsigned long long)ul_wire_hdr_md_cookie(&m->tx.hdr),
			m->retry_count ? " (resend)" : "");
	}
	m->tx.is_undelivered = false;
	rc = nni->lni.lnd->ops->send(&nni->lni, &m->tx);
	if (rc) {
		/* LNet: finalized at once, never resent, no health. */
		m->is_no_resend = true;
		ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
	}
}

void ul_node_queue_event(struct ul_node *n, struct ul_md_event *e)
{
	ul_md_get(e->md);
	ul_node_add_work(n, &n->events, &e->link);
}

/* md had its last event: it leaves every table, the live ref goes. */
static void md_gone(struct ul_node *n, struct ul_md *md)
{
	ul_md_unlink(&n->mds, md);
	ul_msg_rspt_detach(n, md);
	ul_md_put(md);
}

void ul_node_md_unlink_internal(struct ul_node *n, struct ul_md *md, int status)
{
	struct ul_md_event *e = &md->unlink_ev;

	md->is_aborted = true;
	ul_md_unlink(&n->mds, md);
	if (md->nmsgs)
		return; /* the last message's event says unlinked */
	if (md->handler || md->int_handler) {
		memset(e, 0, sizeof(*e));
		e->md = md;
		e->ev.type = ULNET_EVENT_UNLINK;
		e->ev.status = status;
		e->ev.unlinked = true;
		e->ev.md_handle.cookie = md->cookie;
		e->ev.md_start = md->start;
		e->ev.md_user_ptr = md->user_ptr;
		ul_node_queue_event(n, e);
	}
	md_gone(n, md);
}

static void log_failure(struct ul_node *n, struct ul_msg *m, int status,
			enum ul_hstatus hs)
{
	char a[64], b[64];
	const struct ulnet_nid *peer = m->is_tx ? &m->tx.target_nid
						: &m->from_nid;

	if (status == -ESHUTDOWN)
		return;
	ul_node_log_limit(
		n, UL_D_NETERROR, "%s %s %s failed: %d (%s) via %s",
		ul_wire_msg_type_name(m->type), m->is_tx ? "to" : "from",
		ulnet_nid_format(peer, a, sizeof(a)), status,
		ul_hstatus_name(hs),
		m->ni ? ulnet_nid_format(&m->ni->nid, b, sizeof(b)) : "no NI");
}

void ul_msg_finalize(struct ul_node *n, struct ul_msg *m, int status,
		     enum ul_hstatus hs)
{
	enum ul_msg_state was = m->state;
	struct ul_md *md = m->md;
	bool is_rx_put = !m->is_tx && m->type == UL_MSG_PUT;
	bool is_last;

	ul_list_del(&m->link);
	/*
	 * The peer answered this request while its LND still held the send
	 * for TCP's acknowledgement: whatever happened to the connection
	 * since, the request was delivered (and a resend would deliver it
	 * twice).
	 */
	if (status && m->is_answered) {
		status = 0;
		hs = UL_HSTATUS_OK;
	}
	if (status)
		log_failure(n, m, status, hs);
	/* health.md §4: the funnel may send the attempt back (§7). */
	if (ul_health_check(n, m, status, hs) == UL_HEALTH_RESEND &&
	    ul_resend_queue(n, m, was)) {
		ul_msg_drain_ready(n);
		return;
	}
	ul_msg_set_state(n, m, UL_MSG_STATE_DONE);
	ul_msg_stats(n, m, status);
	ul_msg_return_credits(n, m, was);
	if (m->is_forward) {
		ul_fwd_finalize(n, m, was, status);
		ul_msg_drain_ready(n);
		return;
	}
	if (is_rx_put && status == 0 && m->want_ack)
		ul_msg_send_ack(n, m);
	if (!md) {
		ul_msg_free(n, m);
		ul_msg_drain_ready(n);
		return;
	}
	m->md = NULL;
	if (md->req_msg == m)
		md->req_msg = NULL;
	/*
	 * A failed SEND is the operation's final event (ulnet.h): no answer
	 * will come, so its tracker goes now rather than unlinking the MD
	 * a transaction timeout later (LNet keeps it until it expires).
	 */
	if (status && m->mev.ev.type == ULNET_EVENT_SEND)
		ul_msg_rspt_detach(n, md);
	/* Delivered: if its peer is lost now, only the answer is missing. */
	if (!status && m->mev.ev.type == ULNET_EVENT_SEND &&
	    !ul_list_empty(&md->rspt_link))
		md->is_rspt_delivered = true;
	/* LNet's lnet_msg_detach_md: an aborted MD turns success late. */
	if (md->is_aborted && status == 0)
		status = -ETIMEDOUT;
	is_last = ul_md_detach_msg(md);
	m->mev.ev.status = status;
	m->mev.ev.unlinked = is_last;
	if (md->handler || md->int_handler) {
		m->mev.md = md;
		ul_node_queue_event(n, &m->mev);
	} else {
		ul_msg_free(n, m);
	}
	if (is_last)
		md_gone(n, md);
	ul_msg_drain_ready(n);
}

static void fail_queue(struct ul_node *n, struct ul_list *q, int status)
{
	while (!ul_list_empty(q)) {
		struct ul_msg *m = ul_list_first_entry(q, struct ul_msg, link);

		ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
	}
}

void ul_msg_fail_ni_queue(struct ul_node *n, struct ul_node_ni *nni, int status)
{
	struct ul_peer_ni_msgs *pm;
	struct ul_msg *m, *tmp;

	fail_queue(n, &nni->txq, status);
	/* Messages for this NI waiting on a peer NI credit go too. */
	ul_list_for_each_entry(pm, &n->lpni_msgs, link) {
		ul_list_for_each_entry_safe(m, tmp, &pm->txq, link) {
			if (m->nni == nni)
				ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
		}
	}
	ul_list_for_each_entry_safe(m, tmp, &n->ready, link) {
		if (m->nni == nni)
			ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
	}
	ul_list_for_each_entry_safe(m, tmp, &n->delayq, link) {
		if (m->nni == nni)
			ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
	}
}

void ul_msg_fail_all_queued(struct ul_node *n, int status)
{
	struct ul_node_ni *nni;

	ul_list_for_each_entry(nni, &n->nis, link)
		ul_msg_fail_ni_queue(n, nni, status);
	ul_fwd_drop_waiting(n, status);
}

static void fill_send_event(struct ul_node *n, struct ul_msg *m,
			    struct ul_md *md, const struct ul_msg_send_args *a)
{
	struct ulnet_event *ev = &m->mev.ev;

	ev->type = ULNET_EVENT_SEND;
	ev->md_handle.cookie = md->cookie;
	ev->md_start = md->start;
	ev->md_user_ptr = md->user_ptr;
	ev->initiator.nid = m->tx.hdr.src_nid;
	ev->initiator.pid = n->opts.pid;
	ev->target = *a->target;
	ulnet_nid_set_any(&ev->sender);
	ev->source = m->tx.hdr.src_nid;
	ev->pt_index = a->portal;
	ev->match_bits = a->match_bits;
	ev->rlength = md->length;
	ev->mlength = a->type == UL_MSG_PUT ? md->length : 0;
	ev->offset = a->offset;
	ev->hdr_data = a->type == UL_MSG_PUT ? a->hdr_data : 0;
}

void ul_msg_send_committed(struct ul_node *n, struct ul_msg *m)
{
	struct ul_md *md = m->md;

	/* The path is known now: the event names the NI it left from. */
	m->mev.ev.initiator.nid = m->tx.hdr.src_nid;
	m->mev.ev.source = m->tx.hdr.src_nid;
	if (m->has_answer && ul_rspt_is_tracked(n, m->type, md->options))
		ul_rspt_attach(n, md, m);
	ul_msg_post(n, m);
	ul_msg_drain_ready(n);
}

int ul_msg_send_md(struct ul_node *n, struct ul_md *md,
		   const struct ul_msg_send_args *a)
{
	struct ul_wire_lnet_hdr *hdr;
	struct ul_wire_handle wmd = { n->opts.interface_cookie, md->cookie };
	struct ul_msg *m;
	struct iovec *v;
	bool is_ack = a->type == UL_MSG_PUT && a->want_ack;
	bool is_waiting;
	int rc;

	if (a->type == UL_MSG_PUT && md->length > ULNET_MTU)
		return -EINVAL; /* a receiver would close on it */
	m = ul_msg_alloc(n);
	if (!m)
		return -ENOMEM;
	m->type = a->type;
	m->is_recovery = a->is_recovery;
	hdr = &m->tx.hdr;
	hdr->type = a->type;
	hdr->dest_pid = a->target->pid;
	hdr->src_pid = n->opts.pid;
	if (a->type == UL_MSG_PUT) {
		hdr->payload_length = md->length;
		if (is_ack) {
			hdr->msg.put.ack_wmd = wmd;
		} else {
			hdr->msg.put.ack_wmd.wh_interface_cookie =
				UL_WIRE_HANDLE_COOKIE_NONE;
			hdr->msg.put.ack_wmd.wh_object_cookie =
				UL_WIRE_HANDLE_COOKIE_NONE;
		}
		hdr->msg.put.match_bits = a->match_bits;
		hdr->msg.put.hdr_data = a->hdr_data;
		hdr->msg.put.ptl_index = a->portal;
		hdr->msg.put.offset = a->offset;
		rc = ul_md_slice(md, 0, md->length, &m->iov_one, &v,
				 &m->tx.niov, &m->iov_alloc);
		if (rc)
			goto err_free;
		m->tx.iov = v;
		m->tx.nob = md->length;
	} else {
		hdr->msg.get.return_wmd = wmd;
		hdr->msg.get.match_bits = a->match_bits;
		hdr->msg.get.ptl_index = a->portal;
		hdr->msg.get.src_offset = a->offset;
		hdr->msg.get.sink_length = md->length > ULNET_MTU ? ULNET_MTU
								  : md->length;
	}
	/* What routing needs, kept for a send that waits on discovery. */
	m->has_self = a->self != NULL;
	if (a->self)
		m->self = *a->self;
	m->numa_node = md->numa_node;
	m->is_reserved = a->portal == UL_WIRE_RESERVED_PORTAL;
	m->has_answer = is_ack || a->type == UL_MSG_GET;
	hdr->dest_nid = a->target->nid;
	rc = ul_disc_on_send(n, m, &is_waiting);
	if (rc)
		goto err_free;
	if (!is_waiting) {
		rc = ul_msg_route(n, m, a->self, &a->target->nid, NULL,
				  md->numa_node, m->is_reserved);
		if (rc)
			goto err_free;
	}
	ul_md_attach_msg(md);
	m->md = md;
	md->req_msg = md->nmsgs == 1 ? m : NULL;
	fill_send_event(n, m, md, a);
	if (is_waiting) {
		ul_disc_park(n, m);
		return 0;
	}
	ul_msg_send_committed(n, m);
	return 0;

err_free:
	ul_msg_free(n, m);
	return rc;
}
