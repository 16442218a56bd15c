/*
 * The control socket server (src/runtime/ctlsrv.h) on a real loop and a
 * real node, with raw clients on its Unix socket: net show and peer show
 * of a node whose NIs and peers were added to its core (no LND started:
 * showing needs no traffic), a ping of 0@lo through lolnd, and clients
 * that send garbage, half frames, oversized lengths or another version:
 * each gets a refusal or is closed while a good client is still served.
 * The test drives the loop itself; the client sockets are non-blocking.
 * Timeouts only bound the wait (a failure, never a pass, comes from them).
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
#include "helper_mocklnd.h"
#include "helper_topo.h"
#include "runtime/ctlsrv.h"
#include "runtime/ctlsrv_int.h"
#include "runtime/loop.h"
#include "util/err.h"
#include "wire/bytes.h"
#include "wire/wire.h"

/* Loop iterations (10 ms each at most) before a wait counts as failed. */
#define MAX_SPINS 3000

struct fx {
	struct ul_loop *loop;
	struct ul_node *node;
	struct ul_ctlsrv *srv;
	char path[108];
};

static void flush_hook(void *arg)
{
	struct fx *f = arg;

	if (ul_node_flush(f->node))
		ul_loop_wake_self(f->loop);
}

static void fx_path(struct fx *f, const char *tag)
{
	snprintf(f->path, sizeof(f->path), "/tmp/ulnet-ctlsrv-%d-%s.sock",
		 (int)getpid(), tag);
	unlink(f->path);
}

/* A loop and a node; with_nis adds a tcp net, two peers, no startup. */
static int fx_setup(void **state, bool with_nis)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct ul_node_opts opts;
	struct ul_peer *peer;
	struct ul_core *core;
	struct ulnet_nid nid;

	assert_non_null(f);
	assert_int_equal(ul_loop_create(&f->loop), 0);
	assert_int_equal(ul_core_create(&core), 0);
	if (with_nis) {
		nid = ht_nid("192.168.1.10@tcp");
		assert_int_equal(
			ul_ni_add(core, &nid, "eth0", 0, NULL, NULL, NULL), 0);
		nid = ht_nid("192.168.2.10@tcp");
		assert_int_equal(ul_ni_add(core, &nid, "eth1", UL_NUMA_ANY,
					   NULL, NULL, NULL),
				 0);
		nid = ht_nid("192.168.1.20@tcp");
		assert_int_equal(
			ul_peer_add(core, &nid, true, false, &peer, NULL), 0);
		nid = ht_nid("192.168.2.20@tcp");
		assert_int_equal(ul_peer_ni_add(core, peer, &nid, NULL, NULL),
				 0);
		nid = ht_nid("10.0.0.5@tcp1");
		assert_int_equal(
			ul_peer_add(core, &nid, false, false, NULL, NULL), 0);
	}
	memset(&opts, 0, sizeof(opts));
	opts.timers = ul_loop_timers(f->loop);
	opts.pid = ULNET_PID_LUSTRE;
	opts.interface_cookie = 1;
	assert_int_equal(ul_node_create(core, &opts, &f->node), 0);
	assert_int_equal(ul_loop_hook_add(f->loop, flush_hook, f), 0);
	fx_path(f, with_nis ? "show" : "ping");
	assert_int_equal(
		ul_ctlsrv_create(f->loop, f->node, f->path, NULL, &f->srv), 0);
	*state = f;
	return 0;
}

static int setup_show(void **state)
{
	return fx_setup(state, true);
}

static int setup_ping(void **state)
{
	struct fx *f;

	fx_setup(state, false);
	f = *state;
	assert_int_equal(ul_node_startup(f->node, NULL), 0);
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct stat st;

	ul_ctlsrv_destroy(f->srv);
	/* destroy removes the socket file */
	assert_int_equal(stat(f->path, &st), -1);
	ul_loop_hook_del(f->loop, flush_hook, f);
	ul_node_destroy(f->node);
	ul_loop_destroy(f->loop);
	free(f);
	return 0;
}

/* ---- A raw client ----------------------------------------------------- */

