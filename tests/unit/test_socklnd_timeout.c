/*
 * socklnd failure detection and classification (health.md §3, §10):
 * a peer that stops reading is noticed by TCP acknowledgement progress
 * within sock_timeout even when every byte already left our queue, and
 * the txs a closing connection held complete once each, with a status
 * that tells the core whether it may resend them. A payload tx counts as
 * sent only once TCP acknowledged its last byte.
 *
 * The raw peer accepts one untyped (ANY) connection and never reads, or
 * reads slowly, so the sender's unacknowledged byte count (SIOCOUTQ)
 * stays high. Times are compared on the loop's clock, the one socklnd
 * decides by; nothing passes or fails on how long the test took.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "helper_socklnd.h"
#include "lnd/socklnd_int.h"
#include "util/clock.h"
#include "util/loop.h"

#define KIB (1u << 10)
#define MIB (1u << 20)
#define NS_PER_SEC 1000000000ull

static int setup(void **state)
{
	*state = sw_world_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	sw_world_free(*state);
	return 0;
}

/*
 * NI 0 on address 1 with one ANY connection per peer and sock_timeout
 * 1 s, set the way `net set --lnd-timeout` sets it; a raw listener on
 * address 3, whose NID goes to *peer.
 */
static int start_one(struct sw_world *w, struct ulnet_nid *peer)
{
	int lfd;

	w->opts.typed_conns = 0;
	assert_int_equal(sw_world_start(w), 0);
	assert_int_equal(sw_ni_start(w, 0, 1), 0);
	ul_socklnd_ops.set_timeout(w->s, 1);
	lfd = sw_raw_listen(w, 3);
	assert_true(lfd >= 0);
	sw_nid(w, 3, peer);
	return lfd;
}

static bool pred_no_conns(struct sw_world *w, void *arg)
{
	(void)arg;
	return ul_socklnd_nconns(w->s) == 0;
}

struct written {
	const struct ulnet_nid *peer;
	uint64_t bytes;
};

/* NI 0's conns to the peer wrote at least bytes into their sockets. */
static bool pred_written(struct sw_world *w, void *arg)
{
	struct written *wr = arg;
	struct ul_socklnd_conn_info ci[4];
	uint64_t sum = 0;
	int n = ul_socklnd_conns(w->s, &w->nis[0].ni.nid, wr->peer, ci, 4);

	for (int i = 0; i < n && i < 4; i++)
		sum += ci[i].tx_bytes;
	return sum >= wr->bytes;
}

/* Shut NI 0 down: no tx completes a second time. */
static void check_exactly_once(struct sw_world *w)
{
	sw_ni_stop(w, 0);
	for (int i = 0; i < SW_MAX_TX; i++)
		assert_int_equal(w->tx_ndone[i], w->tx_sent[i] ? 1 : 0);
}

/*
 * Every byte written into the socket, most never acknowledged: still a
 * stall; the txs that TCP did not acknowledge whole are network
 * timeouts the peer cannot have taken (undelivered: the core resends).
 */
static void socklnd_unacked_output_times_out(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	struct written wr = { &peer, 4 * (256 * KIB + 96) };
	char nidstr[ULNET_NIDSTR_SIZE], line[128];
	uint64_t t0;
	int lfd, n = 4;

	lfd = start_one(w, &peer);
	t0 = ul_loop_update_time(w->loop);
	for (int i = 0; i < n; i++)
		assert_int_equal(sw_send_put(w, 0, &peer, i, 256 * KIB), 0);
	assert_true(sw_raw_accept_peer(w, lfd, 3) >= 0);
	/* 1 MiB fits in the socket: our own queue empties. */
	assert_true(sw_run_until(w, pred_written, &wr));

	assert_true(sw_run_until(w, pred_no_conns, NULL));
	assert_true(sw_run_until(w, sw_pred_tx_done, &n));
	/* The peer's 64 KiB window cannot hold a whole one. */
	for (int i = 0; i < n; i++) {
		assert_int_equal(w->tx_status[i], -ETIMEDOUT);
		assert_int_equal(w->tx_hs[i], UL_HSTATUS_NETWORK_TIMEOUT);
		assert_true(w->tx_undelivered[i]);
		assert_true(w->tx_done_ns[i] >= t0 + NS_PER_SEC);
	}
	ulnet_nid_format(&peer, nidstr, sizeof(nidstr));
	snprintf(line, sizeof(line), "conn to %s: no send progress for 1s",
		 nidstr);
	assert_true(sw_log_has(w, line));
	assert_true(sw_log_has(w, "bytes unacknowledged, 0 messages queued"));
	/* Not before sock_timeout on the clock socklnd runs on. */
	assert_true(w->closing_ns >= t0 + NS_PER_SEC);
	check_exactly_once(w);
}

