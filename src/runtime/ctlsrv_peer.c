/*
 * `peer add`, `peer del`, `peer set`, `peer list` (reference/lnetctl.md
 * §7) on the instance's side, over core/peer.h. NID range lists arrive
 * expanded (args.nids); the texts of the errors are LNet's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

/* LNet's state bits a peer keeps here (lnetctl.md §7.3). */
#define PEER_STATE_MULTI_RAIL (1u << 0)
#define PEER_STATE_NO_DISCOVERY (1u << 1)
#define PEER_STATE_ROUTER_ENABLED (1u << 2)
#define PEER_STATE_CONFIGURED (1u << 3)
#define PEER_STATE_DISCOVERED (1u << 4)
#define PEER_STATE_NIDS_UPTODATE (1u << 8)
#define PEER_STATE_LOCK_PRIMARY (1u << 20)

bool ul_ctlsrv_peer_is_lo(const struct ul_peer *p)
{
	return p->primary_nid.nid_type == ULNET_LND_LO;
}

int ul_ctlsrv_peers_by_cpt(const struct ul_ctlsrv *srv, struct ul_peer ***out,
			   size_t *n)
{
	struct ul_core *core = ul_node_core(srv->node);
	unsigned int ncpt = srv->ncpt ? srv->ncpt : 1;
	size_t *start, total = 0, k;
	unsigned int *cpt;
	struct ul_peer **v;
	struct ul_peer *p;

	*out = NULL;
	*n = 0;
	ul_list_for_each_entry(p, &core->peers, core_link)
		total += !ul_ctlsrv_peer_is_lo(p);
	if (!total)
		return 0;
	v = calloc(total, sizeof(struct ul_peer *));
	cpt = calloc(total, sizeof(*cpt));
	start = calloc((size_t)ncpt + 1, sizeof(*start));
	if (!v || !cpt || !start) {
		free(v);
		free(cpt);
		free(start);
		return -ENOMEM;
	}
	/* A stable counting sort: creation order within each CPT. */
	k = 0;
	ul_list_for_each_entry(p, &core->peers, core_link) {
		if (ul_ctlsrv_peer_is_lo(p))
			continue;
		cpt[k] = ul_ctlsrv_cpt_of(&p->primary_nid, ncpt);
		start[cpt[k] + 1]++;
		k++;
	}
	for (unsigned int c = 0; c < ncpt; c++)
		start[c + 1] += start[c];
	k = 0;
	ul_list_for_each_entry(p, &core->peers, core_link) {
		if (ul_ctlsrv_peer_is_lo(p))
			continue;
		v[start[cpt[k]]++] = p;
		k++;
	}
	free(cpt);
	free(start);
	*out = v;
	*n = total;
	return 0;
}

int ul_ctlsrv_peer_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		       struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_node_peer_req r = {
		.nids = a->nids,
		.nnids = a->nnids,
		.is_mr = !(a->flags & UL_CTL_ARGF_NON_MR),
		.is_lock = a->flags &
			   (UL_CTL_ARGF_LOCK_PRIM | UL_CTL_ARGF_FORCE),
		.is_import = a->flags & UL_CTL_ARGF_IMPORT,
	};

	(void)doc;
	if (!(a->has & UL_CTL_ARG_NID))
		return ul_err_set(err, -ENOMSG, "no configuration");
	r.prim = a->nid;
	return ul_node_peer_add(srv->node, &r, err);
}

int ul_ctlsrv_peer_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		       struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_node_peer_req r = {
		.nids = a->nids,
		.nnids = a->nnids,
		.is_lock = a->flags &
			   (UL_CTL_ARGF_FORCE | UL_CTL_ARGF_LOCK_PRIM),
	};

	(void)doc;
	if (!(a->has & UL_CTL_ARG_NID))
		return ul_err_set(err, -ENOMSG, "no configuration");
	r.prim = a->nid;
	return ul_node_peer_del(srv->node, &r, err);
}

int ul_ctlsrv_peer_set(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		       struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *p;

	(void)doc;
	/*
	 * LNet reads one request's "peer state" before its "peer ni"
	 * health: a state for an unknown peer fails first; otherwise both
	 * apply.
	 */
	if (a->has & UL_CTL_ARG_STATE) {
		p = (a->has & UL_CTL_ARG_NID) ? ul_peer_find(core, &a->nid)
					      : NULL;
		if (!p || ul_ctlsrv_peer_is_lo(p))
			return ul_err_set(err, -ENOENT,
					  "invalid peer state param");
		/* Only the bits a peer keeps here can change (see notes). */
		ul_peer_set_mr(p, a->state & PEER_STATE_MULTI_RAIL);
		p->has_no_discovery = a->state & PEER_STATE_NO_DISCOVERY;
		p->rtr = (a->state & PEER_STATE_ROUTER_ENABLED)
				 ? UL_PEER_RTR_ENABLED
			 : p->rtr == UL_PEER_RTR_ENABLED ? UL_PEER_RTR_DISABLED
							 : p->rtr;
		p->is_configured = a->state & PEER_STATE_CONFIGURED;
		p->is_discovered = a->state & PEER_STATE_DISCOVERED;
		p->is_nids_uptodate = a->state & PEER_STATE_NIDS_UPTODATE;
		/* LNet keeps the lock's time: never locked is the earliest. */
		p->is_lock_prim = a->state & PEER_STATE_LOCK_PRIMARY;
		if (srv->udsp)
			ul_udsp_apply_all(srv->udsp);
	}
	/*
	 * The value as given, as lnet_peer_ni_set_healthv() stores it
	 * (lnetctl sends none below 0; the kernel's clamp_t() result is
	 * unused, so 2000 stays 2000).
	 */
	if (!(a->has & UL_CTL_ARG_HEALTH))
		return 0;
	if (a->has & UL_CTL_ARG_NID) {
		lpni = ul_peer_ni_find(core, &a->nid);
		if (lpni)
			ul_node_lpni_set_healthv(srv->node, lpni, a->health);
		return 0;
	}
	if (!(a->flags & UL_CTL_ARGF_ALL))
		return 0; /* neither --nid nor --all: nothing, as lnetctl */
	ul_list_for_each_entry(p, &core->peers, core_link)
		ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link)
				ul_node_lpni_set_healthv(srv->node, lpni,
							 a->health);
	return 0;
}

int ul_ctlsrv_peer_list(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_peer **peers;
	size_t n, i;
	int rc;

	(void)a;
	(void)err;
	rc = ul_ctlsrv_peers_by_cpt(srv, &peers, &n);
	if (rc || !n)
		return rc;
	ul_ctl_doc_seq(doc, "peer list");
	for (i = 0; i < n; i++) {
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_nid(doc, "nid", &peers[i]->primary_nid);
		ul_ctl_doc_end(doc);
	}
	ul_ctl_doc_end(doc);
	free(peers);
	return 0;
}