static int client_connect(const struct fx *f)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void client_send(int fd, const void *p, size_t len)
{
	assert_int_equal(send(fd, p, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void client_send_req(int fd, const struct ul_ctl_req *req)
{
	struct ul_ctl_msg m;

	assert_int_equal(ul_ctl_req_encode(req, &m), 0);
	client_send(fd, m.buf, m.len);
	ul_ctl_msg_fini(&m);
}

/*
 * Run the loop until the client has a whole frame (returned, malloc'd,
 * its size in *len) or EOF (NULL). A server that closes with part of a
 * request unread resets the connection: that is an EOF too.
 */
static uint8_t *client_recv(struct fx *f, int fd, size_t *len)
{
	uint8_t hdr[UL_CTL_HDR_SIZE], *frame = NULL;
	size_t got = 0, need = sizeof(hdr);
	int spins;

	for (spins = 0; spins < MAX_SPINS; spins++) {
		uint8_t *dst = frame ? frame + got : hdr + got;
		ssize_t n = recv(fd, dst, need - got, 0);

		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			free(frame);
			return NULL;
		}
		if (n > 0) {
			got += (size_t)n;
			if (got < need)
				continue;
			if (frame) {
				*len = need;
				return frame;
			}
			need = UL_CTL_HDR_SIZE + ul_get_le32(hdr + 8);
			frame = malloc(need);
			assert_non_null(frame);
			memcpy(frame, hdr, sizeof(hdr));
			if (got == need) {
				*len = need;
				return frame;
			}
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			fail_msg("recv: %s", strerror(errno));
		ul_loop_run_once(f->loop, 10);
	}
	fail_msg("no reply and no EOF from the server");
	return NULL;
}

static void client_expect_eof(struct fx *f, int fd)
{
	size_t len;

	assert_null(client_recv(f, fd, &len));
}

/* Receive and decode the reply to op. */
static void client_reply(struct fx *f, int fd, uint16_t op,
			 struct ul_ctl_reply *r)
{
	struct ul_err err = { 0 };
	uint8_t *frame;
	size_t len = 0;

	frame = client_recv(f, fd, &len);
	assert_non_null(frame);
	if (ul_ctl_reply_decode(frame, len, op, r, &err))
		fail_msg("bad reply: %s", err.msg);
	free(frame);
}

static void ask(struct fx *f, const struct ul_ctl_req *req,
		struct ul_ctl_reply *r)
{
	int fd = client_connect(f);

	client_send_req(fd, req);
	client_reply(f, fd, req->op, r);
	close(fd);
}

/* ---- Tests ------------------------------------------------------------ */

static void socket_is_mode_0600(void **state)
{
	struct fx *f = *state;
	struct stat st;

	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void net_show_lists_nets_and_nis(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	const struct ul_ctl_net *tcp;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	req.net_show.verbose = 2;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.net_show.nnets, 2);
	assert_int_equal(r.net_show.nets[0].net_id, ht_net("lo"));
	assert_int_equal(r.net_show.nets[0].nnis, 1);
	assert_false(r.net_show.nets[0].nis[0].has_lnd_tunables);
	tcp = &r.net_show.nets[1];
	assert_int_equal(tcp->net_id, ht_net("tcp"));
	assert_int_equal(tcp->nnis, 2);
	assert_string_equal(ht_str(&tcp->nis[0].nid), "192.168.1.10@tcp");
	assert_string_equal(tcp->nis[0].ifname, "eth0");
	assert_int_equal(tcp->nis[0].status, UL_CTL_NI_STATUS_UP);
	assert_true(tcp->nis[0].has_tunables);
	assert_int_equal(tcp->nis[0].peer_credits, 8);
	assert_int_equal(tcp->nis[0].credits, 256);
	assert_int_equal(tcp->nis[0].dev_cpt, 0);
	assert_int_equal(tcp->nis[1].dev_cpt, -1);
	assert_true(tcp->nis[0].b.has_health);
	assert_int_equal(tcp->nis[0].b.health.healthv, 1000);
	assert_false(tcp->nis[0].b.has_udsp); /* level 4 only */
	assert_string_equal(tcp->nis[1].ifname, "eth1");
	ul_ctl_reply_fini(&r);

	/* --net filters; level 0 has no statistics. */
	req.net_show.has_net = true;
	snprintf(req.net_show.net, sizeof(req.net_show.net), "tcp");
	req.net_show.verbose = 0;
	ask(f, &req, &r);
	assert_int_equal(r.net_show.nnets, 1);
	assert_int_equal(r.net_show.nets[0].net_id, ht_net("tcp"));
	assert_false(r.net_show.nets[0].nis[0].b.has_stats);
	ul_ctl_reply_fini(&r);
}

static void net_show_errors_are_lnetctls(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	req.net_show.has_net = true;
	snprintf(req.net_show.net, sizeof(req.net_show.net), "tcp7");
	ask(f, &req, &r);
	assert_int_equal(r.rc, -ESRCH);
	assert_string_equal(r.err_msg, "Network is down");
	ul_ctl_reply_fini(&r);

	snprintf(req.net_show.net, sizeof(req.net_show.net), "bogus");
	ask(f, &req, &r);
	assert_int_equal(r.rc, -ENOENT);
	assert_string_equal(r.err_msg, "cannot parse net");
	ul_ctl_reply_fini(&r);
}

static void peer_show_lists_peers(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	req.peer_show.verbose = 3;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.peer_show.npeers, 2);
	assert_string_equal(ht_str(&r.peer_show.peers[0].primary),
			    "192.168.1.20@tcp");
	assert_true(r.peer_show.peers[0].is_mr);
	assert_true(r.peer_show.peers[0].has_state);
	/* MULTI_RAIL | CONFIGURED */
	assert_int_equal(r.peer_show.peers[0].state & 0x9, 0x9);
	assert_int_equal(r.peer_show.peers[0].npnis, 2);
	assert_string_equal(ht_str(&r.peer_show.peers[0].pnis[1].nid),
			    "192.168.2.20@tcp");
	assert_int_equal(r.peer_show.peers[0].pnis[0].state,
			 UL_CTL_PNI_STATE_NA);
	assert_false(r.peer_show.peers[1].is_mr);
	ul_ctl_reply_fini(&r);

	req.peer_show.has_nid = true;
	req.peer_show.nid = ht_nid("192.168.2.20@tcp");
	ask(f, &req, &r);
	assert_int_equal(r.peer_show.npeers, 1);
	assert_string_equal(ht_str(&r.peer_show.peers[0].primary),
			    "192.168.1.20@tcp");
	ul_ctl_reply_fini(&r);

	req.peer_show.nid = ht_nid("10.9.9.9@tcp");
	ask(f, &req, &r);
	assert_int_equal(r.rc, -ENOENT);
	assert_string_equal(r.err_msg, "cannot find peer");
	ul_ctl_reply_fini(&r);
}

/* Several requests in a row on one connection are answered in order. */
static void one_connection_many_requests(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	int fd = client_connect(f), i;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	for (i = 0; i < 3; i++) {
		client_send_req(fd, &req);
		client_reply(f, fd, UL_CTL_OP_PEER_SHOW, &r);
		assert_int_equal(r.peer_show.npeers, 2);
		ul_ctl_reply_fini(&r);
	}
	close(fd);
}

struct bad_client_row {
	const char *what;
	uint8_t bytes[UL_CTL_HDR_SIZE];
	int rc; /* of the refusal */
};

/* Each gets a refusal (op 0), then EOF. */
static const struct bad_client_row bad_clients[] = {
	/* 0 */ { "garbage", "GET / HTTP/", -EPROTO },
	/* 1 */
	{ "oversized length",
	  { 0x54, 0x43, 0x4c, 0x55, 1, 0, 2, 0, 0, 0, 0x20, 0 },
	  -EPROTO },
	/* 2 */
	{ "version 9",
	  { 0x54, 0x43, 0x4c, 0x55, 9, 0, 2, 0, 0, 0, 0, 0 },
	  -EPROTO },
	/* 3 */
	{ "ping without a target",
	  { 0x54, 0x43, 0x4c, 0x55, 1, 0, 1, 0, 0, 0, 0, 0 },
	  -EPROTO },
	/* 4 */
	{ "unknown op",
	  { 0x54, 0x43, 0x4c, 0x55, 1, 0, 77, 0, 0, 0, 0, 0 },
	  -EOPNOTSUPP },
	/* 5: a reply's limit is not a client's */
	{ "2 MiB under the reply bit",
	  { 0x54, 0x43, 0x4c, 0x55, 1, 0, 2, 0x80, 0, 0, 0x20, 0 },
	  -EPROTO },
};

static void bad_clients_refused_good_served(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	unsigned int i;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	for (i = 0; i < sizeof(bad_clients) / sizeof(bad_clients[0]); i++) {
		int bad = client_connect(f);

		client_send(bad, bad_clients[i].bytes, UL_CTL_HDR_SIZE);
		/* A good client is served meanwhile. */
		ask(f, &req, &r);
		assert_int_equal(r.rc, 0);
		ul_ctl_reply_fini(&r);
		client_reply(f, bad, UL_CTL_OP_NET_SHOW, &r);
		if (r.rc != bad_clients[i].rc)
			fail_msg("row %u (%s): rc %d (%s)", i,
				 bad_clients[i].what, r.rc, r.err_msg);
		if (i == 2) {
			assert_int_equal(r.version, UL_CTL_VERSION);
			assert_non_null(strstr(r.err_msg, "version 9"));
			assert_non_null(strstr(r.err_msg, "version 1"));
		}
		ul_ctl_reply_fini(&r);
		if (bad_clients[i].rc == -EOPNOTSUPP) {
			/* Well formed but unknown: the connection stays. */
			client_send_req(bad, &req);
			client_reply(f, bad, UL_CTL_OP_NET_SHOW, &r);
			assert_int_equal(r.rc, 0);
			ul_ctl_reply_fini(&r);
			close(bad);
			continue;
		}
		client_expect_eof(f, bad);
		close(bad);
	}
}

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
	struct ul_log lg = { count_line, &lc, UL_LOG_DEFAULT_MASK };
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

/* Another server cannot take a live socket; a stale one is replaced. */
static void create_checks_existing_path(void **state)
{
	struct fx *f = *state;
	struct ul_ctlsrv *other;
	struct sockaddr_un sa;
	char path[108];
	int fd;

	assert_int_equal(ul_ctlsrv_create(f->loop, f->node, f->path, NULL,
					  &other),
			 -EADDRINUSE);
	snprintf(path, sizeof(path), "/tmp/ulnet-ctlsrv-%d-stale.sock",
		 (int)getpid());
	unlink(path);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd); /* a stale socket file stays */
	assert_int_equal(ul_ctlsrv_create(f->loop, f->node, path, NULL, &other),
			 0);
	ul_ctlsrv_destroy(other);
	/* A regular file is not ours to remove. */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ul_ctlsrv_create(f->loop, f->node, path, NULL, &other),
			 -EEXIST);
	unlink(path);
}

