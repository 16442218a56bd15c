/*
 * lnetctl's configuration verbs on peers and routes as node operations
 * (node.h): what LNet's kernel does for `peer add`, `peer del`, `route
 * add` and `route del`, with its refusals and their texts, so that the
 * control server only decodes a request, calls one of these and encodes
 * the reply. UDSP rules follow the change through the node's rule set
 * (ul_node_set_udsp), when it has one.
 */
#include <errno.h>

#include "core/core.h"
#include "core/msg.h"
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
