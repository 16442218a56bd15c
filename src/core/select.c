/*
 * Pathway selection: classification and the send cases of
 * reference/selection.md §3 and §6, and the commit of §4.5.
 *
 * Classification turns a request into four orthogonal facts (source
 * given or not, destination net local or not, destination MR or not,
 * response or not) and one switch picks the handler, as LNet's
 * lnet_handle_send_case_locked() does. The response bit is cleared before
 * the switch (§12 quirk 1): responses always carry a source, so they land
 * in the source-specified cases anyway.
 */
#include <errno.h>
#include <string.h>

#include "core/select_path.h"

void ul_select_req_init(struct ul_select_req *req, const struct ulnet_nid *dst,
			enum ul_msg_type type)
{
	memset(req, 0, sizeof(*req));
	ulnet_nid_set_any(&req->src_nid);
	ulnet_nid_set_any(&req->rtr_nid);
	ulnet_nid_set_any(&req->hdr_src_nid);
	req->dst_nid = *dst;
	req->type = type;
	req->md_numa_node = UL_NUMA_ANY;
}

static bool nid_is_lo0(const struct ulnet_nid *nid)
{
	return nid->nid_type == ULNET_LND_LO && nid->nid_addr[0] == 0 &&
	       nid->nid_addr[1] == 0 && nid->nid_addr[2] == 0 &&
	       nid->nid_addr[3] == 0;
}

static bool is_response(const struct ul_select_req *req)
{
	return req->type == UL_MSG_ACK || req->type == UL_MSG_REPLY;
}

/* §6.9: over 0@lo, no stamps, no credits. */
static int send_lo(struct ul_send *sd, struct ul_select_res *res)
{
	struct ul_ni *lo = sd->c->lo_ni;

	res->ni = lo;
	res->lpni = sd->best_lpni;
	res->final_lpni = sd->best_lpni;
	res->hdr_src_nid = sd->req->is_forward ? sd->req->hdr_src_nid : lo->nid;
	res->hdr_dst_nid = lo->nid;
	res->is_loopback = true;
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_LOOPBACK, &lo->nid);
	return 0;
}

/* The peer-side round-robin stamps of one send (§4.5). */
static void stamp_peer_side(struct ul_peer_ni *lpni)
{
	struct ul_peer_net *lpn = lpni->peer_net;
	struct ul_peer *peer = lpn->peer;

	peer->send_seq++;
	lpn->seq = peer->send_seq;
	lpni->seq = lpn->seq;
}

/* §4.5 lnet_handle_send: commit the pair and describe the message. */
static int send_commit(struct ul_send *sd, struct ul_select_res *res)
{
	struct ul_core *c = sd->c;
	bool is_routed = sd->send_case & UL_SEND_REMOTE;

	stamp_peer_side(sd->best_lpni);
	c->net_seq++;
	sd->best_ni->net->seq = c->net_seq;
	sd->best_ni->seq = c->net_seq;
	if (is_routed)
		stamp_peer_side(sd->final_lpni);

	res->ni = sd->best_ni;
	res->lpni = sd->best_lpni;
	res->final_lpni = is_routed ? sd->final_lpni : sd->best_lpni;
	res->route = sd->route;
	res->hdr_src_nid = sd->req->is_forward ? sd->req->hdr_src_nid
					       : sd->best_ni->nid;
	res->hdr_dst_nid = res->final_lpni->nid;
	res->is_routed = is_routed;
	return 0;
}

/* The local NI owning the given source NID (§6.5, §6.6). */
static int src_ni(struct ul_send *sd)
{
	sd->best_ni = ul_ni_find(sd->c, &sd->req->src_nid);
	if (!sd->best_ni)
		return -EINVAL; /* "not a local nid" */
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_SRC_NI, &sd->best_ni->nid);
	return 0;
}

static bool is_lo_lpni(const struct ul_send *sd, const struct ul_peer_ni *p)
{
	return ulnet_nid_same(&p->nid, &sd->c->lo_ni->nid);
}

/* §6.5 non-MR: exact pair, and the source becomes the sticky NI. */
static int spec_local_nmr(struct ul_send *sd, struct ul_select_res *res)
{
	int rc = src_ni(sd);

	if (rc)
		return rc;
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_DST_NI, &sd->best_lpni->nid);
	ul_sel_set_non_mr_pref(sd, sd->best_lpni, sd->best_ni);
	return send_commit(sd, res);
}

/* §6.5 MR: exact pair, nothing ranked. */
static int spec_local_mr(struct ul_send *sd, struct ul_select_res *res)
{
	int rc = src_ni(sd);

	if (rc)
		return rc;
	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_DST_NI, &sd->best_lpni->nid);
	if (is_lo_lpni(sd, sd->best_lpni))
		return send_lo(sd, res);
	return send_commit(sd, res);
}