static void ping_lo_answers(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PING;
	req.ping.target = ht_nid("0@lo");
	req.ping.has_timeout = true;
	req.ping.timeout_ms = 5000;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	/* A node with lo alone advertises no NI (0@lo is left out). */
	assert_int_equal(r.ping.nnis, 0);
	ul_ctl_reply_fini(&r);
}

/* The client leaves while its ping runs: the answer goes nowhere. */
static void ping_client_gone(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	int fd = client_connect(f), i;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PING;
	req.ping.target = ht_nid("0@lo");
	client_send_req(fd, &req);
	for (i = 0; i < 3; i++)
		ul_loop_run_once(f->loop, 0);
	close(fd);
	for (i = 0; i < 20; i++)
		ul_loop_run_once(f->loop, 1);
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	ul_ctl_reply_fini(&r);
}

/* A ping of 0@lo through the server: the features it publishes. */
static uint32_t lo_features(struct fx *f)
{
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	uint32_t features;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PING;
	req.ping.target = ht_nid("0@lo");
	req.ping.has_timeout = true;
	req.ping.timeout_ms = 5000;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	features = r.ping.features;
	ul_ctl_reply_fini(&r);
	return features;
}

/*
 * set routing 1 starts a 110 s wait on the server's timer; when it
 * fires routing is ENABLED and the ping info drops RTE_DISABLED; set
 * routing 0 publishes it at once and the timer ends STOPPING. The timer
 * is fired by hand at its deadline (no waiting).
 */
