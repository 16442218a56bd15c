/*
 * The control socket server (ctlsrv.h; the protocol is src/ctl/proto.h).
 *
 * A client connection is one explicit state machine:
 *
 *	READ_HDR   waiting for the 12-byte header (the timer runs from
 *	           accept, or from the last reply, to the whole request)
 *	READ_BODY  header accepted, reading its payload
 *	BUSY       request handed to the node (a ping in flight): nothing
 *	           is read, the timer is off; the node's callback answers
 *	WRITE      a reply is queued; EPOLLOUT until it is drained, then
 *	           back to READ_HDR
 *	WRITE_CLOSE an error reply is queued; the connection closes once
 *	           it is drained (malformed request, refused peer)
 *
 * Timer: one per client, UL_CTLSRV_CLIENT_TIMEOUT_MS, armed whenever the
 * server waits on the client (READ_*, WRITE*); expiry closes the client
 * with one log line. A ping waits on the node, which has its own timeout.
 *
 * A ping's callback may fire after its client is gone: the pending ping
 * is a separate object that the client detaches from when it closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sys/epoll.h>

#include "core/core.h"
#include "core/msg.h"
#include "core/udsp.h"
#include "wire/wire.h"
#include "core/node.h"
#include "ctl/proto.h"
#include "runtime/ctlsrv.h"
#include "runtime/ctlsrv_int.h"
#include "ctl/proto_doc.h"
#include "runtime/loop.h"
#include "runtime/perf.h"
#include "util/err.h"
#include "util/list.h"
#include "util/log.h"
#include "util/timer.h"

/* Connections taken per wake-up of the listening socket. */
#define ACCEPT_BURST 16
/* lnetctl's ping waits at most 180 s (lnetctl.md §11.1). */
#define PING_TIMEOUT_MAX_MS 180000u
/* socklnd's own timeout, shown as "lnd tunables: timeout" (§6.1). */
#define SOCKLND_TIMEOUT_SEC 50

struct ctl_client;

enum ctl_client_state {
	CTL_CLIENT_READ_HDR,
	CTL_CLIENT_READ_BODY,
	CTL_CLIENT_BUSY,
	CTL_CLIENT_WRITE,
	CTL_CLIENT_WRITE_CLOSE,
};

/* A ping in flight; outlives its client if the client goes first. */
struct ctl_ping {
	struct ctl_client *c; /* NULL once the client closed */
	struct ulnet_nid target;
	bool is_discover; /* `discover`: merge what the reply says */
};

/* Rails a perf reply reports (local NIs, 0@lo excluded). */
#define PERF_RAILS_MAX 32

/* A perf stream in flight; outlives its client like a ping. */
struct ctl_perf {
	struct ctl_client *c; /* NULL once the client closed */
	struct ul_node *node;
	size_t nrails;
	struct ulnet_ni_info before[PERF_RAILS_MAX];
};

struct ctl_client {
	struct ul_list link; /* on ul_ctlsrv.clients */
	struct ul_ctlsrv *srv;
	int fd;
	pid_t pid; /* from SO_PEERCRED, for log lines */
	struct ul_io io;
	struct ul_timer timer;
	enum ctl_client_state state;
	uint8_t hdr[UL_CTL_HDR_SIZE];
	size_t hdr_got;
	uint8_t *frame; /* header + payload being read */
	size_t frame_len;
	size_t frame_got;
	struct ul_ctl_msg out; /* reply being written */
	size_t out_off;
	struct ctl_ping *ping;
	struct ctl_perf *perf;
};

static void client_close(struct ctl_client *c)
{
	struct ul_ctlsrv *srv = c->srv;

	ul_io_stop(&c->io);
	ul_timer_cancel(ul_loop_timers(srv->loop), &c->timer);
	close(c->fd);
	if (c->ping)
		c->ping->c = NULL;
	if (c->perf)
		c->perf->c = NULL;
	ul_list_del(&c->link);
	srv->nclients--;
	free(c->frame);
	ul_ctl_msg_fini(&c->out);
	free(c);
}

static void client_arm_timer(struct ctl_client *c)
{
	struct ul_timer_heap *h = ul_loop_timers(c->srv->loop);

	/* Without a timer the client could stall forever: close it now. */
	if (ul_timer_arm(h, &c->timer, h->now_ns + c->srv->timeout_ns)) {
		ul_log(c->srv->log, UL_D_ERROR,
		       "ctl: client pid %d: no memory for its timer, closing",
		       (int)c->pid);
		client_close(c);
	}
}

static void client_on_timer(struct ul_timer *t, uint64_t now_ns)
{
	struct ctl_client *c = ul_container_of(t, struct ctl_client, timer);

	(void)now_ns;
	ul_log(c->srv->log, UL_D_NETERROR,
	       "ctl: client pid %d: no progress for %llu ms in state %d, "
	       "closing",
	       (int)c->pid, (unsigned long long)(c->srv->timeout_ns / 1000000u),
	       c->state);
	client_close(c);
}

/* Write what the socket takes; 0 when all is out, 1 pending, <0 failed. */
static int client_flush(struct ctl_client *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.buf + c->out_off,
				 c->out.len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n < 0)
			return -errno;
		c->out_off += (size_t)n;
	}
	return 0;
}

