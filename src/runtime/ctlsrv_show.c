/*
 * The replies of the typed show ops (src/ctl/proto.h NET_SHOW, PEER_SHOW):
 * net show and peer show at every verbose level, built from the node's
 * state (reference/lnetctl.md §6.3, §7.3). The printer is ulnetctl's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_sm.h"
#include "core/health.h"
#include "core/msg.h"
#include "runtime/ctlsrv_int.h"

/* ping_count and next_ping of an NI on its recovery queue (§5). */
static void ping_state(struct ul_ctl_health *h, const struct ul_ni *ni,
		       const struct ul_peer_ni *lpni)
{
	uint32_t count;
	int64_t next;

	if (ni)
		ul_health_ni_ping_state(ni, &count, &next);
	else
		ul_health_lpni_ping_state(lpni, &count, &next);
	h->ping_count = count;
	h->next_ping = next;
}

static int32_t prio(uint32_t p)
{
	return p == UL_PRIO_UNSET ? -1 : (int32_t)p;
}

static void fill_counts(struct ul_ctl_msg_counts *dst, const uint64_t by[4])
{
	/* ulnet_msg_stats index: ACK 0, PUT 1, GET 2, REPLY 3. */
	dst->ack = by[0];
	dst->put = by[1];
	dst->get = by[2];
	dst->reply = by[3];
	dst->hello = 0;
}

static uint64_t sum4(const uint64_t v[4])
{
	return v[0] + v[1] + v[2] + v[3];
}

static void fill_lat(struct ul_ctl_lat *dst, const struct ul_lat *l)
{
	dst->samples = l->samples;
	dst->min_nsec = l->min_ns;
	dst->max_nsec = l->max_ns;
	dst->avg_nsec = ul_lat_avg_ns(l);
}

/* lat: UL_LAT_NR entries, or NULL for none yet. */
static void fill_msg_stats(struct ul_ctl_ni_blocks *b,
			   const struct ulnet_msg_stats *st,
			   const struct ul_lat *lat, uint32_t level)
{
	if (level >= 1) {
		b->has_stats = true;
		b->stats.send_count = sum4(st->send_count);
		b->stats.recv_count = sum4(st->recv_count);
		b->stats.drop_count = sum4(st->drop_count);
		if (lat) {
			fill_lat(&b->stats.put_egress, &lat[UL_LAT_PUT_EGRESS]);
			fill_lat(&b->stats.get_rtt, &lat[UL_LAT_GET_RTT]);
			fill_lat(&b->stats.put_ack, &lat[UL_LAT_PUT_ACK]);
		}
	}
	if (level >= 2) {
		b->has_msg_stats = true;
		fill_counts(&b->sent, st->send_count);
		fill_counts(&b->received, st->recv_count);
		fill_counts(&b->dropped, st->drop_count);
	}
}

void ul_ctlsrv_cpt_format(const struct ul_ctlsrv *srv, const struct ul_ni *ni,
			  char *buf, size_t len)
{
	unsigned int i, ncpt = srv->ncpt ? srv->ncpt : 1;
	size_t off = 0;
	bool first = true;

	buf[0] = '\0';
	for (i = 0; i < ncpt && i < 64 && off + 1 < len; i++) {
		int n;

		if (ni->cpt_mask && !(ni->cpt_mask & (1ULL << i)))
			continue;
		n = snprintf(buf + off, len - off, "%s%u", first ? "[" : ",",
			     i);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
		first = false;
	}
	if (off + 1 < len)
		snprintf(buf + off, len - off, "]");
}

int ul_ctlsrv_dev_cpt(unsigned int ncpt, unsigned int nnodes, int numa)
{
	unsigned int cpt;

	ncpt = ncpt ? ncpt : 1;
	nnodes = nnodes ? nnodes : 1;
	if (numa < 0 || (unsigned int)numa >= nnodes)
		return -1;
	cpt = ((unsigned int)numa * ncpt + nnodes - 1) / nnodes;
	return cpt < ncpt ? (int)cpt : -1;
}

