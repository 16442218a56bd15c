/*
 * socklnd acceptor: the listening sockets of an NI and the passive half of
 * the handshake (wire.md §4.8, §10.1, §10.2): source port rule, acceptor
 * request, hello, then races (§4.5), duplicates and incarnation (§4.4),
 * and our reply with the inverse type or NONE.
 *
 * Listeners are per address, not INADDR_ANY, so that several nodes share
 * a machine on different addresses with the same port; the NIs of one
 * address (two nets on one interface) share its listener, and the
 * acceptor request's NID picks the NI, as LNet's one acceptor does.
 *
 * Departure from the kernel (§4.7): with accept=all, a connector whose
 * source port is above 1023 is trusted with the src_nid and src_pid of
 * its hello, as if its port were privileged; the kernel would invent a
 * "user-space peer" identity instead. Two ulnet nodes without root
 * connect this way.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lnd/socklnd_int.h"
#include "util/err.h"

/* Connections accepted per listener callback. */
#define SOCK_ACCEPT_BATCH 16

static void fmt_addr(char *buf, size_t len, uint32_t ip, uint16_t port)
{
	snprintf(buf, len, "%u.%u.%u.%u:%u", ip >> 24, (ip >> 16) & 0xff,
		 (ip >> 8) & 0xff, ip & 0xff, port);
}

static bool is_older(const struct sock_conn *a, const struct sock_conn *b)
{
	return !b || a->hs_start_ns < b->hs_start_ns;
}

/*
 * Make room for a handshake from ip (host order) within the limits
 * (socklnd.h, max_handshakes): close the oldest handshake from ip when
 * that address holds its share, else, when every slot is taken, the
 * oldest one that has sent nothing yet, or the oldest. A peer that means
 * to connect sends its acceptor request with its connect, so a handshake
 * that stays silent for long is what a flood leaves; the kernel's single
 * acceptor thread instead reads each request in turn with
 * accept_timeout, where one silent connection holds up all the others
 * (docs/design-notes.md).
 */
static void passive_make_room(struct ul_socklnd *s, uint32_t ip,
			      const char *addr)
{
	const struct ul_socklnd_opts *o = &s->opts;
	struct sock_conn *c, *victim = NULL, *of_src = NULL, *oldest = NULL,
			     *silent = NULL;
	unsigned int nsrc = 0, nall = 0;
	struct sock_ni *ni;
	char vaddr[32];

	ul_list_for_each_entry(ni, &s->nis, link)
		ul_list_for_each_entry(c, &ni->passive, link) {
			nall++;
			if (is_older(c, oldest))
				oldest = c;
			if (c->state == SOCK_CONN_RECV_ACR &&
			    c->hs_in_len == 0 && is_older(c, silent))
				silent = c;
			if (c->peer_ip != ip)
				continue;
			nsrc++;
			if (is_older(c, of_src))
				of_src = c;
		}
	if (o->max_handshakes_per_addr && nsrc >= o->max_handshakes_per_addr)
		victim = of_src;
	else if (o->max_handshakes && nall >= o->max_handshakes)
		victim = silent ? silent : oldest;
	if (!victim)
		return;
	fmt_addr(vaddr, sizeof(vaddr), victim->peer_ip, victim->peer_port);
	ul_log_limit(s->opts.log, UL_D_NETERROR,
		     "socklnd %s: handshake from %s evicted for a connection "
		     "from %s: %u handshakes from its address, %u in all "
		     "(limits %u and %u)",
		     victim->ni->nidstr, vaddr, addr, nsrc, nall,
		     o->max_handshakes_per_addr, o->max_handshakes);
	sock_conn_close(victim, -EBUSY, UL_HSTATUS_LOCAL_DROPPED);
}

/* The NI a new connection on l waits on until its acceptor request. */
static struct sock_ni *listener_first_ni(const struct sock_listener *l)
{
	struct sock_ni *ni;

	ul_list_for_each_entry(ni, &l->s->nis, link)
		if (!ni->is_stopping &&
		    (ni->listener[0] == l || ni->listener[1] == l))
			return ni;
	return NULL;
}