/*
 * Write the queued reply. Once it is out: the next request, or close.
 * The client may be gone when this returns.
 */
static void client_after_write(struct ctl_client *c)
{
	int rc = client_flush(c);

	if (rc < 0 || (rc == 0 && c->state == CTL_CLIENT_WRITE_CLOSE)) {
		client_close(c);
		return;
	}
	if (rc == 0) {
		ul_ctl_msg_fini(&c->out);
		c->out_off = 0;
		c->state = CTL_CLIENT_READ_HDR;
		c->hdr_got = 0;
	}
	if (ul_io_modify(&c->io, rc ? EPOLLOUT : EPOLLIN)) {
		client_close(c);
		return;
	}
	/* Progress on a write moves the deadline; a request has one. */
	client_arm_timer(c);
}

/* Queue a reply and start writing it; the client may be gone after. */
static void client_send(struct ctl_client *c, const struct ul_ctl_reply *r,
			bool then_close)
{
	struct ul_ctl_reply err_reply;
	int rc;

	ul_ctl_msg_fini(&c->out);
	c->out_off = 0;
	rc = ul_ctl_reply_encode(r, &c->out);
	if (rc) {
		ul_ctl_msg_fini(&c->out);
		ul_log(c->srv->log, UL_D_WARNING,
		       "ctl: client pid %d: reply to op %u not sent: %s",
		       (int)c->pid, r->op, strerror(-rc));
		ul_ctl_reply_error(&err_reply, r->op, rc,
				   rc == -EMSGSIZE ? "reply too large"
						   : "cannot build reply");
		if (ul_ctl_reply_encode(&err_reply, &c->out)) {
			client_close(c);
			return;
		}
	}
	c->state = then_close ? CTL_CLIENT_WRITE_CLOSE : CTL_CLIENT_WRITE;
	client_after_write(c);
}

/* Queue the document reply of a generic op. */
static void client_send_doc(struct ctl_client *c, uint16_t op,
			    const struct ul_ctl_msg *doc)
{
	struct ul_ctl_reply err_reply;
	int rc;

	ul_ctl_msg_fini(&c->out);
	c->out_off = 0;
	rc = ul_ctl_doc_reply(doc, op, &c->out);
	if (rc) {
		ul_ctl_msg_fini(&c->out);
		ul_ctl_reply_error(&err_reply, op, rc,
				   rc == -EMSGSIZE ? "reply too large"
						   : "cannot build reply");
		client_send(c, &err_reply, false);
		return;
	}
	c->state = CTL_CLIENT_WRITE;
	client_after_write(c);
}

/*
 * Refuse what the client sent: one log line, an error reply that answers
 * any op (op 0), then close.
 */
static void client_refuse(struct ctl_client *c, int rc, const char *msg,
			  bool with_version)
{
	struct ul_ctl_reply r;

	ul_log(c->srv->log, UL_D_NETERROR, "ctl: client pid %d: %s, closing",
	       (int)c->pid, msg);
	ul_ctl_reply_error(&r, 0, rc, msg);
	if (with_version)
		r.version = UL_CTL_VERSION;
	if (ul_io_modify(&c->io, 0)) {
		client_close(c);
		return;
	}
	client_send(c, &r, true);
}

/* ---- Replies built from the node's state ----------------------------- */

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

/* How many NUMA nodes the host has (node0, node1, ... in sysfs). */
static unsigned int host_numa_nodes(void)
{
	char path[64];
	unsigned int n = 0;

	do {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u",
			 n);
	} while (access(path, F_OK) == 0 && ++n < 1024);
	return n ? n : 1;
}

static void fill_ni(const struct ul_ctlsrv *srv, struct ul_ctl_ni *out,
		    const struct ul_ni *ni, uint32_t level,
		    const struct ulnet_ni_info *info, size_t ninfo)
{
	bool is_lo = ni->nid.nid_type == ULNET_LND_LO;
	struct ulnet_msg_stats none;
	const struct ulnet_msg_stats *st = &none;
	size_t i;

	memset(&none, 0, sizeof(none));
	out->nid = ni->nid;
	out->status = (is_lo || ni->status == UL_NI_STATUS_UP)
			      ? UL_CTL_NI_STATUS_UP
			      : UL_CTL_NI_STATUS_DOWN;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ni->ifname);
	for (i = 0; i < ninfo; i++)
		if (ulnet_nid_same(&info[i].nid, &ni->nid))
			st = &info[i].stats;
	fill_msg_stats(&out->b, st, ni->lat, level);
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
				srv->lnd_timeout > 0 ? srv->lnd_timeout
				: srv->lnd_timeout == 0
					? (int32_t)ul_tunables_lnd_timeout(
						  &ul_node_core(srv->node)->tun)
					: SOCKLND_TIMEOUT_SEC;
		out->tos = ni->tos;
	}
	out->has_cpt = true;
	out->dev_cpt = is_lo ? -1
			     : ul_ctlsrv_dev_cpt(srv->ncpt, srv->nnodes,
						 ni->numa_node);
	ul_ctlsrv_cpt_format(srv, ni, out->cpt, sizeof(out->cpt));
}

