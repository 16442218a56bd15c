/*
 * Discovery on the send path (discovery_send.h): parking requests,
 * queuing peers, the discovery ping and what its end does to the peer
 * and to the parked messages.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/discovery.h"
#include "core/discovery_push.h"
#include "core/discovery_send.h"
#include "core/discovery_sm.h"
#include "core/health.h"
#include "core/msg.h"
#include "core/ping.h"
#include "util/err.h"

#define MSEC_PER_SEC 1000u

/* One discovery ping in flight; owns a reference on peer. */
struct disc_round {
	struct ul_node *node;
	struct ul_peer *peer;
	struct ulnet_nid target; /* the primary NID pinged */
	uint32_t size;		 /* the sink's */
	uint32_t rlength;	 /* the REPLY's whole length, once it came */
};

/* §8.1: the smallest discovery ping buffer, LNet's minimum ping size. */
#define DISC_PING_MIN 272u

static const char *nid_str(const struct ulnet_nid *nid, char *buf, size_t len)
{
	return ulnet_nid_format(nid, buf, len);
}

bool ul_disc_peer_is_uptodate(const struct ul_node *n, const struct ul_peer *p)
{
	return ul_disc_is_uptodate(p) &&
	       !ul_disc_needs_push(p, ul_ping_seq(n), n->core->tun.discovery);
}

int ul_disc_on_send(struct ul_node *n, struct ul_msg *m, bool *must_wait)
{
	const struct ulnet_nid *dst = &m->tx.hdr.dest_nid;
	struct ul_peer_ni *lpni;
	int rc;

	*must_wait = false;
	/* §2: discovery traffic and answers never wait (nor 0@lo). */
	if (m->is_reserved || m->is_recovery || dst->nid_type == ULNET_LND_LO)
		return 0;
	if (m->type != UL_MSG_PUT && m->type != UL_MSG_GET)
		return 0;
	/* The peer as traffic makes it (LNet's lnet_nid2peerni_locked). */
	rc = ul_peer_ni_find_or_create(n->core, dst, NULL, &lpni);
	if (rc)
		return rc;
	*must_wait = !ul_disc_peer_is_uptodate(n, ul_peer_ni_peer(lpni));
	return 0;
}

void ul_disc_queue(struct ul_node *n, struct ul_peer *p, enum ul_disc_state to)
{
	if (!ul_disc_set_state(n->opts.log, p, to))
		return;
	ul_peer_get(p);
	ul_list_add_tail(&n->disc_queue, &p->disc_link);
	ul_node_tick_arm(n, n->opts.timers->now_ns);
}

/* A round for p, not busy: a push if that is all it lacks, else a ping. */
static void queue_peer(struct ul_node *n, struct ul_peer *p)
{
	ul_disc_queue(n, p,
		      ul_disc_is_uptodate(p) ? UL_DISC_STATE_PUSH_QUEUED
					     : UL_DISC_STATE_QUEUED);
}

void ul_disc_settle(struct ul_node *n, struct ul_peer *p)
{
	bool is_owed =
		ul_disc_needs_push(p, ul_ping_seq(n), n->core->tun.discovery);

	if (p->disc_state == UL_DISC_STATE_PING_SENT ||
	    p->disc_state == UL_DISC_STATE_PUSH_SENT) {
		p->disc_error = 0;
		if (is_owed)
			ul_disc_queue(n, p, UL_DISC_STATE_PUSH_QUEUED);
		else
			(void)ul_disc_set_state(n->opts.log, p,
						UL_DISC_STATE_UP_TO_DATE);
	} else if (is_owed && ul_disc_is_uptodate(p)) {
		ul_disc_queue(n, p, UL_DISC_STATE_PUSH_QUEUED);
	}
}

