/*
 * The router checker (rtrchk.h): gateway checks on the sending node and
 * the NI statuses a router publishes.
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
#include "core/rtrchk.h"

#define NSEC_PER_SEC UINT64_C(1000000000)
#define MSEC_PER_SEC 1000u
/* One monitor pass on a router (routing.md §5: about a second). */
#define RTR_PASS_NS NSEC_PER_SEC
/* The smallest check ping, LNet's minimum ping size (discovery.md §8.1). */
#define RTR_PING_MIN 272u

/* One router check in flight; owns a reference on gw. */
struct rtr_round {
	struct ul_node *node;
	struct ul_peer *gw;
	struct ulnet_nid target; /* the primary NID pinged */
	uint32_t size;		 /* the sink's */
	uint32_t rlength;	 /* the REPLY's whole length, once it came */
};

static uint64_t sec_to_ns(int32_t sec)
{
	return sec > 0 ? (uint64_t)sec * NSEC_PER_SEC : 0;
}

static const char *nid_str(const struct ulnet_nid *nid, char *buf, size_t len)
{
	return ulnet_nid_format(nid, buf, len);
}

static int round_start(struct ul_node *n, struct ul_peer *gw);

/* §4.1: the round's end decides whether gw is alive. */
static void round_done(void *arg, int status,
		       const struct ulnet_ping_result *res)
{
	struct rtr_round *r = arg;
	struct ul_node *n = r->node;
	struct ul_core *c = n->core;
	struct ul_peer *gw = r->gw, *q = gw;
	char a[ULNET_NIDSTR_SIZE];
	int rc = status;

	n->api_depth++;
	gw->is_rtr_checking = false;
	if (r->rlength > gw->disc_ping_size)
		gw->disc_ping_size = r->rlength;
	/* Routes gone (route del, unconfigure) or shutting down: no verdict. */
	if (n->state != UL_NODE_STATE_RUNNING || gw->is_dead ||
	    !gw->rtr_refcount)
		goto out;
	if (rc == -EMSGSIZE && r->rlength > r->size) {
		/* Cut short: again at once, with room for all of it. */
		rc = round_start(n, gw);
		if (!rc)
			goto out;
	}
	if (!rc)
		rc = ul_discovery_merge(c, &r->target, res, &q, NULL);
	if (rc) {
		/* A malformed reply is -EPROTO here: a failed check (§3). */
		ul_node_log_limit(n, UL_D_NETERROR,
				  "router check of %s failed: %d",
				  nid_str(&gw->primary_nid, a, sizeof(a)), rc);
		ul_route_gw_set_alive(c, gw, false);
		gw->is_rtr_checked = true;
	} else {
		/* The reply may have gone to another peer (discovery.h). */
		ul_route_gw_set_alive(c, q, true);
		q->is_rtr_checked = true;
		if (q != gw && !gw->is_dead)
			gw->is_rtr_checked = true;
		/*
		 * §5 FORCE_PUSH: the gateway is told our NIDs and statuses,
		 * so that it knows us as Multi-Rail and pushes its own NI
		 * status changes to us (§7.5). A round of its own pushes at
		 * its end.
		 */
		if (q->is_mr) {
			q->is_push_forced = true;
			if (!ul_disc_is_busy(q))
				ul_disc_settle(n, q);
		}
	}
	/* The next check of each gateway is worked out by the tick. */
	ul_node_tick_arm(n, n->opts.timers->now_ns);
out:
	ul_peer_put(gw);
	free(r);
	n->api_depth--;
	ul_msg_drain_ready(n);
}

/* A GET to gw's primary NID, on the net the tick chose (§5 step 2). */
static int round_start(struct ul_node *n, struct ul_peer *gw)
{
	uint64_t tt_ms =
		(uint64_t)n->core->tun.transaction_timeout * MSEC_PER_SEC;
	struct ulnet_process_id to = { .pid = ULNET_PID_LUSTRE };
	struct rtr_round *r = malloc(sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->node = n;
	r->gw = gw;
	r->target = gw->primary_nid;
	r->size = gw->disc_ping_size > RTR_PING_MIN ? gw->disc_ping_size
						    : RTR_PING_MIN;
	r->rlength = 0;
	to.nid = gw->primary_nid;
	ul_peer_get(gw);
	gw->is_rtr_checking = true;
	/* The response tracker ends a silent round; this timer backs it. */
	rc = ul_ping_send_sized(
		n, NULL, &to, tt_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)tt_ms,
		UL_PING_KIND_DISCOVERY, r->size, &r->rlength, round_done, r);
	if (rc) {
		gw->is_rtr_checking = false;
		ul_peer_put(gw);
		free(r);
	}
	return rc;
}

