/*
 * socklnd: the LND object, NI start and stop, peers, send dispatch and
 * the housekeeping that runs on timers (socklnd.h has the model).
 *
 * Timers:
 *   - ni->tick, every SOCK_TICK_NS while the NI runs: fails txs waiting
 *     past their deadline, closes connections whose output TCP has not
 *     acknowledged, or whose message in progress has not moved, for
 *     sock_timeout (one SIOCOUTQ per busy connection), sends
 *     keepalive NOOPs (wire.md §9.3) and frees idle peers;
 *   - peer->reconnect: the next connection attempt after a refusal or a
 *     failure (backoff min_reconnect_ms doubling to max_reconnect_ms);
 *   - conn->hs_timer (socklnd_conn.c): the handshake deadline.
 *   - s->ack_timer, while held txs wait for TCP to acknowledge their
 *     last byte: every SOCK_ACK_POLL_NS while a PUT or GET does,
 *     every opts.ack_poll_idle_ms while only ACKs and REPLYs do
 *     (socklnd_tx.c).
 * The before-sleep hook flushes queued output, completes the txs TCP
 * acknowledged, frees closed connections and delivers completions.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/ni.h"
#include "lnd/socklnd_int.h"
#include "util/err.h"

void ul_socklnd_opts_init(struct ul_socklnd_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->accept_port = UL_WIRE_ACCEPT_PORT;
	opts->accept = ULNET_ACCEPT_SECURE;
	opts->src_port = ULNET_SRC_PORT_AUTO;
	opts->typed_conns = 1;
	opts->sock_timeout_sec = 50;
	opts->keepalive_sec = 30;
	opts->keepalive_retry_ms = 10000;
	opts->ack_poll_idle_ms = 5;
	opts->sched_min_conns = 2;
	opts->accept_timeout_ms = 5000;
	opts->max_handshakes = 256;
	opts->max_handshakes_per_addr = 16;
	opts->max_hello_peers = 65536;
	opts->min_reconnect_ms = 1000;
	opts->max_reconnect_ms = 60000;
	opts->nodelay = 1;
}

uint64_t sock_now(const struct sock_ni *ni)
{
	return ul_loop_timers(ni->s->loop)->now_ns;
}

/*
 * Read at each use: `net set --conns-per-peer` changes the core NI's
 * value while the NI runs, and new connections follow it (lnetctl.md
 * §6.4); connections already open stay.
 */
unsigned int sock_ni_conns_per_peer(const struct sock_ni *ni)
{
	int cpp = ni->lni->ni->conns_per_peer;

	return cpp > 0 ? (unsigned int)cpp : 1;
}

unsigned int ul_socklnd_conns_for_speed(int speed_mbps)
{
	unsigned int gbps = speed_mbps < 1000 ? 1
					      : (unsigned int)speed_mbps / 1000;
	unsigned int log2 = 0;

	while (gbps >>= 1)
		log2++;
	return log2 / 2 + 1;
}

/* health.md §10: how socklnd classifies the errno a tx failed with. */
enum ul_hstatus sock_hstatus_of_errno(int err)
{
	switch (err) {
	case 0:
		return UL_HSTATUS_OK;
	case -ETIMEDOUT:
		return UL_HSTATUS_NETWORK_TIMEOUT;
	case -ENETDOWN:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -ECONNREFUSED:
	case -ECONNRESET:
		return UL_HSTATUS_REMOTE_DROPPED;
	case -ESHUTDOWN:
		return UL_HSTATUS_LOCAL_DROPPED;
	default:
		return UL_HSTATUS_LOCAL_ERROR;
	}
}

void sock_tx_complete(struct sock_tx *st, int status, enum ul_hstatus hs)
{
	ul_list_del(&st->link);
	st->status = status;
	st->hstatus = hs;
	ul_list_add_tail(&st->ni->s->done, &st->link);
}

void sock_peer_news(struct sock_peer *peer, bool is_restarted)
{
	struct ul_socklnd *s = peer->ni->s;
	struct sock_news *nw;

	if (peer->ni->is_stopping || !peer->ni->lni->up->peer_down)
		return;
	nw = calloc(1, sizeof(*nw));
	if (!nw)
		return; /* the response timeout still ends what waits */
	nw->ni = peer->ni;
	nw->nid = peer->nid;
	nw->is_restarted = is_restarted;
	ul_list_add_tail(&s->news, &nw->link);
}