/* One NI as net show prints it; 0@lo counts what it carried, as LNet's. */
static void fill_ni(const struct ul_ctlsrv *srv, struct ul_ctl_ni *out,
		    const struct ul_ni *ni, uint32_t level)
{
	bool is_lo = ni->nid.nid_type == ULNET_LND_LO;

	out->nid = ni->nid;
	out->status = (is_lo || ni->status == UL_NI_STATUS_UP)
			      ? UL_CTL_NI_STATUS_UP
			      : UL_CTL_NI_STATUS_DOWN;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ni->ifname);
	fill_msg_stats(&out->b, &ni->stats, ni->lat, level);
	if (level >= 4) {
		out->b.has_udsp = true;
		out->b.net_prio = prio(ni->net->sel_priority);
		out->b.nid_prio = prio(ni->sel_priority);
	}
	if (level >= 2) {
		out->b.has_health = true;
		out->b.health.fatal_error = ni->is_fatal;
		out->b.health.healthv = ni->healthv;
		/* health.md §4.2, the local NI column */
		out->b.health.interrupts = ni->hstats.interrupts;
		out->b.health.dropped = ni->hstats.dropped;
		out->b.health.aborted = ni->hstats.aborted;
		out->b.health.no_route = ni->hstats.no_route;
		out->b.health.timeouts = ni->hstats.timeouts;
		out->b.health.error = ni->hstats.error;
		ping_state(&out->b.health, ni, NULL);
	}
	if (level < 1)
		return;
	out->has_tunables = true;
	if (!is_lo) {
		/* lo has no credits: LNet shows zeros for it. */
		out->peer_timeout = ni->net->tun.peer_timeout_sec;
		out->peer_credits = ni->net->tun.peer_tx_credits;
		out->peer_buffer_credits = ni->net->tun.peer_buffer_credits;
		out->credits = ni->net->tun.credits;
		out->has_lnd_tunables = true;
		out->conns_per_peer =
			ni->conns_per_peer > 0 ? ni->conns_per_peer : 1;
		/* The LND's own value; an LND without one: what was set. */
		out->lnd_timeout =
			ul_node_lnd_timeout(srv->node, ni->nid.nid_type);
		if (out->lnd_timeout < 0)
			out->lnd_timeout =
				(int32_t)ul_node_sock_timeout(srv->node);
		out->tos = ni->tos;
	}
	out->has_cpt = true;
	out->dev_cpt = is_lo ? -1
			     : ul_ctlsrv_dev_cpt(srv->ncpt, srv->nnodes,
						 ni->numa_node);
	ul_ctlsrv_cpt_format(srv, ni, out->cpt, sizeof(out->cpt));
}

int ul_ctlsrv_build_net_show(struct ul_ctlsrv *srv,
			     const struct ul_ctl_net_show_req *req,
			     struct ul_ctl_reply *r)
{
	struct ul_core *core = ul_node_core(srv->node);
	size_t n = 0, k;
	uint32_t only = 0;
	struct ul_net *net;
	struct ul_ni *ni;

	if (req->has_net) {
		if (ulnet_net_parse(req->net, &only, NULL, 0)) {
			ul_ctl_reply_error(r, UL_CTL_OP_NET_SHOW, -ENOENT,
					   "cannot parse net");
			return 0;
		}
		if (!ul_net_find(core, only)) {
			ul_ctl_reply_error(r, UL_CTL_OP_NET_SHOW, -ESRCH,
					   "Network is down");
			return 0;
		}
	}
	memset(r, 0, sizeof(*r));
	r->op = UL_CTL_OP_NET_SHOW;
	ul_list_for_each_entry(net, &core->nets, core_link)
		if (!req->has_net || net->net_id == only)
			n++;
	r->net_show.nets = calloc(n ? n : 1, sizeof(*r->net_show.nets));
	if (!r->net_show.nets)
		return -ENOMEM;
	ul_list_for_each_entry(net, &core->nets, core_link) {
		struct ul_ctl_net *cn;

		if (req->has_net && net->net_id != only)
			continue;
		cn = &r->net_show.nets[r->net_show.nnets++];
		cn->net_id = net->net_id;
		cn->nis = calloc(net->nnis ? net->nnis : 1, sizeof(*cn->nis));
		if (!cn->nis)
			return -ENOMEM;
		k = 0;
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (k == net->nnis)
				break;
			fill_ni(srv, &cn->nis[k++], ni, req->verbose);
		}
		cn->nnis = k;
	}
	return 0;
}

/* What lnet_udsp_get_construct_info shows of a list (lnet-dlc.h). */
#define SHOW_NIDS_MAX 128

