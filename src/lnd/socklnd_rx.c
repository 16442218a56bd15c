/*
 * socklnd receive: the per-connection state machine of wire.md §7.1 with
 * the checks of §10.4 and §10.5 (enum sock_rx_state):
 *
 *   KSH (24 bytes) --NOOP--> KSH
 *       --LNET--> LNET_HDR (72 bytes) --parse--> PAYLOAD (mlen bytes
 *       straight into the node's iov) --> SKIP (rlen - mlen bytes)
 *       --rx_done--> KSH
 *
 * Headers are read through a read-ahead buffer (rx_stage, one per socklnd
 * instance, shared by its connections): one recvmsg brings in as many small messages as the socket
 * holds, instead of one call per header. A payload takes what the buffer
 * already holds, then is read straight into the node's iov, with the
 * buffer behind it in the same recvmsg for what follows. Bytes in the
 * buffer are consumed before the callback returns (epoll cannot report
 * them again), or, when the callback stops for output inside them
 * (SOCK_RX_MSGS_OUTPUT), copied to the connection's own rx_kept, which
 * the before-sleep hook reads on from after its flush; socket reads per
 * callback are bounded by
 * SOCK_IO_BUDGET bytes and SOCK_RX_UNITS calls (SOCK_RX_MSGS_OUTPUT
 * messages while answers wait), and stop at the first
 * short read (the socket is empty), so one busy connection
 * cannot starve the others (epoll is level-triggered: the rest waits for
 * the next turn). Any malformed unit closes the connection with one log
 * line; a stall inside a message is caught by the NI tick (socklnd.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "lnd/socklnd_int.h"

/* Headers and payload pieces handled per callback. */
#define SOCK_RX_UNITS 256
/*
 * ... or this many messages while output waits for the flush at the end
 * of the loop turn: the ACKs or replies of what was just read. Sending
 * them before reading on lets the peer work while this node reads,
 * instead of each side reading a whole window of small messages while
 * the other sleeps. Large messages end at SOCK_IO_BUDGET first. Not
 * in a drain, which reads all it can before a close. Any connection's
 * output counts, not only this peer's: the cost is a loop turn, and
 * the flush is for all of them anyway.
 */
#define SOCK_RX_MSGS_OUTPUT 16

void sock_conn_rx_abort(struct sock_conn *conn, int status)
{
	struct ul_lnd_ni *lni = conn->ni->lni;

	if (!conn->has_rx)
		return;
	conn->has_rx = false;
	lni->up->rx_done(lni, &conn->rx, status);
}

static void rx_malformed(struct sock_conn *conn, const char *why)
{
	ul_log_limit(conn->ni->s->opts.log, UL_D_NETERROR,
		     "socklnd %s: %s conn to %s: %s, closing", conn->ni->nidstr,
		     sock_ctype_name(conn->ctype), conn->peer->nidstr, why);
	sock_conn_close_siblings(conn, -EPROTO, UL_HSTATUS_REMOTE_ERROR);
}

/* conn read bytes: make it one of the hot conns if it is not. */
static void rx_mark_hot(struct sock_conn *conn)
{
	struct ul_socklnd *s = conn->ni->s;

	for (unsigned int i = 0; i < SOCK_HOT_CONNS; i++) {
		if (s->hot[i] == conn)
			return;
	}
	s->hot[s->hot_next++ % SOCK_HOT_CONNS] = conn;
}

void sock_conn_unhot(struct ul_socklnd *s, const struct sock_conn *conn)
{
	for (unsigned int i = 0; i < SOCK_HOT_CONNS; i++) {
		if (s->hot[i] == conn)
			s->hot[i] = NULL;
	}
}

/*
 * A spinning turn of a busy-polling loop: read the hot conns as epoll
 * would have reported them, one recvmsg each (EAGAIN when nothing came),
 * and deliver what that completed. True when bytes came in.
 */
bool sock_busy_poll(void *arg)
{
	struct ul_socklnd *s = arg;
	bool is_found = false;

	for (unsigned int i = 0; i < SOCK_HOT_CONNS; i++) {
		struct sock_conn *conn = s->hot[i];
		uint64_t before;

		if (!conn || conn->state != SOCK_CONN_ESTABLISHED)
			continue;
		before = conn->stats.rx_bytes;
		sock_conn_recv(conn);
		is_found |= conn->stats.rx_bytes != before;
	}
	if (is_found)
		sock_deliver(s);
	return is_found;
}