int ul_disc_merge(struct ul_node *n, const struct ulnet_nid *target,
		  const struct ulnet_ping_result *res, struct ul_peer **out)
{
	bool was_up[sizeof(res->nis) / sizeof(res->nis[0])];
	struct ul_peer_ni *lpni;
	size_t i;
	int rc;

	for (i = 0; i < res->nnis; i++) {
		lpni = ul_peer_ni_find(n->core, &res->nis[i].nid);
		was_up[i] = lpni && lpni->ns_status == UL_NS_STATUS_UP;
	}
	rc = ul_discovery_merge(n->core, target, res, out, NULL);
	if (rc)
		return rc;
	(*out)->peer_seqno = res->seqno;
	/* §8.3 merge step 2: a NID newly reported DOWN is a remote failure. */
	for (i = 0; i < res->nnis; i++) {
		lpni = ul_peer_ni_find(n->core, &res->nis[i].nid);
		if (was_up[i] && lpni && ul_peer_ni_peer(lpni) == *out &&
		    lpni->ns_status == UL_NS_STATUS_DOWN)
			ul_health_lpni_fail(n, lpni);
	}
	return 0;
}

void ul_disc_park(struct ul_node *n, struct ul_msg *m)
{
	struct ul_peer *p = ul_peer_find(n->core, &m->tx.hdr.dest_nid);
	char a[64];

	ul_msg_set_state(n, m, UL_MSG_STATE_WAIT_DISC);
	ul_list_add_tail(&n->disc_parked, &m->link);
	ul_node_log(n, UL_D_NET, "%s to %s waits for discovery",
		    ul_wire_msg_type_name(m->type),
		    nid_str(&m->tx.hdr.dest_nid, a, sizeof(a)));
	/* ul_disc_on_send() made the peer, and nothing ran since. */
	if (p && !ul_disc_is_busy(p))
		queue_peer(n, p);
}

/* m leaves WAIT_DISC: through selection now that its peer is known. */
static void unpark_send(struct ul_node *n, struct ul_msg *m)
{
	struct ulnet_nid dst = m->tx.hdr.dest_nid;
	int rc;

	ul_msg_set_state(n, m, UL_MSG_STATE_NEW);
	rc = ul_msg_route(n, m, m->has_self ? &m->self : NULL, &dst, NULL,
			  m->numa_node, m->is_reserved);
	if (rc) {
		ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
		return;
	}
	ul_msg_send_committed(n, m);
}

/*
 * A round ended: every parked message looks at its peer again (a merge
 * may have moved its NID to another peer, or deleted the peer): up to
 * date sends it, just failed ends it with the round's error, otherwise
 * it waits on, its peer queued if no round is on.
 */
void ul_disc_reconsider_parked(struct ul_node *n)
{
	struct ul_list batch, keep;
	struct ul_peer_ni *lpni;
	struct ul_peer *p;
	struct ul_msg *m;
	int rc;

	ul_list_init(&keep);
	ul_list_take(&n->disc_parked, &batch);
	while (!ul_list_empty(&batch)) {
		m = ul_list_first_entry(&batch, struct ul_msg, link);
		ul_list_del(&m->link);
		rc = ul_peer_ni_find_or_create(n->core, &m->tx.hdr.dest_nid,
					       NULL, &lpni);
		if (rc) {
			ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
			continue;
		}
		p = ul_peer_ni_peer(lpni);
		if (ul_disc_peer_is_uptodate(n, p)) {
			unpark_send(n, m);
			continue;
		}
		if (p->disc_state == UL_DISC_STATE_FAILED) {
			m->is_no_resend = true;
			ul_msg_finalize(n, m, p->disc_error, UL_HSTATUS_OK);
			continue;
		}
		ul_list_add_tail(&keep, &m->link);
		if (!ul_disc_is_busy(p))
			queue_peer(n, p);
	}
	/* Events wait for the API depth to drop, so nothing parked since. */
	while (!ul_list_empty(&keep)) {
		m = ul_list_first_entry(&keep, struct ul_msg, link);
		ul_list_del(&m->link);
		ul_list_add_tail(&n->disc_parked, &m->link);
	}
}

