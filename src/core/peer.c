/*
 * Peers, peer nets and peer NIs: creation (configuration, traffic, route
 * add), deletion, lookup by NID, ordering, health roll-up and the
 * preferred NID lists that UDSP and the non-MR sticky rule fill.
 *
 * Order invariants (reference/selection.md §1, lnetctl.md §7.1): the
 * primary NID's peer net is first on the peer, the primary NID first on
 * its peer net; other nets and NIDs follow in creation order.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_sm.h"
#include "util/err.h"

/* ---- NID lists ---- */

const struct ulnet_nid *ul_nid_list_items(const struct ul_nid_list *l)
{
	return l->nids;
}

bool ul_nid_list_has(const struct ul_nid_list *l, const struct ulnet_nid *nid)
{
	for (uint32_t i = 0; i < l->count; i++)
		if (ulnet_nid_same(&l->nids[i], nid))
			return true;
	return false;
}

int ul_nid_list_add(struct ul_nid_list *l, const struct ulnet_nid *nid)
{
	struct ulnet_nid *v;
	uint32_t cap;

	if (ul_nid_list_has(l, nid))
		return 0;
	if (l->count == l->cap) {
		cap = l->cap ? l->cap * 2 : 1;
		v = realloc(l->nids, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->nids = v;
		l->cap = cap;
	}
	l->nids[l->count++] = *nid;
	return 0;
}

void ul_nid_list_clear(struct ul_nid_list *l)
{
	free(l->nids);
	memset(l, 0, sizeof(*l));
}

/* ---- references ---- */

void ul_peer_get(struct ul_peer *peer)
{
	peer->refcount++;
}

void ul_peer_put(struct ul_peer *peer)
{
	if (--peer->refcount == 0) {
		free(peer->merge_prim);
		free(peer);
	}
}

void ul_peer_net_get(struct ul_peer_net *lpn)
{
	lpn->refcount++;
}

void ul_peer_net_put(struct ul_peer_net *lpn)
{
	if (--lpn->refcount == 0) {
		ul_peer_put(lpn->peer);
		free(lpn);
	}
}

void ul_peer_ni_get(struct ul_peer_ni *lpni)
{
	lpni->refcount++;
}

void ul_peer_ni_put(struct ul_peer_ni *lpni)
{
	if (--lpni->refcount == 0) {
		if (lpni->msgs)
			ul_peer_ni_msgs_free(lpni->msgs);
		ul_nid_list_clear(&lpni->pref_nids);
		ul_nid_list_clear(&lpni->pref_rtr_nids);
		ul_peer_net_put(lpni->peer_net);
		free(lpni);
	}
}

/* ---- lookup ---- */

struct ul_peer_ni *ul_peer_ni_find(const struct ul_core *c,
				   const struct ulnet_nid *nid)
{
	uint32_t hv = ul_nid_hash(nid);

	for (struct ul_hnode *n = ul_hash_bucket(&c->peer_ni_hash, hv); n;
	     n = n->next) {
		struct ul_peer_ni *lpni =
			ul_container_of(n, struct ul_peer_ni, hnode);

		if (n->hash == hv && ulnet_nid_same(&lpni->nid, nid))
			return lpni;
	}
	return NULL;
}

struct ul_peer *ul_peer_find(const struct ul_core *c,
			     const struct ulnet_nid *nid)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, nid);

	return lpni ? ul_peer_ni_peer(lpni) : NULL;
}

struct ul_peer_net *ul_peer_net_find(const struct ul_peer *peer,
				     uint32_t net_id)
{
	struct ul_peer_net *lpn;

	ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link)
		if (lpn->net_id == net_id)
			return lpn;
	return NULL;
}

/* ---- health ---- */

void ul_peer_net_update_healthv(struct ul_peer_net *lpn)
{
	const struct ul_peer_ni *lpni;
	int best = 0;

	ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
		if (lpni->healthv > best)
			best = lpni->healthv;
	lpn->healthv = best;
}