static void on_accept(struct ul_io *io, uint32_t events)
{
	struct sock_listener *l = ul_container_of(io, struct sock_listener, io);
	struct ul_socklnd *s = l->s;
	char addr[32];

	(void)events;
	for (int i = 0; i < SOCK_ACCEPT_BATCH; i++) {
		struct sockaddr_in sa;
		socklen_t salen = sizeof(sa);
		struct sock_conn *conn;
		struct sock_ni *ni;
		uint16_t port;
		int fd;

		memset(&sa, 0, sizeof(sa));
		fd = accept4(l->fd, (struct sockaddr *)&sa, &salen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN, or an error the next poll repeats */
		ni = listener_first_ni(l);
		if (!ni) {
			close(fd); /* its last NI is stopping */
			continue;
		}
		port = ntohs(sa.sin_port);
		fmt_addr(addr, sizeof(addr), ntohl(sa.sin_addr.s_addr), port);
		if (s->opts.accept == ULNET_ACCEPT_SECURE &&
		    port > UL_WIRE_PRIV_PORT_MAX) {
			/* §10.1: close at once, nothing read or sent. */
			ul_log_limit(
				s->opts.log, UL_D_NETERROR,
				"socklnd %s: refused %s: source port above %u "
				"(accept=secure)",
				ni->nidstr, addr, UL_WIRE_PRIV_PORT_MAX);
			close(fd);
			continue;
		}
		passive_make_room(s, ntohl(sa.sin_addr.s_addr), addr);
		conn = sock_conn_alloc(ni, fd, true,
				       s->opts.accept_timeout_ms *
					       SOCK_NS_PER_MS);
		if (!conn) {
			close(fd);
			continue;
		}
		conn->is_user_port = port > UL_WIRE_PRIV_PORT_MAX;
		/* A peer that reset at once leaves getpeername() nothing. */
		if (!conn->peer_ip) {
			conn->peer_ip = ntohl(sa.sin_addr.s_addr);
			conn->peer_port = port;
		}
		sock_socket_setup(ni, fd);
		if (ul_io_start(s->loop, &conn->io, fd, EPOLLIN,
				sock_conn_on_io) < 0) {
			ul_timer_cancel(ul_loop_timers(s->loop),
					&conn->hs_timer);
			close(fd);
			free(conn);
			continue;
		}
		ul_list_add_tail(&ni->passive, &conn->link);
	}
}

/* What an operator can do about a bind() or listen() that failed. */
static const char *bind_hint(int rc, uint16_t port)
{
	switch (rc) {
	case -EADDRINUSE:
		return ": another process listens there (another ulnetd, or "
		       "a kernel LNet acceptor)";
	case -EACCES:
		if (port > UL_WIRE_PRIV_PORT_MAX)
			return "";
		return ": a port below 1024 needs root or "
		       "CAP_NET_BIND_SERVICE. With --port above 1023 "
		       "ulnetd runs unprivileged, but then kernel LNet "
		       "nodes cannot reach it: they connect to their own "
		       "accept_port (988) and, with accept=secure, refuse "
		       "connections from ports above 1023";
	case -EADDRNOTAVAIL:
		return ": no interface here has that address";
	default:
		return "";
	}
}

/*
 * *out: the listener on ip:port, shared if another NI opened it; nidstr
 * names the NI in an error.
 */
static int listener_get(struct ul_socklnd *s, const char *nidstr, uint32_t ip,
			uint16_t port, struct sock_listener **out,
			struct ul_err *err)
{
	struct sock_listener *l;
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	char addr[32];
	int on = 1, rc;

	ul_list_for_each_entry(l, &s->listeners, link)
		if (l->ip == ip && l->port == port) {
			l->refs++;
			*out = l;
			return 0;
		}
	fmt_addr(addr, sizeof(addr), ip, port);
	l = calloc(1, sizeof(*l));
	if (!l)
		return ul_err_set(err, -ENOMEM, "socklnd: out of memory");
	l->s = s;
	l->ip = ip;
	l->port = port;
	l->refs = 1;
	l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0) {
		rc = ul_err_set(err, -errno, "socklnd: socket: %s",
				strerror(errno));
		free(l);
		return rc;
	}
	(void)setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(ip);
	sa.sin_port = htons(port);
	if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(l->fd, SOMAXCONN) < 0) {
		rc = -errno;
		ul_err_set(err, rc, "socklnd NI %s: cannot listen on %s: %s%s",
			   nidstr, addr, strerror(-rc), bind_hint(rc, port));
		goto err_close;
	}
	l->bound_port = port;
	if (getsockname(l->fd, (struct sockaddr *)&sa, &salen) == 0)
		l->bound_port = ntohs(sa.sin_port);
	rc = ul_io_start(s->loop, &l->io, l->fd, EPOLLIN, on_accept);
	if (rc < 0) {
		ul_err_set(err, rc, "socklnd: cannot watch %s", addr);
		goto err_close;
	}
	ul_list_add_tail(&s->listeners, &l->link);
	*out = l;
	return 0;