/* A gateway's peer net the checker may use: one on a local net. */
static bool is_checkable(const struct ul_core *c, const struct ul_peer_net *lpn)
{
	return ul_net_find(c, lpn->net_id) != NULL;
}

/*
 * §5 step 2: the first peer net of gw on a local net that is due, looking
 * from the one after the net checked last, round to it. *next gets the
 * earliest time one of the others is due.
 */
static struct ul_peer_net *due_lpn(const struct ul_core *c, struct ul_peer *gw,
				   uint64_t now_ns, uint64_t *next)
{
	struct ul_peer_net *lpn, *last = NULL;
	bool is_after;
	int pass;

	if (gw->rtr_check_net != ULNET_NET_ANY)
		last = ul_peer_net_find(gw, gw->rtr_check_net);
	/* Pass 0: after last (all of them when none); pass 1: up to it. */
	for (pass = 0; pass < (last ? 2 : 1); pass++) {
		is_after = !last || pass == 1;
		ul_list_for_each_entry(lpn, &gw->peer_nets, peer_link) {
			if (!is_after) {
				is_after = lpn == last;
				continue;
			}
			if (is_checkable(c, lpn)) {
				if (lpn->rtr_next_check_ns <= now_ns)
					return lpn;
				if (lpn->rtr_next_check_ns < *next)
					*next = lpn->rtr_next_check_ns;
			}
			if (pass == 1 && lpn == last)
				break;
		}
	}
	return NULL;
}

/* §5: start the checks that are due; the earliest next one. */
static uint64_t check_gateways(struct ul_node *n, uint64_t now_ns)
{
	struct ul_core *c = n->core;
	uint64_t interval = sec_to_ns(c->tun.alive_router_check_interval);
	uint64_t next = UINT64_MAX;
	struct ul_peer_net *lpn;
	struct ul_peer *gw;
	char a[ULNET_NIDSTR_SIZE];
	int rc;

	if (!interval)
		return UINT64_MAX;
	ul_list_for_each_entry(gw, &c->peers, core_link) {
		if (!gw->rtr_refcount || gw->is_rtr_checking || gw->is_dead)
			continue;
		lpn = due_lpn(c, gw, now_ns, &next);
		if (!lpn)
			continue;
		gw->rtr_check_net = lpn->net_id;
		lpn->rtr_next_check_ns = now_ns + interval;
		rc = round_start(n, gw);
		if (rc) {
			/* LNet retries at its next pass; we do in a second. */
			ul_node_log(n, UL_D_ERROR,
				    "Failed to discover router %s: %d",
				    nid_str(&gw->primary_nid, a, sizeof(a)),
				    rc);
			ul_route_gw_set_alive(c, gw, false);
			lpn->rtr_next_check_ns = now_ns + RTR_PASS_NS;
		}
		if (lpn->rtr_next_check_ns < next)
			next = lpn->rtr_next_check_ns;
	}
	return next;
}

/* Set ni's published status; true if it changed. */
/*
 * §7.5: a router's NI status changed: the ping info says so with a new
 * sequence and every MR peer gets a forced push (discovery_push.h).
 */
static void publish_statuses(struct ul_node *n)
{
	ul_ping_targets_refresh(n);
	ul_disc_push_update(n, true);
}

static bool ni_set_status(struct ul_node *n, struct ul_ni *ni,
			  enum ul_ni_status st, const char *why)
{
	char a[ULNET_NIDSTR_SIZE];

	if (ni->status == st)
		return false;
	ni->status = st;
	ul_node_log(n, UL_D_INFO, "NI %s is %s (%s)",
		    nid_str(&ni->nid, a, sizeof(a)),
		    st == UL_NI_STATUS_UP ? "up" : "down", why);
	return true;
}

