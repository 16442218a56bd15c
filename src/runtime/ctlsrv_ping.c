/*
 * The control ops that wait on the network: ping and discover
 * (lnetctl.md §11; perf streams are in ctlsrv_perf.c). Each starts work
 * on the node and answers
 * its client from the node's callback; the pending object outlives a
 * client that goes first (it detaches on close).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery.h"
#include "core/discovery_send.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/log.h"

/* lnetctl's ping waits at most 180 s (lnetctl.md §11.1). */
#define PING_TIMEOUT_MAX_MS 180000u

/* ---- Ping ------------------------------------------------------------ */

/* "failed to <verb> <nid>": lnetctl's manage: entry for one target. */
static void target_failed(struct ctl_client *c, uint16_t op, const char *verb,
			  const struct ulnet_nid *nid, int rc)
{
	char s[ULNET_NIDSTR_SIZE], msg[64 + ULNET_NIDSTR_SIZE];
	struct ul_ctl_reply r;

	ulnet_nid_format(nid, s, sizeof(s));
	snprintf(msg, sizeof(msg), "failed to %s %s", verb, s);
	ul_ctl_reply_error(&r, op, rc, msg);
	ul_ctlsrv_client_send(c, &r, false);
}

static void ping_failed(struct ctl_client *c, const struct ulnet_nid *nid,
			int rc)
{
	target_failed(c, UL_CTL_OP_PING, "ping", nid, rc);
}

/*
 * What lnetctl prints for a ping (lnet_ping_show_dump): the primary NID
 * and Multi-Rail of the node's peer record for the target after the ping,
 * not the reply's. A ping is no discovery, so a target first met here is
 * its own primary and not Multi-Rail; one without any record (our own
 * NIDs and 0@lo, answered over the loopback) prints the same way.
 */
static void ping_peer_record(struct ul_ctlsrv *srv,
			     const struct ulnet_nid *target,
			     struct ulnet_nid *primary, bool *is_mr)
{
	const struct ul_peer *p = ul_peer_find(ul_node_core(srv->node), target);

	*primary = p ? p->primary_nid : *target;
	*is_mr = p && p->is_mr;
}

static void discover_failed(struct ctl_client *c, const struct ulnet_nid *nid,
			    int rc);
static void discover_done(struct ctl_client *c, const struct ulnet_nid *target,
			  const struct ulnet_ping_result *res, bool is_force);
static void ping_done(void *arg, int status,
		      const struct ulnet_ping_result *res)
{
	struct ctl_ping *pg = arg;
	struct ctl_client *c = pg->c;
	struct ulnet_nid target = pg->target;
	bool is_discover = pg->is_discover;
	bool is_force = pg->is_force;
	struct ul_ctl_ping_ni nis[64];
	struct ul_ctl_reply r;
	size_t i;

	free(pg);
	if (!c)
		return;
	c->ping = NULL;
	if (status || !res) {
		if (is_discover)
			discover_failed(c, &target, status ? status : -EPROTO);
		else
			ping_failed(c, &target, status ? status : -EPROTO);
		return;
	}
	if (is_discover) {
		discover_done(c, &target, res, is_force);
		return;
	}
	memset(&r, 0, sizeof(r));
	memset(nis, 0, sizeof(nis));
	r.op = UL_CTL_OP_PING;
	ping_peer_record(c->srv, &target, &r.ping.primary, &r.ping.is_mr);
	r.ping.pid = res->primary.pid;
	r.ping.features = res->features;
	for (i = 0; i < res->nnis && i < 64; i++) {
		nis[i].nid = res->nis[i].nid;
		nis[i].status = res->nis[i].status;
	}
	r.ping.nnis = i;
	r.ping.nis = nis;
	ul_ctlsrv_client_send(c, &r, false);
}

/*
 * Ping target for a ping or a discover; the answer goes to c through
 * ping_done. timeout_ms 0 (or 180 s and more) waits LNet's 180 s.
 */
static void start_ping(struct ctl_client *c, const struct ulnet_nid *target,
		       const struct ulnet_nid *src, uint32_t timeout_ms,
		       bool is_discover, bool is_force)
{
	struct ulnet_process_id id = { .nid = *target, .pid = ULNET_PID_ANY };
	struct ctl_ping *pg;
	int rc;

	if (timeout_ms == 0 || timeout_ms >= PING_TIMEOUT_MAX_MS)
		timeout_ms = PING_TIMEOUT_MAX_MS;
	pg = calloc(1, sizeof(*pg));
	if (!pg) {
		rc = -ENOMEM;
		goto fail;
	}
	pg->c = c;
	pg->target = *target;
	pg->is_discover = is_discover;
	pg->is_force = is_force;
	rc = ul_node_ping(c->srv->node, src, &id, timeout_ms, ping_done, pg);
	if (rc) {
		free(pg);
		goto fail;
	}
	c->ping = pg;
	return;
fail:
	if (is_discover)
		discover_failed(c, target, rc);
	else
		ping_failed(c, target, rc);
}

