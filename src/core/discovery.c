/*
 * Merging a discover's ping reply into the peer table; the steps and
 * what ulnet leaves out are listed in discovery.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/discovery.h"
#include "core/discovery_sm.h"
#include "ulnet/ulnet.h"
#include "util/err.h"
#include "wire/wire.h"

static bool is_peerable(const struct ulnet_nid *nid)
{
	return !ulnet_nid_is_any(nid) && nid->nid_type != ULNET_LND_LO;
}

void ul_discovery_start(struct ul_core *c, const struct ulnet_nid *target)
{
	struct ul_peer *p = ul_peer_find(c, target);

	if (p)
		ul_disc_invalidate(p);
}

/* The reply's entry for nid, or NULL. */
static const struct ulnet_ping_ni *reply_ni(const struct ulnet_ping_result *res,
					    const struct ulnet_nid *nid)
{
	size_t i;

	for (i = 0; i < res->nnis; i++)
		if (ulnet_nid_same(&res->nis[i].nid, nid))
			return &res->nis[i];
	return NULL;
}

/* The peer of nid, made by traffic (non-MR, unconfigured) if none yet. */
static int peer_of(struct ul_core *c, const struct ulnet_nid *nid,
		   struct ul_peer **out)
{
	struct ul_peer_ni *lpni;
	int rc = ul_peer_ni_find_or_create(c, nid, NULL, &lpni);

	if (rc == 0)
		*out = ul_peer_ni_peer(lpni);
	return rc;
}

/* Multi-Rail after a reply (discovery.md §10). */
static bool mr_after(const struct ul_peer *p, bool is_reply_mr, bool is_nodisc)
{
	if (!is_reply_mr) /* a configured MR peer stays MR, no other */
		return p->is_mr && p->is_configured;
	if (p->is_mr)
		return true;
	return !p->is_configured && !is_nodisc;
}

/* Every NID of p the reply lists takes the status it gives. */
static void merge_status(struct ul_core *c, struct ul_peer *p,
			 const struct ulnet_ping_result *res)
{
	struct ul_peer_ni *lpni;
	size_t i;

	for (i = 0; i < res->nnis; i++) {
		lpni = ul_peer_ni_find(c, &res->nis[i].nid);
		if (lpni && ul_peer_ni_peer(lpni) == p)
			lpni->ns_status = res->nis[i].status ==
							  UL_WIRE_NI_STATUS_UP
						  ? UL_NS_STATUS_UP
						  : UL_NS_STATUS_DOWN;
	}
}

/*
 * The NIDs of p the reply no longer lists go (step 5), except those
 * configuration or a route holds, which are marked down instead.
 */
static int drop_vanished(struct ul_core *c, struct ul_peer *p,
			 const struct ulnet_ping_result *res)
{
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ulnet_nid *gone;
	size_t n = 0, i;

	gone = calloc(p->nnis ? p->nnis : 1, sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
			if (reply_ni(res, &lpni->nid))
				continue;
			if (p->is_configured || p->rtr_refcount ||
			    ulnet_nid_same(&lpni->nid, &p->primary_nid))
				lpni->ns_status = UL_NS_STATUS_DOWN;
			else
				gone[n++] = lpni->nid;
		}
	for (i = 0; i < n; i++)
		(void)ul_peer_ni_del(c, &gone[i], NULL);
	free(gone);
	return 0;
}

int ul_discovery_peer_delete(struct ul_core *c, struct ul_peer *p)
{
	struct ulnet_nid prim = p->primary_nid;
	struct ul_route *r, *saved;
	size_t n = 0, i;

	saved = calloc(p->rtr_refcount ? p->rtr_refcount : 1, sizeof(*saved));
	if (!saved)
		return -ENOMEM;
	ul_list_for_each_entry(r, &p->routes, gw_link)
		saved[n++] = *r;
	for (i = 0; i < n; i++)
		(void)ul_route_del(c, saved[i].net_id, &saved[i].gw_nid, NULL);
	(void)ul_peer_del(c, &prim, true, NULL);
	for (i = 0; i < n; i++)
		(void)ul_route_add(c, saved[i].net_id, &saved[i].gw_nid,
				   saved[i].hops, saved[i].priority, NULL,
				   NULL);
	free(saved);
	return 0;
}