/* n bytes came in: the peer is alive and the receive moves. */
static void rx_note(struct sock_conn *conn, uint64_t n)
{
	uint64_t now = sock_now(conn->ni);

	conn->stats.rx_bytes += n;
	conn->rx_progress_ns = now;
	conn->peer->last_rx_ns = now;
}

/* A read found the end (-ECONNRESET) or failed with err: close. */
static void rx_failed(struct sock_conn *conn, int err, bool is_eof)
{
	ul_log_limit(conn->ni->s->opts.log, UL_D_NETERROR,
		     "socklnd %s: %s conn to %s: %s", conn->ni->nidstr,
		     sock_ctype_name(conn->ctype), conn->peer->nidstr,
		     is_eof ? "closed by the peer" : strerror(-err));
	/*
	 * An error or the end on one connection closes the others to that
	 * address too, as the kernel's ksocknal_process_receive does
	 * (socklnd_cb.c): a peer that restarted or went away is gone from
	 * all of them.
	 */
	sock_conn_close_siblings(conn, err, sock_hstatus_of_errno(err));
}

/*
 * One recvmsg: bytes read (> 0), 0 to wait (EAGAIN), or -1 after closing
 * the connection (EOF or an error).
 */
static ssize_t rx_read(struct sock_conn *conn, struct iovec *iov, int cnt)
{
	struct msghdr msg;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = (size_t)cnt;
	do
		n = recvmsg(conn->fd, &msg, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		rx_note(conn, (uint64_t)n);
		rx_mark_hot(conn);
		return n;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	rx_failed(conn, n == 0 ? -ECONNRESET : -errno, n == 0);
	return -1;
}

/* Queue a zero-copy ACK NOOP {0, cookie} to the peer (§9.2). */
static void rx_zc_ack(struct sock_conn *conn, uint64_t cookie)
{
	struct sock_tx *st = sock_tx_alloc_noop(conn->ni, cookie);
	struct sock_conn *to;

	if (!st)
		return; /* the peer times the request out and closes */
	to = sock_conn_choose(conn->peer, st);
	sock_conn_queue_tx(to ? to : conn, st);
}

/* The 24-byte ksock header is in rx_hbuf (§10.4). */
static void rx_on_ksh(struct sock_conn *conn)
{
	struct ul_wire_ksock_hdr *ksh = &conn->rx_ksh;
	struct ul_err e = { 0 };
	char why[UL_ERR_MSG_SIZE + 32];

	conn->rx_hlen = 0;
	if (ul_wire_ksock_hdr_decode(conn->rx_hbuf, UL_WIRE_KSOCK_HDR_SIZE,
				     UL_WIRE_PROTO_V3, false, ksh, &e) < 0) {
		rx_malformed(conn, e.msg);
		return;
	}
	/*
	 * The keepalive cookie is ignored on any message, as the kernel
	 * does (socklnd_proto.c ksocknal_handle_zcack: the cookie range of
	 * a non-NOOP starts at the cookie itself, so it always counts one);
	 * only a NOOP that also names an earlier cookie is a protocol error.
	 */
	if (ksh->zc_cookies[1] != 0 &&
	    !(ksh->zc_cookies[1] == UL_WIRE_KEEPALIVE_PING &&
	      (ksh->type != UL_WIRE_KSOCK_NOOP || ksh->zc_cookies[0] <= 1))) {
		/* We never ask for zero-copy ACKs: none is outstanding. */
		snprintf(why, sizeof(why),
			 "zero-copy ACK for cookie %llu never requested",
			 (unsigned long long)ksh->zc_cookies[1]);
		rx_malformed(conn, why);
		return;
	}
	if (ksh->type == UL_WIRE_KSOCK_NOOP) {
		/* A V3 checksum covers the payload only: none here. */
		if (ksh->csum != 0 && ksh->csum != UL_WIRE_CSUM_INIT) {
			rx_malformed(conn, "NOOP checksum mismatch");
			return;
		}
		conn->stats.rx_noops++;
		return;
	}
	conn->rx_state = SOCK_RX_LNET_HDR;
}

static uint64_t iov_total(const struct iovec *iov, uint32_t niov)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < niov; i++)
		n += iov[i].iov_len;
	return n;
}

