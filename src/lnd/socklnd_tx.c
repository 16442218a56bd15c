/*
 * socklnd transmit: per-tx headers, the choice of connection (wire.md
 * §4.3), per-connection queues and the writev flush.
 *
 * A message goes out as one iovec run: the ksock header and the LNet
 * header, encoded once into the tx's own 96-byte buffer, then the payload
 * fragments straight from the application's memory (no copy). Queues are
 * flushed from the before-sleep hook; EPOLLOUT is armed only after EAGAIN
 * and disarmed once the queue drains. With scheduler threads, a write of
 * SOCK_JOB_MIN_BYTES or more is handed to one of them instead
 * (socklnd_sched.c). Every LNet message, whatever its type and size,
 * once written whole waits on conn->tx_unacked until TCP
 * has acknowledged its last byte (our cumulative bytes written minus
 * SIOCOUTQ) before it completes (tx_done OK); its credits go back through
 * up->tx_sent as soon as it is written. A PUT or GET that asked for an
 * answer also completes when the answer arrives (sock_peer_answered), so
 * its SEND event does not wait for a look at SIOCOUTQ; a PUT without an
 * ACK, whose SEND event nothing else ends, is looked at after each flush
 * and every SOCK_ACK_POLL_NS; the rest (ACKs, REPLYs, requests whose
 * answer is late) by the opts.ack_poll_idle_ms timer, or like the first
 * once a connection holds SOCK_ACK_POLL_HELD txs (a stream's ACKs would
 * otherwise pile up by the thousand between two looks). Written is
 * not delivered: a tx whose bytes die with the connection must not look
 * sent, or the core would never resend it. Only NOOPs complete when
 * written.
 *
 * Stall detection (the NI tick, socklnd.c) watches TCP's acknowledgements
 * rather than our own writes, as the kernel socklnd watches
 * sk_wmem_queued: a peer that stopped reading, or a path that drops every
 * packet, leaves the bytes we wrote unacknowledged in the socket while
 * our queue may be empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "lnd/socklnd_int.h"
#include "util/poison.h"

/*
 * Where a PUT or GET asked for its answer (an ACK's or REPLY's dst_wmd),
 * or NULL: not a request, or a PUT without an ACK.
 */
static const struct ul_wire_handle *answer_wmd(const struct sock_tx *st)
{
	const struct ul_wire_lnet_hdr *hdr;

	if (!st->tx)
		return NULL;
	hdr = &st->tx->hdr;
	if (hdr->type == UL_WIRE_MSG_GET)
		return &hdr->msg.get.return_wmd;
	if (hdr->type == UL_WIRE_MSG_PUT &&
	    hdr->msg.put.ack_wmd.wh_object_cookie != UL_WIRE_HANDLE_COOKIE_NONE)
		return &hdr->msg.put.ack_wmd;
	return NULL;
}

/*
 * A PUT without an ACK: its SEND event, the operation's last, waits for
 * TCP's acknowledgement alone, so it is looked at soon and often.
 */
static bool is_unanswered(const struct sock_tx *st)
{
	return st->tx && st->tx->hdr.type == UL_WIRE_MSG_PUT && !answer_wmd(st);
}

void sock_peer_answered(struct sock_peer *peer,
			const struct ul_wire_handle *wmd)
{
	struct ul_lnd_ni *lni = peer->ni->lni;
	struct ul_socklnd *s = peer->ni->s;
	struct sock_conn *conn;
	struct sock_tx *st;

	ul_list_for_each_entry(conn, &peer->conns, link) {
		ul_list_for_each_entry(st, &conn->tx_unacked, link) {
			const struct ul_wire_handle *h = answer_wmd(st);

			if (!h ||
			    h->wh_object_cookie != wmd->wh_object_cookie ||
			    h->wh_interface_cookie != wmd->wh_interface_cookie)
				continue;
			ul_list_del(&st->link);
			conn->nunacked--;
			if (ul_list_empty(&conn->tx_unacked))
				ul_list_del(&conn->ack_link);
			/* now, so that its SEND comes before the answer */
			lni->up->tx_done(lni, st->tx, 0, UL_HSTATUS_OK);
			sock_tx_free(s, st);
			return;
		}
	}
}

