/*
 * Discovery push, both ways (discovery_push.h): the push PUT and its end,
 * queuing the peers that need one, and what a received push does.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/discovery.h"
#include "core/discovery_push.h"
#include "core/discovery_send.h"
#include "core/discovery_sm.h"
#include "core/msg.h"
#include "core/ping.h"

/* One push in flight; owns a reference on peer and the info's copy. */
struct push_round {
	struct ul_node *node;
	struct ul_peer *peer; /* NULL once the reference went back */
	struct ul_md *md;     /* until its last event */
	void *buf;	      /* the copy of our ping info sent */
	uint32_t seq;	      /* its sequence number */
	bool is_done;	      /* the round's end has run */
};

static const char *nid_str(const struct ulnet_nid *nid, char *buf, size_t len)
{
	return ulnet_nid_format(nid, buf, len);
}

/* The push's single end: §7.4 ACK, SEND error or UNLINK. */
static void push_done(struct push_round *r, int status)
{
	struct ul_node *n = r->node;
	struct ul_peer *p = r->peer;
	char a[64];

	if (r->is_done)
		return;
	r->is_done = true;
	n->api_depth++;
	if (n->state != UL_NODE_STATE_RUNNING)
		status = -ESHUTDOWN;
	if (status == 0) {
		if (r->seq > p->node_seqno)
			p->node_seqno = r->seq;
		ul_node_log(n, UL_D_NET, "peer %s has our ping info %u",
			    nid_str(&p->primary_nid, a, sizeof(a)), r->seq);
		ul_disc_settle(n, p);
	} else {
		ul_disc_round_failed(n, p, status);
	}
	if (n->state == UL_NODE_STATE_RUNNING)
		ul_disc_reconsider_parked(n);
	if (r->md && !r->md->is_zombie)
		ul_node_md_unlink_internal(n, r->md, 0);
	n->api_depth--;
	ul_msg_drain_ready(n);
}

static void push_event(struct ul_node *n, const struct ulnet_event *ev)
{
	struct push_round *r = ev->md_user_ptr;
	int rc;

	if (ev->type == ULNET_EVENT_SEND && ev->status)
		push_done(r, ev->status);
	if (ev->type == ULNET_EVENT_ACK)
		push_done(r, ev->status);
	if (!ev->unlinked)
		return;
	r->md = NULL;
	/* Unlinked unanswered: response tracking gave up on the ACK. */
	rc = n->state != UL_NODE_STATE_RUNNING ? -ESHUTDOWN
	     : ev->status		       ? ev->status
					       : -ETIMEDOUT;
	if (r->peer)
		push_done(r, rc);
	if (r->peer)
		ul_peer_put(r->peer);
	free(r->buf);
	free(r);
}

/* §8.2 active: our whole ping info to p's primary NID, ACK tracked. */
int ul_disc_push_send(struct ul_node *n, struct ul_peer *p)
{
	struct ulnet_process_id to = { .pid = ULNET_PID_LUSTRE };
	struct ul_msg_send_args a = {
		.type = UL_MSG_PUT,
		.want_ack = true,
		.target = &to,
		.portal = UL_WIRE_RESERVED_PORTAL,
		.match_bits = UL_WIRE_PING_MATCHBITS,
	};
	struct ulnet_md umd = {
		.threshold = 2, /* SEND and ACK */
		.options = ULNET_MD_TRACK_RESPONSE,
		.numa_node = -1,
	};
	struct push_round *r = calloc(1, sizeof(*r));
	uint32_t len;
	char s[64];
	int rc = -ENOMEM;

	if (!r)
		return rc;
	rc = ul_ping_info_copy(n, &r->buf, &len, &r->seq);
	if (rc)
		goto err_free;
	r->node = n;
	r->peer = p;
	umd.start = r->buf;
	umd.length = len;
	umd.user_ptr = r;
	rc = ul_md_create(&n->mds, &umd, ULNET_UNLINK, false, 0, NULL, 0, 0,
			  ULNET_INS_AFTER, &r->md);
	if (rc)
		goto err_free_buf;
	r->md->int_handler = push_event;
	to.nid = p->primary_nid;
	n->api_depth++;
	rc = ul_msg_send_md(n, r->md, &a);
	n->api_depth--;
	if (rc) {
		/* No end to run: the MD's last event only frees r. */
		r->is_done = true;
		r->peer = NULL;
		ul_node_md_unlink_internal(n, r->md, 0);
		return rc;
	}
	p->is_push_forced = false;
	ul_node_log(n, UL_D_NET, "pushing our ping info %u to %s", r->seq,
		    nid_str(&p->primary_nid, s, sizeof(s)));
	return 0;

err_free_buf:
	free(r->buf);
err_free:
	free(r);
	return rc;
}