err_close:
	close(l->fd);
	free(l);
	return rc;
}

static void listener_put(struct sock_listener *l)
{
	if (--l->refs > 0)
		return;
	ul_io_stop(&l->io);
	close(l->fd);
	ul_list_del(&l->link);
	free(l);
}

int sock_acceptor_start(struct sock_ni *ni, struct ul_err *err)
{
	const struct ul_socklnd_opts *o = &ni->s->opts;
	int rc;

	if (o->accept == ULNET_ACCEPT_NONE)
		return 0;
	rc = listener_get(ni->s, ni->nidstr, ni->ip, o->accept_port,
			  &ni->listener[0], err);
	if (rc < 0 || o->accept_port_bulk == o->accept_port)
		return rc;
	rc = listener_get(ni->s, ni->nidstr, ni->ip, o->accept_port_bulk,
			  &ni->listener[1], err);
	if (rc < 0)
		sock_acceptor_stop(ni);
	return rc;
}

void sock_acceptor_stop(struct sock_ni *ni)
{
	for (int i = 0; i < 2; i++) {
		if (!ni->listener[i])
			continue;
		listener_put(ni->listener[i]);
		ni->listener[i] = NULL;
	}
}

int sock_acceptor_port(const struct sock_ni *ni)
{
	return ni->listener[0] ? ni->listener[0]->bound_port : -ENOENT;
}

/* ---- Passive handshake ------------------------------------------------ */

static void passive_end(struct sock_conn *conn, const char *what,
			const char *why)
{
	char addr[32];

	fmt_addr(addr, sizeof(addr), conn->peer_ip, conn->peer_port);
	ul_log_limit(conn->ni->s->opts.log, UL_D_NETERROR,
		     "socklnd %s: %s connection from %s: %s", conn->ni->nidstr,
		     what, addr, why);
	sock_conn_close(conn, -EPROTO, UL_HSTATUS_REMOTE_ERROR);
}

static void passive_close(struct sock_conn *conn, const char *why)
{
	passive_end(conn, "closing", why);
}

/* Answer with our V3 hello, ctype NONE, then close (§4.5, §4.6). */
static void passive_refuse(struct sock_conn *conn, const struct ulnet_nid *dst,
			   const char *why)
{
	uint8_t buf[UL_WIRE_HELLO_MAX_SIZE];
	int len = sock_hello_build(conn->ni, dst, UL_WIRE_CONN_NONE, buf,
				   sizeof(buf));

	if (len > 0)
		(void)sock_hs_write(conn, buf, (size_t)len);
	passive_end(conn, "refused (NONE)", why);
}

/*
 * The running NI with this NID, or NULL: the NI a passive connection is
 * for, whatever address it came in on, as the kernel's lnet_accept
 * (lnet/lnet/acceptor.c) takes any local NI the request names.
 */
static struct sock_ni *acr_target(const struct sock_conn *conn,
				  const struct ulnet_nid *nid)
{
	struct sock_ni *ni;

	ul_list_for_each_entry(ni, &conn->ni->s->nis, link)
		if (!ni->is_stopping && ulnet_nid_same(&ni->nid, nid))
			return ni;
	return NULL;
}