/* Forget the news of ni (it stops); NULL: of every NI. */
static void drop_news(struct ul_socklnd *s, const struct sock_ni *ni)
{
	struct sock_news *nw, *tmp;

	ul_list_for_each_entry_safe(nw, tmp, &s->news, link) {
		if (ni && nw->ni != ni)
			continue;
		ul_list_del(&nw->link);
		free(nw);
	}
}

/*
 * Hand every decided tx to the node, then the news of peers, which may
 * concern what those txs did (lnd.h, peer_down). The lists are taken
 * first, so what an upcall decides (tx_done sending again) waits for the
 * next delivery and no tx completes twice.
 */
void sock_deliver(struct ul_socklnd *s)
{
	struct sock_tx *st, *tmp;
	struct sock_news *nw, *ntmp;
	struct ul_list todo;

	ul_list_take(&s->done, &todo);
	ul_list_for_each_entry_safe(st, tmp, &todo, link) {
		struct ul_lnd_ni *lni = st->ni->lni;

		ul_list_del(&st->link);
		if (st->tx)
			lni->up->tx_done(lni, st->tx, st->status, st->hstatus);
		sock_tx_free(s, st);
	}
	ul_list_take(&s->news, &todo);
	ul_list_for_each_entry_safe(nw, ntmp, &todo, link) {
		struct ul_lnd_ni *lni = nw->ni->lni;

		ul_list_del(&nw->link);
		lni->up->peer_down(lni, &nw->nid, nw->is_restarted);
		free(nw);
	}
}

static void free_zombies(struct ul_socklnd *s)
{
	struct sock_conn *conn, *tmp;

	ul_list_for_each_entry_safe(conn, tmp, &s->zombies, link) {
		ul_list_del(&conn->link);
		sock_conn_unhot(s, conn);
		free(conn->job);
		free(conn->rjob);
		free(conn);
	}
}

/* Phase 3 of the loop: write what was queued, then tidy up. */
static void on_before_sleep(void *arg)
{
	struct ul_socklnd *s = arg;

	s->is_flushed = false;
	sock_flush_all(s);
	/* From here a queued tx wakes the loop: tx_done may send again. */
	s->is_flushed = true;
	sock_ack_poll(s, false);
	free_zombies(s);
	sock_deliver(s);
	/* Messages kept for this flush: read on (their answers wake us). */
	sock_rx_kept_run(s);
}

/* Txs wait for TCP's acknowledgement and nothing else wakes the loop. */
static void on_ack_timer(struct ul_timer *t, uint64_t now_ns)
{
	struct ul_socklnd *s = ul_container_of(t, struct ul_socklnd, ack_timer);

	(void)now_ns;
	sock_ack_poll(s, true);
	sock_deliver(s);
}

int ul_socklnd_create(struct ul_loop *loop, const struct ul_socklnd_opts *opts,
		      struct ul_socklnd **out)
{
	struct ul_socklnd *s;
	int rc;