void ul_disc_round_failed(struct ul_node *n, struct ul_peer *p, int rc)
{
	char a[64];

	if (rc >= 0)
		rc = -EIO;
	if (rc != -ESHUTDOWN)
		ul_node_log_limit(n, UL_D_NETERROR,
				  "peer %s: discovery failed: %d",
				  nid_str(&p->primary_nid, a, sizeof(a)), rc);
	p->disc_error = rc;
	(void)ul_disc_set_state(n->opts.log, p, UL_DISC_STATE_FAILED);
}

/* The ping client's callback: the round's single end. */
static void ping_done(void *arg, int status,
		      const struct ulnet_ping_result *res)
{
	struct disc_round *r = arg;
	struct ul_node *n = r->node;
	struct ul_peer *p = r->peer, *q = p;
	char a[64];
	int rc = status;

	n->api_depth++;
	if (r->rlength > p->disc_ping_size)
		p->disc_ping_size = r->rlength;
	if (n->state != UL_NODE_STATE_RUNNING)
		rc = -ESHUTDOWN;
	else if (rc == 0)
		rc = ul_disc_merge(n, &r->target, res, &q);
	/* §2: a peer's info this long may come as a push too. */
	if (n->state == UL_NODE_STATE_RUNNING)
		ul_ping_push_size_want(n, r->rlength);
	if (rc == -EMSGSIZE && r->rlength > r->size) {
		/* §7.4, §14.12: truncated; again, with room for all of it */
		ul_node_log(n, UL_D_NET,
			    "peer %s: ping reply of %u bytes truncated at %u, "
			    "pinging again",
			    nid_str(&p->primary_nid, a, sizeof(a)), r->rlength,
			    r->size);
		queue_peer(n, p);
	} else if (rc) {
		ul_disc_round_failed(n, p, rc);
	} else {
		/*
		 * The reply went to q, which is p unless another peer held
		 * its primary or p was made again (discovery.h); p's round
		 * is over either way (up to date, or on to its push, §7.2)
		 * and q was marked by the merge.
		 */
		ul_disc_settle(n, p);
		if (q != p)
			ul_disc_settle(n, q);
		ul_node_log(n, UL_D_NET, "peer %s discovered: %s, %u NIDs",
			    nid_str(&q->primary_nid, a, sizeof(a)),
			    q->is_mr ? "Multi-Rail" : "not Multi-Rail",
			    q->nnis);
	}
	if (n->state == UL_NODE_STATE_RUNNING)
		ul_disc_reconsider_parked(n);
	ul_peer_put(p);
	free(r);
	n->api_depth--;
	ul_msg_drain_ready(n);
}

/* §8.1: a GET to p's primary NID on the reserved portal, tracked. */
static int send_ping(struct ul_node *n, struct ul_peer *p)
{
	uint64_t tt_ms =
		(uint64_t)n->core->tun.transaction_timeout * MSEC_PER_SEC;
	struct ulnet_process_id to = { .pid = ULNET_PID_LUSTRE };
	struct disc_round *r = malloc(sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->node = n;
	r->peer = p;
	r->target = p->primary_nid;
	r->size = p->disc_ping_size > DISC_PING_MIN ? p->disc_ping_size
						    : DISC_PING_MIN;
	r->rlength = 0;
	to.nid = p->primary_nid;
	/* A silent peer ends the round after transaction_timeout. */
	rc = ul_ping_send_sized(
		n, NULL, &to, tt_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)tt_ms,
		UL_PING_KIND_DISCOVERY, r->size, &r->rlength, ping_done, r);
	if (rc)
		free(r);
	return rc;
}

/* Discovery off: each NID on a local net its own peer, as traffic makes. */
static int add_known_nodisc(struct ul_node *n, const struct ulnet_nid *nids,
			    size_t count, struct ul_err *err)
{
	struct ul_peer_ni *lpni;
	size_t i;
	int rc;

	for (i = 0; i < count; i++) {
		if (!ul_net_find(n->core, ulnet_nid_net(&nids[i])))
			continue;
		rc = ul_peer_ni_find_or_create(n->core, &nids[i], NULL, &lpni);
		if (rc)
			return ul_err_set(err, rc, "failed to add peer");
	}
	return 0;
}