/* The 72-byte LNet header is in rx_hbuf (§10.5): ask the node. */
static void rx_on_lnet_hdr(struct sock_conn *conn)
{
	struct ul_lnd_ni *lni = conn->ni->lni;
	struct ul_wire_lnet_hdr *hdr = &conn->rx_hdr;
	struct ul_err e = { 0 };
	uint64_t room;
	int rc;

	conn->rx_hlen = 0;
	if (ul_wire_lnet_hdr_decode(conn->rx_hbuf, UL_WIRE_LNET_HDR_NID4_SIZE,
				    false, hdr, &e) < 0) {
		rx_malformed(conn, e.msg);
		return;
	}
	/* An answer proves its request delivered: no need to wait for TCP. */
	if (hdr->type == UL_WIRE_MSG_ACK)
		sock_peer_answered(conn->peer, &hdr->msg.ack.dst_wmd);
	else if (hdr->type == UL_WIRE_MSG_REPLY)
		sock_peer_answered(conn->peer, &hdr->msg.reply.dst_wmd);
	if (conn->state != SOCK_CONN_ESTABLISHED)
		return;
	memset(&conn->rx, 0, sizeof(conn->rx));
	rc = lni->up->parse(lni, hdr, &conn->peer->nid, &conn->rx);
	if (conn->state != SOCK_CONN_ESTABLISHED)
		return;
	if (rc < 0) {
		rx_malformed(conn, "the node rejected the LNet header");
		return;
	}
	conn->has_rx = true;
	/* The wire decides the length; the node only where bytes go. */
	conn->rx.rlen = hdr->payload_length;
	room = iov_total(conn->rx.iov, conn->rx.niov);
	if (conn->rx.mlen > hdr->payload_length)
		conn->rx.mlen = hdr->payload_length;
	if (conn->rx.mlen > room)
		conn->rx.mlen = (uint32_t)room;
	conn->rx_iov_idx = 0;
	conn->rx_iov_off = 0;
	conn->rx_left = conn->rx.mlen;
	conn->rx_state = SOCK_RX_PAYLOAD;
}

static void rx_on_msg_end(struct sock_conn *conn)
{
	struct ul_lnd_ni *lni = conn->ni->lni;
	const struct ul_wire_ksock_hdr *ksh = &conn->rx_ksh;

	if (ksh->csum != 0 && conn->rx.mlen == conn->rx.rlen) {
		uint32_t crc = UL_WIRE_CSUM_INIT;
		uint32_t left = conn->rx.mlen;

		for (uint32_t i = 0; i < conn->rx.niov && left; i++) {
			size_t len = conn->rx.iov[i].iov_len;

			if (len > left)
				len = left;
			crc = ul_wire_csum(crc, conn->rx.iov[i].iov_base, len);
			left -= (uint32_t)len;
		}
		if (crc != ksh->csum) {
			ul_log_limit(conn->ni->s->opts.log, UL_D_NETERROR,
				     "socklnd %s: checksum mismatch from %s, "
				     "closing",
				     conn->ni->nidstr, conn->peer->nidstr);
			sock_conn_close_siblings(conn, -EIO,
						 UL_HSTATUS_REMOTE_ERROR);
			return;
		}
	}
	if (ksh->zc_cookies[0] != 0)
		rx_zc_ack(conn, ksh->zc_cookies[0]);
	conn->stats.rx_msgs++;
	conn->rx_state = SOCK_RX_KSH;
	conn->has_rx = false;
	lni->up->rx_done(lni, &conn->rx, 0);
}

/* Fill iov with the rest of the payload destination, mlen-bounded. */
static int rx_payload_iov(const struct sock_conn *conn, struct iovec *iov)
{
	uint32_t idx = conn->rx_iov_idx;
	size_t off = conn->rx_iov_off;
	uint64_t left = conn->rx_left;
	int n = 0;

	for (; idx < conn->rx.niov && left && n < SOCK_IOV_MAX; idx++) {
		size_t len = conn->rx.iov[idx].iov_len - off;

		if (len > left)
			len = left;
		if (len) {
			iov[n].iov_base =
				(char *)conn->rx.iov[idx].iov_base + off;
			iov[n].iov_len = len;
			n++;
			left -= len;
		}
		off = 0;
	}
	return n;
}

