/*
 * lnetctl's configuration verbs as node operations (node.h): what LNet's
 * kernel does for `peer add|del|set --state`, `route add|del`, `udsp
 * add|del`, `net set` and `set routing|*_buffers`, with its refusals and
 * their texts, so that whoever asks (the control server, an lnet.conf
 * import: ctl/node_req.h) only decodes a request and calls one of these.
 * UDSP rules follow the change through the node's rule set
 * (ul_node_set_udsp), when it has one.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_sm.h"
#include "core/msg.h"
#include "core/routing.h"
#include "core/udsp.h"
#include "util/err.h"

void ul_node_set_udsp(struct ul_node *n, struct ul_udsp_set *udsp)
{
	n->udsp = udsp;
}

/*
 * A route's gateway peer asked for again exactly as it is (same primary,
 * Multi-Rail and NIDs) by an import: what importing an export --backup
 * does, which lists gateways as peers.
 */
static bool gateway_as_is(const struct ul_core *core,
			  const struct ul_node_peer_req *r)
{
	struct ul_peer *p = ul_peer_find(core, &r->prim);

	if (!r->is_import || r->is_lock)
		return false;
	if (!p || !p->rtr_refcount || p->is_mr != r->is_mr ||
	    !ulnet_nid_same(&p->primary_nid, &r->prim))
		return false;
	for (size_t i = 0; i < r->nnids; i++)
		if (ul_peer_find(core, &r->nids[i]) != p)
			return false;
	return true;
}

int ul_node_peer_add(struct ul_node *n, const struct ul_node_peer_req *r,
		     struct ul_err *err)
{
	struct ul_core *core = n->core;
	struct ul_err cerr = { 0 };
	struct ul_peer *peer;
	bool is_new;
	int rc;

	/* lnet_add_peer_ni() refuses "<?>" once it is parsed. */
	if (ulnet_nid_is_any(&r->prim))
		return ul_err_set(err, -EINVAL, "failed to add primary peer");
	is_new = !ul_peer_find(core, &r->prim);
	rc = ul_peer_add(core, &r->prim, r->is_mr, r->is_lock, &peer, &cerr);
	if (rc == -EBUSY && gateway_as_is(core, r))
		return 0; /* export --backup lists gateways: import them */
	if (rc == -EINVAL)
		return ul_err_set(err, rc, "unsupported primary NID");
	/* LNet gives one text for every refusal (gateway, MR mismatch...). */
	if (rc)
		return ul_err_set(err, rc, "failed to add primary peer");
	for (size_t i = 0; i < r->nnids; i++) {
		if (ulnet_nid_same(&r->nids[i], &r->prim))
			continue;
		rc = ul_peer_ni_add(core, peer, &r->nids[i], NULL, &cerr);
		if (rc) {
			/* Nothing half-made stays (lnetctl.md §7.1). */
			if (is_new)
				ul_peer_del(core, &r->prim, true, NULL);
			return ul_err_set(err, rc, "failed to add peer");
		}
	}
	return 0;
}

int ul_node_peer_del(struct ul_node *n, const struct ul_node_peer_req *r,
		     struct ul_err *err)
{
	struct ul_core *core = n->core;
	struct ul_peer *peer, *owner;
	struct ul_err cerr = { 0 };
	bool whole = r->nnids == 0;
	int rc;

	/*
	 * "<?>": LNet notes "missing primary NID" but returns success, so
	 * lnetctl prints nothing and exits 0.
	 */
	if (ulnet_nid_is_any(&r->prim))
		return 0;
	for (size_t i = 0; i < r->nnids; i++)
		whole |= ulnet_nid_same(&r->nids[i], &r->prim);
	peer = ul_peer_find(core, &r->prim);
	if (!peer || peer->primary_nid.nid_type == ULNET_LND_LO)
		return ul_err_set(err, -ENOENT,
				  whole ? "failed to del primary peer"
					: "failed to del peer");
	/* The errno tells why; LNet's text is the same for every cause. */
	if (!ulnet_nid_same(&peer->primary_nid, &r->prim))
		return ul_err_set(err, -ENODEV,
				  whole ? "failed to del primary peer"
					: "failed to del peer");
	if (whole) {
		rc = ul_peer_del(core, &r->prim, r->is_lock, &cerr);
		return rc ? ul_err_set(err, rc, "failed to del primary peer")
			  : 0;
	}
	for (size_t i = 0; i < r->nnids; i++) {
		/* LNet: unknown -ENOENT, another peer's NID -ECHILD. */
		owner = ul_peer_find(core, &r->nids[i]);
		if (owner != peer)
			return ul_err_set(err, owner ? -ECHILD : -ENOENT,
					  "failed to del peer");
		rc = ul_peer_ni_del(core, &r->nids[i], &cerr);
		if (rc)
			return ul_err_set(err, rc, "failed to del peer");
	}
	return 0;
}

