/*
 * The building blocks of pathway selection (reference/selection.md §4):
 * local NI inside a net (§4.1), peer NI inside a peer net (§4.2), peer NI
 * over several nets (§4.3, with its carry-over quirk), the (peer net,
 * local net) pair for an MR peer (§4.4) and the non-MR sticky NI (§4.6).
 *
 * Each walk keeps "the best so far" as a candidate struct and asks the
 * pure comparator of rank.c whether the next element beats it; a tie
 * keeps the earlier element. With an explanation, every comparison is
 * recorded as it happens; without one the only extra cost is a NULL test.
 */
#include "core/select_path.h"

/* Record one comparison; returns the candidate's index in its step. */
static int record(struct ul_send *sd, struct ul_explain_step *st,
		  struct ul_explain_cand **out, bool is_first, int r,
		  enum ul_crit crit)
{
	struct ul_explain_cand *cand = ul_explain_cand_add(sd->ex, st);

	*out = cand;
	if (!cand)
		return -1;
	cand->decided_by = is_first ? UL_CRIT_NONE : crit;
	if (is_first)
		cand->verdict = UL_VERDICT_FIRST;
	else if (r > 0)
		cand->verdict = UL_VERDICT_BETTER;
	else if (r < 0)
		cand->verdict = UL_VERDICT_WORSE;
	else
		cand->verdict = UL_VERDICT_TIE;
	ulnet_nid_set_any(&cand->gw_nid);
	return (int)st->ncands - 1;
}

/* A step's winner: the last candidate that became the best. */
static void set_winner(struct ul_explain_step *st, int idx, int r)
{
	if (st && r > 0)
		st->winner = idx;
}

static void ni_cand_fill(const struct ul_send *sd, const struct ul_ni *ni,
			 struct ul_ni_cand *cand)
{
	const struct ul_core *c = sd->c;
	uint32_t d =
		ul_core_numa_distance(c, sd->req->md_numa_node, ni->numa_node);

	/* §4.1 #5: distances below numa_range count as numa_range. */
	if (d < c->tun.numa_range)
		d = c->tun.numa_range;
	cand->is_fatal = ni->is_fatal;
	cand->healthv = ni->healthv;
	cand->sel_priority = ni->sel_priority;
	/* Host memory only: every NI gets the same device priority. */
	cand->dev_priority = UINT32_MAX;
	cand->numa_dist = d;
	cand->tx_credits = ni->tx_credits;
	cand->seq = ni->seq;
}

/* §4.1 over the NIs of net. */
static struct ul_ni *best_ni_in_net(struct ul_send *sd, struct ul_net *net)
{
	struct ul_explain_step *st = NULL;
	struct ul_ni_cand cand, best_cand = { 0 };
	struct ul_ni *ni, *best = NULL;

	if (sd->ex)
		st = ul_explain_step_add(sd->ex, UL_STEP_LOCAL_NI, net->net_id);
	ul_list_for_each_entry(ni, &net->nis, net_link) {
		enum ul_crit crit = UL_CRIT_NONE;
		int r = 1;

		ni_cand_fill(sd, ni, &cand);
		if (best)
			r = ul_rank_ni(&cand, &best_cand, &crit);
		if (st) {
			struct ul_explain_cand *ec;
			int idx = record(sd, st, &ec, !best, r, crit);

			if (ec) {
				ec->nid = ni->nid;
				ec->net_id = net->net_id;
				ec->value[0] = cand.is_fatal;
				ec->value[1] = cand.healthv;
				ec->value[2] = cand.sel_priority;
				ec->value[3] = cand.dev_priority;
				ec->value[4] = cand.numa_dist;
				ec->value[5] = cand.tx_credits;
				ec->value[6] = cand.seq;
			}
			set_winner(st, idx, r);
		}
		if (r > 0) {
			best = ni;
			best_cand = cand;
		}
	}
	return best;
}

struct ul_ni *ul_sel_best_ni_on_lpn(struct ul_send *sd, struct ul_peer_net *lpn)
{
	struct ul_net *net = ul_net_find(sd->c, lpn->net_id);

	/* No NI is worth choosing if the peer has no NI on this net. */
	if (!net || ul_list_empty(&lpn->peer_nis))
		return NULL;
	return best_ni_in_net(sd, net);
}

/*
 * §4.2 over the peer NIs of lpn, optionally starting from a best carried
 * over from another net (§4.3). The carried best keeps only its health,
 * credits and stamp: LNet restarts its priority and "preferred" from the
 * unset values (§12 quirk 3).
 */
static struct ul_peer_ni *select_peer_ni(struct ul_send *sd,
					 const struct ul_ni *best_ni,
					 struct ul_peer_net *lpn,
					 struct ul_peer_ni *best)
{
	struct ul_explain_step *st = NULL;
	struct ul_lpni_cand cand, best_cand = { 0 };
	struct ul_peer_ni *lpni;

	if (best) {
		best_cand.healthv = best->healthv;
		best_cand.sel_priority = UL_PRIO_UNSET;
		best_cand.is_preferred = false;
		best_cand.txcredits = best->txcredits;
		best_cand.seq = best->seq;
	}
	if (sd->ex)
		st = ul_explain_step_add(sd->ex, sd->lpni_step, lpn->net_id);
	ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
		enum ul_crit crit = UL_CRIT_NONE;
		int r = 1;

