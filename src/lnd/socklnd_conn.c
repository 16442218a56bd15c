/*
 * socklnd connections: the active handshake (wire.md §4.1, §4.2, §10.3),
 * socket options, and the connection life cycle shared with the
 * acceptor: establish, close, dispatch of I/O events by state.
 *
 * Life cycle (enum sock_conn_state):
 *   active:  CONNECTING -> RECV_HELLO -> ESTABLISHED -> CLOSED
 *   passive: RECV_ACR -> RECV_PHELLO -> ESTABLISHED -> CLOSED
 * and any state -> CLOSED on failure. conn->hs_timer bounds everything
 * before ESTABLISHED: sock_timeout for the active side, accept_timeout
 * for the passive side, for the whole handshake, so a peer that trickles
 * one byte at a time is bounded too.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/ni.h"
#include "lnd/socklnd_int.h"

const char *sock_ctype_name(uint32_t ctype)
{
	const char *name = ul_wire_conn_type_name(ctype);

	if (ctype == UL_WIRE_CONN_NONE)
		return "NONE";
	return name ? name : "?";
}

unsigned int sock_peer_count_type(const struct sock_peer *peer, uint32_t ctype)
{
	const struct sock_conn *conn;
	unsigned int n = 0;

	ul_list_for_each_entry(conn, &peer->conns, link)
		if (conn->ctype == ctype)
			n++;
	return n;
}

bool sock_conn_set_state(struct sock_conn *conn, enum sock_conn_state st)
{
	bool is_ok;

	switch (st) {
	case SOCK_CONN_RECV_HELLO:
		is_ok = conn->state == SOCK_CONN_CONNECTING;
		break;
	case SOCK_CONN_RECV_PHELLO:
		is_ok = conn->state == SOCK_CONN_RECV_ACR;
		break;
	case SOCK_CONN_ESTABLISHED:
		is_ok = conn->state == SOCK_CONN_RECV_HELLO ||
			conn->state == SOCK_CONN_RECV_PHELLO;
		break;
	case SOCK_CONN_CLOSED:
		is_ok = conn->state != SOCK_CONN_CLOSED;
		break;
	default:
		is_ok = false;
		break;
	}
	if (!is_ok) {
		ul_log(conn->ni->s->opts.log, UL_D_ERROR,
		       "socklnd %s: refused conn state change %d -> %d",
		       conn->ni->nidstr, (int)conn->state, (int)st);
		return false;
	}
	conn->state = st;
	return true;
}

/*
 * TCP_NODELAY and keepalive 30 s / 5 s / 5 (wire.md §4.2 step 8). A
 * failure leaves the socket usable, so it is not an error.
 */
void sock_socket_setup(struct sock_ni *ni, int fd)
{
	int on = 1, idle = 30, intvl = 5, cnt = 5;

	if (ni->s->opts.nodelay)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

void sock_socket_set_tos(const struct sock_ni *ni, int fd)
{
	int tos = ni->lni->ni->tos;

	if (tos >= 0)
		(void)setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
}

/* Our V3 hello (§4.2 step 3 or 6): returns its length or -errno. */
int sock_hello_build(struct sock_ni *ni, const struct ulnet_nid *dst,
		     uint32_t ctype, uint8_t *buf, size_t cap)
{
	struct ul_wire_hello h;

	memset(&h, 0, sizeof(h));
	h.version = UL_WIRE_PROTO_V3;
	h.src_nid = ni->nid;
	h.dst_nid = *dst;
	h.src_pid = ni->lni->pid;
	h.src_incarnation = ni->incarnation;
	h.ctype = ctype;
	return ul_wire_hello_encode(&h, buf, cap, NULL);
}

static void on_hs_timeout(struct ul_timer *t, uint64_t now_ns);

struct sock_conn *sock_conn_alloc(struct sock_ni *ni, int fd, bool is_passive,
				  uint64_t timeout_ns)
{
	struct sock_conn *conn = calloc(1, sizeof(*conn));
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);

	if (!conn)
		return NULL;
	memset(&sa, 0, sizeof(sa));
	conn->ni = ni;
	conn->fd = fd;
	conn->is_passive = is_passive;
	conn->ctype = UL_WIRE_CONN_NONE;
	conn->state = is_passive ? SOCK_CONN_RECV_ACR : SOCK_CONN_CONNECTING;
	conn->rx_state = SOCK_RX_KSH;
	ul_list_init(&conn->link);
	ul_list_init(&conn->flush_link);
	ul_list_init(&conn->kept_link);
	ul_list_init(&conn->txq);
	ul_list_init(&conn->tx_unacked);
	ul_list_init(&conn->ack_link);
	ul_timer_init(&conn->hs_timer, on_hs_timeout);
	conn->hs_start_ns = sock_now(ni);
	if (ul_timer_arm(ul_loop_timers(ni->s->loop), &conn->hs_timer,
			 sock_now(ni) + timeout_ns) < 0) {
		free(conn);
		return NULL;
	}
	if (getpeername(fd, (struct sockaddr *)&sa, &salen) == 0 &&
	    sa.sin_family == AF_INET) {
		conn->peer_ip = ntohl(sa.sin_addr.s_addr);
		conn->peer_port = ntohs(sa.sin_port);
	}
	salen = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &salen) == 0 &&
	    sa.sin_family == AF_INET) {
		conn->local_ip = ntohl(sa.sin_addr.s_addr);
		conn->local_port = ntohs(sa.sin_port);
	}
	conn->stats.is_passive = is_passive;
	conn->stats.local_port = conn->local_port;
	conn->stats.peer_port = conn->peer_port;
	return conn;
}

