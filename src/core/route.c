/*
 * Remote nets and routes: add (lnetctl route add checks, in the order of
 * reference/lnetctl.md §8.1), delete, liveness (selection.md §5.1,
 * routing.md §4.2-§4.3).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "util/err.h"
#include "util/log.h"
#include "ulnet/ulnet.h"
#include "wire/wire.h"

void ul_route_get(struct ul_route *r)
{
	r->refcount++;
}

void ul_route_put(struct ul_route *r)
{
	if (--r->refcount == 0) {
		ul_peer_put(r->gateway);
		free(r);
	}
}

struct ul_rnet *ul_rnet_find(const struct ul_core *c, uint32_t net_id)
{
	struct ul_rnet *rnet;

	ul_list_for_each_entry(rnet, &c->rnets, core_link)
		if (rnet->net_id == net_id)
			return rnet;
	return NULL;
}

/*
 * LNet's remote-net hash (lnet_net2rnethash): bucket (net number + LND
 * type) masked to ln_remote_nets_hbits bits, which is order_base_2 of
 * rnet_htable_size (128 by default) minus one, so 6. Route show and
 * export walk the buckets in order, each in creation order.
 */
#define RNET_HASH_BITS 6

static uint32_t rnet_bucket(uint32_t net_id)
{
	return (ulnet_net_num(net_id) + ulnet_net_type(net_id)) &
	       ((1u << RNET_HASH_BITS) - 1);
}

/* Link a new remote net after every one in its bucket or before it. */
static void rnets_insert(struct ul_core *c, struct ul_rnet *rnet)
{
	uint32_t bucket = rnet_bucket(rnet->net_id);
	struct ul_rnet *pos;

	ul_list_for_each_entry(pos, &c->rnets, core_link) {
		if (rnet_bucket(pos->net_id) > bucket) {
			ul_list_add_tail(&pos->core_link, &rnet->core_link);
			return;
		}
	}
	ul_list_add_tail(&c->rnets, &rnet->core_link);
}

/*
 * Insert at a random position, as LNet does so that nodes with the same
 * routes spread over routers: draw k in 0..n; k < n puts the route after
 * the k-th route, k == n puts it first (routing.md §2.2).
 */
static void rnet_insert(struct ul_core *c, struct ul_rnet *rnet,
			struct ul_route *r)
{
	struct ul_list *pos = &rnet->routes;
	uint32_t k;

	if (c->is_route_append) {
		ul_list_add_tail(&rnet->routes, &r->rnet_link);
	} else {
		k = ul_core_random(c) % (rnet->nroutes + 1);
		if (k < rnet->nroutes) {
			pos = rnet->routes.next;
			while (k--)
				pos = pos->next;
		}
		ul_list_add_after(pos, &r->rnet_link);
	}
	rnet->nroutes++;
}

int ul_route_add(struct ul_core *c, uint32_t net_id, const struct ulnet_nid *gw,
		 uint32_t hops, uint32_t priority, struct ul_route **out,
		 struct ul_err *err)
{
	struct ul_rnet *rnet;
	struct ul_route *r;
	struct ul_peer_ni *gw_lpni;
	struct ul_peer *peer;
	bool is_new_rnet = false;
	int rc;