		cand.healthv = lpni->healthv;
		cand.sel_priority = lpni->sel_priority;
		cand.is_preferred = best_ni &&
				    ul_peer_ni_is_pref_nid(lpni, &best_ni->nid);
		cand.txcredits = lpni->txcredits;
		cand.seq = lpni->seq;
		if (best)
			r = ul_rank_lpni(&cand, &best_cand, &crit);
		if (st) {
			struct ul_explain_cand *ec;
			int idx = record(sd, st, &ec, !best, r, crit);

			if (ec) {
				ec->nid = lpni->nid;
				ec->net_id = lpn->net_id;
				ec->value[0] = cand.healthv;
				ec->value[1] = cand.sel_priority;
				ec->value[2] = cand.is_preferred;
				ec->value[3] = cand.txcredits;
				ec->value[4] = cand.seq;
			}
			set_winner(st, idx, r);
		}
		if (r > 0) {
			best = lpni;
			best_cand = cand;
		}
	}
	return best;
}

struct ul_peer_ni *ul_sel_best_lpni(struct ul_send *sd,
				    const struct ul_ni *best_ni,
				    struct ul_peer *peer, uint32_t net_id)
{
	struct ul_peer_ni *best = NULL;
	struct ul_peer_net *lpn;

	if (net_id != ULNET_NET_ANY) {
		lpn = ul_peer_net_find(peer, net_id);
		return lpn ? select_peer_ni(sd, best_ni, lpn, NULL) : NULL;
	}
	/* Any net: every peer net on a local net, carrying the best over. */
	ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link)
		if (ul_net_find(sd->c, lpn->net_id))
			best = select_peer_ni(sd, best_ni, lpn, best);
	return best;
}

/* A router check ping goes out on the net the checker recorded (§4.4). */
static struct ul_peer_net *rtr_check_lpn(struct ul_send *sd,
					 struct ul_peer *peer)
{
	struct ul_peer_net *lpn;

	if (peer->rtr_check_net == ULNET_NET_ANY ||
	    sd->req->type != UL_MSG_GET || !sd->req->is_reserved_portal)
		return NULL;
	lpn = ul_peer_net_find(peer, peer->rtr_check_net);
	if (!lpn || !ul_net_find(sd->c, lpn->net_id))
		return NULL;
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_RTR_CHECK_NET,
				&peer->primary_nid);
	return lpn;
}

struct ul_ni *ul_sel_best_ni_on_local_net(struct ul_send *sd,
					  struct ul_peer *peer)
{
	struct ul_explain_step *st = NULL;
	struct ul_net_pair_cand cand, best_cand = { 0 };
	struct ul_peer_net *lpn, *best = rtr_check_lpn(sd, peer);
	struct ul_net *net;

	if (best)
		return ul_sel_best_ni_on_lpn(sd, best);
	if (sd->ex)
		st = ul_explain_step_add(sd->ex, UL_STEP_NET_PAIR,
					 ULNET_NET_ANY);
	ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link) {
		enum ul_crit crit = UL_CRIT_NONE;
		int r = 1;

		net = ul_net_find(sd->c, lpn->net_id);
		if (!net)
			continue;
		cand.lpn_healthv = lpn->healthv;
		cand.lpn_sel_priority = lpn->sel_priority;
		cand.net_healthv = ul_net_healthv(net);
		cand.net_sel_priority = net->sel_priority;
		cand.lpn_seq = lpn->seq;
		cand.net_seq = net->seq;
		if (best)
			r = ul_rank_net_pair(&cand, &best_cand, &crit);
		if (st) {
			struct ul_explain_cand *ec;
			int idx = record(sd, st, &ec, !best, r, crit);

			if (ec) {
				ulnet_nid_set_any(&ec->nid);
				ec->net_id = net->net_id;
				ec->peer_net_id = lpn->net_id;
				ec->value[0] = cand.lpn_healthv;
				ec->value[1] = cand.lpn_sel_priority;
				ec->value[2] = cand.net_healthv;
				ec->value[3] = cand.net_sel_priority;
				ec->value[4] = cand.lpn_seq;
				ec->value[5] = cand.net_seq;
			}
			set_winner(st, idx, r);
		}
		if (r > 0) {
			best = lpn;
			best_cand = cand;
		}
	}
	return best ? ul_sel_best_ni_on_lpn(sd, best) : NULL;
}

struct ul_ni *ul_sel_existing_pref_ni(struct ul_send *sd,
				      struct ul_peer_ni *lpni)
{
	struct ul_peer_ni *e;
	struct ul_ni *ni;

	/* The first NI of the same peer net with a preferred NID decides. */
	ul_list_for_each_entry(e, &lpni->peer_net->peer_nis, peer_net_link) {
		const struct ulnet_nid *pref;

		if (!e->pref_nids.count)
			continue;
		pref = ul_nid_list_items(&e->pref_nids);
		ni = ul_ni_find(sd->c, pref);
		if (sd->ex)
			ul_explain_note(sd->ex,
					ni ? UL_NOTE_STICKY_REUSED
					   : UL_NOTE_STICKY_STALE,
					pref);
		return ni;
	}
	return NULL;
}

void ul_sel_set_non_mr_pref(struct ul_send *sd, struct ul_peer_ni *lpni,
			    const struct ul_ni *ni)
{
	enum ul_msg_type t = sd->req->type;

	/* Responses never pin a source; a set NID is never replaced. */
	if (ul_peer_ni_peer(lpni)->is_mr || t == UL_MSG_ACK ||
	    t == UL_MSG_REPLY || lpni->pref_nids.count)
		return;
	/*
	 * The one allocation of a sticky NID, once per non-MR peer NI. If it
	 * fails the NI is simply not pinned yet; the next send tries again.
	 */
	if (ul_peer_ni_add_pref_nid(lpni, &ni->nid, true))
		return;
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_STICKY_SET, &ni->nid);
}