static void rx_payload_advance(struct sock_conn *conn, size_t n)
{
	conn->rx_left -= (uint32_t)n;
	while (n && conn->rx_iov_idx < conn->rx.niov) {
		size_t room = conn->rx.iov[conn->rx_iov_idx].iov_len -
			      conn->rx_iov_off;

		if (n < room) {
			conn->rx_iov_off += n;
			return;
		}
		n -= room;
		conn->rx_iov_idx++;
		conn->rx_iov_off = 0;
	}
}

/*
 * Move past stages with nothing left to read, so a message completes as
 * soon as its last byte is in (no further EPOLLIN may come).
 */
static void rx_settle(struct sock_conn *conn)
{
	while (conn->state == SOCK_CONN_ESTABLISHED) {
		if (conn->rx_state == SOCK_RX_PAYLOAD && conn->rx_left == 0) {
			conn->rx_left = conn->rx.rlen - conn->rx.mlen;
			conn->rx_state = SOCK_RX_SKIP;
		} else if (conn->rx_state == SOCK_RX_SKIP &&
			   conn->rx_left == 0) {
			rx_on_msg_end(conn);
		} else {
			return;
		}
	}
}

/* Where conn's staged bytes are: its kept copy, or the shared buffer. */
static const uint8_t *stage_bytes(const struct sock_conn *conn)
{
	return conn->rx_kept ? conn->rx_kept : conn->ni->s->rx_stage;
}

void sock_conn_unkeep(struct sock_conn *conn)
{
	free(conn->rx_kept);
	conn->rx_kept = NULL;
	ul_list_del(&conn->kept_link);
}

/*
 * Stop reading staged messages for now (output waits, see
 * SOCK_RX_MSGS_OUTPUT): copy what is left of them out of the shared
 * buffer, and the before-sleep hook reads on from there after its flush.
 * False (read on now) if there is no memory for the copy.
 */
static bool rx_keep(struct sock_conn *conn)
{
	struct ul_socklnd *s = conn->ni->s;
	uint32_t n = conn->rx_stage_len - conn->rx_stage_off;

	if (!conn->rx_kept) {
		uint8_t *b = malloc(n);

		if (!b)
			return false;
		memcpy(b, s->rx_stage + conn->rx_stage_off, n);
		conn->rx_kept = b;
		conn->rx_stage_off = 0;
		conn->rx_stage_len = n;
	}
	if (ul_list_empty(&conn->kept_link))
		ul_list_add_tail(&s->kept, &conn->kept_link);
	return true;
}

void sock_rx_kept_run(struct ul_socklnd *s)
{
	struct ul_list batch;

	if (ul_list_empty(&s->kept))
		return;
	/* Popped one by one: a read may close (and unkeep) another. */
	ul_list_take(&s->kept, &batch);
	while (!ul_list_empty(&batch)) {
		struct sock_conn *conn = ul_list_first_entry(
			&batch, struct sock_conn, kept_link);

		ul_list_del(&conn->kept_link);
		sock_conn_recv(conn);
	}
	sock_deliver(s);
	/*
	 * Stopped again: the answers of this run usually wake the loop
	 * (queued after the flush), but kept bytes must never wait for
	 * the next packet or timer, so ask for another turn regardless.
	 */
	if (!ul_list_empty(&s->kept))
		ul_loop_wake_self(s->loop);
}

/* Copy up to max staged bytes into the iov list; returns how many. */
static size_t stage_to_iov(struct sock_conn *conn, const struct iovec *iov,
			   int cnt, size_t max)
{
	size_t done = 0;

	for (int i = 0; i < cnt && done < max; i++) {
		size_t avail = conn->rx_stage_len - conn->rx_stage_off;
		size_t len = iov[i].iov_len;

		if (len > max - done)
			len = max - done;
		if (len > avail)
			len = avail;
		memcpy(iov[i].iov_base, stage_bytes(conn) + conn->rx_stage_off,
		       len);
		conn->rx_stage_off += (uint32_t)len;
		done += len;
		if (len < iov[i].iov_len)
			break;
	}
	return done;
}