/* A further NID of ul_disc_add_known: its own peer, or folded later. */
static int add_known_other(struct ul_node *n, struct ul_peer *prim_peer,
			   const struct ulnet_nid *nid, struct ul_err *err)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(n->core, nid);
	struct ul_peer *o;
	int rc;

	if (!lpni) {
		rc = ul_peer_ni_find_or_create(n->core, nid, NULL, &lpni);
		return rc ? ul_err_set(err, rc, "failed to add peer") : 0;
	}
	o = ul_peer_ni_peer(lpni);
	if (o == prim_peer || o->is_configured || o->is_lock_prim)
		return 0;
	if (!o->merge_prim) {
		o->merge_prim = malloc(sizeof(*o->merge_prim));
		if (!o->merge_prim)
			return ul_err_set(err, -ENOMEM, "out of memory");
	}
	*o->merge_prim = prim_peer->primary_nid;
	/* Forced to ping again; a round under way merges it itself. */
	if (!ul_disc_is_busy(o)) {
		ul_disc_invalidate(o);
		queue_peer(n, o);
	}
	return 0;
}

int ul_disc_add_known(struct ul_node *n, const struct ulnet_nid *nids,
		      size_t count, struct ul_err *err)
{
	struct ul_peer_ni *lpni;
	struct ul_peer *p;
	size_t i;
	int rc;

	if (count == 0)
		return ul_err_set(err, -EINVAL, "no NID given");
	if (!n->core->tun.discovery)
		return add_known_nodisc(n, nids, count, err);
	rc = ul_peer_ni_find_or_create(n->core, &nids[0], NULL, &lpni);
	if (rc)
		return ul_err_set(err, rc, "failed to add peer");
	p = ul_peer_ni_peer(lpni);
	if (!ulnet_nid_same(&p->primary_nid, &nids[0]))
		return ul_err_set(err, -EALREADY,
				  "NID belongs to a peer with another "
				  "primary NID");
	if (n->core->tun.lock_prim_nid && !p->is_lock_prim) {
		p->is_lock_prim = true;
		p->prim_lock_seq = ++n->core->lock_seq;
	}
	if (!ul_disc_is_busy(p) && !ul_disc_peer_is_uptodate(n, p))
		queue_peer(n, p);
	for (i = 1; i < count; i++) {
		rc = add_known_other(n, p, &nids[i], err);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t ul_disc_tick(struct ul_node *n, uint64_t now_ns)
{
	struct ul_list batch;
	struct ul_peer *p;
	bool is_push;
	int rc;

	(void)now_ns;
	ul_list_take(&n->disc_queue, &batch);
	while (!ul_list_empty(&batch)) {
		p = ul_list_first_entry(&batch, struct ul_peer, disc_link);
		ul_list_del(&p->disc_link);
		/* The queue's reference goes to the round's ping or push. */
		is_push = p->disc_state == UL_DISC_STATE_PUSH_QUEUED;
		if (!ul_disc_set_state(n->opts.log, p,
				       is_push ? UL_DISC_STATE_PUSH_SENT
					       : UL_DISC_STATE_PING_SENT)) {
			ul_peer_put(p);
			continue;
		}
		rc = is_push ? ul_disc_push_send(n, p) : send_ping(n, p);
		if (rc) {
			ul_disc_round_failed(n, p, rc);
			ul_disc_reconsider_parked(n);
			ul_peer_put(p);
		}
	}
	return UINT64_MAX;
}

void ul_disc_shutdown(struct ul_node *n, int status)
{
	struct ul_peer *p;
	struct ul_msg *m;

	while (!ul_list_empty(&n->disc_parked)) {
		m = ul_list_first_entry(&n->disc_parked, struct ul_msg, link);
		ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
	}
	while (!ul_list_empty(&n->disc_queue)) {
		p = ul_list_first_entry(&n->disc_queue, struct ul_peer,
					disc_link);
		ul_list_del(&p->disc_link);
		p->disc_error = status;
		(void)ul_disc_set_state(n->opts.log, p, UL_DISC_STATE_FAILED);
		ul_peer_put(p);
	}
}