/*
 * Descriptors come from the socklnd's pool, as the node's messages do
 * from its own (one thread owns both): a free list whose link lives in
 * the first bytes of a free descriptor, poisoned under ASan.
 */
static struct sock_tx **pool_next(struct sock_tx *st)
{
	return (struct sock_tx **)(void *)st;
}

static struct sock_tx *tx_get(struct sock_ni *ni)
{
	struct ul_socklnd *s = ni->s;
	struct sock_tx *st = s->tx_pool;

	if (!st)
		return calloc(1, sizeof(*st));
	UL_UNPOISON(st, sizeof(*st));
	s->tx_pool = *pool_next(st);
	s->tx_pool_len--;
	memset(st, 0, sizeof(*st));
	return st;
}

void sock_tx_free(struct ul_socklnd *s, struct sock_tx *st)
{
	if (s->tx_pool_len >= SOCK_TX_POOL_MAX) {
		free(st);
		return;
	}
	*pool_next(st) = s->tx_pool;
	s->tx_pool = st;
	s->tx_pool_len++;
	UL_POISON(st, sizeof(*st));
}

void sock_tx_pool_drain(struct ul_socklnd *s)
{
	while (s->tx_pool) {
		struct sock_tx *st = s->tx_pool;

		UL_UNPOISON(st, sizeof(*st));
		s->tx_pool = *pool_next(st);
		free(st);
	}
	s->tx_pool_len = 0;
}

struct sock_tx *sock_tx_alloc_lnet(struct sock_ni *ni, struct ul_lnd_tx *tx)
{
	struct ul_wire_ksock_hdr ksh = { .type = UL_WIRE_KSOCK_LNET };
	struct sock_tx *st = tx_get(ni);
	uint64_t iov_nob = 0;
	int klen, hlen;

	if (!st)
		return NULL;
	ul_list_init(&st->link);
	st->tx = tx;
	st->ni = ni;
	for (uint32_t i = 0; i < tx->niov; i++)
		iov_nob += tx->iov[i].iov_len;
	/* A length the fragments cannot fill would desync the stream. */
	if (tx->hdr.payload_length != tx->nob || iov_nob < tx->nob)
		return st;
	klen = ul_wire_ksock_hdr_encode(&ksh, UL_WIRE_PROTO_V3, false, st->hdr,
					sizeof(st->hdr), NULL);
	if (klen < 0)
		return st;
	hlen = ul_wire_lnet_hdr_encode(&tx->hdr, false, st->hdr + klen,
				       sizeof(st->hdr) - (size_t)klen, NULL);
	if (hlen < 0)
		return st;
	st->hdr_len = (uint32_t)(klen + hlen);
	st->nob = st->hdr_len + (uint64_t)tx->nob;
	return st;
}

struct sock_tx *sock_tx_alloc_noop(struct sock_ni *ni, uint64_t cookie)
{
	struct ul_wire_ksock_hdr ksh = { .type = UL_WIRE_KSOCK_NOOP };
	struct sock_tx *st = tx_get(ni);
	int klen;

	if (!st)
		return NULL;
	ul_list_init(&st->link);
	st->ni = ni;
	ksh.zc_cookies[1] = cookie;
	klen = ul_wire_ksock_hdr_encode(&ksh, UL_WIRE_PROTO_V3, false, st->hdr,
					sizeof(st->hdr), NULL);
	if (klen < 0) {
		sock_tx_free(ni->s, st);
		return NULL;
	}
	st->hdr_len = (uint32_t)klen;
	st->nob = st->hdr_len;
	return st;
}

/*
 * How well conn suits st, from our own view of its type (§4.3 table):
 * 2 preferred, 1 fallback, 0 never. An ANY connection (typed_conns 0)
 * carries everything; a V3 kernel would send nothing on it, but the
 * receiver does not look at types.
 */