static int build_net_show(struct ul_ctlsrv *srv,
			  const struct ul_ctl_net_show_req *req,
			  struct ul_ctl_reply *r)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ulnet_ni_info *info = NULL;
	size_t ninfo = 0, n = 0, k;
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
	if (core->nnis) {
		info = calloc(core->nnis, sizeof(*info));
		if (!info)
			return -ENOMEM;
		if (ul_node_ni_info(srv->node, info, core->nnis, &ninfo))
			ninfo = 0;
		if (ninfo > core->nnis)
			ninfo = core->nnis;
	}
	memset(r, 0, sizeof(*r));
	r->op = UL_CTL_OP_NET_SHOW;
	ul_list_for_each_entry(net, &core->nets, core_link)
		if (!req->has_net || net->net_id == only)
			n++;
	r->net_show.nets = calloc(n ? n : 1, sizeof(*r->net_show.nets));
	if (!r->net_show.nets) {
		free(info);
		return -ENOMEM;
	}
	ul_list_for_each_entry(net, &core->nets, core_link) {
		struct ul_ctl_net *cn;

		if (req->has_net && net->net_id != only)
			continue;
		cn = &r->net_show.nets[r->net_show.nnets++];
		cn->net_id = net->net_id;
		cn->nis = calloc(net->nnis ? net->nnis : 1, sizeof(*cn->nis));
		if (!cn->nis) {
			free(info);
			return -ENOMEM;
		}
		k = 0;
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (k == net->nnis)
				break;
			fill_ni(srv, &cn->nis[k++], ni, req->verbose, info,
				ninfo);
		}
		cn->nnis = k;
	}
	free(info);
	return 0;
}

/* LNet's peer state bits that ulnet tracks (lnetctl.md §7.3). */
static uint32_t peer_state_bits(const struct ul_peer *p)
{
	uint32_t s = 0;

	if (p->is_mr)
		s |= 1u << 0;
	if (p->has_no_discovery)
		s |= 1u << 1;
	/* Only what a gateway's ping said makes it a router here. */
	if (p->rtr_refcount && p->is_router_enabled)
		s |= 1u << 2;
	if (p->is_configured)
		s |= 1u << 3;
	if (p->is_lock_prim)
		s |= 1u << 20;
	return s;
}

static void fill_peer_ni(struct ul_ctl_peer_ni *out,
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
		out->min_tx_credits = lpni->txcredits < max ? lpni->txcredits
							    : max;
		out->tx_q_nob = lpni->txqnob > 0 && lpni->txqnob <= UINT32_MAX
					? (uint32_t)lpni->txqnob
					: 0;
		out->rtr_credits = max;
		out->min_rtr_credits = max;
		out->refcount = lpni->refcount;
	}
	fill_msg_stats(&out->b, pm ? &pm->stats : &none, pm ? pm->lat : NULL,
		       level);
	if (level >= 4) {
		out->b.has_udsp = true;
		out->b.net_prio = prio(lpni->peer_net->sel_priority);
		out->b.nid_prio = prio(lpni->sel_priority);
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
	}
}

static int fill_peer(struct ul_ctl_peer *out, const struct ul_peer *p,
		     const struct ul_core *core, uint32_t level)
{
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;

	out->primary = p->primary_nid;
	out->is_mr = p->is_mr;
	if (level >= 3) {
		out->has_state = true;
		out->state = peer_state_bits(p);
	}
	out->pnis = calloc(p->nnis ? p->nnis : 1, sizeof(*out->pnis));
	if (!out->pnis)
		return -ENOMEM;
	ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
			if (out->npnis == p->nnis)
				return 0;
			fill_peer_ni(&out->pnis[out->npnis++], lpni, core,
				     level);
		}
	return 0;
}

static int build_peer_show(struct ul_ctlsrv *srv,
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

/* ---- Ping ------------------------------------------------------------ */

static void ping_failed(struct ctl_client *c, const struct ulnet_nid *nid,
			int rc)
{
	char s[ULNET_NIDSTR_SIZE], msg[64 + ULNET_NIDSTR_SIZE];
	struct ul_ctl_reply r;

	ulnet_nid_format(nid, s, sizeof(s));
	snprintf(msg, sizeof(msg), "failed to ping %s", s);
	ul_ctl_reply_error(&r, UL_CTL_OP_PING, rc, msg);
	client_send(c, &r, false);
}

static void discover_failed(struct ctl_client *c, const struct ulnet_nid *nid,
			    int rc);
static void discover_done(struct ctl_client *c, const struct ulnet_nid *target,
			  const struct ulnet_ping_result *res);
static void ping_done(void *arg, int status,
		      const struct ulnet_ping_result *res)
{
	struct ctl_ping *pg = arg;
	struct ctl_client *c = pg->c;
	struct ulnet_nid target = pg->target;
	bool is_discover = pg->is_discover;
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
		discover_done(c, &target, res);
		return;
	}
	memset(&r, 0, sizeof(r));
	memset(nis, 0, sizeof(nis));
	r.op = UL_CTL_OP_PING;
	r.ping.primary = res->primary.nid;
	r.ping.pid = res->primary.pid;
	r.ping.features = res->features;
	for (i = 0; i < res->nnis && i < 64; i++) {
		nis[i].nid = res->nis[i].nid;
		nis[i].status = res->nis[i].status;
	}
	r.ping.nnis = i;
	r.ping.nis = nis;
	client_send(c, &r, false);
}