/* §10.1: 0 to go on with the hello, 1 to wait, -1 when closed. */
static int passive_recv_acr(struct sock_conn *conn)
{
	struct sock_ni *ni = conn->ni, *target;
	enum ul_wire_acr_verdict verdict;
	struct ul_wire_acr acr;
	struct ul_err e = { 0 };
	uint8_t answer[UL_WIRE_ACR_SIZE];
	size_t size = 0;
	int rc;

	for (;;) {
		rc = ul_wire_acr_classify(conn->hs_in, conn->hs_in_len,
					  &verdict, &size);
		if (rc == 0 &&
		    (verdict != UL_WIRE_ACR_OK || conn->hs_in_len >= size))
			break;
		rc = sock_hs_read(conn, size);
		if (rc < 0) {
			passive_close(conn, "reading the acceptor request");
			return -1;
		}
		if (rc == 0)
			return 1;
	}
	switch (verdict) {
	case UL_WIRE_ACR_OK:
		break;
	case UL_WIRE_ACR_HELLO:
	case UL_WIRE_ACR_BAD_VERSION:
		if (ul_wire_acr_encode_version_answer(answer, sizeof(answer)) >
		    0)
			(void)sock_hs_write(conn, answer, sizeof(answer));
		passive_close(conn, verdict == UL_WIRE_ACR_HELLO
					    ? "hello without acceptor request"
					    : "unknown acceptor version");
		return -1;
	case UL_WIRE_ACR_OLD_TCP:
		passive_close(conn, "an old socknal tried to connect");
		return -1;
	case UL_WIRE_ACR_BAD_MAGIC:
	default:
		passive_close(conn, "bad acceptor magic");
		return -1;
	}
	if (ul_wire_acr_decode(conn->hs_in, size, &acr, &e) < 0) {
		passive_close(conn, e.msg);
		return -1;
	}
	target = acr_target(conn, &acr.nid);
	if (!target) {
		passive_close(conn, "the requested NID is not an NI here");
		return -1;
	}
	if (target != ni) {
		ul_list_del(&conn->link);
		ul_list_add_tail(&target->passive, &conn->link);
		conn->ni = target;
	}
	sock_socket_set_tos(target, conn->fd);
	conn->hs_in_len = 0;
	if (!sock_conn_set_state(conn, SOCK_CONN_RECV_PHELLO)) {
		passive_close(conn, "state");
		return -1;
	}
	return 0;
}

static bool same_ips_count_full(const struct sock_conn *conn,
				const struct sock_peer *peer, uint32_t ctype)
{
	const struct sock_conn *c;
	unsigned int n = 0;

	/* Loopback pairs (both ends one address) are exempt, as the kernel. */
	if (conn->local_ip == conn->peer_ip)
		return false;
	ul_list_for_each_entry(c, &peer->conns, link)
		if (c->ctype == ctype && c->local_ip == conn->local_ip &&
		    c->peer_ip == conn->peer_ip)
			n++;
	return n >= sock_ni_conns_per_peer(conn->ni);
}