/* One unit of progress from staged bytes; false if nothing is staged. */
static bool rx_from_stage(struct sock_conn *conn)
{
	size_t avail = conn->rx_stage_len - conn->rx_stage_off;
	struct iovec iov[SOCK_IOV_MAX];
	size_t want, n;

	if (!avail)
		return false;
	switch (conn->rx_state) {
	case SOCK_RX_KSH:
	case SOCK_RX_LNET_HDR:
		want = (conn->rx_state == SOCK_RX_KSH
				? UL_WIRE_KSOCK_HDR_SIZE
				: UL_WIRE_LNET_HDR_NID4_SIZE) -
		       conn->rx_hlen;
		n = want < avail ? want : avail;
		memcpy(conn->rx_hbuf + conn->rx_hlen,
		       stage_bytes(conn) + conn->rx_stage_off, n);
		conn->rx_stage_off += (uint32_t)n;
		conn->rx_hlen += n;
		if (n == want) {
			if (conn->rx_state == SOCK_RX_KSH)
				rx_on_ksh(conn);
			else
				rx_on_lnet_hdr(conn);
		}
		break;
	case SOCK_RX_PAYLOAD:
		n = stage_to_iov(conn, iov, rx_payload_iov(conn, iov),
				 conn->rx_left);
		rx_payload_advance(conn, n);
		break;
	case SOCK_RX_SKIP:
		n = conn->rx_left < avail ? conn->rx_left : avail;
		conn->rx_stage_off += (uint32_t)n;
		conn->rx_left -= (uint32_t)n;
		break;
	}
	if (conn->rx_stage_off == conn->rx_stage_len) {
		conn->rx_stage_off = conn->rx_stage_len = 0;
		if (conn->rx_kept)
			sock_conn_unkeep(conn);
	}
	rx_settle(conn);
	return true;
}

/*
 * Hand the read of the rest of the payload (at most SOCK_JOB_MAX_BYTES)
 * to a scheduler thread, when it is large enough and sock_sched_wanted():
 * true if handed over, and EPOLLIN is no longer watched until it is back
 * (sock_conn_rjob_done()).
 */
static bool rx_post_job(struct sock_conn *conn)
{
	struct iovec iov[SOCK_IOV_MAX];
	int cnt, avail = 0;

	if (conn->is_draining || conn->rx_left < SOCK_JOB_MIN_BYTES ||
	    !sock_sched_wanted(conn))
		return false;
	/*
	 * Only once that much waits in the socket: on a link that brings a
	 * segment or two per wake-up, a hand-over each time would cost more
	 * than the copy it moves.
	 */
	if (ioctl(conn->fd, FIONREAD, &avail) < 0 ||
	    avail < (int)SOCK_JOB_MIN_BYTES)
		return false;
	cnt = sock_iov_cap(iov, rx_payload_iov(conn, iov), SOCK_JOB_MAX_BYTES);
	if (sock_sched_post(conn, true, iov, cnt) < 0)
		return false;
	conn->stats.rx_jobs++;
	/* EPOLLIN still watched would wake the loop thread for nothing. */
	if (sock_conn_watch(conn, conn->is_pollout) < 0)
		sock_conn_close(conn, -ENOMEM, UL_HSTATUS_LOCAL_ERROR);
	return true;
}

/* What a read job read (n bytes, err as job_run's) is accounted here. */
static void rx_job_back(struct sock_conn *conn, uint64_t n, int err)
{
	if (n) {
		rx_note(conn, n);
		rx_payload_advance(conn, (size_t)n);
	}
	if (conn->state != SOCK_CONN_ESTABLISHED)
		return;
	/* Without EPOLLIN again, nothing would ever read this conn. */
	if (sock_conn_watch(conn, conn->is_pollout) < 0) {
		sock_conn_close(conn, -ENOMEM, UL_HSTATUS_LOCAL_ERROR);
		return;
	}
	rx_settle(conn);
	if (err && err != -EAGAIN && conn->state == SOCK_CONN_ESTABLISHED)
		rx_failed(conn, err, err == -ECONNRESET);
}

void sock_conn_rjob_done(struct sock_conn *conn, uint64_t n, int err)
{
	rx_job_back(conn, n, err);
	/* The payload is in: read on at once (epoll would say so too). */
	if (err == 0 && conn->state == SOCK_CONN_ESTABLISHED)
		sock_conn_recv(conn);
}

void sock_conn_rjob_reclaim(struct sock_conn *conn)
{
	uint64_t n;
	int err;

	if (!conn->is_rjob_out)
		return;
	n = sock_sched_wait(conn, true, &err);
	rx_job_back(conn, n, err);
}