/* One write of a whole handshake unit; a short write is a failure. */
int sock_hs_write(struct sock_conn *conn, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = send(conn->fd, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/*
 * Read until hs_in holds want bytes: 1 when it does, 0 to wait for more,
 * -errno (-ECONNRESET at EOF). Never reads past want, so the bytes after
 * the handshake stay in the socket for the receive state machine.
 */
int sock_hs_read(struct sock_conn *conn, size_t want)
{
	if (want > sizeof(conn->hs_in))
		return -EPROTO;
	while (conn->hs_in_len < want) {
		ssize_t n = recv(conn->fd, conn->hs_in + conn->hs_in_len,
				 want - conn->hs_in_len, 0);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		conn->hs_in_len += (size_t)n;
	}
	return 1;
}

/* ---- Close and establish ---------------------------------------------- */

void sock_peer_close_conns(struct sock_peer *peer, int status,
			   enum ul_hstatus hs)
{
	struct sock_conn *conn, *tmp;

	ul_list_for_each_entry_safe(conn, tmp, &peer->conns, link)
		sock_conn_close(conn, status, hs);
}

void sock_conn_close_siblings(struct sock_conn *conn, int status,
			      enum ul_hstatus hs)
{
	struct sock_peer *peer = conn->peer;
	uint32_t ip = conn->peer_ip;
	struct sock_conn *c, *tmp;

	sock_conn_close(conn, status, hs);
	/* A connection the closes start (CONNECTING) is not a sibling. */
	ul_list_for_each_entry_safe(c, tmp, &peer->conns, link)
		if (c->state == SOCK_CONN_ESTABLISHED && c->peer_ip == ip)
			sock_conn_close(c, status, hs);
}

void sock_conn_close(struct sock_conn *conn, int status, enum ul_hstatus hs)
{
	struct sock_ni *ni = conn->ni;
	struct ul_socklnd *s = ni->s;
	struct sock_peer *peer = conn->peer;
	bool was_up = conn->state == SOCK_CONN_ESTABLISHED;

	if (!sock_conn_set_state(conn, SOCK_CONN_CLOSED))
		return;
	conn->close_status = status;
	ul_timer_cancel(ul_loop_timers(s->loop), &conn->hs_timer);
	/*
	 * A scheduler thread's write is part of what was written; its read
	 * must be back before the receive is aborted and fd closed.
	 */
	sock_conn_job_reclaim(conn);
	sock_conn_rjob_reclaim(conn);
	/* What TCP acknowledged was delivered: it completes OK. */
	if (was_up)
		(void)sock_conn_tx_unacked(conn, sock_now(ni));
	if (conn->fd >= 0) {
		ul_io_stop(&conn->io);
		close(conn->fd);
		conn->fd = -1;
	}
	ul_list_del(&conn->flush_link);
	sock_conn_unkeep(conn);
	ul_list_del(&conn->link);
	ul_list_add_tail(&s->zombies, &conn->link);
	if (!was_up)
		return;

	ul_log_limit(s->opts.log, UL_D_INFO,
		     "socklnd %s: %s conn to %s down (%s): %d", ni->nidstr,
		     sock_ctype_name(conn->ctype), peer->nidstr,
		     conn->is_passive ? "passive" : "active", status);
	sock_conn_fail_txs(conn, status, hs);
	sock_conn_rx_abort(conn, status);
	if (ul_list_empty(&peer->conns)) {
		peer->has_incarnation = false;
		peer->lost_ns = sock_now(ni);
		/* reset or closed by the peer: it may be gone (core/lnd.h) */
		if (status == -ECONNRESET)
			sock_peer_news(peer, false);
	}
	if (ni->is_stopping)
		return;
	/* Reopen what is missing when there is traffic for the peer. */
	sock_peer_connect_next(peer, sock_now(ni));
}

int sock_conn_watch(struct sock_conn *conn, bool is_pollout)
{
	uint32_t events = is_pollout ? EPOLLOUT : 0;

	if (!conn->is_rjob_out)
		events |= EPOLLIN;
	return ul_io_modify(&conn->io, events);
}

void sock_conn_drain(struct sock_conn *conn)
{
	uint64_t before;
	int i;

	/*
	 * Each pass reads up to the receive budget; the socket's buffer is
	 * finite, and a pass that reads nothing (empty, or the receive
	 * waits for a buffer) ends it. The cap only guards a peer that
	 * keeps the buffer full faster than we read.
	 */
	/*
	 * A thread's read first; then everything here: a job could be
	 * taken back unstarted, and reading stop before the end.
	 */
	sock_conn_rjob_reclaim(conn);
	conn->is_draining = true;
	for (i = 0; i < 1024 && conn->state == SOCK_CONN_ESTABLISHED; i++) {
		before = conn->stats.rx_bytes;
		sock_conn_recv(conn);
		if (conn->stats.rx_bytes == before)
			break;
	}
	conn->is_draining = false;
}

void sock_conn_close_drained(struct sock_conn *conn, int status,
			     enum ul_hstatus hs)
{
	sock_conn_drain(conn);
	/* A read may have found the end or an error and closed it. */
	if (conn->state == SOCK_CONN_ESTABLISHED)
		sock_conn_close(conn, status, hs);
}

void sock_conn_established(struct sock_conn *conn,
			   const struct ul_wire_hello *hello)
{
	struct sock_ni *ni = conn->ni;
	struct sock_peer *peer = conn->peer;
	struct ul_socklnd *s = ni->s;
	uint64_t now = sock_now(ni);
	char ipbuf[32];

	if (!sock_conn_set_state(conn, SOCK_CONN_ESTABLISHED)) {
		sock_conn_close(conn, -EPROTO, UL_HSTATUS_LOCAL_ERROR);
		return;
	}
	if (ul_io_modify(&conn->io, EPOLLIN) < 0) {
		sock_conn_close(conn, -ENOMEM, UL_HSTATUS_LOCAL_ERROR);
		return;
	}
	ul_timer_cancel(ul_loop_timers(s->loop), &conn->hs_timer);
	ul_list_del(&conn->link);
	ul_list_add_tail(&peer->conns, &conn->link);
	/* A new incarnation: nothing sent to the old one is answered. */
	if (peer->has_last_incarnation &&
	    peer->last_incarnation != hello->src_incarnation)
		sock_peer_news(peer, true);
	peer->incarnation = hello->src_incarnation;
	peer->has_incarnation = true;
	peer->last_incarnation = hello->src_incarnation;
	peer->has_last_incarnation = true;
	peer->lost_ns = 0;
	peer->last_rx_ns = now;
	conn->rx_progress_ns = now;
	conn->tx_progress_ns = now;
	conn->stats.ctype = conn->ctype;
	if (!conn->is_passive) {
		peer->backoff_ms = s->opts.min_reconnect_ms;
		peer->nrefused = 0;
		peer->retry_ns = 0;
	}
	snprintf(ipbuf, sizeof(ipbuf), "%u.%u.%u.%u:%u", conn->peer_ip >> 24,
		 (conn->peer_ip >> 16) & 0xff, (conn->peer_ip >> 8) & 0xff,
		 conn->peer_ip & 0xff, conn->peer_port);
	ul_log_limit(s->opts.log, UL_D_INFO,
		     "socklnd %s: %s conn to %s up (%s, %s)", ni->nidstr,
		     sock_ctype_name(conn->ctype), peer->nidstr,
		     conn->is_passive ? "passive" : "active", ipbuf);
	sock_peer_dispatch(peer);
	sock_peer_connect_next(peer, now);
}

/* ---- Active side ------------------------------------------------------ */

/*
 * Why a peer may have closed our connection during the handshake: a
 * kernel node's acceptor with accept=secure, its default, refuses a
 * connection from a source port above 1023 (lustre-release
 * lnet/lnet/acceptor.c lnet_acceptor, "insecure port") and never dials
 * a peer that came from one, so an unprivileged ulnetd cannot reach it
 * at all. "" when that is not the case.
 */
static const char *insecure_port_hint(const struct sock_conn *conn, int err)
{
	if (conn->ni->s->is_privileged ||
	    conn->local_port <= UL_WIRE_PRIV_PORT_MAX ||
	    (err != -ECONNRESET && err != -EPIPE && err != -ECONNABORTED))
		return "";
	return "; our source port is above 1023, which a kernel LNet peer "
	       "with accept=secure (its default) refuses: run ulnetd as root "
	       "(or with CAP_NET_BIND_SERVICE and --src-port priv), or set "
	       "accept=all on the peer";
}

/*
 * A connection attempt failed: back off, and fail what waits for the
 * peer if no connection can carry it (health.md §10).
 */
static void active_failed(struct sock_conn *conn, int err, const char *why)
{
	struct sock_peer *peer = conn->peer;
	struct ul_socklnd *s = conn->ni->s;
	uint64_t now = sock_now(conn->ni);

	ul_log_limit(s->opts.log, UL_D_NETERROR,
		     "socklnd %s: %s conn to %s failed: %s (%d)%s",
		     conn->ni->nidstr, sock_ctype_name(conn->ctype),
		     peer->nidstr, why, err, insecure_port_hint(conn, err));
	sock_conn_close(conn, err, sock_hstatus_of_errno(err));
	peer->retry_ns = now + peer->backoff_ms * SOCK_NS_PER_MS;
	peer->backoff_ms *= 2;
	if (peer->backoff_ms > s->opts.max_reconnect_ms)
		peer->backoff_ms = s->opts.max_reconnect_ms;
	if (ul_list_empty(&peer->conns)) {
		sock_peer_fail_txs(peer, err, sock_hstatus_of_errno(err));
		peer->wants_conns = false;
		/* a peer we knew refuses us: its process may be gone */
		if (err == -ECONNREFUSED && peer->has_last_incarnation)
			sock_peer_news(peer, false);
	} else {
		sock_peer_connect_next(peer, now);
	}
}

static void on_hs_timeout(struct ul_timer *t, uint64_t now_ns)
{
	struct sock_conn *conn = ul_container_of(t, struct sock_conn, hs_timer);
	struct ul_socklnd *s = conn->ni->s;

	(void)now_ns;
	if (conn->is_passive) {
		ul_log_limit(
			s->opts.log, UL_D_NETERROR,
			"socklnd %s: handshake from %u.%u.%u.%u:%u timed out",
			conn->ni->nidstr, conn->peer_ip >> 24,
			(conn->peer_ip >> 16) & 0xff,
			(conn->peer_ip >> 8) & 0xff, conn->peer_ip & 0xff,
			conn->peer_port);
		sock_conn_close(conn, -ETIMEDOUT, UL_HSTATUS_NETWORK_TIMEOUT);
	} else {
		active_failed(conn, -ETIMEDOUT, "handshake timed out");
	}
	sock_deliver(s);
}

/* Bind to the NI's address: a privileged port when the policy says. */
static int active_socket(struct sock_ni *ni, const struct sockaddr_in *dst,
			 int *out)
{
	struct sockaddr_in src;
	int port = ni->s->is_privileged ? UL_WIRE_PRIV_PORT_MAX : 0;
	int rc = -EADDRINUSE;

	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(ni->ip);
	for (; port >= (ni->s->is_privileged ? UL_WIRE_PRIV_PORT_MIN : 0);
	     port--) {
		int fd = socket(AF_INET,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		int on = 1;

		if (fd < 0)
			return -errno;
		if (port) {
			(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
					 sizeof(on));
			(void)setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on,
					 sizeof(on));
		}
		src.sin_port = htons((uint16_t)port);
		rc = 0;
		if (bind(fd, (const struct sockaddr *)&src, sizeof(src)) < 0 ||
		    (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) <
			     0 &&
		     errno != EINPROGRESS))
			rc = -errno;
		if (rc == 0) {
			*out = fd;
			return 0;
		}
		close(fd);
		if (rc != -EADDRINUSE && rc != -EADDRNOTAVAIL)
			return rc;
		if (port == 0)
			break;
	}
	return rc;
}

int sock_conn_connect(struct sock_peer *peer, uint32_t ctype)
{
	struct sock_ni *ni = peer->ni;
	struct ul_socklnd *s = ni->s;
	struct sockaddr_in dst;
	struct sock_conn *conn;
	int fd = -1, rc;

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = htonl(peer->ip);
	dst.sin_port = htons(ctype == UL_WIRE_CONN_CONTROL
				     ? s->opts.accept_port
				     : s->opts.accept_port_bulk);
	rc = active_socket(ni, &dst, &fd);
	conn = sock_conn_alloc(ni, fd, false, s->timeout_sec * SOCK_NS_PER_SEC);
	if (!conn) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	conn->peer = peer;
	conn->ctype = ctype;
	conn->peer_ip = peer->ip;
	ul_list_add_tail(&peer->connecting, &conn->link);
	if (rc == 0) {
		sock_socket_setup(ni, fd);
		sock_socket_set_tos(ni, fd);
		rc = ul_io_start(s->loop, &conn->io, fd, EPOLLOUT,
				 sock_conn_on_io);
	}
	if (rc < 0) {
		active_failed(conn, rc, "connect");
		return rc;
	}
	return 0;
}

/* The TCP connect finished: send the acceptor request and our hello. */
static void active_on_connected(struct sock_conn *conn)
{
	struct sock_ni *ni = conn->ni;
	struct sock_peer *peer = conn->peer;
	struct ul_wire_acr acr = {
		.version = UL_WIRE_ACCEPTOR_VERSION,
		.nid = peer->nid,
	};
	uint8_t buf[UL_WIRE_ACR_SIZE + UL_WIRE_HELLO_MAX_SIZE];
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	int err = 0, len, hlen;
	socklen_t errlen = sizeof(err);

	if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &errlen) < 0)
		err = errno;
	if (err) {
		active_failed(conn, -err, "connect");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	if (getsockname(conn->fd, (struct sockaddr *)&sa, &salen) == 0) {
		conn->local_port = ntohs(sa.sin_port);
		conn->stats.local_port = conn->local_port;
	}
	salen = sizeof(sa);
	if (getpeername(conn->fd, (struct sockaddr *)&sa, &salen) == 0)
		conn->peer_port = ntohs(sa.sin_port);
	conn->stats.peer_port = conn->peer_port;
	len = ul_wire_acr_encode(&acr, buf, sizeof(buf), NULL);
	hlen = len < 0 ? len
		       : sock_hello_build(ni, &peer->nid, conn->ctype,
					  buf + len, sizeof(buf) - (size_t)len);
	if (len < 0 || hlen < 0) {
		active_failed(conn, -EINVAL, "cannot encode the hello");
		return;
	}
	err = sock_hs_write(conn, buf, (size_t)len + (size_t)hlen);
	if (err < 0) {
		active_failed(conn, err, "sending the hello");
		return;
	}
	if (!sock_conn_set_state(conn, SOCK_CONN_RECV_HELLO) ||
	    ul_io_modify(&conn->io, EPOLLIN) < 0)
		active_failed(conn, -EIO, "state");
}