/*
 * A peer whose TCP accepts but which never answers the hello: the
 * connect times out, and the txs that waited for it complete as network
 * timeouts that never left this node (undelivered: the core may resend
 * them on another pathway).
 */
static void socklnd_connect_timeout_txs_undelivered(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	int n = 2;

	(void)start_one(w, &peer); /* listening, never accepting */
	for (int i = 0; i < n; i++)
		assert_int_equal(sw_send_put(w, 0, &peer, i, 4 * KIB), 0);
	assert_true(sw_run_until(w, sw_pred_tx_done, &n));
	for (int i = 0; i < n; i++) {
		assert_int_equal(w->tx_status[i], -ETIMEDOUT);
		assert_int_equal(w->tx_hs[i], UL_HSTATUS_NETWORK_TIMEOUT);
		assert_true(w->tx_undelivered[i]);
	}
	assert_true(sw_log_has(w, "handshake timed out"));
	check_exactly_once(w);
}

/*
 * The txs of the one connection after it closed for status: a prefix
 * that TCP acknowledged whole (OK), then failures with status: those
 * written (whole or in part) but not acknowledged with hs_written, then
 * those never started with hs_other. Returns how many are hs_other.
 */
static int check_close_order(const struct sw_world *w, int n, int status,
			     enum ul_hstatus hs_written,
			     enum ul_hstatus hs_other, uint64_t not_before)
{
	int i = 0, nother = 0;

	while (i < n && w->tx_status[i] == 0) {
		assert_int_equal(w->tx_hs[i], UL_HSTATUS_OK);
		i++;
	}
	for (; i < n; i++) {
		assert_int_equal(w->tx_status[i], status);
		assert_true(w->tx_done_ns[i] >= not_before);
		if (w->tx_hs[i] == hs_other) {
			nother++;
			continue;
		}
		/* never started comes after every written one */
		assert_int_equal(nother, 0);
		assert_int_equal(w->tx_hs[i], hs_written);
	}
	return nother;
}

/*
 * A stall with more queued than the socket holds: the txs that never
 * started are LOCAL_TIMEOUT, those written but never acknowledged
 * NETWORK_TIMEOUT and undelivered (the core resends both), all with
 * -ETIMEDOUT, after sock_timeout.
 */
static void socklnd_timeout_classifies_held_txs(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	uint64_t t0;
	int lfd, n = 16;

	lfd = start_one(w, &peer);
	t0 = ul_loop_update_time(w->loop);
	for (int i = 0; i < n; i++)
		assert_int_equal(sw_send_put(w, 0, &peer, i, MIB), 0);
	assert_true(sw_raw_accept_peer(w, lfd, 3) >= 0);
	assert_true(sw_run_until(w, sw_pred_tx_done, &n));
	assert_true(check_close_order(
			    w, n, -ETIMEDOUT, UL_HSTATUS_NETWORK_TIMEOUT,
			    UL_HSTATUS_LOCAL_TIMEOUT, t0 + NS_PER_SEC) > 0);
	for (int i = 0; i < n; i++)
		assert_true(w->tx_hs[i] != UL_HSTATUS_NETWORK_TIMEOUT ||
			    w->tx_undelivered[i]);
	assert_true(w->closing_ns >= t0 + NS_PER_SEC);
	assert_true(sw_log_has(w, "no send progress for 1s"));
	check_exactly_once(w);
}

/* Close fd with a reset (SO_LINGER 0) and forget it. */
static void raw_reset(struct sw_world *w, int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)),
			 0);
	for (int i = 0; i < SW_MAX_RAW; i++)
		if (w->raw[i] == fd)
			w->raw[i] = -1;
	close(fd);
}