void ul_peer_ni_set_healthv(struct ul_peer_ni *lpni, int healthv)
{
	lpni->healthv = healthv;
	ul_peer_net_update_healthv(lpni->peer_net);
}

void ul_peer_ni_inc_healthv(struct ul_peer_ni *lpni, int step)
{
	if (lpni->healthv == UL_HEALTH_MAX)
		return;
	ul_peer_ni_set_healthv(lpni, lpni->healthv + step >= UL_HEALTH_MAX
					     ? UL_HEALTH_MAX
					     : lpni->healthv + step);
}

/* ---- preferred lists ---- */

int ul_peer_ni_add_pref_nid(struct ul_peer_ni *lpni,
			    const struct ulnet_nid *nid, bool is_non_mr)
{
	int rc;

	if (ul_nid_list_has(&lpni->pref_nids, nid))
		return 0;
	/* A non-MR peer NI has exactly one source NI (udsp.md §4.2). */
	if (!ul_peer_ni_peer(lpni)->is_mr && lpni->pref_nids.count > 0)
		return -EPERM;
	rc = ul_nid_list_add(&lpni->pref_nids, nid);
	if (rc)
		return rc;
	lpni->is_pref_non_mr = is_non_mr;
	return 0;
}

void ul_peer_ni_clear_pref_nids(struct ul_peer_ni *lpni)
{
	ul_nid_list_clear(&lpni->pref_nids);
	lpni->is_pref_non_mr = false;
}

bool ul_peer_ni_is_pref_nid(const struct ul_peer_ni *lpni,
			    const struct ulnet_nid *nid)
{
	return lpni->pref_nids.count && ul_nid_list_has(&lpni->pref_nids, nid);
}

int ul_peer_ni_add_pref_rtr(struct ul_peer_ni *lpni,
			    const struct ulnet_nid *gw_prim_nid)
{
	return ul_nid_list_add(&lpni->pref_rtr_nids, gw_prim_nid);
}

void ul_peer_ni_clear_pref_rtrs(struct ul_peer_ni *lpni)
{
	ul_nid_list_clear(&lpni->pref_rtr_nids);
}

bool ul_peer_ni_is_pref_rtr(const struct ul_peer_ni *lpni,
			    const struct ulnet_nid *gw_prim_nid)
{
	return lpni->pref_rtr_nids.count &&
	       ul_nid_list_has(&lpni->pref_rtr_nids, gw_prim_nid);
}

void ul_peer_set_mr(struct ul_peer *peer, bool is_mr)
{
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;

	if (is_mr && !peer->is_mr) {
		/* The automatic sticky NID only made sense while non-MR. */
		ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link)
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link)
				if (lpni->is_pref_non_mr)
					ul_peer_ni_clear_pref_nids(lpni);
	}
	peer->is_mr = is_mr;
}

/* ---- creation ---- */

static struct ul_peer *peer_alloc(struct ul_core *c,
				  const struct ulnet_nid *prim_nid)
{
	struct ul_peer *peer = calloc(1, sizeof(*peer));

	if (!peer)
		return NULL;
	ul_list_init(&peer->peer_nets);
	ul_list_init(&peer->routes);
	ul_list_init(&peer->disc_link);
	peer->primary_nid = *prim_nid;
	peer->rtr_check_net = ULNET_NET_ANY;
	peer->is_alive = !c->tun.check_routers_before_use;
	peer->refcount = 1; /* the instance's list */
	ul_list_add_tail(&c->peers, &peer->core_link);
	c->npeers++;
	return peer;
}

static struct ul_peer_net *peer_net_alloc(struct ul_peer *peer, uint32_t net_id)
{
	struct ul_peer_net *lpn = calloc(1, sizeof(*lpn));