/*
 * §8.3 merge_primary: *pp's NID was listed under another peer's primary
 * (ul_disc_add_known). A peer traffic made (not configured, not locked,
 * no gateway) goes, so that its NIDs are free, and the reply goes to the
 * peer of that primary; otherwise the stamp is dropped. 0 or -ENOMEM.
 */
static int fold_into_merge_prim(struct ul_core *c, struct ul_peer **pp)
{
	struct ul_peer *p = *pp, *q;
	int rc;

	if (!p->merge_prim)
		return 0;
	q = ul_peer_find(c, p->merge_prim);
	free(p->merge_prim);
	p->merge_prim = NULL;
	if (!q || q == p || p->is_configured || p->is_lock_prim ||
	    p->rtr_refcount)
		return 0;
	rc = ul_discovery_peer_delete(c, p);
	if (rc == 0)
		*pp = q;
	return rc;
}

/* Steps 4 to 6 for a peer with discovery on, both sides. */
static int merge_nids(struct ul_core *c, struct ul_peer *p,
		      const struct ulnet_ping_result *res)
{
	const struct ulnet_nid *prim = &res->primary.nid;
	size_t i;
	int rc;

	for (i = 0; i < res->nnis && !p->is_configured; i++) {
		if (!is_peerable(&res->nis[i].nid))
			continue;
		rc = ul_peer_ni_add(c, p, &res->nis[i].nid, NULL, NULL);
		if (rc == -ENOMEM)
			return rc;
	}
	/* A reply cut short (more NIs than kept) lists not every NID. */
	if (res->nnis == res->nnis_total) {
		rc = drop_vanished(c, p, res);
		if (rc)
			return rc;
	}
	merge_status(c, p, res);
	if (ul_peer_find(c, prim) != p)
		return 0;
	if (!p->is_configured && !p->is_lock_prim)
		return ul_peer_set_primary(c, p, prim, NULL);
	return ul_peer_ni_put_first(c, p, prim, NULL);
}

int ul_discovery_merge(struct ul_core *c, const struct ulnet_nid *target,
		       const struct ulnet_ping_result *res,
		       struct ul_peer **out, struct ul_err *err)
{
	const struct ulnet_nid *prim = &res->primary.nid;
	bool is_nodisc = !(res->features & UL_WIRE_PING_FEAT_DISCOVERY) ||
			 !c->tun.discovery;
	struct ul_peer *p, *q;
	int rc;

	/* A ping of 0@lo discovers what the reply says this node is. */
	if (!is_peerable(target))
		target = prim;
	if (!is_peerable(target))
		return ul_err_set(err, -EINVAL, "no NID to discover");
	rc = peer_of(c, target, &p);
	if (rc)
		return ul_err_set(err, rc, "failed to create peer");
	rc = fold_into_merge_prim(c, &p);
	if (rc)
		return ul_err_set(err, rc, "out of memory");
	/* Another peer holding the reply's primary takes the reply. */
	q = is_peerable(prim) ? ul_peer_find(c, prim) : NULL;
	if (q)
		p = q;
	/* Newly without discovery: LNet deletes it, traffic makes it again. */
	if (is_nodisc && !p->has_no_discovery && !p->is_configured &&
	    (p->is_discovered || p->is_mr)) {
		rc = ul_discovery_peer_delete(c, p);
		if (rc)
			return ul_err_set(err, rc, "out of memory");
		rc = peer_of(c, target, &p);
		if (rc)
			return ul_err_set(err, rc, "failed to create peer");
	}
	p->has_no_discovery = is_nodisc;
	p->rtr = (res->features & UL_WIRE_PING_FEAT_RTE_DISABLED)
			 ? UL_PEER_RTR_DISABLED
			 : UL_PEER_RTR_ENABLED;
	ul_peer_set_mr(p,
		       mr_after(p, res->features & UL_WIRE_PING_FEAT_MULTI_RAIL,
				is_nodisc));
	if (!is_nodisc && p->is_mr) {
		rc = merge_nids(c, p, res);
		if (rc == -ENOMEM)
			return ul_err_set(err, rc, "out of memory");
	} else {
		merge_status(c, p, res);
	}
	p->is_discovered = true;
	ul_disc_on_merged(p);
	if (p->rtr_refcount)
		ul_route_on_gw_reply(c, p, p->rtr == UL_PEER_RTR_DISABLED,
				     res->nis, res->nnis);
	*out = p;
	return 0;
}