/* §6.6: source given, destination on another net. */
static int spec_router(struct ul_send *sd, struct ul_select_res *res)
{
	struct ul_peer_ni *gw;
	int rc = src_ni(sd);

	if (rc)
		return rc;
	rc = ul_sel_routed_path(sd, &gw);
	if (rc)
		return rc;
	if (sd->send_case & UL_SEND_NMR)
		ul_sel_set_non_mr_pref(sd, sd->best_lpni, sd->best_ni);
	sd->best_lpni = gw;
	return send_commit(sd, res);
}

/* §6.2: non-MR destination on a local net. */
static int any_local_nmr(struct ul_send *sd, struct ul_select_res *res)
{
	struct ul_peer_ni *lpni = sd->best_lpni;

	if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_DST_NI, &lpni->nid);
	if (sd->req->is_forward) {
		/* A router honours the NID and keeps no sticky NI. */
		sd->best_ni = ul_sel_best_ni_on_lpn(sd, lpni->peer_net);
		if (!sd->best_ni)
			return -EHOSTUNREACH;
		return send_commit(sd, res);
	}
	/* Pings and pushes may leave from any NI (§12 quirk 5). */
	if (!sd->req->is_reserved_portal)
		sd->best_ni = ul_sel_existing_pref_ni(sd, lpni);
	else if (sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_STICKY_SKIPPED, NULL);
	if (!sd->best_ni)
		sd->best_ni = ul_sel_best_ni_on_lpn(sd, lpni->peer_net);
	if (!sd->best_ni)
		return -EHOSTUNREACH;
	ul_sel_set_non_mr_pref(sd, lpni, sd->best_ni);
	return send_commit(sd, res);
}

/* §6.1, falling through to §6.3 when no local net reaches the peer. */
static int any_mr(struct ul_send *sd, struct ul_select_res *res)
{
	struct ul_peer_ni *gw;
	int rc;

	sd->best_ni = ul_sel_best_ni_on_local_net(sd, sd->peer);
	if (sd->best_ni) {
		sd->best_lpni = ul_sel_best_lpni(sd, sd->best_ni, sd->peer,
						 sd->best_ni->net->net_id);
		if (!sd->best_lpni)
			return -EFAULT;
		/* Direct, even if the given NID was on a routed net. */
		sd->send_case &= ~UL_SEND_REMOTE;
		sd->send_case |= UL_SEND_LOCAL;
		if (is_lo_lpni(sd, sd->best_lpni))
			return send_lo(sd, res);
		return send_commit(sd, res);
	}
	rc = ul_sel_routed_path(sd, &gw);
	if (rc)
		return rc;
	sd->send_case &= ~UL_SEND_LOCAL;
	sd->send_case |= UL_SEND_REMOTE;
	sd->best_lpni = gw;
	return send_commit(sd, res);
}

/* §6.4: non-MR destination behind a router. */
static int any_router_nmr(struct ul_send *sd, struct ul_select_res *res)
{
	struct ul_peer_ni *gw;
	int rc;

	/* Here the sticky NI applies to every message, pings included. */
	sd->best_ni = ul_sel_existing_pref_ni(sd, sd->best_lpni);
	rc = ul_sel_routed_path(sd, &gw);
	if (rc)
		return rc;
	ul_sel_set_non_mr_pref(sd, sd->best_lpni, sd->best_ni);
	sd->best_lpni = gw;
	return send_commit(sd, res);
}

/*
 * §6.8: a router may choose another NID of the final destination only if
 * the originator is a known MR peer and the NID it chose is down or
 * unhealthy. LNet creates a peer for an unknown originator here; this
 * lookup does not (an unknown originator is not MR either way).
 */
static bool mr_forwarding_allowed(const struct ul_core *c,
				  const struct ul_peer_ni *dst,
				  const struct ulnet_nid *hdr_src)
{
	const struct ul_peer_ni *src = ul_peer_ni_find(c, hdr_src);

	if (!src || !ul_peer_ni_peer(src)->is_mr)
		return false;
	return dst->ns_status != UL_NS_STATUS_UP ||
	       dst->healthv < UL_HEALTH_MAX;
}

