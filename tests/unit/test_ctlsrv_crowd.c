/*
 * The control server under crowding (src/runtime/ctlsrv.c "clients"):
 * idle and half-sent connections never lock ulnetctl out (the longest
 * waiting one that is not BUSY makes room), commands in flight keep their
 * slots, timeout lines are rate-limited, stalled and vanished clients are
 * closed while a good client is served. Same fixture as test_ctlsrv.c
 * (helper_ctlsrv.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/core.h"
#include "core/node.h"
#include "ctl/proto.h"
#include "ctl/proto_doc.h"
#include "helper_ctlsrv.h"
#include "helper_mocklnd.h"
#include "helper_topo.h"
#include "runtime/ctlsrv.h"
#include "runtime/ctlsrv_int.h"
#include "util/loop.h"
#include "util/err.h"
#include "wire/bytes.h"
#include "wire/wire.h"

/* Client slots of the crowding tests. */
#define TEST_SLOTS 8

/* Run the loop until the server has n clients. */
static void wait_nclients(struct fx *f, unsigned int n)
{
	int spins;

	for (spins = 0; spins < MAX_SPINS && f->srv->nclients != n; spins++)
		ul_loop_run_once(f->loop, 10);
	assert_int_equal(f->srv->nclients, n);
}

/* Whether the server has closed fd (EOF), without waiting. */
static bool is_closed(int fd)
{
	char b;
	ssize_t n = recv(fd, &b, 1, 0);

	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return true;
	assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
	return false;
}

/*
 * More idle connections than the server keeps (a script holding the
 * socket open) do not lock ulnetctl out: the longest idle ones are closed
 * to make room, and a request is answered.
 */