/* The peer resets: whatever was not written whole is REMOTE_DROPPED. */
static void socklnd_reset_classifies_held_txs(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	struct written wr = { &peer, 2 * MIB };
	int lfd, fd, n = 16;

	lfd = start_one(w, &peer);
	/* A long timeout: only the reset may close the connection. */
	ul_socklnd_ops.set_timeout(w->s, 600);
	for (int i = 0; i < n; i++)
		assert_int_equal(sw_send_put(w, 0, &peer, i, MIB), 0);
	fd = sw_raw_accept_peer(w, lfd, 3);
	assert_true(fd >= 0);
	assert_true(sw_run_until(w, pred_written, &wr));
	sw_run_for(w, 200); /* let the socket fill; any state will do */
	raw_reset(w, fd);
	assert_true(sw_run_until(w, sw_pred_tx_done, &n));
	assert_true(check_close_order(w, n, -ECONNRESET,
				      UL_HSTATUS_REMOTE_DROPPED,
				      UL_HSTATUS_REMOTE_DROPPED, 0) > 0);
	assert_false(sw_log_has(w, "no send progress"));
	check_exactly_once(w);
}

struct slow_reader {
	int fd;
	size_t want, got;
	uint64_t next_ns;
};

/* Read at most 64 KiB each quarter second of loop time. */
static bool pred_slow_read(struct sw_world *w, void *arg)
{
	struct slow_reader *r = arg;
	uint64_t now = ul_loop_timers(w->loop)->now_ns;
	static uint8_t buf[64 * 1024];
	ssize_t len;

	if (now < r->next_ns)
		return false;
	r->next_ns = now + NS_PER_SEC / 4;
	len = recv(r->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (len > 0)
		r->got += (size_t)len;
	return r->got >= r->want || len == 0;
}

/*
 * A peer that reads slowly but steadily acknowledges all along: the
 * connection outlives several sock_timeouts and everything arrives.
 */
static void socklnd_ack_progress_keeps_conn(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	struct slow_reader r = { 0 };
	uint64_t t0;
	int lfd, n = 4;

	lfd = start_one(w, &peer);
	t0 = ul_loop_update_time(w->loop);
	for (int i = 0; i < n; i++)
		assert_int_equal(sw_send_put(w, 0, &peer, i, 256 * KIB), 0);
	r.fd = sw_raw_accept_peer(w, lfd, 3);
	assert_true(r.fd >= 0);
	r.want = (size_t)n * (256 * KIB + 96);
	assert_true(sw_run_until(w, pred_slow_read, &r));
	assert_int_equal(r.got, r.want);
	/* It took longer than sock_timeout, and nothing was closed. */
	assert_true(ul_loop_timers(w->loop)->now_ns >= t0 + 2 * NS_PER_SEC);
	assert_int_equal(ul_socklnd_nconns(w->s), 1);
	assert_false(sw_log_has(w, "no send progress"));
	for (int i = 0; i < n; i++)
		assert_int_equal(w->tx_status[i], 0);
	check_exactly_once(w);
}

/*
 * A tx written into the socket is not sent until TCP has the peer's
 * acknowledgement of its last byte: it completes OK when the peer reads,
 * not before, whatever its size.
 */
static void socklnd_payload_tx_waits_for_ack(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	uint32_t len = 512 * KIB;
	struct written wr = { &peer, len + 96 };
	uint8_t *buf = malloc(len + 96);
	uint64_t t_read;
	int lfd, fd, two = 2;

	assert_non_null(buf);
	lfd = start_one(w, &peer);
	ul_socklnd_ops.set_timeout(w->s, 600);
	assert_int_equal(sw_send_put(w, 0, &peer, 0, len), 0);
	fd = sw_raw_accept_peer(w, lfd, 3);
	assert_true(fd >= 0);
	assert_true(sw_run_until(w, pred_written, &wr));
	/* A small one behind it waits too, though written. */
	assert_int_equal(sw_send_put(w, 0, &peer, 1, 8), 0);
	wr.bytes += 8 + 96;
	assert_true(sw_run_until(w, pred_written, &wr));
	sw_run_for(w, 100); /* the ACK poll runs many times meanwhile */
	assert_int_equal(w->tx_ndone[0], 0);
	assert_int_equal(w->tx_ndone[1], 0);

	t_read = ul_loop_update_time(w->loop);
	assert_true(sw_raw_read(w, fd, buf, len + 96));
	assert_true(sw_run_until(w, sw_pred_tx_done, &two));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(w->tx_status[i], 0);
		assert_int_equal(w->tx_hs[i], UL_HSTATUS_OK);
		assert_true(w->tx_done_ns[i] >= t_read);
	}
	assert_int_equal(ul_socklnd_nconns(w->s), 1);
	check_exactly_once(w);
	free(buf);
}

/*
 * Small PUTs written whole into a connection that then dies, before the
 * peer's TCP acknowledged them (it never reads: its window is full of a
 * large one ahead): not sent. A reset fails them REMOTE_DROPPED, a stall
 * NETWORK_TIMEOUT and undelivered; the core resends both. Before, a PUT
 * under 16 KiB completed OK once written and was lost with the
 * connection.
 */