	if (opts->accept != ULNET_ACCEPT_NONE && opts->accept_port == 0)
		return -EINVAL;
	if (opts->min_reconnect_ms == 0 ||
	    opts->max_reconnect_ms < opts->min_reconnect_ms)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->loop = loop;
	s->opts = *opts;
	if (!s->opts.accept_port_bulk)
		s->opts.accept_port_bulk = s->opts.accept_port;
	s->is_privileged =
		opts->src_port == ULNET_SRC_PORT_PRIVILEGED ||
		(opts->src_port == ULNET_SRC_PORT_AUTO && geteuid() == 0);
	ul_list_init(&s->nis);
	ul_list_init(&s->flush);
	ul_list_init(&s->done);
	ul_list_init(&s->zombies);
	ul_list_init(&s->listeners);
	ul_list_init(&s->ack_wait);
	ul_list_init(&s->news);
	ul_list_init(&s->kept);
	ul_timer_init(&s->ack_timer, on_ack_timer);
	s->timeout_sec = opts->sock_timeout_sec;
	rc = ul_loop_hook_add(loop, on_before_sleep, s);
	if (rc < 0) {
		free(s);
		return rc;
	}
	rc = ul_loop_poll_add(loop, sock_busy_poll, s);
	if (rc < 0) {
		ul_loop_hook_del(loop, on_before_sleep, s);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void ul_socklnd_destroy(struct ul_socklnd *s)
{
	if (!s)
		return;
	ul_loop_hook_del(s->loop, on_before_sleep, s);
	ul_loop_poll_del(s->loop, sock_busy_poll, s);
	ul_timer_cancel(ul_loop_timers(s->loop), &s->ack_timer);
	sock_sched_stop(s);
	free_zombies(s);
	sock_deliver(s);
	drop_news(s, NULL);
	sock_tx_pool_drain(s);
	free(s);
}

/* ---- Peers ------------------------------------------------------------ */

struct sock_peer *sock_peer_find(struct sock_ni *ni,
				 const struct ulnet_nid *nid)
{
	struct sock_peer *peer;

	ul_list_for_each_entry(peer, &ni->peers, link)
		if (ulnet_nid_same(&peer->nid, nid))
			return peer;
	return NULL;
}

static void on_reconnect(struct ul_timer *t, uint64_t now_ns)
{
	struct sock_peer *peer =
		ul_container_of(t, struct sock_peer, reconnect);

	sock_peer_connect_next(peer, now_ns);
	sock_deliver(peer->ni->s);
}

struct sock_peer *sock_peer_find_or_add(struct sock_ni *ni,
					const struct ulnet_nid *nid,
					uint32_t pid)
{
	struct sock_peer *peer = sock_peer_find(ni, nid);

	if (peer)
		return peer;
	peer = calloc(1, sizeof(*peer));
	if (!peer)
		return NULL;
	peer->ni = ni;
	peer->nid = *nid;
	peer->ip = nid->nid_addr[0];
	peer->pid = pid;
	peer->backoff_ms = ni->s->opts.min_reconnect_ms;
	peer->last_rx_ns = sock_now(ni);
	ul_list_init(&peer->conns);
	ul_list_init(&peer->connecting);
	ul_list_init(&peer->txq);
	ul_timer_init(&peer->reconnect, on_reconnect);
	ulnet_nid_format(nid, peer->nidstr, sizeof(peer->nidstr));
	ul_list_add_tail(&ni->peers, &peer->link);
	ni->nhello_peers++; /* until sock_send dials it */
	return peer;
}

/*
 * Nothing to do for the peer; one that lost its connections is kept a
 * timeout, to recognise its restart (sock_peer.last_incarnation).
 */
static bool peer_is_idle(const struct sock_peer *peer, uint64_t now_ns)
{
	uint64_t keep_ns = peer->ni->s->timeout_sec * SOCK_NS_PER_SEC;

	if (peer->is_dialled && peer->lost_ns &&
	    now_ns - peer->lost_ns < keep_ns)
		return false;
	return ul_list_empty(&peer->conns) &&
	       ul_list_empty(&peer->connecting) && ul_list_empty(&peer->txq);
}

static void peer_free(struct sock_peer *peer)
{
	if (!peer->is_dialled)
		peer->ni->nhello_peers--;
	ul_timer_cancel(ul_loop_timers(peer->ni->s->loop), &peer->reconnect);
	ul_list_del(&peer->link);
	free(peer);
}

void sock_peer_fail_txs(struct sock_peer *peer, int status, enum ul_hstatus hs)
{
	struct sock_tx *st, *tmp;

	ul_list_for_each_entry_safe(st, tmp, &peer->txq, link) {
		/*
		 * A tx on the peer's queue waited for a connection: no byte
		 * of it left this node. A connect that timed out is a
		 * network timeout (health.md §10), but the peer cannot have
		 * the message, so it is marked undelivered and the core may
		 * resend it on another pathway, as for an unacknowledged
		 * one (tx_close_hstatus). Without this, a response waiting
		 * to reach a requester whose rail went dark was dropped.
		 */
		if (hs == UL_HSTATUS_NETWORK_TIMEOUT && st->tx)
			st->tx->is_undelivered = true;
		sock_tx_complete(st, status, hs);
	}
}

/*
 * The type of the next connection to open (wire.md §4.3), or NONE:
 * CONTROL first, then BULK_IN and BULK_OUT alternately up to
 * conns_per_peer each; untyped, a single ANY connection. Connections the
 * peer opened count too, in our view of their type.
 */
static uint32_t peer_needed_type(const struct sock_peer *peer)
{
	const struct ul_socklnd_opts *o = &peer->ni->s->opts;
	unsigned int cpp = sock_ni_conns_per_peer(peer->ni);
	unsigned int n_in, n_out;

	if (!o->typed_conns)
		return sock_peer_count_type(peer, UL_WIRE_CONN_ANY)
			       ? UL_WIRE_CONN_NONE
			       : UL_WIRE_CONN_ANY;
	if (!sock_peer_count_type(peer, UL_WIRE_CONN_CONTROL))
		return UL_WIRE_CONN_CONTROL;
	n_in = sock_peer_count_type(peer, UL_WIRE_CONN_BULK_IN);
	n_out = sock_peer_count_type(peer, UL_WIRE_CONN_BULK_OUT);
	if (n_in < cpp && n_in <= n_out)
		return UL_WIRE_CONN_BULK_IN;
	if (n_out < cpp)
		return UL_WIRE_CONN_BULK_OUT;
	if (n_in < cpp)
		return UL_WIRE_CONN_BULK_IN;
	return UL_WIRE_CONN_NONE;
}

static bool peer_has_each_type(const struct sock_peer *peer)
{
	if (!peer->ni->s->opts.typed_conns)
		return sock_peer_count_type(peer, UL_WIRE_CONN_ANY) > 0;
	return sock_peer_count_type(peer, UL_WIRE_CONN_CONTROL) &&
	       sock_peer_count_type(peer, UL_WIRE_CONN_BULK_IN) &&
	       sock_peer_count_type(peer, UL_WIRE_CONN_BULK_OUT);
}

/*
 * Open the next connection the peer needs, one at a time, when we have
 * something to send it and no backoff is running.
 */
void sock_peer_connect_next(struct sock_peer *peer, uint64_t now_ns)
{
	struct ul_socklnd *s = peer->ni->s;
	uint32_t ctype;
	int rc;

	if (peer->ni->is_stopping || !ul_list_empty(&peer->connecting))
		return;
	if (!peer->wants_conns && ul_list_empty(&peer->txq))
		return;
	if (peer->nrefused >= SOCK_MAX_REFUSALS && peer_has_each_type(peer))
		return;
	ctype = peer_needed_type(peer);
	if (ctype == UL_WIRE_CONN_NONE)
		return;
	if (now_ns < peer->retry_ns) {
		if (!ul_timer_is_armed(&peer->reconnect))
			ul_timer_arm(ul_loop_timers(s->loop), &peer->reconnect,
				     peer->retry_ns);
		return;
	}
	rc = sock_conn_connect(peer, ctype);
	if (rc < 0)
		ul_log_limit(s->opts.log, UL_D_NETERROR,
			     "socklnd %s: cannot connect %s to %s: %s",
			     peer->ni->nidstr, sock_ctype_name(ctype),
			     peer->nidstr, strerror(-rc));
}

/* ---- NI start and stop ------------------------------------------------ */

/*
 * Close every established connection to the peer from address ip after
 * reading what each holds (sock_conn_close_drained): a timeout on one of
 * them closes its siblings too, as the kernel's
 * ksocknal_check_peer_timeouts does with ksocknal_close_conn_and_siblings
 * (socklnd_cb.c). A drain that finds the end closes siblings itself, so
 * the list is walked again from its start after each close.
 */
static void close_address_drained(struct sock_peer *peer, uint32_t ip,
				  int status, enum ul_hstatus hs)
{
	struct sock_conn *c;
	bool is_closed;

	do {
		is_closed = false;
		ul_list_for_each_entry(c, &peer->conns, link)
			if (c->state == SOCK_CONN_ESTABLISHED &&
			    c->peer_ip == ip) {
				sock_conn_close_drained(c, status, hs);
				is_closed = true;
				break;
			}
	} while (is_closed);
}

static void ni_tick_peer(struct sock_peer *peer, uint64_t now_ns)
{
	struct ul_socklnd *s = peer->ni->s;
	uint64_t timeout_ns = s->timeout_sec * SOCK_NS_PER_SEC;
	uint64_t ka_ns = s->opts.keepalive_sec * SOCK_NS_PER_SEC;
	struct sock_conn *conn, *ctmp;
	struct sock_tx *st, *ttmp;
	uint64_t last_alive, held;

	/* Txs that waited for a connection past their deadline (§3). */
	ul_list_for_each_entry_safe(st, ttmp, &peer->txq, link)
		if (st->tx && st->tx->deadline_ns &&
		    st->tx->deadline_ns <= now_ns)
			sock_tx_complete(st, -ETIMEDOUT,
					 UL_HSTATUS_NETWORK_TIMEOUT);

	ul_list_for_each_entry_safe(conn, ctmp, &peer->conns, link) {
		bool is_mid_msg = conn->rx_state != SOCK_RX_KSH ||
				  conn->rx_hlen > 0;
		uint64_t unacked = sock_conn_tx_unacked(conn, now_ns);

		/*
		 * Queued or unacknowledged output, and nothing acknowledged
		 * for sock_timeout: the peer stopped reading or the path
		 * drops everything (a black hole keeps the link up).
		 */
		if (timeout_ns && (unacked || !ul_list_empty(&conn->txq)) &&
		    now_ns - conn->tx_progress_ns >= timeout_ns) {
			ul_log_limit(
				s->opts.log, UL_D_NETERROR,
				"socklnd %s: %s conn to %s: no send progress "
				"for %us (%llu bytes unacknowledged, %zu "
				"messages queued), closing",
				peer->ni->nidstr, sock_ctype_name(conn->ctype),
				peer->nidstr, s->timeout_sec,
				(unsigned long long)unacked,
				conn->stats.txq_len);
			close_address_drained(peer, conn->peer_ip, -ETIMEDOUT,
					      UL_HSTATUS_NETWORK_TIMEOUT);
			break; /* the next tick sees what is left */
		}
		if (timeout_ns && is_mid_msg &&
		    now_ns - conn->rx_progress_ns >= timeout_ns) {
			sock_conn_drain(conn);
			/* the end or an error closed it and its siblings */
			if (conn->state != SOCK_CONN_ESTABLISHED)
				break;
			if (now_ns - conn->rx_progress_ns < timeout_ns)
				continue;
			ul_log_limit(
				s->opts.log, UL_D_NETERROR,
				"socklnd %s: %s conn to %s: receive stalled "
				"inside a message for %us, closing",
				peer->ni->nidstr, sock_ctype_name(conn->ctype),
				peer->nidstr, s->timeout_sec);
			sock_conn_close(conn, -ETIMEDOUT,
					UL_HSTATUS_NETWORK_TIMEOUT);
			close_address_drained(peer, conn->peer_ip, -ETIMEDOUT,
					      UL_HSTATUS_NETWORK_TIMEOUT);
			break;
		}
		/*
		 * Queued, not started, past the deadline; not those at the
		 * head that a scheduler thread is writing.
		 */
		held = conn->is_job_out ? conn->job_nob : 0;
		ul_list_for_each_entry_safe(st, ttmp, &conn->txq, link) {
			if (held) {
				uint64_t left = st->nob - st->written;

				held = held > left ? held - left : 0;
				continue;
			}
			if (st->written == 0 && st->tx && st->tx->deadline_ns &&
			    st->tx->deadline_ns <= now_ns) {
				conn->txq_nob -= st->nob;
				conn->stats.txq_len--;
				sock_tx_complete(st, -ETIMEDOUT,
						 UL_HSTATUS_NETWORK_TIMEOUT);
			}
		}
	}

	/*
	 * Keepalive on our BULK_IN (or ANY) connection, §9.3, as the
	 * kernel's ksocknal_send_keepalive_locked (socklnd_cb.c): once the
	 * peer has shown no sign of life for keepalive seconds, neither a
	 * byte received nor TCP acknowledging our bytes, and at most every
	 * keepalive_retry_ms (10 s there) while it stays so. A peer that
	 * only acknowledges (an idle kernel node) gets one every keepalive.
	 */
	last_alive = peer->last_rx_ns > peer->last_ack_ns ? peer->last_rx_ns
							  : peer->last_ack_ns;
	if (ka_ns && !ul_list_empty(&peer->conns) &&
	    now_ns - last_alive >= ka_ns &&
	    (peer->last_keepalive_ns == 0 ||
	     now_ns - peer->last_keepalive_ns >=
		     s->opts.keepalive_retry_ms * SOCK_NS_PER_MS)) {
		ul_list_for_each_entry(conn, &peer->conns, link) {
			if ((conn->ctype != UL_WIRE_CONN_BULK_IN &&
			     conn->ctype != UL_WIRE_CONN_ANY) ||
			    !ul_list_empty(&conn->txq))
				continue;
			st = sock_tx_alloc_noop(peer->ni,
						UL_WIRE_KEEPALIVE_PING);
			if (!st)
				break;
			peer->last_keepalive_ns = now_ns;
			ul_log(s->opts.log, UL_D_NET,
			       "socklnd %s: keepalive to %s", peer->ni->nidstr,
			       peer->nidstr);
			sock_conn_queue_tx(conn, st);
			break;
		}
	}
}

static void on_ni_tick(struct ul_timer *t, uint64_t now_ns)
{
	struct sock_ni *ni = ul_container_of(t, struct sock_ni, tick);
	struct sock_peer *peer, *tmp;
	bool is_link_down = ni->is_link_down;

	ni->is_link_down = false;
	ul_list_for_each_entry_safe(peer, tmp, &ni->peers, link) {
		/* Each close takes one or more connections off the list. */
		while (is_link_down && !ul_list_empty(&peer->conns))
			sock_conn_close_drained(
				ul_list_first_entry(&peer->conns,
						    struct sock_conn, link),
				-ENETDOWN, UL_HSTATUS_LOCAL_DROPPED);
		ni_tick_peer(peer, now_ns);
		if (peer_is_idle(peer, now_ns))
			peer_free(peer);
		else
			sock_peer_connect_next(peer, now_ns);
	}
	ul_timer_arm(ul_loop_timers(ni->s->loop), &ni->tick,
		     now_ns + SOCK_TICK_NS);
	sock_deliver(ni->s);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * SOCK_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* One integer from a sysfs file; false if there is none. */
static bool read_sysfs_int(const char *path, int *out)
{
	char buf[32];
	char *end;
	ssize_t len;
	long v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int)v;
	return true;
}

/*
 * The NUMA node of the device behind interface ifname, as LNet's socklnd
 * takes it for the NI's "dev cpt": the device's own numa_node, else its
 * parent's (a virtio NIC sits on a PCI function). UL_NUMA_ANY when sysfs
 * does not say (virtual interfaces, no NUMA).
 */
static int if_numa_node(const char *ifname)
{
	static const char *const rel[] = { "device/numa_node",
					   "device/../numa_node" };
	char path[128];
	int node;

	if (!ifname[0] || strchr(ifname, '/'))
		return UL_NUMA_ANY;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname,
			 rel[i]);
		if (read_sysfs_int(path, &node))
			return node < 0 ? UL_NUMA_ANY : node;
	}
	return UL_NUMA_ANY;
}