/* §10.2, then races, duplicates and incarnation. */
static void passive_recv_hello(struct sock_conn *conn)
{
	struct sock_ni *ni = conn->ni;
	struct ul_socklnd *s = ni->s;
	struct ul_wire_hello hello;
	struct ul_err e = { 0 };
	struct sock_peer *peer;
	uint8_t buf[UL_WIRE_HELLO_MAX_SIZE];
	size_t size = 0;
	uint32_t ctype;
	int rc, len;

	for (;;) {
		rc = ul_wire_hello_frame(conn->hs_in, conn->hs_in_len, &size,
					 &e);
		if (rc == 0)
			break;
		if (rc == -EPROTONOSUPPORT) {
			passive_refuse(conn, &ni->nid, "unknown hello version");
			return;
		}
		if (rc != -ENOMSG) {
			passive_close(conn, e.msg);
			return;
		}
		rc = sock_hs_read(conn, size);
		if (rc < 0) {
			passive_close(conn, "reading the hello");
			return;
		}
		if (rc == 0)
			return;
	}
	if (ul_wire_hello_decode(conn->hs_in, size, &hello, &e) < 0) {
		passive_close(conn, e.msg);
		return;
	}
	if (hello.version != UL_WIRE_PROTO_V3) {
		/* We speak V3 only: answer as to an unknown version. */
		passive_refuse(conn, &ni->nid, "hello version other than 3");
		return;
	}
	if (ulnet_nid_is_any(&hello.src_nid)) {
		passive_close(conn, "hello src_nid is ANY");
		return;
	}
	if (hello.ctype > UL_WIRE_CONN_BULK_OUT) {
		passive_close(conn, "hello with a bad connection type");
		return;
	}
	if (hello.src_nid.nid_type != ULNET_LND_SOCK ||
	    hello.src_nid.nid_size != 0 ||
	    ulnet_nid_net(&hello.src_nid) != ulnet_nid_net(&ni->nid)) {
		passive_close(conn, "hello src_nid is not on this net");
		return;
	}
	if (conn->is_user_port)
		ul_log(s->opts.log, UL_D_NET,
		       "socklnd %s: trusting the hello of a connection from a "
		       "port above %u",
		       ni->nidstr, UL_WIRE_PRIV_PORT_MAX);
	/*
	 * Our own NID from another address: two nodes configured with one
	 * NID. The kernel takes it as any peer; refusing it is safer, and
	 * the log line tells the operator. From our own address it is this
	 * node sending to its own NID through the socklnd (selection.md
	 * §6.9), which stays.
	 */
	if (ulnet_nid_same(&hello.src_nid, &ni->nid) &&
	    conn->peer_ip != ni->ip) {
		passive_refuse(conn, &hello.src_nid,
			       "the hello claims this NI's own NID (is "
			       "another node configured with it?)");
		return;
	}
	ctype = ul_wire_conn_type_inverse(hello.ctype);
	peer = sock_peer_find(ni, &hello.src_nid);
	/*
	 * The kernel's order (ksocknal_create_conn in socklnd.c): the
	 * connection race first, then a restart (a new incarnation while
	 * connections are up), then duplicates.
	 */
	if (peer && !ul_list_empty(&peer->connecting) &&
	    ulnet_nid_cmp(&hello.src_nid, &ni->nid) < 0) {
		passive_refuse(conn, &hello.src_nid,
			       "connection race, our own connect wins");
		return;
	}
	if (peer && peer->has_incarnation &&
	    peer->incarnation != hello.src_incarnation) {
		ul_log_limit(s->opts.log, UL_D_NETERROR,
			     "socklnd %s: %s restarted, closing its old conns",
			     ni->nidstr, peer->nidstr);
		sock_peer_close_conns(peer, -ESTALE, UL_HSTATUS_LOCAL_ERROR);
		passive_refuse(conn, &hello.src_nid, "peer restarted");
		return;
	}
	/*
	 * The kernel keys its peers by NID and pid, so another pid would be
	 * another peer; ulnet keys them by NID, and a pid that changes under
	 * live connections is refused rather than mixed with them.
	 */
	if (peer && !ul_list_empty(&peer->conns) &&
	    peer->pid != UL_WIRE_PID_ANY && hello.src_pid != peer->pid) {
		passive_refuse(conn, &hello.src_nid,
			       "pid differs from the peer's live connections");
		return;
	}
	if (peer && same_ips_count_full(conn, peer, ctype)) {
		passive_refuse(conn, &hello.src_nid,
			       "duplicate connection of this type");
		return;
	}
	/*
	 * A departure from the kernel, which keeps a peer for every hello:
	 * the peers known only from their hellos are capped, so made-up
	 * NIDs cannot grow the table without bound (docs/design-notes.md).
	 */
	if (!peer && s->opts.max_hello_peers &&
	    ni->nhello_peers >= s->opts.max_hello_peers) {
		passive_refuse(conn, &hello.src_nid,
			       "too many peers known only from their hellos "
			       "(max_hello_peers)");
		return;
	}
	peer = sock_peer_find_or_add(ni, &hello.src_nid, hello.src_pid);
	if (!peer) {
		passive_close(conn, "out of memory");
		return;
	}
	len = sock_hello_build(ni, &hello.src_nid, ctype, buf, sizeof(buf));
	if (len < 0 || sock_hs_write(conn, buf, (size_t)len) < 0) {
		passive_close(conn, "cannot send our hello");
		return;
	}
	conn->peer = peer;
	conn->ctype = ctype;
	sock_conn_established(conn, &hello);
}

void sock_passive_on_io(struct sock_conn *conn, uint32_t events)
{
	(void)events;
	if (conn->state == SOCK_CONN_RECV_ACR && passive_recv_acr(conn) != 0)
		return;
	if (conn->state == SOCK_CONN_RECV_PHELLO)
		passive_recv_hello(conn);
}
