/*
 * The routed path of pathway selection (reference/selection.md §5.2,
 * §5.3): which final destination NID, which route, which gateway NI, and
 * the local NI on the gateway's net when none was fixed before.
 *
 * Mode R reuses an imposed previous hop (responses, resends) without
 * looking at routes; mode F routes to the destination NID's own net
 * (forwarding, or a source is known); mode O, for an originator with no
 * source, first picks the destination's remote peer net and peer NI.
 */
#include <assert.h>
#include <errno.h>

#include "core/select_path.h"

/* The gateway NI a route would use: §4.3 with no local NI known. */
static struct ul_peer_ni *gw_lpni_of(struct ul_send *sd,
				     const struct ul_route *r, uint32_t src_net)
{
	struct ul_explain *ex = sd->ex;
	struct ul_peer_ni *lpni;

	sd->ex = NULL; /* recorded once, for the winner, after the walk */
	lpni = ul_sel_best_lpni(sd, NULL, r->gateway, src_net);
	sd->ex = ex;
	return lpni;
}

static void gw_cand_fill(const struct ul_peer_ni *lpni, struct ul_gw_cand *g)
{
	g->healthv = lpni->healthv;
	g->txqnob = lpni->txqnob;
	g->txcredits = lpni->txcredits;
}

static void record_route(struct ul_send *sd, struct ul_explain_step *st,
			 const struct ul_route *r, bool is_pref,
			 const struct ul_peer_ni *gw, enum ul_verdict verdict,
			 enum ul_skip skip, enum ul_crit crit, bool is_winner)
{
	struct ul_explain_cand *ec = ul_explain_cand_add(sd->ex, st);

	if (!ec)
		return;
	ec->nid = r->gateway->primary_nid;
	ec->net_id = r->local_net_id;
	ec->value[0] = is_pref;
	ec->value[1] = r->priority;
	ec->value[2] = r->hops == UL_HOPS_UNDEFINED ? -1 : (int64_t)r->hops;
	ec->value[3] = gw ? gw->healthv : -1;
	ec->value[4] = gw ? gw->txqnob : -1;
	ec->value[5] = gw ? gw->txcredits : -1;
	ec->value[6] = r->seq;
	if (gw)
		ec->gw_nid = gw->nid;
	else
		ulnet_nid_set_any(&ec->gw_nid);
	ec->verdict = verdict;
	ec->skip = skip;
	ec->decided_by = crit;
	if (is_winner)
		st->winner = (int32_t)st->ncands - 1;
}

/*
 * §5.2 lnet_find_route_locked. *last is the route whose lr_seq the chosen
 * one must pass: the best-stamped live route seen from the first chosen
 * one on, which makes equal routes take turns.
 */
static struct ul_route *find_route(struct ul_send *sd, struct ul_rnet *rnet,
				   uint32_t src_net,
				   const struct ul_peer_ni *remote_lpni,
				   struct ul_route **last,
				   struct ul_peer_ni **gw_out)
{
	struct ul_explain_step *st = NULL;
	struct ul_route *r, *best = NULL;
	struct ul_peer_ni *best_gw = NULL;
	struct ul_route_cand rc_cand, best_rc = { 0 };
	struct ul_gw_cand gw_cand, best_gw_cand = { 0 };

	*last = NULL;
	if (sd->ex)
		st = ul_explain_step_add(sd->ex, UL_STEP_ROUTE, rnet->net_id);
	ul_list_for_each_entry(r, &rnet->routes, rnet_link) {
		enum ul_crit crit = UL_CRIT_NONE;
		struct ul_peer_ni *gw;
		bool is_first = !best;
		int rc = 1;

		if (!ul_route_is_alive(sd->c, r)) {
			if (st)
				record_route(sd, st, r, false, NULL,
					     UL_VERDICT_SKIPPED,
					     UL_SKIP_ROUTE_DOWN, crit, false);
			continue;
		}
		if (*last && (*last)->seq < r->seq)
			*last = r;
		rc_cand.is_preferred =
			remote_lpni &&
			ul_peer_ni_is_pref_rtr(remote_lpni,
					       &r->gateway->primary_nid);
		rc_cand.priority = r->priority;
		rc_cand.hops = r->hops;
		if (best)
			rc = ul_rank_route(&rc_cand, &best_rc, &crit);
		if (rc < 0) {
			if (st)
				record_route(sd, st, r, rc_cand.is_preferred,
					     gw_lpni_of(sd, r, src_net),
					     UL_VERDICT_WORSE, UL_SKIP_NONE,
					     crit, false);
			continue;
		}
		gw = gw_lpni_of(sd, r, src_net);
		if (!gw) {
			if (st)
				record_route(sd, st, r, rc_cand.is_preferred,
					     NULL, UL_VERDICT_SKIPPED,
					     UL_SKIP_NO_GW_NI, crit, false);
			continue;
		}
		gw_cand_fill(gw, &gw_cand);
		if (rc == 0) {
			rc = ul_rank_gw(&gw_cand, &best_gw_cand, &crit);
			/* Equal gateways: the later route wins unless its
			 * stamp is higher (§12 quirk 2). */
			if (rc == 0) {
				crit = UL_CRIT_ROUTE_RR;
				rc = r->seq > best->seq ? -1 : 1;
			}
			if (rc < 0) {
				if (st)
					record_route(sd, st, r,
						     rc_cand.is_preferred, gw,
						     UL_VERDICT_WORSE,
						     UL_SKIP_NONE, crit, false);
				continue;
			}
		}
		if (st)
			record_route(sd, st, r, rc_cand.is_preferred, gw,
				     is_first ? UL_VERDICT_FIRST
					      : UL_VERDICT_BETTER,
				     UL_SKIP_NONE,
				     is_first ? UL_CRIT_NONE : crit, true);
		best = r;
		best_rc = rc_cand;
		best_gw = gw;
		best_gw_cand = gw_cand;
		if (!*last)
			*last = r;
	}
	*gw_out = best_gw;
	return best;
}