	if (!lpn)
		return NULL;
	ul_list_init(&lpn->peer_nis);
	lpn->net_id = net_id;
	lpn->sel_priority = UL_PRIO_UNSET;
	lpn->healthv = UL_HEALTH_MAX;
	lpn->refcount = 1; /* the peer's list */
	lpn->peer = peer;
	ul_peer_get(peer);
	ul_list_add_tail(&peer->peer_nets, &lpn->peer_link);
	return lpn;
}

static struct ul_peer_ni *peer_ni_alloc(struct ul_core *c,
					const struct ulnet_nid *nid)
{
	struct ul_peer_ni *lpni = calloc(1, sizeof(*lpni));
	struct ul_net *net;

	if (!lpni)
		return NULL;
	ul_list_init(&lpni->peer_net_link);
	lpni->nid = *nid;
	lpni->healthv = UL_HEALTH_MAX;
	lpni->sel_priority = UL_PRIO_UNSET;
	net = ul_net_find(c, ulnet_nid_net(nid));
	lpni->txcredits = net ? net->tun.peer_tx_credits : 0;
	lpni->mintxcredits = lpni->txcredits;
	lpni->ns_status = c->tun.check_routers_before_use ? UL_NS_STATUS_DOWN
							  : UL_NS_STATUS_UP;
	lpni->refcount = 1; /* the instance's hash */
	return lpni;
}

/* Put an unattached lpni on lpn (first if is_first), taking lpn's ref. */
static void peer_ni_attach(struct ul_peer_net *lpn, struct ul_peer_ni *lpni,
			   bool is_first)
{
	lpni->peer_net = lpn;
	ul_peer_net_get(lpn);
	if (is_first)
		ul_list_add_head(&lpn->peer_nis, &lpni->peer_net_link);
	else
		ul_list_add_tail(&lpn->peer_nis, &lpni->peer_net_link);
	lpn->peer->nnis++;
	ul_peer_net_update_healthv(lpn);
}

/*
 * Unlinking drops the reference of the list the object was on without
 * freeing it: every caller still holds another one (a peer net is held by
 * its peer NIs, a peer by its peer nets), and the last put of that one
 * frees the chain from the child up (STYLE.md two-phase delete).
 */
static void peer_net_unlink(struct ul_peer_net *lpn)
{
	lpn->is_dead = true;
	ul_list_del(&lpn->peer_link);
	lpn->refcount--;
	assert(lpn->refcount > 0);
}

static void peer_unlink(struct ul_core *c, struct ul_peer *peer)
{
	peer->is_dead = true;
	ul_list_del(&peer->core_link);
	c->npeers--;
	peer->refcount--;
	assert(peer->refcount > 0);
}

/*
 * Take lpni off its peer net, which (with the peer) is unlinked when
 * emptied; lpni keeps its reference on that peer net until it is put.
 */
static void peer_ni_off_net(struct ul_core *c, struct ul_peer_ni *lpni)
{
	struct ul_peer_net *lpn = lpni->peer_net;
	struct ul_peer *peer = lpn->peer;

	ul_list_del(&lpni->peer_net_link);
	peer->nnis--;
	ul_peer_net_update_healthv(lpn);
	if (ul_list_empty(&lpn->peer_nis))
		peer_net_unlink(lpn);
	if (ul_list_empty(&peer->peer_nets) && !peer->is_dead)
		peer_unlink(c, peer);
}

/* Remove lpni for good; the put frees it and whatever it emptied. */
static void peer_ni_unlink(struct ul_core *c, struct ul_peer_ni *lpni)
{
	lpni->is_dead = true;
	ul_hash_del(&c->peer_ni_hash, &lpni->hnode);
	peer_ni_off_net(c, lpni);
	ul_peer_ni_put(lpni);
}

/*
 * Attach nid as a new peer NI of peer, creating its peer net if needed.
 * *new_lpn says whether a peer net was created (for the observer).
 */