/*
 * Ping target for a ping or a discover; the answer goes to c through
 * ping_done. timeout_ms 0 (or 180 s and more) waits LNet's 180 s.
 */
static void start_ping(struct ctl_client *c, const struct ulnet_nid *target,
		       const struct ulnet_nid *src, uint32_t timeout_ms,
		       bool is_discover)
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

static void do_ping(struct ctl_client *c, const struct ul_ctl_ping_req *req)
{
	if (c->srv->is_down) {
		ping_failed(c, &req->target, -ENETDOWN);
		return;
	}
	start_ping(c, &req->target, req->has_src ? &req->src : NULL,
		   req->has_timeout ? req->timeout_ms : 0, false);
}

/* ---- Discover -------------------------------------------------------- */

/*
 * What `lnetctl discover` leaves behind (discovery.md, lnetctl.md §11.2):
 * one peer holding every NID the target's ping reply lists, with the
 * reply's primary NID as primary and Multi-Rail as the reply's feature
 * bit says. NIDs held alone by peers that traffic created move over; a
 * NID configured on another peer stays there (as LNet, which does not
 * merge configured peers). 0 and the peer, or -errno with err set.
 */
static int discover_merge(struct ul_ctlsrv *srv,
			  const struct ulnet_ping_result *res,
			  struct ul_peer **out, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	bool is_mr = res->features & UL_WIRE_PING_FEAT_MULTI_RAIL;
	struct ul_peer_ni *lpni;
	struct ul_peer *peer;
	size_t i;
	int rc;

	peer = ul_peer_find(core, &res->primary.nid);
	if (!peer) {
		rc = ul_peer_ni_find_or_create(core, &res->primary.nid, NULL,
					       &lpni);
		if (rc)
			return ul_err_set(err, rc, "failed to create peer");
		peer = ul_peer_ni_peer(lpni);
	}
	for (i = 0; i < res->nnis; i++) {
		struct ul_err nerr = { 0 };

		if (res->nis[i].nid.nid_type == ULNET_LND_LO)
			continue;
		rc = ul_peer_ni_add(core, peer, &res->nis[i].nid, NULL, &nerr);
		if (rc && rc != -EEXIST)
			return ul_err_set(err, rc, "%s", nerr.msg);
	}
	if (!ulnet_nid_same(&peer->primary_nid, &res->primary.nid) &&
	    !peer->is_lock_prim)
		ul_peer_set_primary(core, peer, &res->primary.nid, NULL);
	ul_peer_set_mr(peer, is_mr);
	if (srv->udsp)
		ul_udsp_apply_all(srv->udsp);
	*out = peer;
	return 0;
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
	char s[ULNET_NIDSTR_SIZE], msg[64 + ULNET_NIDSTR_SIZE];
	struct ul_ctl_reply r;

	ulnet_nid_format(nid, s, sizeof(s));
	snprintf(msg, sizeof(msg), "failed to discover %s", s);
	ul_ctl_reply_error(&r, UL_CTL_OP_DISCOVER, rc, msg);
	client_send(c, &r, false);
}

static void discover_done(struct ctl_client *c, const struct ulnet_nid *target,
			  const struct ulnet_ping_result *res)
{
	struct ul_err err = { 0 };
	struct ul_ctl_msg doc;
	struct ul_peer *peer;
	int rc;

	rc = discover_merge(c->srv, res, &peer, &err);
	if (rc) {
		ul_log(c->srv->log, UL_D_NETERROR, "ctl: discover: %s",
		       err.msg);
		discover_failed(c, target, rc);
		return;
	}
	ul_ctl_doc_init(&doc);
	discover_doc(&doc, peer);
	client_send_doc(c, UL_CTL_OP_DISCOVER, &doc);
	ul_ctl_msg_fini(&doc);
}

static void do_discover(struct ctl_client *c, const struct ul_ctl_args *a)
{
	struct ul_ctl_reply r;

	if (!(a->has & UL_CTL_ARG_NID)) {
		ul_ctl_reply_error(&r, UL_CTL_OP_DISCOVER, -EINVAL,
				   "Missing nid argument");
		client_send(c, &r, false);
		return;
	}
	if (c->srv->is_down) {
		discover_failed(c, &a->nid, -ENETDOWN);
		return;
	}
	start_ping(c, &a->nid, NULL,
		   (a->has & UL_CTL_ARG_TIMEOUT_MS) ? a->timeout_ms : 0, true);
}

/* ---- Perf streams ---------------------------------------------------- */