/* §10.3: the passive side's reply. */
static void active_recv_hello(struct sock_conn *conn)
{
	struct sock_ni *ni = conn->ni;
	struct sock_peer *peer = conn->peer;
	struct ul_socklnd *s = ni->s;
	struct ul_wire_hello hello;
	struct ul_err e = { 0 };
	char claimed[ULNET_NIDSTR_SIZE];
	size_t size = 0;
	int rc;

	for (;;) {
		rc = ul_wire_hello_frame(conn->hs_in, conn->hs_in_len, &size,
					 &e);
		if (rc == 0)
			break;
		if (rc != -ENOMSG) {
			active_failed(conn, -EPROTO, e.msg);
			return;
		}
		rc = sock_hs_read(conn, size);
		if (rc < 0) {
			active_failed(conn, rc, "reading the hello");
			return;
		}
		if (rc == 0)
			return;
	}
	if (ul_wire_hello_decode(conn->hs_in, size, &hello, &e) < 0) {
		active_failed(conn, -EPROTO, e.msg);
		return;
	}
	if (hello.version != UL_WIRE_PROTO_V3) {
		active_failed(conn, -EPROTO,
			      "peer answered in another protocol version");
		return;
	}
	if (hello.ctype == UL_WIRE_CONN_NONE) {
		/* Lost a race or a duplicate (§4.5): retry, keep the txs. */
		ul_log(s->opts.log, UL_D_NET,
		       "socklnd %s: %s conn refused by %s, retrying",
		       ni->nidstr, sock_ctype_name(conn->ctype), peer->nidstr);
		sock_conn_close(conn, -EALREADY, UL_HSTATUS_OK);
		peer->nrefused++;
		peer->retry_ns = sock_now(ni) +
				 s->opts.min_reconnect_ms * SOCK_NS_PER_MS;
		sock_peer_connect_next(peer, sock_now(ni));
		return;
	}
	if (!ulnet_nid_same(&hello.src_nid, &peer->nid) ||
	    (peer->pid != UL_WIRE_PID_ANY && hello.src_pid != peer->pid)) {
		ulnet_nid_format(&hello.src_nid, claimed, sizeof(claimed));
		ul_log_limit(
			s->opts.log, UL_D_CONSOLE,
			"socklnd %s: connected to %s-%u but %s-%u answered",
			ni->nidstr, peer->nidstr, peer->pid, claimed,
			hello.src_pid);
		active_failed(conn, -EPROTO, "wrong peer identity");
		return;
	}
	if (hello.ctype != ul_wire_conn_type_inverse(conn->ctype)) {
		ul_log_limit(s->opts.log, UL_D_NETERROR,
			     "socklnd %s: asked %s for %s, it answered %s",
			     ni->nidstr, peer->nidstr,
			     sock_ctype_name(conn->ctype),
			     sock_ctype_name(hello.ctype));
		active_failed(conn, -EPROTO, "connection type mismatch");
		return;
	}
	if (peer->has_incarnation &&
	    peer->incarnation != hello.src_incarnation) {
		/* The peer restarted (§4.4): its old connections are dead. */
		ul_log_limit(s->opts.log, UL_D_NETERROR,
			     "socklnd %s: %s restarted, closing its old conns",
			     ni->nidstr, peer->nidstr);
		sock_peer_close_conns(peer, -ESTALE, UL_HSTATUS_LOCAL_ERROR);
	}
	sock_conn_established(conn, &hello);
}