static int peer_attach_new(struct ul_core *c, struct ul_peer *peer,
			   const struct ulnet_nid *nid, struct ul_peer_ni **out,
			   struct ul_peer_net **new_lpn)
{
	uint32_t net_id = ulnet_nid_net(nid);
	struct ul_peer_net *lpn = ul_peer_net_find(peer, net_id);
	struct ul_peer_ni *lpni;

	*new_lpn = NULL;
	lpni = peer_ni_alloc(c, nid);
	if (!lpni)
		return -ENOMEM;
	if (!lpn) {
		lpn = peer_net_alloc(peer, net_id);
		if (!lpn) {
			free(lpni);
			return -ENOMEM;
		}
		*new_lpn = lpn;
	}
	peer_ni_attach(lpn, lpni, false);
	ul_hash_add(&c->peer_ni_hash, &lpni->hnode, ul_nid_hash(nid));
	*out = lpni;
	return 0;
}

static void notify_attach(struct ul_core *c, struct ul_peer *new_peer,
			  struct ul_peer_net *new_lpn, struct ul_peer_ni *lpni)
{
	if (new_peer && c->obs.on_peer_add)
		c->obs.on_peer_add(c->obs.ctx, new_peer);
	if (new_lpn && c->obs.on_peer_net_add)
		c->obs.on_peer_net_add(c->obs.ctx, new_lpn);
	if (c->obs.on_peer_ni_add)
		c->obs.on_peer_ni_add(c->obs.ctx, lpni);
}

/* A new peer with one peer NI, prim_nid; observers not yet called. */
static int peer_create(struct ul_core *c, const struct ulnet_nid *prim_nid,
		       struct ul_peer_ni **out, struct ul_peer_net **new_lpn)
{
	struct ul_peer *peer = peer_alloc(c, prim_nid);
	int rc;

	if (!peer)
		return -ENOMEM;
	rc = peer_attach_new(c, peer, prim_nid, out, new_lpn);
	if (rc) {
		ul_peer_get(peer);
		peer_unlink(c, peer);
		ul_peer_put(peer);
	}
	return rc;
}

static bool nid_is_peerable(const struct ulnet_nid *nid)
{
	return !ulnet_nid_is_any(nid) && nid->nid_type != ULNET_LND_LO;
}

void ul_peer_on_net_added(struct ul_core *c, const struct ul_net *net)
{
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *peer;

	ul_list_for_each_entry(peer, &c->peers, core_link) {
		lpn = ul_peer_net_find(peer, net->net_id);
		if (!lpn)
			continue;
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
			lpni->txcredits = net->tun.peer_tx_credits;
			lpni->mintxcredits = lpni->txcredits;
		}
	}
}

int ul_peer_ni_find_or_create(struct ul_core *c, const struct ulnet_nid *nid,
			      const struct ul_ni *rx_ni,
			      struct ul_peer_ni **out)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, nid);
	struct ul_peer_net *lpn;
	int rc;

	if (lpni) {
		*out = lpni;
		return 0;
	}
	if (!nid_is_peerable(nid))
		return -EINVAL;
	rc = peer_create(c, nid, &lpni, &lpn);
	if (rc)
		return rc;
	/* The sticky NID goes in before rules are applied (udsp.md §5). */
	if (rx_ni)
		(void)ul_peer_ni_add_pref_nid(lpni, &rx_ni->nid, true);
	notify_attach(c, ul_peer_ni_peer(lpni), lpn, lpni);
	*out = lpni;
	return 0;
}