/*
 * The conns_per_peer LNet's socklnd gives an NI that has none: from the
 * speed of its interface (sysfs "speed", Mb/s; -1 or unreadable when the
 * link does not say, as for a virtual or down one), 1 without one.
 */
static unsigned int if_conns_per_peer(const char *ifname)
{
	char path[128];
	int speed = -1;

	if (ifname[0] && !strchr(ifname, '/')) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
		if (!read_sysfs_int(path, &speed))
			speed = -1;
	}
	return ul_socklnd_conns_for_speed(speed);
}

static int sock_startup(struct ul_lnd_ni *lni, struct ul_err *err)
{
	struct ul_socklnd *s = lni->lnd->ctx;
	const struct ulnet_nid *nid = &lni->ni->nid;
	struct sock_ni *ni;
	int rc;

	if (nid->nid_type != ULNET_LND_SOCK || nid->nid_size != 0)
		return ul_err_set(err, -EINVAL,
				  "socklnd: an NI needs an IPv4 tcp NID");
	ni = calloc(1, sizeof(*ni));
	if (!ni)
		return ul_err_set(err, -ENOMEM, "socklnd: out of memory");
	ni->s = s;
	ni->lni = lni;
	ni->nid = *nid;
	ni->ip = nid->nid_addr[0];
	ni->incarnation = realtime_ns();
	/* An NI configured without "dev cpt" gets its device's node. */
	if (lni->ni->numa_node == UL_NUMA_ANY)
		lni->ni->numa_node = if_numa_node(lni->ni->ifname);
	/* Chosen at start, as LNet does: `net show -v` prints it. */
	if (lni->ni->conns_per_peer <= 0)
		lni->ni->conns_per_peer =
			s->opts.conns_per_peer
				? (int)s->opts.conns_per_peer
				: (int)if_conns_per_peer(lni->ni->ifname);
	rc = sock_sched_start(s);
	if (rc < 0)
		ul_log(s->opts.log, UL_D_WARNING,
		       "socklnd: no scheduler threads (%s): every write and "
		       "read on the loop thread",
		       strerror(-rc));
	ul_list_init(&ni->peers);
	ul_list_init(&ni->passive);
	ul_timer_init(&ni->tick, on_ni_tick);
	ulnet_nid_format(nid, ni->nidstr, sizeof(ni->nidstr));
	rc = sock_acceptor_start(ni, err);
	if (rc < 0)
		goto err_free;
	rc = ul_timer_arm(ul_loop_timers(s->loop), &ni->tick,
			  ul_loop_update_time(s->loop) + SOCK_TICK_NS);
	if (rc < 0) {
		ul_err_set(err, rc, "socklnd: out of memory");
		goto err_acceptor;
	}
	ul_list_add_tail(&s->nis, &ni->link);
	lni->data = ni;
	ul_log(s->opts.log, UL_D_INFO, "socklnd %s: up, incarnation %#llx",
	       ni->nidstr, (unsigned long long)ni->incarnation);
	sock_mr_probe(ni, lni->ni->ifname);
	sock_mr_update(s);
	return 0;

err_acceptor:
	sock_acceptor_stop(ni);
err_free:
	free(ni);
	return rc;
}