static int conn_match(const struct sock_conn *conn, const struct sock_tx *st)
{
	bool is_small = st->nob < SOCK_MIN_BULK;

	if (conn->ctype == UL_WIRE_CONN_ANY)
		return 2;
	if (!st->tx)
		return conn->ctype == UL_WIRE_CONN_BULK_IN ? 2 : 0;
	switch (conn->ctype) {
	case UL_WIRE_CONN_CONTROL:
		return is_small ? 2 : 1;
	case UL_WIRE_CONN_BULK_OUT:
		return is_small ? 1 : 2;
	default:
		return 0;
	}
}

struct sock_conn *sock_conn_choose(struct sock_peer *peer,
				   const struct sock_tx *st)
{
	struct sock_conn *conn, *best = NULL;
	int best_match = 0;

	ul_list_for_each_entry(conn, &peer->conns, link) {
		int m = conn_match(conn, st);

		if (m == 0 || m < best_match)
			continue;
		if (m > best_match || conn->txq_nob < best->txq_nob) {
			best = conn;
			best_match = m;
		}
	}
	return best;
}

void sock_conn_queue_tx(struct sock_conn *conn, struct sock_tx *st)
{
	struct ul_socklnd *s = conn->ni->s;

	/* Output starts afresh: the stall clock starts now. */
	if (ul_list_empty(&conn->txq) &&
	    conn->tx_acked_bytes == conn->stats.tx_bytes)
		conn->tx_progress_ns = sock_now(conn->ni);
	ul_list_del(&st->link);
	ul_list_add_tail(&conn->txq, &st->link);
	conn->txq_nob += st->nob - st->written;
	conn->stats.txq_len++;
	if (!conn->is_pollout && ul_list_empty(&conn->flush_link)) {
		ul_list_add_tail(&s->flush, &conn->flush_link);
		/*
		 * Queued after our before-sleep flush of this turn: by a
		 * hook that runs after ours (the node's, posting the
		 * messages that the credits of this turn's writes
		 * released), or from a tx_done our own hook delivers after
		 * its flush. Without another turn it would wait for the
		 * next wake-up, a packet or a timer.
		 */
		if (s->is_flushed && ul_loop_in_hooks(s->loop))
			ul_loop_wake_self(s->loop);
	}
}

void sock_peer_dispatch(struct sock_peer *peer)
{
	struct sock_tx *st, *tmp;

	ul_list_for_each_entry_safe(st, tmp, &peer->txq, link) {
		struct sock_conn *conn = sock_conn_choose(peer, st);

		if (conn)
			sock_conn_queue_tx(conn, st);
	}
}

/*
 * The health status of a tx that conn held when it closed for status
 * (health.md §10): the close's own class, except after a timeout. Then a
 * tx that never started onto the wire is LOCAL_TIMEOUT, as o2iblnd
 * classes a tx it never posted: it never left this node. One written,
 * whole or in part, that TCP never acknowledged is NETWORK_TIMEOUT, the
 * path's fault, so both ends' health drop; but the peer's LNet cannot
 * have all of it, so it is marked undelivered and the core may resend it
 * on another rail.
 */
static enum ul_hstatus tx_close_hstatus(struct sock_tx *st, int status,
					enum ul_hstatus hs)
{
	if (status != -ETIMEDOUT)
		return hs;
	if (st->written == 0)
		return UL_HSTATUS_LOCAL_TIMEOUT;
	if (st->tx)
		st->tx->is_undelivered = true;
	return UL_HSTATUS_NETWORK_TIMEOUT;
}

/* At close, after a last look at what TCP acknowledged (fd still open). */
void sock_conn_fail_txs(struct sock_conn *conn, int status, enum ul_hstatus hs)
{
	struct sock_tx *st, *tmp;

	ul_list_for_each_entry_safe(st, tmp, &conn->tx_unacked, link)
		sock_tx_complete(st, status, tx_close_hstatus(st, status, hs));
	conn->nheld_req = 0;
	conn->nunacked = 0;
	ul_list_del(&conn->ack_link);
	ul_list_for_each_entry_safe(st, tmp, &conn->txq, link)
		sock_tx_complete(st, status, tx_close_hstatus(st, status, hs));
	conn->txq_nob = 0;
	conn->stats.txq_len = 0;
}