/* §3: the send-case bits. */
static uint32_t classify(struct ul_send *sd)
{
	const struct ul_select_req *req = sd->req;
	uint32_t dst_net = ulnet_nid_net(&req->dst_nid);
	uint32_t sc;
	bool is_final_hop, is_mr_fwd = false;

	if (sd->is_src_any)
		sc = UL_SEND_SRC_ANY |
		     (ul_net_find(sd->c, dst_net) ? UL_SEND_LOCAL
						  : UL_SEND_REMOTE);
	else
		sc = UL_SEND_SRC_SPEC |
		     (ulnet_nid_net(&req->src_nid) == dst_net ? UL_SEND_LOCAL
							      : UL_SEND_REMOTE);
	is_final_hop = req->is_forward && (sc & UL_SEND_LOCAL);
	if (is_final_hop)
		is_mr_fwd = mr_forwarding_allowed(sd->c, sd->best_lpni,
						  &req->hdr_src_nid);
	if (is_mr_fwd && sd->ex)
		ul_explain_note(sd->ex, UL_NOTE_MR_FORWARDING,
				&req->hdr_src_nid);
	if (!sd->peer->is_mr || req->is_recovery ||
	    (is_final_hop && !is_mr_fwd))
		sc |= UL_SEND_NMR;
	else
		sc |= UL_SEND_MR;
	if (is_response(req))
		sc |= UL_SEND_RESP;
	return sc;
}

static enum ul_select_case case_of(uint32_t sc)
{
	bool is_spec = sc & UL_SEND_SRC_SPEC;
	bool is_local = sc & UL_SEND_LOCAL;
	bool is_mr = sc & UL_SEND_MR;

	if (is_spec && !is_local)
		return UL_CASE_SPEC_ROUTER;
	if (is_spec)
		return is_mr ? UL_CASE_SPEC_LOCAL_MR : UL_CASE_SPEC_LOCAL_NMR;
	if (is_mr)
		return UL_CASE_ANY_MR;
	return is_local ? UL_CASE_ANY_LOCAL_NMR : UL_CASE_ANY_ROUTER_NMR;
}

static int dispatch(struct ul_send *sd, enum ul_select_case scase,
		    struct ul_select_res *res)
{
	switch (scase) {
	case UL_CASE_SPEC_LOCAL_NMR:
		return spec_local_nmr(sd, res);
	case UL_CASE_SPEC_LOCAL_MR:
		return spec_local_mr(sd, res);
	case UL_CASE_SPEC_ROUTER:
		return spec_router(sd, res);
	case UL_CASE_ANY_LOCAL_NMR:
		return any_local_nmr(sd, res);
	case UL_CASE_ANY_MR:
		return any_mr(sd, res);
	case UL_CASE_ANY_ROUTER_NMR:
		return any_router_nmr(sd, res);
	default:
		return -EFAULT;
	}
}

int ul_select(struct ul_core *c, const struct ul_select_req *req,
	      struct ul_select_res *res, struct ul_explain *ex)
{
	struct ul_select_res out;
	struct ul_send sd;
	struct ul_explain_step *st;
	enum ul_select_case scase = UL_CASE_LOOPBACK;
	int rc;

	memset(&out, 0, sizeof(out));
	memset(&sd, 0, sizeof(sd));
	sd.c = c;
	sd.req = req;
	sd.ex = ex;
	sd.lpni_step = UL_STEP_PEER_NI;
	sd.is_src_any = ulnet_nid_is_any(&req->src_nid);
	sd.is_rtr_any = ulnet_nid_is_any(&req->rtr_nid);
	if (ex)
		ul_explain_reset(ex);

	if (ulnet_nid_is_any(&req->dst_nid)) {
		rc = -EINVAL;
		goto out;
	}
	if (nid_is_lo0(&req->dst_nid)) {
		rc = send_lo(&sd, &out);
		goto out;
	}
	rc = ul_peer_ni_find_or_create(c, &req->dst_nid, NULL, &sd.best_lpni);
	if (rc)
		goto out;
	sd.final_lpni = sd.best_lpni;
	sd.peer = ul_peer_ni_peer(sd.best_lpni);

	sd.send_case = classify(&sd);
	scase = case_of(sd.send_case);
	if (ex) {
		st = ul_explain_step_add(ex, UL_STEP_CLASSIFY,
					 ulnet_nid_net(&req->dst_nid));
		if (st)
			st->nid = req->dst_nid;
	}
	/* Quirk 1: the response bit never reaches the handlers. */
	sd.send_case &= ~UL_SEND_RESP;
	rc = dispatch(&sd, scase, &out);
	if (is_response(req))
		sd.send_case |= UL_SEND_RESP;
out:
	out.send_case = sd.send_case;
	out.scase = scase;
	out.route_mode = sd.route_mode;
	if (ex) {
		ex->rc = rc;
		ex->send_case = sd.send_case;
		ex->scase = scase;
		ex->route_mode = sd.route_mode;
	}
	if (rc == 0)
		*res = out;
	return rc;
}