int ul_peer_add(struct ul_core *c, const struct ulnet_nid *prim_nid, bool is_mr,
		bool is_lock_prim, struct ul_peer **out, struct ul_err *err)
{
	struct ul_peer_ni *lpni;
	struct ul_peer_net *lpn;
	struct ul_peer *peer;
	int rc;

	if (!nid_is_peerable(prim_nid))
		return ul_err_set(err, -EINVAL, "unsupported primary NID");
	lpni = ul_peer_ni_find(c, prim_nid);
	if (lpni) {
		peer = ul_peer_ni_peer(lpni);
		if (!ulnet_nid_same(&peer->primary_nid, prim_nid))
			return ul_err_set(err, -EEXIST,
					  "failed to add primary peer: NID "
					  "belongs to another peer");
		if (peer->is_configured && peer->is_mr != is_mr)
			return ul_err_set(err, -EPERM,
					  "failed to add primary peer: "
					  "Multi-Rail mismatch");
		/*
		 * A peer that a route created is a gateway: LNet would
		 * delete and re-create it as a configured peer, which a
		 * gateway refuses (lnetctl.md §7.1, sanity-lnet 105).
		 */
		if (!peer->is_configured && peer->rtr_refcount)
			return ul_err_set(err, -EBUSY,
					  "failed to add primary peer: it is "
					  "a route gateway");
	} else {
		rc = peer_create(c, prim_nid, &lpni, &lpn);
		if (rc)
			return ul_err_set(err, rc,
					  "failed to add primary peer");
		peer = ul_peer_ni_peer(lpni);
		peer->is_configured = true;
		peer->is_mr = is_mr;
		notify_attach(c, peer, lpn, lpni);
	}
	peer->is_configured = true;
	ul_peer_set_mr(peer, is_mr);
	if (is_lock_prim && !peer->is_lock_prim) {
		peer->is_lock_prim = true;
		peer->prim_lock_seq = ++c->lock_seq;
	}
	if (out)
		*out = peer;
	return 0;
}

/* A non-MR peer has one NID per net (LNet's -ENOTUNIQ). */
static bool is_net_free(const struct ul_peer *peer, const struct ulnet_nid *nid)
{
	return peer->is_mr || !ul_peer_net_find(peer, ulnet_nid_net(nid));
}

#define NOT_UNIQ_MSG                                                           \
	"failed to add peer: a non-Multi-Rail peer has one NID per net"

int ul_peer_ni_add(struct ul_core *c, struct ul_peer *peer,
		   const struct ulnet_nid *nid, struct ul_peer_ni **out,
		   struct ul_err *err)
{
	struct ul_peer_net *lpn, *new_lpn, *old_lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *old;
	int rc;

	if (!nid_is_peerable(nid))
		return ul_err_set(err, -EINVAL, "failed to add peer: bad NID");
	lpni = ul_peer_ni_find(c, nid);
	if (lpni && ul_peer_ni_peer(lpni) == peer) {
		if (out)
			*out = lpni;
		return 0;
	}
	if (!lpni) {
		if (!is_net_free(peer, nid))
			return ul_err_set(err, -ENOTUNIQ, NOT_UNIQ_MSG);
		rc = peer_attach_new(c, peer, nid, &lpni, &lpn);
		if (rc)
			return ul_err_set(err, rc, "failed to add peer");
		notify_attach(c, NULL, lpn, lpni);
		if (out)
			*out = lpni;
		return 0;
	}
	/*
	 * A NID some traffic created a peer for moves over with its state
	 * (LNet merges such a peer); any other owner keeps it.
	 */
	old = ul_peer_ni_peer(lpni);
	if (old->is_configured || old->nnis > 1 || old->rtr_refcount)
		return ul_err_set(err, -EEXIST,
				  "failed to add peer: NID belongs to "
				  "another peer");
	if (!is_net_free(peer, nid))
		return ul_err_set(err, -ENOTUNIQ, NOT_UNIQ_MSG);
	/* It is old's primary: the earliest lock wins (discovery.md §11). */
	if (old->is_lock_prim &&
	    (!peer->is_lock_prim || old->prim_lock_seq < peer->prim_lock_seq)) {
		peer->primary_nid = *nid;
		peer->is_lock_prim = true;
		peer->prim_lock_seq = old->prim_lock_seq;
	}
	new_lpn = NULL;
	lpn = ul_peer_net_find(peer, ulnet_nid_net(nid));
	if (!lpn) {
		lpn = peer_net_alloc(peer, ulnet_nid_net(nid));
		if (!lpn)
			return ul_err_set(err, -ENOMEM, "failed to add peer");
		new_lpn = lpn;
	}
	/* lpni keeps its old peer net (and so the old peer) until put. */
	old_lpn = lpni->peer_net;
	peer_ni_off_net(c, lpni);
	peer_ni_attach(lpn, lpni, false);
	ul_peer_net_put(old_lpn);
	if (peer->is_mr && lpni->is_pref_non_mr)
		ul_peer_ni_clear_pref_nids(lpni);
	notify_attach(c, NULL, new_lpn, lpni);
	if (out)
		*out = lpni;
	return 0;
}