/*
 * SIOCOUTQ: bytes in the socket that TCP has not had acknowledged,
 * whether sent or not. At most what we wrote (the handshake's bytes are
 * not counted in tx_bytes); when the kernel cannot say, 0, and write
 * progress stands in for acknowledgement progress.
 */
uint64_t sock_conn_tx_unacked(struct sock_conn *conn, uint64_t now_ns)
{
	uint64_t written = conn->stats.tx_bytes;
	uint64_t unacked;
	int outq = 0;

	/* Nothing queued, all acknowledged at the last look: no ioctl. */
	if (ul_list_empty(&conn->txq) && conn->tx_acked_bytes == written)
		return 0;
	if (conn->fd < 0 || ioctl(conn->fd, SIOCOUTQ, &outq) < 0 || outq < 0)
		outq = 0;
	unacked = (uint64_t)outq < written ? (uint64_t)outq : written;
	if (written - unacked > conn->tx_acked_bytes) {
		conn->tx_acked_bytes = written - unacked;
		conn->tx_progress_ns = now_ns;
		if (conn->peer)
			conn->peer->last_ack_ns = now_ns;
	}
	while (!ul_list_empty(&conn->tx_unacked)) {
		struct sock_tx *st = ul_list_first_entry(&conn->tx_unacked,
							 struct sock_tx, link);

		if (st->end_bytes > conn->tx_acked_bytes)
			break;
		if (is_unanswered(st))
			conn->nheld_req--;
		conn->nunacked--;
		sock_tx_complete(st, 0, UL_HSTATUS_OK);
	}
	if (ul_list_empty(&conn->tx_unacked))
		ul_list_del(&conn->ack_link);
	return unacked;
}

/* conn is looked at after each flush and every SOCK_ACK_POLL_NS. */
static bool is_ack_busy(const struct sock_conn *conn)
{
	return conn->nheld_req || conn->nunacked >= SOCK_ACK_POLL_HELD;
}

void sock_ack_poll(struct ul_socklnd *s, bool is_all)
{
	struct ul_timer_heap *timers = ul_loop_timers(s->loop);
	struct sock_conn *conn, *tmp;
	uint64_t when = (uint64_t)s->opts.ack_poll_idle_ms * SOCK_NS_PER_MS;

	ul_list_for_each_entry_safe(conn, tmp, &s->ack_wait, ack_link) {
		if (is_all || is_ack_busy(conn))
			(void)sock_conn_tx_unacked(conn, timers->now_ns);
		if (is_ack_busy(conn)) /* what is left after the look */
			when = SOCK_ACK_POLL_NS;
	}
	if (ul_list_empty(&s->ack_wait))
		return;
	when += timers->now_ns;
	if (!ul_timer_is_armed(&s->ack_timer) || s->ack_timer.when_ns > when)
		(void)ul_timer_arm(timers, &s->ack_timer, when);
}

/*
 * Append the unwritten part of st to iov; returns the new count and
 * whether all of st fit.
 */
static int tx_iov_fill(const struct sock_tx *st, struct iovec *iov, int n,
		       bool *is_whole)
{
	uint64_t pos = st->written;
	uint64_t left;

	if (pos < st->hdr_len) {
		iov[n].iov_base = (void *)(st->hdr + pos);
		iov[n].iov_len = st->hdr_len - pos;
		n++;
		pos = 0;
	} else {
		pos -= st->hdr_len;
	}
	*is_whole = true;
	if (!st->tx)
		return n;
	left = st->tx->nob - pos;
	for (uint32_t i = 0; i < st->tx->niov && left && n < SOCK_IOV_MAX;
	     i++) {
		const struct iovec *f = &st->tx->iov[i];
		size_t len;

		if (pos >= f->iov_len) {
			pos -= f->iov_len;
			continue;
		}
		len = f->iov_len - pos;
		if (len > left)
			len = left;
		iov[n].iov_base = (char *)f->iov_base + pos;
		iov[n].iov_len = len;
		n++;
		left -= len;
		pos = 0;
	}
	*is_whole = left == 0;
	return n;
}

