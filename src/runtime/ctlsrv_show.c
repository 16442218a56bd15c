/*
 * net show and peer show (src/ctl/proto.h NET_SHOW, PEER_SHOW) as reply
 * documents (ctl/proto_doc.h), built from the node's state at the
 * verbose level asked for, with lnetctl's keys, order and nesting
 * (reference/lnetctl.md §6.3, §7.3): ulnetctl prints the document as it
 * prints every other show, and the same document is what export reads.
 * UL_CTL_SHOW_BACKUP asks for what `export --backup` keeps (proto.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_sm.h"
#include "core/health.h"
#include "core/msg.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"

#define BACKUP UL_CTL_SHOW_BACKUP

static int32_t prio(uint32_t p)
{
	return p == UL_PRIO_UNSET ? -1 : (int32_t)p;
}

static uint64_t sum4(const uint64_t v[4])
{
	return v[0] + v[1] + v[2] + v[3];
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

/* "<name>_samples" ... "<name>_avg_nsec" of one latency sample set. */
static void doc_lat(struct ul_ctl_msg *d, const char *name,
		    const struct ul_lat *l)
{
	static const struct ul_lat none;
	char key[64];

	if (!l)
		l = &none;
	snprintf(key, sizeof(key), "%s_samples", name);
	ul_ctl_doc_uint(d, key, l->samples);
	snprintf(key, sizeof(key), "%s_min_nsec", name);
	ul_ctl_doc_uint(d, key, l->min_ns);
	snprintf(key, sizeof(key), "%s_max_nsec", name);
	ul_ctl_doc_uint(d, key, l->max_ns);
	snprintf(key, sizeof(key), "%s_avg_nsec", name);
	ul_ctl_doc_uint(d, key, ul_lat_avg_ns(l));
}

/* "statistics" (-v 1); lat: UL_LAT_NR sample sets, or NULL for none. */
static void doc_statistics(struct ul_ctl_msg *d,
			   const struct ulnet_msg_stats *st,
			   const struct ul_lat *lat)
{
	ul_ctl_doc_map(d, "statistics");
	ul_ctl_doc_uint(d, "send_count", sum4(st->send_count));
	ul_ctl_doc_uint(d, "recv_count", sum4(st->recv_count));
	ul_ctl_doc_uint(d, "drop_count", sum4(st->drop_count));
	doc_lat(d, "put_egress", lat ? &lat[UL_LAT_PUT_EGRESS] : NULL);
	doc_lat(d, "get_rtt", lat ? &lat[UL_LAT_GET_RTT] : NULL);
	doc_lat(d, "put_ack", lat ? &lat[UL_LAT_PUT_ACK] : NULL);
	ul_ctl_doc_end(d);
}

/* One of sent/received/dropped_stats; by: ACK 0, PUT 1, GET 2, REPLY 3. */
static void doc_counts(struct ul_ctl_msg *d, const char *key,
		       const uint64_t by[4])
{
	ul_ctl_doc_map(d, key);
	ul_ctl_doc_uint(d, "put", by[1]);
	ul_ctl_doc_uint(d, "get", by[2]);
	ul_ctl_doc_uint(d, "reply", by[3]);
	ul_ctl_doc_uint(d, "ack", by[0]);
	ul_ctl_doc_uint(d, "hello", 0);
	ul_ctl_doc_end(d);
}

static void doc_msg_stats(struct ul_ctl_msg *d,
			  const struct ulnet_msg_stats *st)
{
	doc_counts(d, "sent_stats", st->send_count);
	doc_counts(d, "received_stats", st->recv_count);
	doc_counts(d, "dropped_stats", st->drop_count);
}

/* What lnet_udsp_get_construct_info shows of a list (lnet-dlc.h). */
#define SHOW_NIDS_MAX 128

/*
 * "udsp info" (-v 4), with a peer NI's preferred gateways when it has
 * some (udsp.md §6: numbered NID-0, NID-1...; the preferred source NIDs
 * travel only on the ioctl path).
 */
static void doc_udsp_info(struct ul_ctl_msg *d, int32_t net_prio,
			  int32_t nid_prio, const struct ul_nid_list *rtrs)
{
	size_t i, n = rtrs ? rtrs->count : 0;
	char key[32];

	if (n > SHOW_NIDS_MAX)
		n = SHOW_NIDS_MAX;
	ul_ctl_doc_map(d, "udsp info");
	ul_ctl_doc_int(d, "net priority", net_prio);
	ul_ctl_doc_int(d, "nid priority", nid_prio);
	if (n) {
		ul_ctl_doc_map(d, "Preferred gateway NIDs");
		for (i = 0; i < n; i++) {
			snprintf(key, sizeof(key), "NID-%zu", i);
			ul_ctl_doc_nid(d, key, &ul_nid_list_items(rtrs)[i]);
		}
		ul_ctl_doc_end(d);
	}
	ul_ctl_doc_end(d);
}