void ul_ctlsrv_do_ping(struct ctl_client *c, const struct ul_ctl_ping_req *req)
{
	struct ul_ctl_reply r;

	/*
	 * lnet_ping_show_start refuses the whole request, not one target:
	 * the message is not "failed to ping <nid>" (ulnetctl tells them
	 * apart by that).
	 */
	if (!ul_node_lnet_is_configured(c->srv->node)) {
		ul_ctl_reply_error(&r, UL_CTL_OP_PING, -ENETDOWN,
				   "Network is down");
		ul_ctlsrv_client_send(c, &r, false);
		return;
	}
	start_ping(c, &req->target, req->has_src ? &req->src : NULL,
		   req->has_timeout ? req->timeout_ms : 0, false, false);
}

/* ---- Discover -------------------------------------------------------- */

/* The discover's reply merged into the peer table (core/discovery.h). */
static int discover_merge(struct ul_ctlsrv *srv, const struct ulnet_nid *target,
			  const struct ulnet_ping_result *res,
			  struct ul_peer **out, struct ul_err *err)
{
	int rc;

	rc = ul_discovery_merge(ul_node_core(srv->node), target, res, out, err);
	/* Peers, primaries and maybe routes changed: the rules follow. */
	if (rc == 0 && srv->udsp) {
		ul_udsp_apply_all(srv->udsp);
		ul_udsp_on_route_del(srv->udsp);
	}
	return rc;
}

/* discover: - primary nid, Multi-Rail, peer_ni: - nid (engine B). */
static void discover_doc(struct ul_ctl_msg *doc, const struct ul_peer *peer)
{
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;

	ul_ctl_doc_seq(doc, "discover");
	ul_ctl_doc_map(doc, NULL);
	ul_ctl_doc_nid(doc, "primary nid", &peer->primary_nid);
	ul_ctl_doc_bool(doc, "Multi-Rail", peer->is_mr);
	ul_ctl_doc_seq(doc, "peer_ni");
	ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
			ul_ctl_doc_map(doc, NULL);
			ul_ctl_doc_nid(doc, "nid", &lpni->nid);
			ul_ctl_doc_end(doc);
		}
	ul_ctl_doc_end(doc);
	ul_ctl_doc_end(doc);
	ul_ctl_doc_end(doc);
}

static void discover_failed(struct ctl_client *c, const struct ulnet_nid *nid,
			    int rc)
{
	target_failed(c, UL_CTL_OP_DISCOVER, "discover", nid, rc);
}

static void discover_done(struct ctl_client *c, const struct ulnet_nid *target,
			  const struct ulnet_ping_result *res, bool is_force)
{
	struct ul_err err = { 0 };
	struct ul_ctl_msg doc;
	struct ul_peer *peer;
	int rc;

	if (target->nid_type == ULNET_LND_LO) {
		/*
		 * 0@lo is the node itself: LNet's hidden loopback peer,
		 * never listed, nothing to merge; it answers as a ping of
		 * 0@lo does (sanity-lnet 217).
		 */
		ul_ctl_doc_init(&doc);
		ul_ctl_doc_seq(&doc, "discover");
		ul_ctl_doc_map(&doc, NULL);
		ul_ctl_doc_nid(&doc, "primary nid", target);
		ul_ctl_doc_bool(&doc, "Multi-Rail", false);
		ul_ctl_doc_seq(&doc, "peer_ni");
		ul_ctl_doc_end(&doc);
		ul_ctl_doc_end(&doc);
		ul_ctl_doc_end(&doc);
		ul_ctlsrv_client_send_doc(c, UL_CTL_OP_DISCOVER, &doc);
		ul_ctl_msg_fini(&doc);
		return;
	}
	rc = discover_merge(c->srv, target, res, &peer, &err);
	if (rc) {
		ul_log(c->srv->log, UL_D_NETERROR, "ctl: discover: %s",
		       err.msg);
		discover_failed(c, target, rc);
		return;
	}
	/*
	 * As at the end of a round (discovery.md §7.2): the peer is pushed
	 * our ping info if it owes it, always with --force (§12).
	 */
	if (is_force)
		peer->is_push_forced = true;
	ul_disc_settle(c->srv->node, peer);
	ul_ctl_doc_init(&doc);
	discover_doc(&doc, peer);
	ul_ctlsrv_client_send_doc(c, UL_CTL_OP_DISCOVER, &doc);
	ul_ctl_msg_fini(&doc);
}

void ul_ctlsrv_do_discover(struct ctl_client *c, const struct ul_ctl_args *a)
{
	struct ul_ctl_reply r;

	if (!(a->has & UL_CTL_ARG_NID)) {
		ul_ctl_reply_error(&r, UL_CTL_OP_DISCOVER, -EINVAL,
				   "Missing nid argument");
		ul_ctlsrv_client_send(c, &r, false);
		return;
	}
	if (!ul_node_lnet_is_configured(c->srv->node)) {
		discover_failed(c, &a->nid, -ENETDOWN);
		return;
	}
	ul_discovery_start(ul_node_core(c->srv->node), &a->nid);
	start_ping(c, &a->nid, NULL,
		   (a->has & UL_CTL_ARG_TIMEOUT_MS) ? a->timeout_ms : 0, true,
		   (a->flags & UL_CTL_ARGF_FORCE) != 0);
}