	if (ulnet_net_type(net_id) == ULNET_LND_LO)
		return ul_err_set(err, -EACCES, "setting @lo not allowed");
	if (net_id == ULNET_NET_ANY)
		return ul_err_set(err, -ENXIO,
				  "setting LNET_NET_ANY not allowed");
	if (ulnet_nid_is_any(gw))
		return ul_err_set(err, -ENODEV, "cannot parse gateway");
	if (hops != UL_HOPS_UNDEFINED && (hops < 1 || hops > 255))
		return ul_err_set(err, -EINVAL,
				  "invalid hop count must be between 1 and "
				  "255");
	if (priority > INT32_MAX)
		return ul_err_set(err, -EINVAL,
				  "invalid priority, must not be negative");
	if (gw->nid_type == ULNET_LND_LO || ulnet_nid_net(gw) == net_id)
		return ul_err_set(err, -EINVAL,
				  "invalid settings for route creation");
	if (ul_net_find(c, net_id))
		return ul_err_set(err, -EEXIST,
				  "Route already exists or the specified "
				  "network is local");
	if (!ul_net_find(c, ulnet_nid_net(gw)))
		return ul_err_set(err, -EHOSTUNREACH,
				  "No interface configured on the same net "
				  "as gateway");
	rc = ul_peer_ni_find_or_create(c, gw, NULL, &gw_lpni);
	if (rc)
		return ul_err_set(err, rc, "cannot add route");
	peer = ul_peer_ni_peer(gw_lpni);
	rnet = ul_rnet_find(c, net_id);
	if (rnet) {
		ul_list_for_each_entry(r, &rnet->routes, rnet_link) {
			if (r->gateway == peer)
				return ul_err_set(err, -EEXIST,
						  "Route already exists or "
						  "the specified network is "
						  "local");
		}
	} else {
		rnet = calloc(1, sizeof(*rnet));
		if (!rnet)
			return ul_err_set(err, -ENOMEM, "cannot add route");
		ul_list_init(&rnet->routes);
		rnet->net_id = net_id;
		rnets_insert(c, rnet);
		is_new_rnet = true;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		if (is_new_rnet) {
			ul_list_del(&rnet->core_link);
			free(rnet);
		}
		return ul_err_set(err, -ENOMEM, "cannot add route");
	}
	r->gateway = peer;
	ul_peer_get(peer);
	r->gw_nid = *gw;
	r->net_id = net_id;
	r->local_net_id = ulnet_nid_net(gw);
	r->hops = hops;
	r->priority = priority;
	r->is_alive = !c->tun.check_routers_before_use;
	r->refcount = 1; /* the remote net's list */
	rnet_insert(c, rnet, r);
	ul_list_add_tail(&peer->routes, &r->gw_link);
	peer->rtr_refcount++;
	ul_route_gw_check_now(peer);
	if (out)
		*out = r;
	return 0;
}

static void route_unlink(struct ul_rnet *rnet, struct ul_route *r)
{
	r->is_dead = true;
	ul_list_del(&r->rnet_link);
	ul_list_del(&r->gw_link);
	r->gateway->rtr_refcount--;
	/* A gateway that loses its last route stops its router checks. */
	if (!r->gateway->rtr_refcount)
		r->gateway->rtr_check_net = ULNET_NET_ANY;
	rnet->nroutes--;
	if (!rnet->nroutes) {
		ul_list_del(&rnet->core_link);
		free(rnet);
	}
	ul_route_put(r);
}

int ul_route_del(struct ul_core *c, uint32_t net_id, const struct ulnet_nid *gw,
		 struct ul_err *err)
{
	struct ul_rnet *rnet, *rnet_tmp;
	struct ul_route *r, *tmp;
	struct ul_peer *peer = NULL;
	bool is_found = false;

	if (gw) {
		peer = ul_peer_find(c, gw);
		if (!peer)
			return ul_err_set(err, -ENOENT,
					  "failed to delete route");
	}
	ul_list_for_each_entry_safe(rnet, rnet_tmp, &c->rnets, core_link) {
		if (net_id != ULNET_NET_ANY && rnet->net_id != net_id)
			continue;
		ul_list_for_each_entry_safe(r, tmp, &rnet->routes, rnet_link) {
			if (peer && r->gateway != peer)
				continue;
			is_found = true;
			/* route_unlink may free rnet with its last route */
			if (rnet->nroutes == 1) {
				route_unlink(rnet, r);
				break;
			}
			route_unlink(rnet, r);
		}
	}
	if (!is_found)
		return ul_err_set(err, -ENOENT, "failed to delete route");
	return 0;
}

void ul_route_del_all(struct ul_core *c)
{
	(void)ul_route_del(c, ULNET_NET_ANY, NULL, NULL);
}

/* The gateway has an UP peer NI on net_id. */
static bool gw_has_up_ni(const struct ul_peer *gw, uint32_t net_id)
{
	const struct ul_peer_net *lpn = ul_peer_net_find(gw, net_id);
	const struct ul_peer_ni *lpni;

	if (!lpn)
		return false;
	ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
		if (lpni->ns_status == UL_NS_STATUS_UP)
			return true;
	}
	return false;
}

bool ul_route_is_alive(const struct ul_core *c, const struct ul_route *r)
{
	const struct ul_peer *gw = r->gateway;

	if (!gw->is_alive)
		return false;
	/* Without discovery of the gateway only the cached flag is known. */
	if (!c->tun.discovery || !gw->is_mr || gw->has_no_discovery)
		return r->is_alive;
	if (!gw_has_up_ni(gw, r->local_net_id))
		return false;
	if (c->tun.avoid_asym_router_failure &&
	    (r->hops == 1 || r->is_single_hop) && !gw_has_up_ni(gw, r->net_id))
		return false;
	/*
	 * A gateway no reply has spoken for yet is taken as routing: on a
	 * running node the router checker pings it as the route is added,
	 * and a dry run (debug select) has no checker.
	 */
	return gw->rtr != UL_PEER_RTR_DISABLED;
}