/* "tunables", and "lnd tunables" except for lo (LNet shows zeros). */
static void doc_tunables(const struct ul_ctlsrv *srv, struct ul_ctl_msg *d,
			 const struct ul_ni *ni, bool is_backup)
{
	bool is_lo = ni->nid.nid_type == ULNET_LND_LO;
	const struct ul_net_tunables *t = &ni->net->tun;
	int32_t lnd_timeout;

	ul_ctl_doc_map(d, "tunables");
	ul_ctl_doc_int(d, "peer_timeout", is_lo ? 0 : t->peer_timeout_sec);
	ul_ctl_doc_int(d, "peer_credits", is_lo ? 0 : t->peer_tx_credits);
	ul_ctl_doc_int(d, "peer_buffer_credits",
		       is_lo ? 0 : t->peer_buffer_credits);
	ul_ctl_doc_int(d, "credits", is_lo ? 0 : t->credits);
	ul_ctl_doc_end(d);
	if (is_lo)
		return;
	ul_ctl_doc_map(d, "lnd tunables");
	ul_ctl_doc_int(d, "conns_per_peer",
		       ni->conns_per_peer > 0 ? ni->conns_per_peer : 1);
	if (!is_backup) {
		/* The LND's own value; an LND without one: what was set. */
		lnd_timeout = ul_node_lnd_timeout(srv->node, ni->nid.nid_type);
		if (lnd_timeout < 0)
			lnd_timeout = (int32_t)ul_node_sock_timeout(srv->node);
		ul_ctl_doc_int(d, "timeout", lnd_timeout);
	}
	ul_ctl_doc_int(d, "tos", ni->tos);
	ul_ctl_doc_end(d);
}

static void doc_interfaces(struct ul_ctl_msg *d, const struct ul_ni *ni)
{
	ul_ctl_doc_map(d, "interfaces");
	ul_ctl_doc_str(d, "0", ni->ifname);
	ul_ctl_doc_end(d);
}

static void doc_cpt(const struct ul_ctlsrv *srv, struct ul_ctl_msg *d,
		    const struct ul_ni *ni)
{
	char cpt[UL_CTL_NAME_MAX];

	ul_ctlsrv_cpt_format(srv, ni, cpt, sizeof(cpt));
	ul_ctl_doc_qstr(d, "CPT", cpt);
}

/* What export --backup keeps of an NI (lnetctl.md §15). */
static void doc_backup_ni(const struct ul_ctlsrv *srv, struct ul_ctl_msg *d,
			  const struct ul_ni *ni)
{
	if (ni->ifname[0])
		doc_interfaces(d, ni);
	else
		ul_ctl_doc_nid(d, "nid", &ni->nid);
	doc_tunables(srv, d, ni, true);
	doc_cpt(srv, d, ni);
}

/* One local NI, fields and levels of lnetctl.md §6.3; 0@lo counts too. */
static void doc_ni(const struct ul_ctlsrv *srv, struct ul_ctl_msg *d,
		   const struct ul_ni *ni, uint32_t level)
{
	bool is_lo = ni->nid.nid_type == ULNET_LND_LO;
	uint32_t count;
	int64_t next;

	ul_ctl_doc_map(d, NULL);
	if (level == BACKUP) {
		doc_backup_ni(srv, d, ni);
		ul_ctl_doc_end(d);
		return;
	}
	ul_ctl_doc_nid(d, "nid", &ni->nid);
	ul_ctl_doc_str(d, "status",
		       is_lo || ni->status == UL_NI_STATUS_UP ? "up" : "down");
	if (ni->ifname[0])
		doc_interfaces(d, ni);
	if (level >= 1)
		doc_statistics(d, &ni->stats, ni->lat);
	if (level >= 4)
		doc_udsp_info(d, prio(ni->net->sel_priority),
			      prio(ni->sel_priority), NULL);
	if (level >= 2) {
		doc_msg_stats(d, &ni->stats);
		ul_health_ni_ping_state(ni, &count, &next);
		ul_ctl_doc_map(d, "health stats");
		/* health.md §4.2, the local NI column */
		ul_ctl_doc_uint(d, "fatal_error", ni->is_fatal);
		ul_ctl_doc_int(d, "health value", ni->healthv);
		ul_ctl_doc_uint(d, "interrupts", ni->hstats.interrupts);
		ul_ctl_doc_uint(d, "dropped", ni->hstats.dropped);
		ul_ctl_doc_uint(d, "aborted", ni->hstats.aborted);
		ul_ctl_doc_uint(d, "no route", ni->hstats.no_route);
		ul_ctl_doc_uint(d, "timeouts", ni->hstats.timeouts);
		ul_ctl_doc_uint(d, "error", ni->hstats.error);
		ul_ctl_doc_uint(d, "ping_count", count);
		ul_ctl_doc_int(d, "next_ping", next);
		ul_ctl_doc_end(d);
	}
	if (level >= 1) {
		doc_tunables(srv, d, ni, false);
		ul_ctl_doc_int(d, "dev cpt",
			       is_lo ? -1
				     : ul_ctlsrv_dev_cpt(srv->ncpt, srv->nnodes,
							 ni->numa_node));
		doc_cpt(srv, d, ni);
	}
	ul_ctl_doc_end(d);
}