/* What each rail sent since the stream started: PUT counts and bytes. */
static void perf_rails(struct ctl_perf *pf, struct ul_ctl_perf_rail *rails,
		       size_t *nrails)
{
	struct ulnet_ni_info now[PERF_RAILS_MAX];
	size_t n = 0, i, j, k = 0;

	if (ul_node_ni_info(pf->node, now, PERF_RAILS_MAX, &n))
		n = 0;
	for (i = 0; i < n && i < PERF_RAILS_MAX; i++) {
		const struct ulnet_msg_stats *a = &now[i].stats;

		rails[k].nid = now[i].nid;
		rails[k].puts = a->send_count[UL_PERF_PUT_IDX];
		rails[k].bytes = a->send_bytes[UL_PERF_PUT_IDX];
		for (j = 0; j < pf->nrails; j++) {
			const struct ulnet_msg_stats *b = &pf->before[j].stats;

			if (memcmp(&pf->before[j].nid, &now[i].nid,
				   sizeof(now[i].nid)) == 0) {
				rails[k].puts -= b->send_count[UL_PERF_PUT_IDX];
				rails[k].bytes -=
					b->send_bytes[UL_PERF_PUT_IDX];
				break;
			}
		}
		k++;
	}
	*nrails = k;
}

static void perf_done(void *arg, const struct ul_perf_result *res)
{
	struct ul_ctl_perf_rail rails[PERF_RAILS_MAX];
	struct ctl_perf *pf = arg;
	struct ctl_client *c = pf->c;
	struct ul_ctl_reply r;

	if (!c) {
		free(pf);
		return;
	}
	c->perf = NULL;
	if (res->status && !res->puts) {
		ul_ctl_reply_error(&r, UL_CTL_OP_PERF_PUT, res->status,
				   "perf stream failed");
	} else {
		memset(&r, 0, sizeof(r));
		r.op = UL_CTL_OP_PERF_PUT;
		r.perf.puts = res->puts;
		r.perf.bytes = res->bytes;
		r.perf.failed = res->failed;
		r.perf.elapsed_ns = res->elapsed_ns;
		perf_rails(pf, rails, &r.perf.nrails);
		r.perf.rails = rails;
	}
	free(pf);
	client_send(c, &r, false);
}

static void do_perf(struct ctl_client *c, const struct ul_ctl_perf_req *req)
{
	struct ulnet_process_id target = { .nid = req->target,
					   .pid = ULNET_PID_LUSTRE };
	struct ul_ctl_reply r;
	struct ctl_perf *pf;
	int rc = -ENOMEM;

	pf = calloc(1, sizeof(*pf));
	if (!pf)
		goto fail;
	pf->c = c;
	pf->node = c->srv->node;
	rc = ul_node_ni_info(pf->node, pf->before, PERF_RAILS_MAX, &pf->nrails);
	if (rc)
		goto fail;
	if (pf->nrails > PERF_RAILS_MAX)
		pf->nrails = PERF_RAILS_MAX;
	rc = ul_perf_stream_start(pf->node, ul_loop_timers(c->srv->loop),
				  &target, req->size,
				  (uint64_t)req->duration_ms * 1000000u,
				  req->inflight, perf_done, pf);
	if (rc)
		goto fail;
	c->perf = pf;
	return;
fail:
	free(pf);
	ul_ctl_reply_error(&r, UL_CTL_OP_PERF_PUT, rc,
			   rc == -EINVAL ? "bad size or inflight"
					 : "cannot start the perf stream");
	client_send(c, &r, false);
}

/* ---- Generic ops ----------------------------------------------------- */

struct generic_op {
	uint16_t op;
	ul_ctlsrv_op_fn fn;
	/* The error a stopped LNet gives (lnetctl.md §5); 0: runs anyway. */
	int down_rc;
	const char *down_msg;
};

static const struct generic_op generic_ops[] = {
	{ UL_CTL_OP_NET_ADD, ul_ctlsrv_net_add, -ESHUTDOWN,
	  "cannot add LNet NI" },
	{ UL_CTL_OP_NET_DEL, ul_ctlsrv_net_del, -ENETDOWN, "Network is down" },
	{ UL_CTL_OP_NET_SET, ul_ctlsrv_net_set, -ENETDOWN, "Network is down" },
	{ UL_CTL_OP_PEER_ADD, ul_ctlsrv_peer_add, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_PEER_DEL, ul_ctlsrv_peer_del, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_PEER_SET, ul_ctlsrv_peer_set, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_PEER_LIST, ul_ctlsrv_peer_list, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_ROUTE_ADD, ul_ctlsrv_route_add, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_ROUTE_DEL, ul_ctlsrv_route_del, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_ROUTE_SHOW, ul_ctlsrv_route_show, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_ROUTING_SHOW, ul_ctlsrv_routing_show, 0, NULL },
	{ UL_CTL_OP_SET, ul_ctlsrv_set, 0, NULL },
	{ UL_CTL_OP_GLOBAL_SHOW, ul_ctlsrv_global_show, 0, NULL },
	{ UL_CTL_OP_STATS_SHOW, ul_ctlsrv_stats_show, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_STATS_RESET, ul_ctlsrv_stats_reset, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_UDSP_ADD, ul_ctlsrv_udsp_add, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_UDSP_DEL, ul_ctlsrv_udsp_del, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_UDSP_SHOW, ul_ctlsrv_udsp_show, 0, NULL },
	{ UL_CTL_OP_FAULT_ADD, ul_ctlsrv_fault_add, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_FAULT_DEL, ul_ctlsrv_fault_del, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_FAULT_SHOW, ul_ctlsrv_fault_show, 0, NULL },
	{ UL_CTL_OP_FAULT_RESET, ul_ctlsrv_fault_reset, 0, NULL },
	{ UL_CTL_OP_LNET_CONFIGURE, ul_ctlsrv_lnet_configure, 0, NULL },
	{ UL_CTL_OP_LNET_UNCONFIGURE, ul_ctlsrv_lnet_unconfigure, 0, NULL },
	{ UL_CTL_OP_DEBUG_RECOVERY, ul_ctlsrv_debug_recovery, 0, NULL },
	{ UL_CTL_OP_DEBUG_PEER, ul_ctlsrv_debug_peer, -ENETDOWN,
	  "Network is down" },
	{ UL_CTL_OP_CPT_OF_NID, ul_ctlsrv_cpt_of_nid, -ENETDOWN,
	  "Network is down" },
};