static void sock_shutdown(struct ul_lnd_ni *lni)
{
	struct sock_ni *ni = lni->data;
	struct ul_socklnd *s;
	struct sock_peer *peer, *ptmp;
	struct sock_conn *conn, *ctmp;

	if (!ni)
		return;
	s = ni->s;
	ni->is_stopping = true;
	sock_acceptor_stop(ni);
	ul_timer_cancel(ul_loop_timers(s->loop), &ni->tick);
	ul_list_for_each_entry_safe(conn, ctmp, &ni->passive, link)
		sock_conn_close(conn, -ESHUTDOWN, UL_HSTATUS_LOCAL_DROPPED);
	ul_list_for_each_entry_safe(peer, ptmp, &ni->peers, link) {
		ul_list_for_each_entry_safe(conn, ctmp, &peer->connecting, link)
			sock_conn_close(conn, -ESHUTDOWN,
					UL_HSTATUS_LOCAL_DROPPED);
		ul_list_for_each_entry_safe(conn, ctmp, &peer->conns, link)
			sock_conn_close(conn, -ESHUTDOWN,
					UL_HSTATUS_LOCAL_DROPPED);
		sock_peer_fail_txs(peer, -ESHUTDOWN, UL_HSTATUS_LOCAL_DROPPED);
		peer_free(peer);
	}
	/* Every tx of this NI completes before we return (core/lnd.h). */
	sock_deliver(s);
	drop_news(s, ni);
	sock_mr_remove(ni);
	ul_list_del(&ni->link);
	sock_mr_update(s); /* one left alone on its subnet needs none */
	ul_log(s->opts.log, UL_D_INFO, "socklnd %s: down", ni->nidstr);
	lni->data = NULL;
	free(ni);
}