int ul_node_route_add(struct ul_node *n, uint32_t net,
		      const struct ulnet_nid *gws, size_t ngws, uint32_t hops,
		      uint32_t prio, struct ul_err *err)
{
	struct ul_route *route;
	int rc;

	if (ngws == 0)
		return ul_err_set(err, -ENODEV, "cannot parse gateway");
	for (size_t i = 0; i < ngws; i++) {
		struct ul_err cerr = { 0 };

		rc = ul_route_add(n->core, net, &gws[i], hops, prio, &route,
				  &cerr);
		switch (rc) {
		case 0:
			if (n->udsp)
				ul_udsp_on_route_add(n->udsp, route);
			/* Its gateway is checked at once (routing.md §2.2). */
			if (n->state == UL_NODE_STATE_RUNNING)
				ul_node_tick_arm(n, n->opts.timers->now_ns);
			continue;
		case -EACCES:
			return ul_err_set(err, rc, "setting @lo not allowed");
		case -ENXIO:
			return ul_err_set(err, rc,
					  "setting LNET_NET_ANY not allowed");
		case -ENODEV:
			return ul_err_set(err, rc, "cannot parse gateway");
		case -EINVAL:
			return ul_err_set(err, rc,
					  "invalid settings for route "
					  "creation");
		case -EEXIST:
			return ul_err_set(err, rc,
					  "Route already exists or the "
					  "specified network is local");
		case -EHOSTUNREACH:
			return ul_err_set(err, rc,
					  "No interface configured on the "
					  "same net as gateway");
		default:
			return ul_err_set(err, rc, "%s", cerr.msg);
		}
	}
	return 0;
}

int ul_node_route_del(struct ul_node *n, uint32_t net,
		      const struct ulnet_nid *gws, size_t ngws,
		      struct ul_err *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < ngws && rc == 0; i++)
		rc = ul_route_del(n->core, net, &gws[i], NULL);
	if (i && n->udsp)
		ul_udsp_on_route_del(n->udsp);
	return rc ? ul_err_set(err, rc, "failed to delete route") : 0;
}

/*
 * `peer set --state` (lnetctl.md §7.3): only the bits a peer keeps here
 * change; the rest of LNet's state word has no object to act on.
 */
int ul_node_peer_set_state(struct ul_node *n, const struct ulnet_nid *nid,
			   uint32_t state, struct ul_err *err)
{
	struct ul_peer *p = nid ? ul_peer_find(n->core, nid) : NULL;

	if (!p || p->primary_nid.nid_type == ULNET_LND_LO)
		return ul_err_set(err, -ENOENT, "invalid peer state param");
	ul_peer_set_mr(p, state & UL_PEER_STATE_MULTI_RAIL);
	p->has_no_discovery = state & UL_PEER_STATE_NO_DISCOVERY;
	if (state & UL_PEER_STATE_ROUTER_ENABLED)
		p->rtr = UL_PEER_RTR_ENABLED;
	else if (p->rtr == UL_PEER_RTR_ENABLED)
		p->rtr = UL_PEER_RTR_DISABLED;
	p->is_configured = state & UL_PEER_STATE_CONFIGURED;
	p->is_discovered = state & UL_PEER_STATE_DISCOVERED;
	ul_disc_set_stage_bits(p, state);
	/* LNet keeps the lock's time: never locked is the earliest. */
	p->is_lock_prim = state & UL_PEER_STATE_LOCK_PRIMARY;
	if (n->udsp)
		ul_udsp_apply_all(n->udsp);
	return 0;
}

int ul_node_udsp_add(struct ul_node *n, const struct ul_udsp_rule *rule,
		     struct ul_err *err)
{
	if (!n->udsp)
		return ul_err_set(err, -EOPNOTSUPP,
				  "this instance has no UDSP rule set");
	return ul_udsp_add(n->udsp, rule, err);
}

int ul_node_udsp_del(struct ul_node *n, int idx, struct ul_err *err)
{
	if (!n->udsp)
		return ul_err_set(err, -EOPNOTSUPP,
				  "this instance has no UDSP rule set");
	return ul_udsp_del(n->udsp, idx, err);
}

/*
 * `net set` on the NIs of the node (every one, or the one NID s->only):
 * health as given (lnet_ni_set_healthv keeps it unclamped), and the LND
 * tunables only for a request naming no NID, through each LND (lolnd has
 * none): conns_per_peer when above 0, and ToS back to 0 (lnetctl.md §6.4).
 */