/*
 * Account n bytes just written (here or by a scheduler thread) to
 * stats.tx_bytes and the queue head: a finished NOOP completes; an LNet message waits for TCP's
 * acknowledgement. A PUT, GET, ACK or REPLY lost with its connection
 * then fails resendably and the node sends it again (over another rail
 * when there is one) instead of leaving the requester to a response
 * timeout. Its credits go back now, so the wait costs no throughput.
 */
static void tx_advance(struct sock_conn *conn, uint64_t n)
{
	struct ul_socklnd *s = conn->ni->s;
	uint64_t pos = conn->stats.tx_bytes;

	conn->stats.tx_bytes += n;

	while (n && !ul_list_empty(&conn->txq)) {
		struct sock_tx *st =
			ul_list_first_entry(&conn->txq, struct sock_tx, link);
		uint64_t take = st->nob - st->written;

		if (take > n)
			take = n;
		st->written += take;
		conn->txq_nob -= take;
		pos += take;
		n -= take;
		if (st->written < st->nob)
			break;
		conn->stats.txq_len--;
		if (st->tx)
			conn->stats.tx_msgs++;
		else
			conn->stats.tx_noops++;
		if (!st->tx) {
			sock_tx_complete(st, 0, UL_HSTATUS_OK);
			continue;
		}
		st->end_bytes = pos;
		if (is_unanswered(st))
			conn->nheld_req++;
		ul_list_del(&st->link);
		ul_list_add_tail(&conn->tx_unacked, &st->link);
		conn->nunacked++;
		if (ul_list_empty(&conn->ack_link))
			ul_list_add_tail(&s->ack_wait, &conn->ack_link);
		/* its credits go back now; only its completion waits */
		if (conn->ni->lni->up->tx_sent)
			conn->ni->lni->up->tx_sent(conn->ni->lni, st->tx);
	}
}

/*
 * A write failed with err. EPIPE on a socket we never shut down means
 * the peer reset it: the txs fail as ECONNRESET, the peer's doing.
 */
static int write_error(int err)
{
	return err == -EPIPE ? -ECONNRESET : err;
}

/*
 * health.md §10: a write that timed out is the remote's; a reset or an
 * unreachable peer drops what we held (REMOTE_DROPPED); anything else
 * is a local error.
 */
static enum ul_hstatus write_hstatus(int err)
{
	switch (write_error(err)) {
	case -ETIMEDOUT:
		return UL_HSTATUS_REMOTE_TIMEOUT;
	case -ECONNRESET:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
		return UL_HSTATUS_REMOTE_DROPPED;
	default:
		return UL_HSTATUS_LOCAL_ERROR;
	}
}

static void set_pollout(struct sock_conn *conn, bool is_on)
{
	if (conn->is_pollout == is_on)
		return;
	if (sock_conn_watch(conn, is_on) == 0)
		conn->is_pollout = is_on;
}

int sock_iov_cap(struct iovec *iov, int cnt, uint64_t max)
{
	uint64_t nob = 0;

	for (int i = 0; i < cnt; i++) {
		if (nob + iov[i].iov_len >= max) {
			iov[i].iov_len = max - nob;
			return i + 1;
		}
		nob += iov[i].iov_len;
	}
	return cnt;
}

/*
 * The next write of conn: as many queued txs as fit in iov, in order;
 * returns the count of entries and, in *nob, their bytes.
 */
static int conn_iov_fill(const struct sock_conn *conn, struct iovec *iov,
			 uint64_t *nob)
{
	const struct sock_tx *st;
	int cnt = 0;

	ul_list_for_each_entry(st, &conn->txq, link) {
		bool is_whole;

		if (cnt >= SOCK_IOV_MAX - 1)
			break;
		cnt = tx_iov_fill(st, iov, cnt, &is_whole);
		if (!is_whole)
			break;
	}
	*nob = 0;
	for (int i = 0; i < cnt; i++)
		*nob += iov[i].iov_len;
	return cnt;
}