/* export --backup leaves the lo net out (lnetctl.md §15). */
static bool is_shown(const struct ul_net *net, uint32_t only, bool has_only,
		     uint32_t level)
{
	if (has_only && net->net_id != only)
		return false;
	return level != BACKUP || ulnet_net_type(net->net_id) != ULNET_LND_LO;
}

int ul_ctlsrv_net_show(struct ul_ctlsrv *srv,
		       const struct ul_ctl_net_show_req *req,
		       struct ul_ctl_msg *d, struct ul_ctl_reply *r)
{
	struct ul_core *core = ul_node_core(srv->node);
	uint32_t only = 0, level = req->verbose;
	char name[32];
	struct ul_net *net;
	struct ul_ni *ni;
	size_t n = 0;

	if (req->has_net) {
		if (ulnet_net_parse(req->net, &only, NULL, 0)) {
			ul_ctl_reply_error(r, UL_CTL_OP_NET_SHOW, -ENOENT,
					   "cannot parse net");
			return 1;
		}
		if (!ul_net_find(core, only)) {
			ul_ctl_reply_error(r, UL_CTL_OP_NET_SHOW, -ESRCH,
					   "Network is down");
			return 1;
		}
	}
	ul_ctl_doc_init(d);
	ul_list_for_each_entry(net, &core->nets, core_link)
		if (is_shown(net, only, req->has_net, level))
			n++;
	if (!n)
		return 0;
	ul_ctl_doc_seq(d, "net");
	ul_list_for_each_entry(net, &core->nets, core_link) {
		if (!is_shown(net, only, req->has_net, level))
			continue;
		ul_ctl_doc_map(d, NULL);
		ul_ctl_doc_str(d, "net type",
			       ulnet_net_format(net->net_id, name,
						sizeof(name)));
		ul_ctl_doc_seq(d, "local NI(s)");
		ul_list_for_each_entry(ni, &net->nis, net_link)
			doc_ni(srv, d, ni, level);
		ul_ctl_doc_end(d);
		ul_ctl_doc_end(d);
	}
	ul_ctl_doc_end(d);
	return 0;
}

/* A peer NI's up/down, only where LNet tracks it (§7.3), else NA. */
static const char *pni_state(const struct ul_peer_ni *lpni,
			     const struct ul_core *core,
			     const struct ul_net *net)
{
	const struct ul_peer *p = ul_peer_ni_peer(lpni);
	bool is_tracked =
		p->rtr_refcount > 0 ||
		(core->tun.routing && net && net->tun.peer_timeout_sec > 0);

	if (!is_tracked)
		return "NA";
	return lpni->ns_status == UL_NS_STATUS_UP ? "up" : "down";
}

void ul_ctlsrv_pni_vals(const struct ul_core *core,
			const struct ul_peer_ni *lpni,
			struct ul_ctlsrv_pni_vals *v)
{
	const struct ul_net *net = ul_net_find(core, lpni->peer_net->net_id);
	/* The message layer's counters: none before any traffic. */
	const struct ul_peer_ni_msgs *pm = lpni->msgs;
	uint32_t count;
	int64_t next;

	memset(v, 0, sizeof(*v));
	v->state = pni_state(lpni, core, net);
	v->max_tx = net ? net->tun.peer_tx_credits : 0;
	v->tx = lpni->txcredits;
	v->min_tx = lpni->mintxcredits;
	v->txq = lpni->txqnob > 0 && lpni->txqnob <= UINT32_MAX
			 ? (uint64_t)lpni->txqnob
			 : 0;
	/*
	 * Router buffer credits (routing.md §7.3): the net's
	 * peer_buffer_credits, else its peer credits, until it sends us
	 * something to forward (core/forward.c). None off local nets, as
	 * LNet.
	 */
	v->rtr = !net ? 0
		 : net->tun.peer_buffer_credits > 0
			 ? net->tun.peer_buffer_credits
			 : v->max_tx;
	v->min_rtr = v->rtr;
	if (net && pm && pm->has_rtr_credits) {
		v->rtr = pm->rtrcredits;
		v->min_rtr = pm->minrtrcredits;
	}
	v->refcount = lpni->refcount;
	if (pm) {
		v->st = pm->stats;
		memcpy(v->lat, pm->lat, sizeof(v->lat));
		v->hs_dropped = pm->hs_dropped;
		v->hs_timeout = pm->hs_timeout;
		v->hs_error = pm->hs_error;
		v->hs_network_timeout = pm->hs_network_timeout;
	}
	v->healthv = lpni->healthv;
	ul_health_lpni_ping_state(lpni, &count, &next);
	v->ping_count = count;
	v->next_ping = next;
}