/* §5.3 mode O: the destination's remote peer net that has a route. */
static struct ul_peer_net *best_remote_lpn(struct ul_send *sd,
					   struct ul_peer *peer,
					   struct ul_rnet **rnet_out)
{
	struct ul_explain_step *st = NULL;
	struct ul_lpn_cand cand, best_cand = { 0 };
	struct ul_peer_net *lpn, *best = NULL;
	struct ul_rnet *rnet;

	if (sd->ex)
		st = ul_explain_step_add(sd->ex, UL_STEP_PEER_NET,
					 ULNET_NET_ANY);
	ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link) {
		enum ul_crit crit = UL_CRIT_NONE;
		int r = 1;

		rnet = ul_rnet_find(sd->c, lpn->net_id);
		if (!rnet)
			continue;
		cand.healthv = lpn->healthv;
		cand.sel_priority = lpn->sel_priority;
		cand.seq = lpn->seq;
		if (best)
			r = ul_rank_lpn(&cand, &best_cand, &crit);
		if (st) {
			struct ul_explain_cand *ec =
				ul_explain_cand_add(sd->ex, st);

			if (ec) {
				ulnet_nid_set_any(&ec->nid);
				ulnet_nid_set_any(&ec->gw_nid);
				ec->net_id = lpn->net_id;
				ec->peer_net_id = lpn->net_id;
				ec->value[0] = cand.healthv;
				ec->value[1] = cand.sel_priority;
				ec->value[2] = cand.seq;
				ec->decided_by = best ? crit : UL_CRIT_NONE;
				ec->verdict = !best   ? UL_VERDICT_FIRST
					      : r > 0 ? UL_VERDICT_BETTER
					      : r < 0 ? UL_VERDICT_WORSE
						      : UL_VERDICT_TIE;
				if (r > 0)
					st->winner = (int32_t)st->ncands - 1;
			}
		}
		if (r > 0) {
			best = lpn;
			best_cand = cand;
			*rnet_out = rnet;
		}
	}
	return best;
}

/* Mode R: the imposed previous hop, if it is still a gateway. */
static struct ul_peer_ni *imposed_router(struct ul_send *sd)
{
	struct ul_peer_ni *gw = ul_peer_ni_find(sd->c, &sd->req->rtr_nid);

	if (gw && ul_peer_ni_peer(gw)->rtr_refcount) {
		if (sd->ex)
			ul_explain_note(sd->ex, UL_NOTE_ROUTER_IMPOSED,
					&gw->nid);
		return gw;
	}
	/* LNet logs a warning here and looks a route up instead. */
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_ROUTER_UNKNOWN,
				&sd->req->rtr_nid);
	return NULL;
}

int ul_sel_routed_path(struct ul_send *sd, struct ul_peer_ni **gw_lpni)
{
	const struct ulnet_nid *src_nid = &sd->req->src_nid;
	struct ul_peer_ni *gw = NULL;
	struct ul_route *best = NULL, *last = NULL;
	uint32_t src_net = ULNET_NET_ANY;
	bool is_src_any;

	/* The route restriction: the given source, else the chosen NI. */
	if (sd->is_src_any && sd->best_ni)
		src_nid = &sd->best_ni->nid;
	is_src_any = ulnet_nid_is_any(src_nid);
	if (!is_src_any)
		src_net = ulnet_nid_net(src_nid);

	if (!sd->is_rtr_any)
		gw = imposed_router(sd);
	if (gw) {
		sd->route_mode = UL_ROUTE_MODE_R;
	} else {
		struct ul_rnet *rnet = NULL;

		if (sd->req->is_forward || !is_src_any) {
			sd->route_mode = UL_ROUTE_MODE_F;
			rnet = ul_rnet_find(sd->c,
					    ulnet_nid_net(&sd->req->dst_nid));
			if (!rnet)
				return -EHOSTUNREACH;
		} else {
			struct ul_peer *peer = ul_peer_ni_peer(sd->best_lpni);
			struct ul_peer_net *lpn;

			sd->route_mode = UL_ROUTE_MODE_O;
			lpn = best_remote_lpn(sd, peer, &rnet);
			if (!lpn)
				return -EHOSTUNREACH;
			sd->best_lpni = ul_sel_best_lpni(sd, sd->best_ni, peer,
							 lpn->net_id);
			if (!sd->best_lpni)
				return -EHOSTUNREACH;
			sd->final_lpni = sd->best_lpni;
		}
		best = find_route(sd, rnet, src_net, sd->best_lpni, &last, &gw);
		if (!best)
			return -EHOSTUNREACH;
		if (!gw)
			return -EFAULT;
		if (sd->ex) {
			/* Now record how the winner's gateway NI was found. */
			sd->lpni_step = UL_STEP_GATEWAY_NI;
			(void)ul_sel_best_lpni(sd, NULL, best->gateway,
					       src_net);
			sd->lpni_step = UL_STEP_PEER_NI;
		}
	}
	if (!sd->best_ni) {
		sd->best_ni = ul_sel_best_ni_on_lpn(sd, gw->peer_net);
		if (!sd->best_ni)
			return -EFAULT;
	}
	/* The chosen route's turn is taken, unless a router was imposed. */
	if (sd->is_rtr_any) {
		assert(best && last); /* mode F or O found a route */
		best->seq = last->seq + 1;
		sd->route = best;
	} else if (best) {
		sd->route = best;
	}
	*gw_lpni = gw;
	return 0;
}