static int sock_send(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx)
{
	struct sock_ni *ni = lni->data;
	const struct ulnet_nid *to = &tx->target_nid;
	struct sock_peer *peer;
	struct sock_conn *conn;
	struct sock_tx *st;

	if (!ni || ni->is_stopping)
		return -ESHUTDOWN;
	if (to->nid_type != ULNET_LND_SOCK || to->nid_size != 0 ||
	    ulnet_nid_net(to) != ulnet_nid_net(&ni->nid) ||
	    to->nid_addr[0] == 0)
		return -EHOSTUNREACH;
	st = sock_tx_alloc_lnet(ni, tx);
	if (!st)
		return -ENOMEM;
	if (st->hdr_len == 0) {
		sock_tx_free(ni->s, st);
		return -EINVAL;
	}
	peer = sock_peer_find_or_add(ni, to, tx->target_pid);
	if (!peer) {
		sock_tx_free(ni->s, st);
		return -ENOMEM;
	}
	/*
	 * A connection that can carry it takes it. Only a peer that has
	 * none is dialled (and from then on gets the full set): one we know
	 * from the connections it opened to us is not, as the kernel's
	 * ksocknal_launch_packet queues on such a connection and adds a
	 * route only when there is none (socklnd_cb.c); dialling it at
	 * once raced its own connections to us.
	 */
	conn = sock_conn_choose(peer, st);
	if (conn) {
		sock_conn_queue_tx(conn, st);
		return 0;
	}
	if (!peer->is_dialled) {
		peer->is_dialled = true;
		ni->nhello_peers--;
	}
	peer->wants_conns = true;
	ul_list_add_tail(&peer->txq, &st->link);
	sock_peer_connect_next(peer, sock_now(ni));
	return 0;
}