int ul_peer_ni_del(struct ul_core *c, const struct ulnet_nid *nid,
		   struct ul_err *err)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, nid);
	struct ul_peer *peer;

	if (!lpni)
		return ul_err_set(err, -ENOENT, "failed to del peer");
	peer = ul_peer_ni_peer(lpni);
	if (ulnet_nid_same(&peer->primary_nid, nid))
		return ul_peer_del(c, nid, true, err);
	if (peer->rtr_refcount)
		return ul_err_set(err, -EBUSY,
				  "failed to del peer: it is a gateway");
	peer_ni_unlink(c, lpni);
	return 0;
}

/* Unlink every peer NI of peer (keep the primary if keep_prim). */
static void peer_unlink_nis(struct ul_core *c, struct ul_peer *peer,
			    bool keep_prim)
{
	struct ul_peer_net *lpn, *lpn_tmp;
	struct ul_peer_ni *lpni, *tmp;

	/* Our references keep peer and lpn valid while they empty. */
	ul_peer_get(peer);
	ul_list_for_each_entry_safe(lpn, lpn_tmp, &peer->peer_nets, peer_link) {
		ul_peer_net_get(lpn);
		ul_list_for_each_entry_safe(lpni, tmp, &lpn->peer_nis,
					    peer_net_link) {
			if (!keep_prim ||
			    !ulnet_nid_same(&lpni->nid, &peer->primary_nid))
				peer_ni_unlink(c, lpni);
		}
		ul_peer_net_put(lpn);
	}
	ul_peer_put(peer);
}

int ul_peer_del(struct ul_core *c, const struct ulnet_nid *prim_nid, bool force,
		struct ul_err *err)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, prim_nid);
	struct ul_peer *peer;

	if (!lpni)
		return ul_err_set(err, -ENOENT, "failed to del primary peer");
	peer = ul_peer_ni_peer(lpni);
	if (!ulnet_nid_same(&peer->primary_nid, prim_nid))
		return ul_err_set(err, -ENODEV,
				  "failed to del primary peer: not the "
				  "primary NID");
	if (peer->rtr_refcount)
		return ul_err_set(err, -EBUSY,
				  "failed to del primary peer: it is a "
				  "gateway");
	/* A locked primary stays unless forced (lnetctl.md §7.2). */
	if (peer->is_lock_prim && !force)
		ul_disc_invalidate(peer);
	peer_unlink_nis(c, peer, peer->is_lock_prim && !force);
	return 0;
}

int ul_peer_ni_put_first(struct ul_core *c, struct ul_peer *peer,
			 const struct ulnet_nid *nid, struct ul_err *err)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, nid);
	struct ul_peer_net *lpn;

	if (!lpni || ul_peer_ni_peer(lpni) != peer)
		return ul_err_set(err, -ENOENT,
				  "NID is not one of the peer's NIDs");
	lpn = lpni->peer_net;
	ul_list_del(&lpn->peer_link);
	ul_list_add_head(&peer->peer_nets, &lpn->peer_link);
	ul_list_del(&lpni->peer_net_link);
	ul_list_add_head(&lpn->peer_nis, &lpni->peer_net_link);
	return 0;
}