/* Run a generic op's handler and queue its reply. */
static void do_generic(struct ctl_client *c, const struct ul_ctl_req *req)
{
	const struct generic_op *g = NULL;
	struct ul_err err = { 0 };
	struct ul_ctl_reply r;
	struct ul_ctl_msg doc;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(generic_ops) / sizeof(generic_ops[0]); i++)
		if (generic_ops[i].op == req->op)
			g = &generic_ops[i];
	if (!g) {
		ul_ctl_reply_error(&r, req->op, -EOPNOTSUPP,
				   "operation not supported");
		client_send(c, &r, false);
		return;
	}
	if (c->srv->is_down && g->down_rc) {
		ul_ctl_reply_error(&r, req->op, g->down_rc, g->down_msg);
		client_send(c, &r, false);
		return;
	}
	ul_ctl_doc_init(&doc);
	rc = g->fn(c->srv, &req->args, &doc, &err);
	if (rc == 0) {
		client_send_doc(c, req->op, &doc);
		ul_ctl_msg_fini(&doc);
		return;
	}
	ul_ctl_msg_fini(&doc);
	ul_ctl_reply_error(&r, req->op, rc < 0 ? rc : -EINVAL, err.msg);
	client_send(c, &r, false);
}

/* ---- Requests -------------------------------------------------------- */

static void client_dispatch(struct ctl_client *c)
{
	struct ul_err err = { 0 };
	uint8_t *frame;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	int rc;

	ul_timer_cancel(ul_loop_timers(c->srv->loop), &c->timer);
	rc = ul_ctl_req_decode(c->frame, c->frame_len, &req, &err);
	/* A generic request borrows the frame (its UDSP block). */
	if (rc || !ul_ctl_op_is_generic(req.op)) {
		free(c->frame);
		c->frame = NULL;
	}
	if (rc == -EOPNOTSUPP) {
		ul_log(c->srv->log, UL_D_WARNING, "ctl: client pid %d: %s",
		       (int)c->pid, err.msg);
		ul_ctl_reply_error(&r, 0, rc, err.msg);
		c->state = CTL_CLIENT_BUSY;
		if (ul_io_modify(&c->io, 0)) {
			client_close(c);
			return;
		}
		client_send(c, &r, false);
		return;
	}
	if (rc) {
		client_refuse(c, rc, err.msg, false);
		return;
	}
	c->state = CTL_CLIENT_BUSY;
	if (ul_io_modify(&c->io, 0)) {
		client_close(c);
		return;
	}
	memset(&r, 0, sizeof(r));
	switch (req.op) {
	case UL_CTL_OP_PING:
		do_ping(c, &req.ping);
		return;
	case UL_CTL_OP_DISCOVER:
		frame = c->frame;
		c->frame = NULL;
		do_discover(c, &req.args);
		free(frame);
		return;
	case UL_CTL_OP_PERF_PUT:
		do_perf(c, &req.perf);
		return;
	case UL_CTL_OP_NET_SHOW:
		if (c->srv->is_down)
			ul_ctl_reply_error(&r, req.op, -ENETDOWN,
					   "LNet stack down");
		else
			rc = build_net_show(c->srv, &req.net_show, &r);
		break;
	case UL_CTL_OP_PEER_SHOW:
		if (c->srv->is_down)
			ul_ctl_reply_error(&r, req.op, -ENETDOWN,
					   "Network is down");
		else
			rc = build_peer_show(c->srv, &req.peer_show, &r);
		break;
	default:
		/* The reply may close c: own the frame first. */
		frame = c->frame;
		c->frame = NULL;
		do_generic(c, &req);
		free(frame);
		return;
	}
	if (rc) {
		ul_ctl_reply_fini(&r);
		ul_ctl_reply_error(&r, req.op, rc, strerror(-rc));
	}
	client_send(c, &r, false);
	ul_ctl_reply_fini(&r);
}