/*
 * A write failed with err (not EAGAIN): the connection and its siblings
 * close.
 */
static void conn_write_failed(struct sock_conn *conn, int err)
{
	ul_log_limit(conn->ni->s->opts.log, UL_D_NETERROR,
		     "socklnd %s: %s conn to %s: write failed: %s",
		     conn->ni->nidstr, sock_ctype_name(conn->ctype),
		     conn->peer->nidstr, strerror(-err));
	sock_conn_close_siblings(conn, write_error(err), write_hstatus(err));
}

/*
 * After a write that left room in the socket: done with EPOLLOUT once
 * the queue drained, else flush again soon, without sleeping.
 */
static void conn_flush_again(struct sock_conn *conn)
{
	struct ul_socklnd *s = conn->ni->s;

	if (ul_list_empty(&conn->txq)) {
		ul_list_del(&conn->flush_link);
		set_pollout(conn, false);
		return;
	}
	if (!conn->is_pollout && ul_list_empty(&conn->flush_link))
		ul_list_add_tail(&s->flush, &conn->flush_link);
	ul_loop_wake_self(s->loop);
}

void sock_conn_job_done(struct sock_conn *conn, uint64_t n, int err)
{
	tx_advance(conn, n);
	if (err == -EAGAIN)
		set_pollout(conn, true);
	else if (err)
		conn_write_failed(conn, err);
	else
		conn_flush_again(conn);
}

void sock_conn_job_reclaim(struct sock_conn *conn)
{
	int err;

	tx_advance(conn, sock_sched_wait(conn, false, &err));
}

void sock_conn_flush(struct sock_conn *conn, uint64_t budget)
{
	struct iovec iov[SOCK_IOV_MAX];

	/* A scheduler thread is writing: its return flushes again. */
	if (conn->is_job_out) {
		ul_list_del(&conn->flush_link);
		set_pollout(conn, false);
		return;
	}
	while (!ul_list_empty(&conn->txq) && budget) {
		struct msghdr msg;
		uint64_t nob;
		ssize_t n;
		int cnt = conn_iov_fill(conn, iov, &nob);

		if (nob >= SOCK_JOB_MIN_BYTES && sock_sched_wanted(conn)) {
			cnt = sock_iov_cap(iov, cnt, SOCK_JOB_MAX_BYTES);
			if (nob > SOCK_JOB_MAX_BYTES)
				nob = SOCK_JOB_MAX_BYTES;
			if (sock_sched_post(conn, false, iov, cnt) == 0) {
				conn->job_nob = nob;
				conn->stats.tx_jobs++;
				ul_list_del(&conn->flush_link);
				set_pollout(conn, false);
				return;
			}
		}
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		n = sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ul_list_del(&conn->flush_link);
			set_pollout(conn, true);
			return;
		}
		if (n < 0) {
			conn_write_failed(conn, -errno);
			return;
		}
		tx_advance(conn, (uint64_t)n);
		budget = (uint64_t)n >= budget ? 0 : budget - (uint64_t)n;
	}
	/* Drained, or the budget spent: another turn soon. */
	conn_flush_again(conn);
}

void sock_flush_all(struct ul_socklnd *s)
{
	struct sock_conn *conn;
	struct ul_list todo;

	/*
	 * Take the list first: a connection that spends its budget goes
	 * back on s->flush for the next turn instead of looping here. A
	 * failed write closes the connection's siblings too, which leave
	 * todo: always take the first one left.
	 */
	ul_list_take(&s->flush, &todo);
	while (!ul_list_empty(&todo)) {
		conn = ul_list_first_entry(&todo, struct sock_conn, flush_link);
		ul_list_del(&conn->flush_link);
		if (conn->state == SOCK_CONN_ESTABLISHED)
			sock_conn_flush(conn, SOCK_IO_BUDGET);
	}
}