static void routing_timer_ends_the_waits(void **state)
{
	struct fx *f = *state;
	struct ul_core *core = ul_node_core(f->node);
	struct ul_timer *t = &f->srv->routing_timer;
	struct ul_err err = { 0 };
	uint64_t now = ul_loop_timers(f->loop)->now_ns;

	assert_true(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);
	assert_int_equal(ul_ctlsrv_routing_set(f->srv, "routing", 1, &err), 0);
	assert_int_equal(core->routing.state, UL_ROUTING_STARTING);
	assert_int_equal(core->tun.routing, 1);
	assert_true(ul_timer_is_armed(t));
	assert_true(t->when_ns >= now + UINT64_C(110000000000));
	assert_true(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);
	t->cb(t, t->when_ns);
	assert_int_equal(core->routing.state, UL_ROUTING_ENABLED);
	assert_false(ul_timer_is_armed(t));
	assert_false(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);

	assert_int_equal(ul_ctlsrv_routing_set(f->srv, "routing", 0, &err), 0);
	assert_int_equal(core->routing.state, UL_ROUTING_STOPPING);
	assert_true(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);
	assert_true(ul_timer_is_armed(t));
	t->cb(t, t->when_ns);
	assert_int_equal(core->routing.state, UL_ROUTING_DISABLED);
	assert_int_equal(core->tun.routing, 0);
	assert_false(ul_timer_is_armed(t));
}