static void socklnd_small_put_dies_with_conn(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	struct written wr = { &peer, 0 };
	int lfd, fd, n = 1 + 8;

	for (int is_reset = 1; is_reset >= 0; is_reset--) {
		if (!is_reset) {
			sw_world_free(w);
			w = *state = sw_world_new();
			assert_non_null(w);
		}
		lfd = start_one(w, &peer);
		if (is_reset)
			ul_socklnd_ops.set_timeout(w->s, 600);
		/* 256 KiB fills the window of a peer that never reads */
		assert_int_equal(sw_send_put(w, 0, &peer, 0, 256 * KIB), 0);
		for (int i = 1; i < n; i++)
			assert_int_equal(sw_send_put(w, 0, &peer, i, 8), 0);
		fd = sw_raw_accept_peer(w, lfd, 3);
		assert_true(fd >= 0);
		wr.bytes = 256 * KIB + 96 + (uint64_t)(n - 1) * (8 + 96);
		/* all written into the socket, none acknowledged whole */
		assert_true(sw_run_until(w, pred_written, &wr));
		for (int i = 0; i < n; i++)
			assert_int_equal(w->tx_ndone[i], 0);
		if (is_reset)
			raw_reset(w, fd);
		assert_true(sw_run_until(w, sw_pred_tx_done, &n));
		for (int i = 1; i < n; i++) {
			if (is_reset) {
				assert_int_equal(w->tx_status[i], -ECONNRESET);
				assert_int_equal(w->tx_hs[i],
						 UL_HSTATUS_REMOTE_DROPPED);
			} else {
				assert_int_equal(w->tx_status[i], -ETIMEDOUT);
				assert_int_equal(w->tx_hs[i],
						 UL_HSTATUS_NETWORK_TIMEOUT);
				assert_true(w->tx_undelivered[i]);
			}
		}
		check_exactly_once(w);
	}
}

/*
 * Txs that no one waits for (here PUTs whose ACK never comes) are looked
 * at by a slow timer (10 minutes here) and by the NI tick; but a
 * connection holding SOCK_ACK_POLL_HELD or more is looked at after its
 * flush, so a stream's held ACKs complete as soon as TCP acknowledges
 * them instead of piling up: here before the NI's first tick.
 */
static void socklnd_many_held_txs_looked_at_soon(void **state)
{
	struct sw_world *w = *state;
	struct ulnet_nid peer;
	uint8_t buf[2 * SOCK_ACK_POLL_HELD * (8 + 96)];
	int lfd, fd, n = 2 * SOCK_ACK_POLL_HELD;
	uint64_t t0;

	w->opts.ack_poll_idle_ms = 600000;
	w->is_put_ack = true;
	t0 = ul_clock_monotonic_ns(); /* the loop's clock; before the NI */
	lfd = start_one(w, &peer);
	ul_socklnd_ops.set_timeout(w->s, 600);
	for (int i = 0; i < n; i++)
		assert_int_equal(sw_send_put(w, 0, &peer, i, 8), 0);
	fd = sw_raw_accept_peer(w, lfd, 3);
	assert_true(fd >= 0);
	assert_true(sw_raw_read(w, fd, buf, sizeof(buf)));
	if (ul_loop_update_time(w->loop) - t0 > SOCK_TICK_NS / 2)
		skip(); /* too slow a machine to tell the look from the tick */
	assert_true(sw_run_until(w, sw_pred_tx_done, &n));
	for (int i = 0; i < n; i++) {
		assert_int_equal(w->tx_status[i], 0);
		assert_int_equal(w->tx_hs[i], UL_HSTATUS_OK);
		assert_true(w->tx_done_ns[i] < t0 + SOCK_TICK_NS);
	}
	check_exactly_once(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			socklnd_unacked_output_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(
			socklnd_timeout_classifies_held_txs, setup, teardown),
		cmocka_unit_test_setup_teardown(
			socklnd_reset_classifies_held_txs, setup, teardown),
		cmocka_unit_test_setup_teardown(
			socklnd_connect_timeout_txs_undelivered, setup,
			teardown),
		cmocka_unit_test_setup_teardown(socklnd_ack_progress_keeps_conn,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			socklnd_payload_tx_waits_for_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(
			socklnd_small_put_dies_with_conn, setup, teardown),
		cmocka_unit_test_setup_teardown(
			socklnd_many_held_txs_looked_at_soon, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