void ul_node_net_set(struct ul_node *n, const struct ul_node_net_set *s)
{
	struct ul_net *net;
	struct ul_ni *ni;

	ul_list_for_each_entry(net, &n->core->nets, core_link)
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (s->only && !ulnet_nid_same(&ni->nid, s->only))
				continue;
			if (s->has_health)
				ul_node_ni_set_healthv(n, ni, s->health);
			if (s->has_conns_per_peer && !s->only &&
			    ni->nid.nid_type != ULNET_LND_LO) {
				if (s->conns_per_peer > 0)
					ni->conns_per_peer = s->conns_per_peer;
				ni->tos = 0;
			}
		}
}

static const char *const pool_names[UL_RTRPOOL_NR] = { "tiny", "small",
						       "large" };

/* The STARTING/STOPPING wait (routing.md §7.1): 110 s by default. */
static int routing_wait_sec(const struct ul_core *core)
{
	int64_t s = (int64_t)core->tun.alive_router_check_interval +
		    core->tun.router_ping_timeout;

	return s > 0 ? (int)(s > INT32_MAX ? INT32_MAX : s) : 0;
}

/* LNet's warning for each pool sized from a small configured total. */
static void warn_small(struct ul_node *n, unsigned int warn)
{
	const struct ul_routing *r = &n->core->routing;
	int kind;

	for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
		if (warn & (1u << kind))
			ul_node_log(n, UL_D_WARNING,
				    "%s_router_buffers=%d less than "
				    "recommended minimum %d",
				    pool_names[kind], r->nbufs[kind],
				    ul_routing_min_nbufs(
					    (enum ul_rtrpool_kind)kind));
}

static int routing_set(struct ul_node *n, int64_t value, unsigned int ncpt,
		       struct ul_err *err)
{
	struct ul_core *core = n->core;
	struct ul_routing *r = &core->routing;
	uint64_t now = n->opts.timers->now_ns;
	uint64_t wait = (uint64_t)routing_wait_sec(core) * 1000000000ULL;
	enum ul_routing_state was = r->state;
	unsigned int warn;
	int rc;

	if (value != 0 && value != 1)
		return ul_err_set(err, -EINVAL, "routing must be 0 or 1");
	if (!value) {
		if (ul_routing_disable(r, now, wait)) {
			ul_node_log(n, UL_D_CONSOLE,
				    "Message forwarding will stop in %ds to "
				    "%ds",
				    routing_wait_sec(core),
				    3 * routing_wait_sec(core));
			ul_node_routing_changed(n);
		}
		return 0;
	}
	rc = ul_routing_enable(r, ncpt, now, wait, &warn);
	warn_small(n, warn);
	if (rc == -EBUSY)
		ul_node_log(n, UL_D_ERROR,
			    "Cannot enable routing while it is being stopped");
	if (rc)
		return ul_err_set(err, rc, "%s", "");
	if (was != UL_ROUTING_DISABLED)
		return 0;
	ul_node_log(n, UL_D_CONSOLE,
		    "Message forwarding will be enabled in %ds",
		    routing_wait_sec(core));
	if (!core->tun.discovery)
		ul_node_log(n, UL_D_WARNING,
			    "Consider turning discovery on to enable full "
			    "Multi-Rail routing functionality");
	ul_node_routing_changed(n);
	return 0;
}

int ul_node_routing_set(struct ul_node *n, const char *name, int64_t value,
			unsigned int ncpt, struct ul_err *err)
{
	struct ul_routing *r = &n->core->routing;
	unsigned int warn;
	int kind, rc;

	/* The ioctls LNet answers -ENETDOWN while it is down (§5). */
	if (!ul_node_lnet_is_configured(n))
		return ul_err_set(err, -ENETDOWN, "%s", "");
	if (strcmp(name, "routing") == 0)
		return routing_set(n, value, ncpt, err);
	/* "tiny_buffers", "small_buffers", "large_buffers" */
	for (kind = 0; kind < UL_RTRPOOL_NR; kind++) {
		size_t len = strlen(pool_names[kind]);

		if (strncmp(name, pool_names[kind], len) == 0 &&
		    strcmp(name + len, "_buffers") == 0)
			break;
	}
	if (kind == UL_RTRPOOL_NR)
		return ul_err_set(err, -ENOENT, "no such parameter '%s'", name);
	rc = ul_routing_set_buffers(r, (enum ul_rtrpool_kind)kind, value,
				    &warn);
	if (rc)
		return ul_err_set(err, rc,
				  "tiny, small and large must be >= 0");
	warn_small(n, warn);
	return 0;
}