/* One read per wake-up, so one client cannot hog the loop. */
static void client_read(struct ctl_client *c)
{
	struct ul_err err = { 0 };
	struct ul_ctl_hdr h;
	uint8_t *dst;
	size_t want;
	ssize_t n;
	char msg[128];

	if (c->state == CTL_CLIENT_READ_HDR) {
		dst = c->hdr + c->hdr_got;
		want = UL_CTL_HDR_SIZE - c->hdr_got;
	} else {
		dst = c->frame + c->frame_got;
		want = c->frame_len - c->frame_got;
	}
	n = recv(c->fd, dst, want, 0);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		if (n < 0 || c->hdr_got || c->state == CTL_CLIENT_READ_BODY)
			ul_log(c->srv->log, UL_D_NETERROR,
			       "ctl: client pid %d: %s in the middle of a "
			       "request, closing",
			       (int)c->pid, n < 0 ? strerror(errno) : "EOF");
		client_close(c);
		return;
	}
	if (c->state == CTL_CLIENT_READ_BODY) {
		c->frame_got += (size_t)n;
		if (c->frame_got == c->frame_len)
			client_dispatch(c);
		return;
	}
	c->hdr_got += (size_t)n;
	if (c->hdr_got < UL_CTL_HDR_SIZE)
		return;
	if (ul_ctl_hdr_decode(c->hdr, sizeof(c->hdr), &h, &err)) {
		client_refuse(c, -EPROTO, err.msg, false);
		return;
	}
	/* A client sends requests: their limit, whatever its op says. */
	if (h.len > UL_CTL_MAX_PAYLOAD) {
		snprintf(msg, sizeof(msg),
			 "control message: payload of %u bytes, limit %u",
			 h.len, UL_CTL_MAX_PAYLOAD);
		client_refuse(c, -EPROTO, msg, false);
		return;
	}
	if (h.version != UL_CTL_VERSION) {
		snprintf(msg, sizeof(msg),
			 "control protocol version %u not supported (ulnetd "
			 "speaks version %d)",
			 h.version, UL_CTL_VERSION);
		client_refuse(c, -EPROTO, msg, true);
		return;
	}
	c->frame_len = UL_CTL_HDR_SIZE + (size_t)h.len;
	c->frame = malloc(c->frame_len);
	if (!c->frame) {
		client_refuse(c, -ENOMEM, "out of memory", false);
		return;
	}
	memcpy(c->frame, c->hdr, UL_CTL_HDR_SIZE);
	c->frame_got = UL_CTL_HDR_SIZE;
	c->state = CTL_CLIENT_READ_BODY;
	if (c->frame_got == c->frame_len)
		client_dispatch(c);
}

static void client_on_io(struct ul_io *io, uint32_t events)
{
	struct ctl_client *c = ul_container_of(io, struct ctl_client, io);

	if (events & EPOLLERR) {
		client_close(c);
		return;
	}
	switch (c->state) {
	case CTL_CLIENT_READ_HDR:
	case CTL_CLIENT_READ_BODY:
		if (events & (EPOLLIN | EPOLLHUP))
			client_read(c);
		break;
	case CTL_CLIENT_WRITE:
	case CTL_CLIENT_WRITE_CLOSE:
		if (events & EPOLLHUP)
			client_close(c);
		else if (events & EPOLLOUT)
			client_after_write(c);
		break;
	case CTL_CLIENT_BUSY:
		/* Gone while its ping runs: the ping finishes into nothing. */
		if (events & EPOLLHUP)
			client_close(c);
		break;
	}
}

/*
 * Whether the peer is in the --ctl-group group: its primary group, or one
 * of the supplementary groups its user has in the group database.
 */
static bool peer_in_group(struct ucred cred, gid_t group)
{
	struct passwd pw, *pwp = NULL;
	gid_t groups[256];
	int n = 256, i;
	char buf[4096];

	if (cred.gid == group)
		return true;
	if (getpwuid_r(cred.uid, &pw, buf, sizeof(buf), &pwp) || !pwp)
		return false;
	if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		return false;
	for (i = 0; i < n; i++)
		if (groups[i] == group)
			return true;
	return false;
}

/*
 * The peer's uid must be ours or root's, or it must be in the socket's
 * group (--ctl-group) (proto.h "Transport").
 */
static int check_peer(struct ctl_client *c, char *why, size_t len)
{
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	uid_t me = geteuid();

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len)) {
		snprintf(why, len, "cannot read peer credentials: %s",
			 strerror(errno));
		return -EACCES;
	}
	c->pid = cred.pid;
	if (cred.uid != me && cred.uid != 0 &&
	    !(c->srv->has_group && peer_in_group(cred, c->srv->group))) {
		snprintf(why, len,
			 "permission denied: uid %u may not control this "
			 "instance (uid %u)",
			 (unsigned int)cred.uid, (unsigned int)me);
		return -EACCES;
	}
	return 0;
}