/*
 * Read the rest of the payload and, in the same recvmsg, whatever follows
 * it into the (empty) read-ahead buffer: the next headers, often the next
 * messages. Returns what rx_read returns; *is_drained when the socket gave
 * less than asked, so it holds nothing more for now.
 */
static ssize_t rx_read_payload(struct sock_conn *conn, bool *is_drained)
{
	struct iovec iov[SOCK_IOV_MAX];
	int cnt = rx_payload_iov(conn, iov);
	size_t want = 0, asked;
	ssize_t n;

	for (int i = 0; i < cnt; i++)
		want += iov[i].iov_len;
	asked = want;
	if (cnt < SOCK_IOV_MAX) {
		iov[cnt].iov_base = conn->ni->s->rx_stage;
		iov[cnt].iov_len = sizeof(conn->ni->s->rx_stage);
		asked += sizeof(conn->ni->s->rx_stage);
		cnt++;
	}
	n = rx_read(conn, iov, cnt);
	if (n <= 0)
		return n;
	*is_drained = (size_t)n < asked;
	if ((size_t)n > want) {
		conn->rx_stage_off = 0;
		conn->rx_stage_len = (uint32_t)((size_t)n - want);
	}
	rx_payload_advance(conn, (size_t)n < want ? (size_t)n : want);
	rx_settle(conn);
	return n;
}

/*
 * This callback completed SOCK_RX_MSGS_OUTPUT messages and their answers
 * wait for the flush: stop, so they leave before the rest is read.
 */
static bool is_output_waiting(const struct sock_conn *conn, uint64_t msgs0)
{
	return conn->stats.rx_msgs - msgs0 >= SOCK_RX_MSGS_OUTPUT &&
	       !ul_list_empty(&conn->ni->s->flush) && !conn->is_draining;
}

void sock_conn_recv(struct sock_conn *conn)
{
	struct ul_socklnd *s = conn->ni->s;
	uint64_t budget = SOCK_IO_BUDGET;
	struct iovec iov[1];
	uint64_t msgs0 = conn->stats.rx_msgs;
	bool is_drained = false;
	int reads = 0;

	/* A thread reads this payload: its return goes on from there. */
	if (conn->is_rjob_out)
		return;
	while (conn->state == SOCK_CONN_ESTABLISHED) {
		ssize_t n = 0;

		/*
		 * Staged bytes first, all of them unless answers wait: then
		 * they are kept and the before-sleep hook reads on from
		 * them after its flush (see the top).
		 */
		if (conn->rx_stage_off < conn->rx_stage_len &&
		    is_output_waiting(conn, msgs0) && rx_keep(conn))
			return;
		if (rx_from_stage(conn))
			continue;
		/*
		 * A short read emptied the socket: another recvmsg would
		 * only say EAGAIN (a system call per wake-up for nothing);
		 * epoll reports the next bytes.
		 */
		if (is_drained || reads++ >= SOCK_RX_UNITS || !budget ||
		    is_output_waiting(conn, msgs0))
			return;
		switch (conn->rx_state) {
		case SOCK_RX_KSH:
		case SOCK_RX_LNET_HDR:
			iov[0].iov_base = s->rx_stage;
			iov[0].iov_len = sizeof(s->rx_stage);
			n = rx_read(conn, iov, 1);
			if (n <= 0)
				return;
			is_drained = (size_t)n < sizeof(s->rx_stage);
			conn->rx_stage_off = 0;
			conn->rx_stage_len = (uint32_t)n;
			break;
		case SOCK_RX_PAYLOAD:
			if (rx_post_job(conn))
				return;
			n = rx_read_payload(conn, &is_drained);
			if (n <= 0)
				return;
			break;
		case SOCK_RX_SKIP:
			iov[0].iov_base = s->skip_buf;
			iov[0].iov_len = conn->rx_left < sizeof(s->skip_buf)
						 ? conn->rx_left
						 : sizeof(s->skip_buf);
			n = rx_read(conn, iov, 1);
			if (n <= 0)
				return;
			is_drained = (size_t)n < iov[0].iov_len;
			conn->rx_left -= (uint32_t)n;
			rx_settle(conn);
			break;
		}
		budget = (uint64_t)n >= budget ? 0 : budget - (uint64_t)n;
	}
	/*
	 * Closed with bytes staged: they die with it, the buffer is free
	 * (kept ones went at the close, sock_conn_close()).
	 */
	conn->rx_stage_off = conn->rx_stage_len = 0;
}