void ul_disc_push_update(struct ul_node *n, bool is_force)
{
	uint32_t seq = ul_ping_seq(n);
	bool is_disc_on = n->core->tun.discovery;
	struct ul_peer *p;

	if (n->state != UL_NODE_STATE_RUNNING)
		return;
	ul_list_for_each_entry(p, &n->core->peers, core_link) {
		if (p->is_dead)
			continue;
		if (is_force && p->is_mr)
			p->is_push_forced = true;
		/*
		 * Only a peer whose NIDs are current is pushed to now; one
		 * never discovered or failed owes it too and gets it at the
		 * end of its next round, which its next send starts.
		 */
		if (ul_disc_is_uptodate(p) &&
		    ul_disc_needs_push(p, seq, is_disc_on))
			ul_disc_queue(n, p, UL_DISC_STATE_PUSH_QUEUED);
	}
}

/* §8.2 passive steps 2, 3 and 7: FORCE_PING, p is pinged again. */
static void force_ping(struct ul_node *n, struct ul_peer *p, const char *why)
{
	char a[64];

	ul_node_log(n, UL_D_NET, "push from %s %s: pinging it",
		    nid_str(&p->primary_nid, a, sizeof(a)), why);
	/* A round under way pings or has pinged already. */
	if (ul_disc_is_busy(p))
		return;
	ul_disc_invalidate(p);
	ul_disc_queue(n, p, UL_DISC_STATE_QUEUED);
}

/*
 * §8.2 passive step 5: a peer we discovered turned discovery off; LNet
 * marks it MARK_DELETION and deletes it at its next pass, we delete it
 * now (the merge runs here, not in a thread of its own). A round under
 * way, a configured peer or one already NO_DISCOVERY is kept.
 */
static bool delete_if_nodisc(struct ul_node *n, struct ul_peer *p)
{
	char a[64];

	if (!p->is_discovered || p->has_no_discovery || p->is_configured ||
	    ul_disc_is_busy(p))
		return false;
	ul_node_log(n, UL_D_NET,
		    "peer %s turned discovery off: deleted, traffic makes it "
		    "again",
		    nid_str(&p->primary_nid, a, sizeof(a)));
	if (ul_discovery_peer_delete(n->core, p))
		force_ping(n, p, "could not be deleted");
	return true;
}

void ul_disc_on_push(struct ul_node *n, const struct ulnet_event *ev,
		     const uint8_t *data)
{
	struct ulnet_ping_result *res = NULL;
	struct ul_peer *p, *q;
	bool is_from_primary;
	size_t need = 0;
	char a[64];
	int rc;

	/* Step 1: only a known peer's push is looked at. */
	p = ul_peer_find(n->core, &ev->initiator.nid);
	if (!p) {
		ul_node_log(n, UL_D_NET, "push from unknown %s ignored",
			    nid_str(&ev->initiator.nid, a, sizeof(a)));
		return;
	}
	n->api_depth++;
	if (ev->status) { /* step 2 */
		force_ping(n, p, "failed");
		goto out;
	}
	res = malloc(sizeof(*res));
	rc = res ? ul_ping_info_parse(data, ev->mlength, res, &need) : -ENOMEM;
	if (ev->rlength > ev->mlength) { /* step 7: cut by our target */
		rc = -EMSGSIZE;
		need = need > ev->rlength ? need : ev->rlength;
	}
	if (rc == -EMSGSIZE) {
		ul_ping_push_size_want(n, (uint32_t)need);
		force_ping(n, p, "was truncated");
		goto out;
	}
	if (rc) { /* step 3 */
		force_ping(n, p, rc == -ENOMEM ? "found no memory" : "is bad");
		goto out;
	}
	if (!(res->features & UL_WIRE_PING_FEAT_MULTI_RAIL)) { /* step 4 */
		ul_node_log(n, UL_D_ERROR,
			    "push from %s without Multi-Rail dropped",
			    nid_str(&p->primary_nid, a, sizeof(a)));
		goto out;
	}
	if (!(res->features & UL_WIRE_PING_FEAT_DISCOVERY) &&
	    delete_if_nodisc(n, p))
		goto out;
	is_from_primary = res->nnis > 0 &&
			  ulnet_nid_same(&res->nis[0].nid, &p->primary_nid);
	if (ul_disc_push_is_stale(p, res->seqno, is_from_primary)) {
		ul_node_log(n, UL_D_NET, "stale push from %s: got %u have %u",
			    nid_str(&p->primary_nid, a, sizeof(a)), res->seqno,
			    p->peer_seqno);
		goto out;
	}
	/* Step 8: merged as a reply is, now. */
	rc = ul_disc_merge(n, &ev->initiator.nid, res, &q);
	if (rc) {
		force_ping(n, p, "could not be merged");
		goto out;
	}
	ul_node_log(n, UL_D_NET, "push %u from %s merged: %u NIDs", res->seqno,
		    nid_str(&q->primary_nid, a, sizeof(a)), q->nnis);
	/* Not in a round: it may owe a push of ours now (§7.2). */
	if (!ul_disc_is_busy(q))
		ul_disc_settle(n, q);
out:
	free(res);
	n->api_depth--;
	ul_msg_drain_ready(n);
}