static void sock_link_change(struct ul_lnd_ni *lni, bool is_up)
{
	struct sock_ni *ni = lni->data;

	if (!ni || is_up || ni->is_stopping)
		return;
	/*
	 * The interface went down: what is queued cannot leave, so every
	 * connection closes and its txs go back to be resent on another
	 * rail. Not here, inside the core's call: each socket is read
	 * first (sock_conn_close_drained), which delivers messages upward,
	 * so the tick does it, at once.
	 */
	ni->is_link_down = true;
	(void)ul_timer_arm(ul_loop_timers(ni->s->loop), &ni->tick,
			   sock_now(ni));
}

static void sock_set_timeout(void *ctx, uint32_t sec);
static uint32_t sock_get_timeout(void *ctx);

const struct ul_lnd_ops ul_socklnd_ops = {
	.name = "socklnd",
	.startup = sock_startup,
	.shutdown = sock_shutdown,
	.send = sock_send,
	.link_change = sock_link_change,
	.set_timeout = sock_set_timeout,
	.get_timeout = sock_get_timeout,
};

/* ---- Introspection ---------------------------------------------------- */

static struct sock_ni *ni_find(const struct ul_socklnd *s,
			       const struct ulnet_nid *nid)
{
	struct sock_ni *ni;

	ul_list_for_each_entry(ni, &s->nis, link)
		if (ulnet_nid_same(&ni->nid, nid))
			return ni;
	return NULL;
}