int ul_peer_set_primary(struct ul_core *c, struct ul_peer *peer,
			const struct ulnet_nid *nid, struct ul_err *err)
{
	int rc = ul_peer_ni_put_first(c, peer, nid, err);

	if (rc == 0)
		peer->primary_nid = *nid;
	return rc;
}

/* ---- local net deletion ---- */

/* Its peer net is not (or no longer) a local net: no credits. */
static void peer_ni_clear_credits(struct ul_peer_ni *lpni)
{
	lpni->txcredits = 0;
	lpni->mintxcredits = 0;
}

void ul_peer_on_net_undo(struct ul_core *c, uint32_t net_id)
{
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *peer;

	ul_list_for_each_entry(peer, &c->peers, core_link) {
		lpn = ul_peer_net_find(peer, net_id);
		if (!lpn)
			continue;
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
			peer_ni_clear_credits(lpni);
	}
}

/*
 * The first peer NI of peer, in its order, on a local net other than
 * net_id (lnet_peer_get_reachable_ni_locked), or NULL.
 */
static struct ul_peer_ni *reachable_ni(const struct ul_core *c,
				       const struct ul_peer *peer,
				       uint32_t net_id)
{
	struct ul_peer_net *lpn;

	ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link) {
		if (lpn->net_id == net_id || !ul_net_find(c, lpn->net_id) ||
		    ul_list_empty(&lpn->peer_nis))
			continue;
		return ul_list_first_entry(&lpn->peer_nis, struct ul_peer_ni,
					   peer_net_link);
	}
	return NULL;
}

/* One peer's NIs on the deleted net net_id (lpn), as LNet's cleanup. */
static void peer_net_cleanup(struct ul_core *c, struct ul_peer *peer,
			     struct ul_peer_net *lpn)
{
	struct ul_peer_ni *keep = reachable_ni(c, peer, lpn->net_id);
	struct ul_peer_ni *lpni, *tmp;

	if (keep) {
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
			if (ulnet_nid_same(&lpni->nid, &peer->primary_nid) &&
			    !peer->is_lock_prim)
				peer->primary_nid = keep->nid;
			peer_ni_clear_credits(lpni);
		}
		return;
	}
	/*
	 * A primary NI on the net takes the whole peer, locked or not (its
	 * routes are gone already).
	 */
	if (ulnet_nid_net(&peer->primary_nid) == lpn->net_id) {
		(void)ul_peer_del(c, &peer->primary_nid, true, NULL);
		return;
	}
	/* Our reference keeps lpn while it empties. */
	ul_peer_net_get(lpn);
	ul_list_for_each_entry_safe(lpni, tmp, &lpn->peer_nis, peer_net_link)
		peer_ni_unlink(c, lpni);
	ul_peer_net_put(lpn);
}

void ul_peer_on_net_del(struct ul_core *c, uint32_t net_id)
{
	struct ul_peer *peer, *tmp;
	struct ul_peer_net *lpn;

	/*
	 * LNet deletes the gateways' routes in a first pass over the peers;
	 * a gateway's routes touch no other peer, so one pass that takes
	 * each gateway's routes before its NIs ends the same.
	 */
	ul_list_for_each_entry_safe(peer, tmp, &c->peers, core_link) {
		lpn = ul_peer_net_find(peer, net_id);
		if (!lpn)
			continue;
		if (peer->rtr_refcount)
			(void)ul_route_del(c, ULNET_NET_ANY, &peer->primary_nid,
					   NULL);
		peer_net_cleanup(c, peer, lpn);
	}
}

void ul_peer_del_all(struct ul_core *c)
{
	struct ul_peer *peer, *tmp;

	ul_list_for_each_entry_safe(peer, tmp, &c->peers, core_link)
		peer_unlink_nis(c, peer, false);
}