bool ul_routes_all_up(const struct ul_core *c)
{
	const struct ul_rnet *rnet;
	const struct ul_route *r;

	ul_list_for_each_entry(rnet, &c->rnets, core_link)
		ul_list_for_each_entry(r, &rnet->routes, rnet_link)
			if (!r->gateway->is_rtr_checked ||
			    !ul_route_is_alive(c, r))
				return false;
	return true;
}

void ul_route_gw_check_now(struct ul_peer *gw)
{
	struct ul_peer_net *lpn;

	ul_list_for_each_entry(lpn, &gw->peer_nets, peer_link)
		lpn->rtr_next_check_ns = 0;
}

/* The cached flag, with LNet's line on every change (routing.md §4.3). */
static void route_set_alive(struct ul_core *c, struct ul_route *r,
			    bool is_alive)
{
	char net[ULNET_NIDSTR_SIZE], gw[ULNET_NIDSTR_SIZE];

	if (r->is_alive == is_alive)
		return;
	r->is_alive = is_alive;
	ul_log(c->log, UL_D_CONSOLE,
	       "route to %s through %s has gone from %s to %s",
	       ulnet_net_format(r->net_id, net, sizeof(net)),
	       ulnet_nid_format(&r->gw_nid, gw, sizeof(gw)),
	       is_alive ? "down" : "up", is_alive ? "up" : "down");
}

void ul_route_gw_set_alive(struct ul_core *c, struct ul_peer *gw, bool is_alive)
{
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_route *r;
	char a[ULNET_NIDSTR_SIZE];

	if (gw->is_alive != is_alive)
		ul_log(c->log, UL_D_NET, "gateway %s is %s",
		       ulnet_nid_format(&gw->primary_nid, a, sizeof(a)),
		       is_alive ? "alive" : "dead");
	gw->is_alive = is_alive;
	if (is_alive)
		return;
	/* §4.1: a failed check takes every NI and route of it down. */
	ul_list_for_each_entry(lpn, &gw->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
			lpni->ns_status = UL_NS_STATUS_DOWN;
	ul_list_for_each_entry(r, &gw->routes, gw_link)
		route_set_alive(c, r, false);
}

void ul_route_gw_revive(struct ul_core *c, struct ul_peer *gw, uint32_t src_net)
{
	bool is_cached = !c->tun.discovery || !gw->is_mr ||
			 gw->has_no_discovery;
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_route *r;

	if (gw->is_alive)
		return;
	if (is_cached)
		ul_list_for_each_entry(r, &gw->routes, gw_link)
			if (r->net_id == src_net)
				route_set_alive(c, r, true);
	ul_route_gw_set_alive(c, gw, true);
	lpn = ul_peer_net_find(gw, src_net);
	if (lpn)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
			lpni->ns_status = UL_NS_STATUS_UP;
}

/* The reply lists a NID on net_id (*is_up: one of them is up). */
static bool reply_has_net(const struct ulnet_ping_ni *nis, size_t n,
			  uint32_t net_id, bool *is_up)
{
	bool has = false;
	size_t i;

	*is_up = false;
	for (i = 0; i < n; i++) {
		if (ulnet_nid_net(&nis[i].nid) != net_id)
			continue;
		has = true;
		if (nis[i].status == UL_WIRE_NI_STATUS_UP)
			*is_up = true;
	}
	return has;
}

void ul_route_on_gw_reply(struct ul_core *c, struct ul_peer *gw,
			  bool is_rte_disabled, const struct ulnet_ping_ni *nis,
			  size_t n)
{
	struct ul_route *r;
	bool is_up;

	char net[ULNET_NIDSTR_SIZE], gw_str[ULNET_NIDSTR_SIZE];

	ul_list_for_each_entry(r, &gw->routes, gw_link) {
		if (is_rte_disabled || !gw_has_up_ni(gw, r->local_net_id)) {
			route_set_alive(c, r, false);
			continue;
		}
		r->is_single_hop = reply_has_net(nis, n, r->net_id, &is_up);
		if (r->hops == 1 && !r->is_single_hop)
			ul_log(c->log, UL_D_WARNING,
			       "route to %s through %s is configured with "
			       "hop 1 but the gateway is not on that net",
			       ulnet_net_format(r->net_id, net, sizeof(net)),
			       ulnet_nid_format(&r->gw_nid, gw_str,
						sizeof(gw_str)));
		if (c->tun.avoid_asym_router_failure &&
		    (r->hops == 1 || r->is_single_hop))
			route_set_alive(c, r, is_up);
		else
			route_set_alive(c, r, true);
	}
}