int ul_socklnd_conns(const struct ul_socklnd *s, const struct ulnet_nid *ni_nid,
		     const struct ulnet_nid *peer_nid,
		     struct ul_socklnd_conn_info *out, size_t cap)
{
	struct sock_ni *ni = ni_find(s, ni_nid);
	struct sock_peer *peer;
	struct sock_conn *conn;
	int n = 0;

	if (!ni)
		return -ENOENT;
	peer = sock_peer_find(ni, peer_nid);
	if (!peer)
		return 0;
	ul_list_for_each_entry(conn, &peer->conns, link) {
		if ((size_t)n < cap) {
			socklen_t len = sizeof(out[n].tos);

			out[n] = conn->stats;
			if (getsockopt(conn->fd, IPPROTO_IP, IP_TOS,
				       &out[n].tos, &len) < 0)
				out[n].tos = -1;
		}
		n++;
	}
	return n;
}

size_t ul_socklnd_nconns(const struct ul_socklnd *s)
{
	const struct sock_ni *ni;
	const struct sock_peer *peer;
	size_t n = 0;

	ul_list_for_each_entry(ni, &s->nis, link)
		ul_list_for_each_entry(peer, &ni->peers, link)
			n += ul_list_count(&peer->conns);
	return n;
}

size_t ul_socklnd_nhandshakes(const struct ul_socklnd *s)
{
	const struct sock_ni *ni;
	const struct sock_peer *peer;
	size_t n = 0;

	ul_list_for_each_entry(ni, &s->nis, link) {
		n += ul_list_count(&ni->passive);
		ul_list_for_each_entry(peer, &ni->peers, link)
			n += ul_list_count(&peer->connecting);
	}
	return n;
}

struct ul_socklnd_opts *ul_socklnd_live_opts(struct ul_socklnd *s)
{
	return &s->opts;
}

size_t ul_socklnd_npeers(const struct ul_socklnd *s)
{
	const struct sock_ni *ni;
	size_t n = 0;

	ul_list_for_each_entry(ni, &s->nis, link)
		n += ul_list_count(&ni->peers);
	return n;
}

int ul_socklnd_listen_port(const struct ul_socklnd *s,
			   const struct ulnet_nid *ni_nid)
{
	const struct sock_ni *ni = ni_find(s, ni_nid);

	return ni ? sock_acceptor_port(ni) : -ENOENT;
}

static void sock_set_timeout(void *ctx, uint32_t sec)
{
	struct ul_socklnd *s = ctx;

	s->timeout_sec = sec;
}

static uint32_t sock_get_timeout(void *ctx)
{
	return ((const struct ul_socklnd *)ctx)->timeout_sec;
}

unsigned int ul_socklnd_timeout(const struct ul_socklnd *s)
{
	return s->timeout_sec;
}