static void accept_one(struct ul_ctlsrv *srv, int fd)
{
	struct ctl_client *c = calloc(1, sizeof(*c));
	char why[128];
	int rc;

	if (!c) {
		ul_log(srv->log, UL_D_ERROR, "ctl: no memory for a client");
		close(fd);
		return;
	}
	c->srv = srv;
	c->fd = fd;
	c->state = CTL_CLIENT_READ_HDR;
	ul_timer_init(&c->timer, client_on_timer);
	if (ul_io_start(srv->loop, &c->io, fd, EPOLLIN, client_on_io)) {
		ul_log(srv->log, UL_D_ERROR, "ctl: cannot watch a client");
		close(fd);
		free(c);
		return;
	}
	ul_list_add_tail(&srv->clients, &c->link);
	srv->nclients++;
	rc = check_peer(c, why, sizeof(why));
	if (!rc && srv->nclients > UL_CTLSRV_MAX_CLIENTS) {
		snprintf(why, sizeof(why), "too many control clients (%d)",
			 UL_CTLSRV_MAX_CLIENTS);
		rc = -EBUSY;
	}
	if (rc) {
		client_refuse(c, rc, why, false);
		return;
	}
	client_arm_timer(c);
}

static void srv_on_accept(struct ul_io *io, uint32_t events)
{
	struct ul_ctlsrv *srv = ul_container_of(io, struct ul_ctlsrv, io);
	int i, fd;

	(void)events;
	for (i = 0; i < ACCEPT_BURST; i++) {
		fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				ul_log(srv->log, UL_D_ERROR,
				       "ctl: accept on %s: %s", srv->path,
				       strerror(errno));
			return;
		}
		accept_one(srv, fd);
	}
}

/* ---- Server ---------------------------------------------------------- */

/* Remove a stale socket file at path; see ul_ctlsrv_create(). */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, rc;

	if (lstat(sa->sun_path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	if (rc == 0)
		rc = -EADDRINUSE;
	else if (errno == ECONNREFUSED)
		rc = unlink(sa->sun_path) ? -errno : 0;
	else
		rc = -errno;
	close(fd);
	return rc;
}

int ul_ctlsrv_create(struct ul_loop *loop, struct ul_node *node,
		     const char *path, const struct ul_log *log,
		     struct ul_ctlsrv **out)
{
	struct sockaddr_un sa;
	struct ul_ctlsrv *srv;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path));
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->loop = loop;
	srv->node = node;
	srv->log = log;
	srv->timeout_ns = (uint64_t)UL_CTLSRV_CLIENT_TIMEOUT_MS * 1000000u;
	srv->ncpt = 1;
	srv->nnodes = host_numa_nodes();
	srv->lnd_timeout = -1;
	ul_list_init(&srv->clients);
	rc = -ENOMEM;
	srv->path = strdup(path);
	if (!srv->path)
		goto err_free;
	rc = clear_stale(&sa);
	if (rc)
		goto err_free;
	srv->fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->fd < 0) {
		rc = -errno;
		goto err_free;
	}
	if (bind(srv->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		rc = -errno;
		goto err_close;
	}
	/* Nobody can connect before listen(), so this leaves no window. */
	if (chmod(path, 0600) || listen(srv->fd, 16)) {
		rc = -errno;
		goto err_unlink;
	}
	rc = ul_ctlsrv_faults_create(&srv->faults);
	if (rc)
		goto err_unlink;
	rc = ul_io_start(loop, &srv->io, srv->fd, EPOLLIN, srv_on_accept);
	if (rc) {
		ul_ctlsrv_faults_destroy(srv->faults);
		goto err_unlink;
	}
	*out = srv;
	return 0;

err_unlink:
	unlink(path);
err_close:
	close(srv->fd);
err_free:
	free(srv->path);
	free(srv);
	return rc;
}

void ul_ctlsrv_destroy(struct ul_ctlsrv *srv)
{
	struct ctl_client *c, *tmp;

	if (!srv)
		return;
	ul_list_for_each_entry_safe(c, tmp, &srv->clients, link)
		client_close(c);
	ul_io_stop(&srv->io);
	close(srv->fd);
	unlink(srv->path);
	ul_ctlsrv_faults_destroy(srv->faults);
	free(srv->conf_path);
	free(srv->path);
	free(srv);
}

void ul_ctlsrv_set_client_timeout(struct ul_ctlsrv *srv, uint32_t timeout_ms)
{
	srv->timeout_ns = (uint64_t)timeout_ms * 1000000u;
}

void ul_ctlsrv_set_udsp(struct ul_ctlsrv *srv, struct ul_udsp_set *udsp)
{
	srv->udsp = udsp;
}

void ul_ctlsrv_set_ncpt(struct ul_ctlsrv *srv, unsigned int ncpt)
{
	srv->ncpt = ncpt ? ncpt : 1;
}

int ul_ctlsrv_set_conf_path(struct ul_ctlsrv *srv, const char *path)
{
	char *copy = path ? strdup(path) : NULL;

	if (path && !copy)
		return -ENOMEM;
	free(srv->conf_path);
	srv->conf_path = copy;
	return 0;
}

int ul_ctlsrv_set_group(struct ul_ctlsrv *srv, gid_t gid)
{
	if (chown(srv->path, (uid_t)-1, gid) || chmod(srv->path, 0660))
		return -errno;
	srv->group = gid;
	srv->has_group = true;
	return 0;
}