void sock_conn_on_io(struct ul_io *io, uint32_t events)
{
	struct sock_conn *conn = ul_container_of(io, struct sock_conn, io);
	struct ul_socklnd *s = conn->ni->s;

	switch (conn->state) {
	case SOCK_CONN_CONNECTING:
		active_on_connected(conn);
		break;
	case SOCK_CONN_RECV_HELLO:
		active_recv_hello(conn);
		break;
	case SOCK_CONN_RECV_ACR:
	case SOCK_CONN_RECV_PHELLO:
		sock_passive_on_io(conn, events);
		break;
	case SOCK_CONN_ESTABLISHED:
		/*
		 * The end or an error: what is left is read here, where the
		 * read finds it. epoll reports both even while a thread's
		 * read job is out (and EPOLLIN unwatched), so handing the
		 * read on would spin the loop thread until that job is back.
		 */
		if (events & (EPOLLERR | EPOLLHUP))
			sock_conn_drain(conn);
		else if (events & EPOLLIN)
			sock_conn_recv(conn);
		if (conn->state == SOCK_CONN_ESTABLISHED && (events & EPOLLOUT))
			sock_conn_flush(conn, SOCK_IO_BUDGET);
		break;
	case SOCK_CONN_CLOSED:
		break;
	}
	sock_deliver(s);
}