/* Every NI of net down, for why; true if one changed. */
static bool net_set_down(struct ul_node *n, struct ul_net *net, bool is_all,
			 const char *why)
{
	bool is_changed = false;
	struct ul_ni *ni;

	ul_list_for_each_entry(ni, &net->nis, net_link)
		if (is_all || ni->is_fatal)
			is_changed |=
				ni_set_status(n, ni, UL_NI_STATUS_DOWN, why);
	return is_changed;
}

/* §7.5: one router pass over the local nets' published statuses. */
static uint64_t router_pass(struct ul_node *n, uint64_t now_ns)
{
	struct ul_core *c = n->core;
	int64_t sec = (int64_t)c->tun.router_ping_timeout +
		      c->tun.alive_router_check_interval;
	uint64_t quiet = sec > 0 ? (uint64_t)sec * NSEC_PER_SEC : 0;
	bool is_changed = false;
	struct ul_net *net;

	ul_list_for_each_entry(net, &c->nets, core_link) {
		if (ulnet_net_type(net->net_id) == ULNET_LND_LO)
			continue;
		/* The first pass to see the net starts its clock. */
		if (!net->has_rtr_alive) {
			net->has_rtr_alive = true;
			net->rtr_alive_ns = now_ns;
		}
		if (quiet && now_ns - net->rtr_alive_ns >= quiet)
			is_changed |= net_set_down(n, net, true,
						   "no ping on its net");
		else
			is_changed |= net_set_down(n, net, false, "link down");
	}
	if (is_changed)
		publish_statuses(n);
	return now_ns + RTR_PASS_NS;
}

uint64_t ul_rtrchk_tick(struct ul_node *n, uint64_t now_ns)
{
	uint64_t next = check_gateways(n, now_ns), t;

	if (ul_routing_is_on(&n->core->routing)) {
		t = router_pass(n, now_ns);
		next = t < next ? t : next;
	}
	return next;
}

void ul_rtrchk_on_peer_down(struct ul_node *n, const struct ulnet_nid *nid)
{
	struct ul_core *c = n->core;
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, nid);
	struct ul_peer *gw;
	char a[ULNET_NIDSTR_SIZE], b[ULNET_NIDSTR_SIZE];

	if (!lpni)
		return;
	gw = ul_peer_ni_peer(lpni);
	if (!gw->rtr_refcount || !gw->is_alive)
		return;
	ul_node_log_limit(
		n, UL_D_NETERROR,
		"gateway %s: %s lost its connections: routes through it "
		"are down until it answers a check",
		nid_str(&gw->primary_nid, a, sizeof(a)),
		nid_str(nid, b, sizeof(b)));
	ul_route_gw_set_alive(c, gw, false);
}

void ul_rtrchk_on_rx(struct ul_node *n, struct ul_ni *ni,
		     struct ul_peer_ni *lpni,
		     const struct ul_wire_lnet_hdr *hdr)
{
	struct ul_core *c = n->core;

	if (lpni)
		lpni->ns_status = UL_NS_STATUS_UP;
	/* §4.1: routed traffic through a dead gateway revives it. */
	if (lpni && ul_peer_ni_peer(lpni)->rtr_refcount &&
	    ulnet_nid_net(&hdr->src_nid) != ulnet_nid_net(&lpni->nid))
		ul_route_gw_revive(c, ul_peer_ni_peer(lpni),
				   ulnet_nid_net(&hdr->src_nid));
	if (!ul_routing_is_on(&c->routing) || hdr->type != UL_WIRE_MSG_GET ||
	    hdr->msg.get.ptl_index != UL_WIRE_RESERVED_PORTAL ||
	    hdr->msg.get.match_bits != UL_WIRE_PING_MATCHBITS ||
	    ul_ni_find(c, &hdr->src_nid))
		return;
	ni->net->has_rtr_alive = true;
	ni->net->rtr_alive_ns = n->opts.timers->now_ns;
	/* Before the GET is matched, so that its REPLY says UP already. */
	if (ni_set_status(n, ni, UL_NI_STATUS_UP, "pinged"))
		publish_statuses(n);
}