static void ping_unreachable_fails(void **state)
{
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PING;
	req.ping.target = ht_nid("10.9.9.9@tcp");
	req.ping.has_timeout = true;
	req.ping.timeout_ms = 1000;
	ask(f, &req, &r);
	assert_true(r.rc < 0);
	assert_string_equal(r.err_msg, "failed to ping 10.9.9.9@tcp");
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

/*
 * stats reset zeroes the whole counter block as LNet's
 * lnet_counters_reset() does: the messages alive now too.
 */
static void stats_reset_zeroes_every_counter(void **state)
{
	struct fx *f = *state;
	struct ul_counters *c = &ul_node_core(f->node)->counters;
	struct ul_err err = { 0 };
	struct ul_ctl_args a;
	struct ul_ctl_msg doc;

	c->msgs_alloc = 3;
	c->msgs_max = 7;
	c->rst_alloc = 2;
	c->send_count = 40;
	memset(&a, 0, sizeof(a));
	ul_ctl_doc_init(&doc);
	assert_int_equal(ul_ctlsrv_stats_reset(f->srv, &a, &doc, &err), 0);
	ul_ctl_msg_fini(&doc);
	assert_int_equal(c->msgs_alloc, 0);
	assert_int_equal(c->msgs_max, 0);
	assert_int_equal(c->rst_alloc, 0);
	assert_int_equal(c->send_count, 0);
}

/* "dev cpt": a device's NUMA node mapped to the first CPT on it. */
static void dev_cpt_is_the_first_cpt_of_the_node(void **state)
{
	static const struct {
		unsigned int ncpt, nnodes;
		int numa, want;
	} rows[] = {
		/* 1 */ { 2, 1, 0, 0 },	  /* one node: CPT 0 */
		/* 2 */ { 2, 1, -1, -1 }, /* no NUMA information */
		/* 3 */ { 4, 2, 0, 0 },	  /* CPTs 0,1 on node 0 ... */
		/* 4 */ { 4, 2, 1, 2 },	  /* ... CPTs 2,3 on node 1 */
		/* 5 */ { 3, 2, 1, 2 },	  /* 0,1 | 2 */
		/* 6 */ { 1, 2, 1, -1 },  /* node 1 has no CPT */
		/* 7 */ { 4, 4, 3, 3 },	  /* one CPT per node */
		/* 8 */ { 2, 1, 1, -1 },  /* a node the host lacks */
		/* 9 */ { 0, 0, 0, 0 },	  /* unset counts as one */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int got = ul_ctlsrv_dev_cpt(rows[i].ncpt, rows[i].nnodes,
					    rows[i].numa);

		if (got != rows[i].want)
			fail_msg("row %zu: want %d, got %d", i + 1,
				 rows[i].want, got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dev_cpt_is_the_first_cpt_of_the_node),
		cmocka_unit_test_setup_teardown(socket_is_mode_0600, setup_show,
						teardown),
		cmocka_unit_test_setup_teardown(net_show_lists_nets_and_nis,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(net_show_errors_are_lnetctls,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(peer_show_lists_peers,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(one_connection_many_requests,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(bad_clients_refused_good_served,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(idle_crowd_does_not_lock_out,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(
			half_sent_crowd_does_not_lock_out, setup_show,
			teardown),
		cmocka_unit_test_setup_teardown(timeout_lines_rate_limited,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(busy_clients_keep_their_slots,
						setup_busy, teardown_busy),
		cmocka_unit_test_setup_teardown(
			stats_reset_zeroes_every_counter, setup_show, teardown),
		cmocka_unit_test_setup_teardown(stalled_client_closed,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(client_gone_mid_frame,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(create_checks_existing_path,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(ping_lo_answers, setup_ping,
						teardown),
		cmocka_unit_test_setup_teardown(ping_client_gone, setup_ping,
						teardown),
		cmocka_unit_test_setup_teardown(ping_unreachable_fails,
						setup_ping, teardown),
		cmocka_unit_test_setup_teardown(routing_timer_ends_the_waits,
						setup_ping, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