/* The credit fields of a peer NI (-v 1). */
static void doc_pni_credits(struct ul_ctl_msg *d,
			    const struct ul_ctlsrv_pni_vals *v)
{
	ul_ctl_doc_int(d, "max_ni_tx_credits", v->max_tx);
	ul_ctl_doc_int(d, "available_tx_credits", v->tx);
	ul_ctl_doc_int(d, "min_tx_credits", v->min_tx);
	ul_ctl_doc_uint(d, "tx_q_num_of_buf", v->txq);
	ul_ctl_doc_int(d, "available_rtr_credits", v->rtr);
	ul_ctl_doc_int(d, "min_rtr_credits", v->min_rtr);
	ul_ctl_doc_int(d, "refcount", v->refcount);
}

/* One peer NI, fields and levels of lnetctl.md §7.3. */
static void doc_peer_ni(struct ul_ctl_msg *d, const struct ul_peer_ni *lpni,
			const struct ul_core *core, uint32_t level)
{
	struct ul_ctlsrv_pni_vals v;

	ul_ctl_doc_map(d, NULL);
	ul_ctl_doc_nid(d, "nid", &lpni->nid);
	if (level == BACKUP) {
		ul_ctl_doc_end(d);
		return;
	}
	if (level >= 4)
		doc_udsp_info(d, prio(lpni->peer_net->sel_priority),
			      prio(lpni->sel_priority), &lpni->pref_rtr_nids);
	ul_ctlsrv_pni_vals(core, lpni, &v);
	ul_ctl_doc_str(d, "state", v.state);
	if (level >= 1) {
		doc_pni_credits(d, &v);
		doc_statistics(d, &v.st, v.lat);
	}
	if (level >= 2) {
		doc_msg_stats(d, &v.st);
		ul_ctl_doc_map(d, "health stats");
		/* health.md §4.2, the peer NI column */
		ul_ctl_doc_int(d, "health value", v.healthv);
		ul_ctl_doc_uint(d, "dropped", v.hs_dropped);
		ul_ctl_doc_uint(d, "timeout", v.hs_timeout);
		ul_ctl_doc_uint(d, "error", v.hs_error);
		ul_ctl_doc_uint(d, "network timeout", v.hs_network_timeout);
		ul_ctl_doc_uint(d, "ping_count", v.ping_count);
		ul_ctl_doc_int(d, "next_ping", v.next_ping);
		ul_ctl_doc_end(d);
	}
	ul_ctl_doc_end(d);
}

static void doc_peer(struct ul_ctl_msg *d, const struct ul_peer *p,
		     const struct ul_core *core, uint32_t level)
{
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;

	ul_ctl_doc_map(d, NULL);
	ul_ctl_doc_nid(d, "primary nid", &p->primary_nid);
	ul_ctl_doc_bool(d, "Multi-Rail", p->is_mr);
	if (level >= 3 && level != BACKUP)
		ul_ctl_doc_uint(d, "peer state", ul_disc_state_bits(p));
	ul_ctl_doc_seq(d, "peer ni");
	ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
			doc_peer_ni(d, lpni, core, level);
	ul_ctl_doc_end(d);
	ul_ctl_doc_end(d);
}

int ul_ctlsrv_peer_show(struct ul_ctlsrv *srv,
			const struct ul_ctl_peer_show_req *req,
			struct ul_ctl_msg *d, struct ul_ctl_reply *r)
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
			return 1;
		}
		peers = &only;
		n = 1;
	} else {
		rc = ul_ctlsrv_peers_by_cpt(srv, &peers, &n);
		if (rc)
			return rc;
	}
	ul_ctl_doc_init(d);
	i = req->has_cursor && !only ? req->cursor : 0;
	if (i < n) {
		ul_ctl_doc_seq(d, "peer");
		for (; i < n; i++) {
			doc_peer(d, peers[i], core, req->verbose);
			/* a page ends past its size; the next starts here */
			if (req->has_cursor && i + 1 < n &&
			    d->len >= UL_CTL_PAGE_BYTES) {
				r->has_cursor = true;
				r->cursor = (uint32_t)(i + 1);
				break;
			}
		}
		ul_ctl_doc_end(d);
	}
	if (!only)
		free(peers);
	return 0;
}