static int fill_peer_ni(struct ul_ctl_peer_ni *out,
			const struct ul_peer_ni *lpni,
			const struct ul_core *core, uint32_t level)
{
	const struct ul_peer *p = ul_peer_ni_peer(lpni);
	const struct ul_net *net = ul_net_find(core, lpni->peer_net->net_id);
	/* The message layer's counters: none before any traffic. */
	const struct ul_peer_ni_msgs *pm = lpni->msgs;
	struct ulnet_msg_stats none;
	bool is_tracked;

	memset(&none, 0, sizeof(none));
	out->nid = lpni->nid;
	/* up/down only where LNet tracks it (§7.3), else NA. */
	is_tracked = p->rtr_refcount > 0 || (core->tun.routing && net &&
					     net->tun.peer_timeout_sec > 0);
	if (!is_tracked)
		out->state = UL_CTL_PNI_STATE_NA;
	else if (lpni->ns_status == UL_NS_STATUS_UP)
		out->state = UL_CTL_PNI_STATE_UP;
	else
		out->state = UL_CTL_PNI_STATE_DOWN;
	if (level >= 1) {
		int max = net ? net->tun.peer_tx_credits : 0;

		out->has_credits = true;
		out->max_tx_credits = max;
		out->tx_credits = lpni->txcredits;
		out->min_tx_credits = lpni->mintxcredits;
		out->tx_q_nob = lpni->txqnob > 0 && lpni->txqnob <= UINT32_MAX
					? (uint32_t)lpni->txqnob
					: 0;
		/*
		 * Router buffer credits (routing.md §7.3): the net's
		 * peer_buffer_credits, else its peer credits, until it sends
		 * us something to forward (core/forward.c). None off local
		 * nets, as LNet.
		 */
		out->rtr_credits = !net ? 0
				   : net->tun.peer_buffer_credits > 0
					   ? net->tun.peer_buffer_credits
					   : max;
		out->min_rtr_credits = out->rtr_credits;
		if (net && pm && pm->has_rtr_credits) {
			out->rtr_credits = pm->rtrcredits;
			out->min_rtr_credits = pm->minrtrcredits;
		}
		out->refcount = lpni->refcount;
	}
	fill_msg_stats(&out->b, pm ? &pm->stats : &none, pm ? pm->lat : NULL,
		       level);
	if (level >= 4) {
		const struct ul_nid_list *rtrs = &lpni->pref_rtr_nids;
		size_t n = rtrs->count < SHOW_NIDS_MAX ? rtrs->count
						       : SHOW_NIDS_MAX;

		out->b.has_udsp = true;
		out->b.net_prio = prio(lpni->peer_net->sel_priority);
		out->b.nid_prio = prio(lpni->sel_priority);
		if (n) {
			out->pref_rtrs = calloc(n, sizeof(*out->pref_rtrs));
			if (!out->pref_rtrs)
				return -ENOMEM;
			memcpy(out->pref_rtrs, ul_nid_list_items(rtrs),
			       n * sizeof(*out->pref_rtrs));
			out->npref_rtrs = n;
		}
	}
	if (level >= 2) {
		out->b.has_health = true;
		out->b.health.healthv = lpni->healthv;
		if (pm) { /* health.md §4.2, the peer NI column */
			out->b.health.dropped = pm->hs_dropped;
			out->b.health.error = pm->hs_error;
			out->b.health.timeouts = pm->hs_timeout;
			out->b.health.network_timeout = pm->hs_network_timeout;
		}
		ping_state(&out->b.health, NULL, lpni);
	}
	return 0;
}

static int fill_peer(struct ul_ctl_peer *out, const struct ul_peer *p,
		     const struct ul_core *core, uint32_t level)
{
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;
	int rc;

	out->primary = p->primary_nid;
	out->is_mr = p->is_mr;
	if (level >= 3) {
		out->has_state = true;
		out->state = ul_disc_state_bits(p);
	}
	out->pnis = calloc(p->nnis ? p->nnis : 1, sizeof(*out->pnis));
	if (!out->pnis)
		return -ENOMEM;
	ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
			if (out->npnis == p->nnis)
				return 0;
			rc = fill_peer_ni(&out->pnis[out->npnis++], lpni, core,
					  level);
			if (rc)
				return rc;
		}
	return 0;
}

int ul_ctlsrv_build_peer_show(struct ul_ctlsrv *srv,
			      const struct ul_ctl_peer_show_req *req,
			      struct ul_ctl_reply *r)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ul_peer *only = NULL, **peers = NULL;
	size_t n = 0, i;
	int rc;

	if (req->has_nid) {
		only = ul_peer_find(core, &req->nid);
		if (!only || ul_ctlsrv_peer_is_lo(only)) {
			ul_ctl_reply_error(r, UL_CTL_OP_PEER_SHOW, -ENOENT,
					   "cannot find peer");
			return 0;
		}
		peers = &only;
		n = 1;
	} else {
		rc = ul_ctlsrv_peers_by_cpt(srv, &peers, &n);
		if (rc)
			return rc;
	}
	memset(r, 0, sizeof(*r));
	r->op = UL_CTL_OP_PEER_SHOW;
	r->peer_show.peers = calloc(n ? n : 1, sizeof(*r->peer_show.peers));
	rc = r->peer_show.peers ? 0 : -ENOMEM;
	for (i = 0; i < n && !rc; i++)
		rc = fill_peer(&r->peer_show.peers[r->peer_show.npeers++],
			       peers[i], core, req->verbose);
	if (!only)
		free(peers);
	return rc;
}