static void idle_crowd_does_not_lock_out(void **state)
{
	struct fx *f = *state;
	int idle[TEST_SLOTS + 16];
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	size_t i, nclosed = 0, len;

	/* The real limit is a quarter of the fd limit: too many sockets. */
	assert_true(ul_ctlsrv_max_clients(f->srv) >= 16);
	ul_ctlsrv_set_max_clients(f->srv, TEST_SLOTS);
	for (i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		idle[i] = client_connect(f);
		/* Let the server take it before the backlog fills. */
		ul_loop_run_once(f->loop, 0);
		ul_loop_run_once(f->loop, 0);
	}
	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	ul_ctl_reply_fini(&r);
	/* The oldest ones were closed, the newest are still there. */
	for (i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		char b;
		ssize_t n = recv(idle[i], &b, 1, 0);

		if (n == 0)
			nclosed++;
		else
			assert_true(n < 0 && errno == EAGAIN);
	}
	assert_true(nclosed >= 16);
	assert_null(client_recv(f, idle[0], &len));
	for (i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		close(idle[i]);
}

/*
 * Every slot held by a client that sent part of a request (one byte, or
 * a whole header with its body missing) and then waits: each newcomer
 * closes the one the server has waited on longest, so ulnetctl is
 * served however long the flood lasts.
 */
static void half_sent_crowd_does_not_lock_out(void **state)
{
	struct fx *f = *state;
	int crowd[TEST_SLOTS];
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	size_t i, round;

	ul_ctlsrv_set_max_clients(f->srv, TEST_SLOTS);
	for (i = 0; i < TEST_SLOTS; i++) {
		crowd[i] = client_connect(f);
		if (i % 2)
			client_send(crowd[i], "U", 1);
		else
			client_send(crowd[i],
				    "\x54\x43\x4c\x55\x01\x00\x02\x00\x40\x00"
				    "\x00\x00",
				    12);
		wait_nclients(f, (unsigned int)i + 1);
	}
	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	for (round = 0; round < 3; round++) {
		ask(f, &req, &r);
		assert_int_equal(r.rc, 0);
		ul_ctl_reply_fini(&r);
		/* The flood comes back at once (audit2-b item 1). */
		assert_true(is_closed(crowd[round]));
		close(crowd[round]);
		crowd[round] = client_connect(f);
		client_send(crowd[round], "U", 1);
		wait_nclients(f, TEST_SLOTS);
	}
	/* The newest ones were left alone. */
	for (i = round; i < TEST_SLOTS; i++)
		assert_false(is_closed(crowd[i]));
	for (i = 0; i < TEST_SLOTS; i++)
		close(crowd[i]);
}

/* The client timeout's lines, counted (and the last one kept). */
struct log_count {
	unsigned int n;
	char last[512];
};

static void count_line(void *ctx, const char *line)
{
	struct log_count *lc = ctx;

	lc->n++;
	snprintf(lc->last, sizeof(lc->last), "%s", line);
}

/* Fire the timer of every client at now, as the loop would. */
static void fire_client_timers(struct fx *f, uint64_t now)
{
	struct ctl_client *c, *tmp;

	ul_loop_timers(f->loop)->now_ns = now;
	ul_list_for_each_entry_safe(c, tmp, &f->srv->clients, link)
		c->timer.cb(&c->timer, now);
}

/*
 * Clients that time out together write one line a second, the next
 * saying how many were left out. The timers are fired by hand at chosen
 * times (no waiting).
 */
static void timeout_lines_rate_limited(void **state)
{
	struct fx *f = *state;
	struct log_count lc = { 0 };
	struct ul_log lg = { count_line, &lc, UL_LOG_DEFAULT_MASK, NULL };
	int fds[6];
	uint64_t now;
	size_t i;

	f->srv->log = &lg;
	for (i = 0; i < 5; i++) {
		fds[i] = client_connect(f);
		client_send(fds[i], "U", 1);
		wait_nclients(f, (unsigned int)i + 1);
	}
	/* Let the server read the byte of each. */
	for (i = 0; i < 10; i++)
		ul_loop_run_once(f->loop, 0);
	now = ul_loop_timers(f->loop)->now_ns + UINT64_C(60000000000);
	fire_client_timers(f, now);
	assert_int_equal(f->srv->nclients, 0);
	assert_int_equal(lc.n, 1);
	assert_non_null(strstr(lc.last, "no whole request after 5000 ms"));
	assert_non_null(strstr(lc.last, "(0 more like this not logged)"));
	fds[5] = client_connect(f);
	wait_nclients(f, 1);
	fire_client_timers(f, now + UINT64_C(999000000));
	assert_int_equal(lc.n, 1);
	fds[4] = client_connect(f);
	wait_nclients(f, 1);
	fire_client_timers(f, now + UINT64_C(1000000000));
	assert_int_equal(lc.n, 2);
	assert_non_null(strstr(lc.last, "(5 more like this not logged)"));
	for (i = 0; i < 6; i++)
		close(fds[i]);
	f->srv->log = NULL;
}

/* Half a frame, then silence: closed after the client timeout. */
static void stalled_client_closed(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	int stalled, body;

	ul_ctlsrv_set_client_timeout(f->srv, 50);
	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	stalled = client_connect(f);
	client_send(stalled, "\x54\x43\x4c\x55\x01", 5);
	/* Header whole, payload promised but never sent. */
	body = client_connect(f);
	client_send(body, "\x54\x43\x4c\x55\x01\x00\x02\x00\x40\x00\x00\x00",
		    12);
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	ul_ctl_reply_fini(&r);
	client_expect_eof(f, stalled);
	client_expect_eof(f, body);
	close(stalled);
	close(body);
}

/* A client that goes away mid-request changes nothing for others. */
static void client_gone_mid_frame(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	int fd = client_connect(f);

	client_send(fd, "\x54\x43\x4c\x55\x01\x00\x03", 7);
	close(fd);
	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	ul_ctl_reply_fini(&r);
}

/*
 * A server on a node of the mock fabric (helper_mocklnd.h), whose
 * sends are lost: a ping of 10.0.0.2@tcp waits for a reply that never
 * comes, and its timeout runs on the fabric's clock, which the test
 * never moves. So its client stays BUSY for as long as the test wants.
 */
struct fx_busy {
	struct fx fx; /* first: the helpers take a struct fx */
	struct mock_fabric fab;
};

static int setup_busy(void **state)
{
	static const char *const nids[] = { "10.0.0.1@tcp" };
	struct fx_busy *b = calloc(1, sizeof(*b));
	struct fx *f = &b->fx;

	assert_non_null(b);
	mock_fabric_init(&b->fab);
	b->fab.is_drop = true;
	assert_int_equal(ul_loop_create(&f->loop), 0);
	f->node = mock_node(&b->fab, nids, 1, 0, 0);
	assert_non_null(f->node);
	assert_int_equal(ul_loop_hook_add(f->loop, flush_hook, f), 0);
	fx_path(f, "busy");
	assert_int_equal(
		ul_ctlsrv_create(f->loop, f->node, f->path, NULL, &f->srv), 0);
	*state = b;
	return 0;
}

static int teardown_busy(void **state)
{
	struct fx_busy *b = *state;
	struct fx *f = &b->fx;

	ul_ctlsrv_destroy(f->srv);
	ul_loop_hook_del(f->loop, flush_hook, f);
	mock_fabric_fini(&b->fab); /* the node, its pings still waiting */
	ul_loop_destroy(f->loop);
	free(b);
	return 0;
}

/* A client whose ping stays in flight (BUSY). */
static int busy_client(struct fx *f)
{
	struct ul_ctl_req req;
	struct ctl_client *c;
	int fd = client_connect(f), spins;
	bool is_busy = false;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PING;
	req.ping.target = ht_nid("10.0.0.2@tcp");
	req.ping.has_timeout = true;
	req.ping.timeout_ms = 3000;
	client_send_req(fd, &req);
	for (spins = 0; spins < MAX_SPINS && !is_busy; spins++) {
		ul_loop_run_once(f->loop, 10);
		/* the newest client is the last one */
		if (!ul_list_empty(&f->srv->clients)) {
			c = ul_container_of(f->srv->clients.prev,
					    struct ctl_client, link);
			is_busy = c->state == CTL_CLIENT_BUSY && c->ping;
		}
	}
	assert_true(is_busy);
	return fd;
}

/*
 * Commands that run on the node are never closed to make room: with
 * every slot BUSY a newcomer gets "too many control clients"; with one
 * slot held by a half-sent request, that one goes and the newcomer is
 * served.
 */
static void busy_clients_keep_their_slots(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	int busy[TEST_SLOTS], half, fd;
	char want[64];
	size_t i;

	ul_ctlsrv_set_max_clients(f->srv, TEST_SLOTS);
	for (i = 0; i < TEST_SLOTS; i++)
		busy[i] = busy_client(f);
	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	fd = client_connect(f);
	client_send_req(fd, &req);
	client_reply(f, fd, 0, &r);
	assert_int_equal(r.rc, -EBUSY);
	snprintf(want, sizeof(want), "too many control clients (%d)",
		 TEST_SLOTS);
	assert_string_equal(r.err_msg, want);
	ul_ctl_reply_fini(&r);
	client_expect_eof(f, fd);
	close(fd);
	for (i = 0; i < TEST_SLOTS; i++)
		assert_false(is_closed(busy[i]));

	/* One more slot, taken by a half-sent request: that one goes. */
	ul_ctlsrv_set_max_clients(f->srv, TEST_SLOTS + 1);
	half = client_connect(f);
	client_send(half, "\x54\x43\x4c", 3);
	wait_nclients(f, TEST_SLOTS + 1);
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	ul_ctl_reply_fini(&r);
	client_expect_eof(f, half);
	close(half);
	for (i = 0; i < TEST_SLOTS; i++) {
		assert_false(is_closed(busy[i]));
		close(busy[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(idle_crowd_does_not_lock_out,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(
			half_sent_crowd_does_not_lock_out, setup_show,
			teardown),
		cmocka_unit_test_setup_teardown(timeout_lines_rate_limited,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(busy_clients_keep_their_slots,
						setup_busy, teardown_busy),
		cmocka_unit_test_setup_teardown(stalled_client_closed,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(client_gone_mid_frame,
						setup_show, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
