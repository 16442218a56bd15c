/*
 * The control socket server (src/runtime/ctlsrv.h) on a real loop and a
 * real node, with raw clients on its Unix socket: net show and peer show
 * of a node whose NIs and peers were added to its core (no LND started:
 * showing needs no traffic), a batch of peer adds up to a refusal, a
 * ping of 0@lo through lolnd, and clients that send garbage, half
 * frames, oversized lengths or another version: each gets a refusal or
 * is closed while a good client is still served.
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
#include "ctl/doc_yaml.h"
#include "ctl/proto.h"
#include "ctl/proto_doc.h"
#include "ctl/ytree.h"
#include "helper_ctlsrv.h"
#include "helper_mocklnd.h"
#include "helper_topo.h"
#include "runtime/ctlsrv.h"
#include "runtime/ctlsrv_int.h"
#include "util/loop.h"
#include "util/err.h"
#include "wire/bytes.h"
#include "wire/wire.h"

/* ---- Tests ------------------------------------------------------------ */

static void socket_is_mode_0600(void **state)
{
	struct fx *f = *state;
	struct stat st;

	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
}

/* Item i of the sequence under key in map (net show's documents). */
static const struct ul_ynode *item(const struct ul_ynode *map, const char *key,
				   size_t i)
{
	const struct ul_ynode *seq = ul_doc_get(map, key);

	assert_non_null(seq);
	assert_int_equal(seq->type, UL_YNODE_SEQ);
	assert_true(i < seq->nr);
	return seq->kids[i];
}

static size_t nitems(const struct ul_ynode *map, const char *key)
{
	const struct ul_ynode *seq = ul_doc_get(map, key);

	assert_non_null(seq);
	return seq->nr;
}

/* The scalar at key (and key2 inside it, when given) of map. */
static const char *val(const struct ul_ynode *map, const char *key,
		       const char *key2)
{
	const struct ul_ynode *v = ul_doc_get(map, key);

	if (v && key2)
		v = ul_doc_get(v, key2);
	assert_non_null(v);
	assert_int_equal(v->type, UL_YNODE_SCALAR);
	return v->str;
}

static void net_show_lists_nets_and_nis(void **state)
{
	const struct ul_ynode *lo, *tcp, *ni0, *ni1;
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	req.net_show.verbose = 2;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(nitems(r.doc, "net"), 2);
	lo = item(r.doc, "net", 0);
	assert_string_equal(val(lo, "net type", NULL), "lo");
	assert_int_equal(nitems(lo, "local NI(s)"), 1);
	assert_null(ul_doc_get(item(lo, "local NI(s)", 0), "lnd tunables"));
	tcp = item(r.doc, "net", 1);
	assert_string_equal(val(tcp, "net type", NULL), "tcp");
	assert_int_equal(nitems(tcp, "local NI(s)"), 2);
	ni0 = item(tcp, "local NI(s)", 0);
	ni1 = item(tcp, "local NI(s)", 1);
	assert_string_equal(val(ni0, "nid", NULL), "192.168.1.10@tcp");
	assert_string_equal(val(ni0, "interfaces", "0"), "eth0");
	assert_string_equal(val(ni0, "status", NULL), "up");
	assert_string_equal(val(ni0, "tunables", "peer_credits"), "8");
	assert_string_equal(val(ni0, "tunables", "credits"), "256");
	assert_string_equal(val(ni0, "dev cpt", NULL), "0");
	assert_string_equal(val(ni1, "dev cpt", NULL), "-1");
	assert_string_equal(val(ni0, "health stats", "health value"), "1000");
	assert_null(ul_doc_get(ni0, "udsp info")); /* level 4 only */
	assert_string_equal(val(ni1, "interfaces", "0"), "eth1");
	ul_ctl_reply_fini(&r);

	/* --net filters; level 0 has no statistics. */
	req.net_show.has_net = true;
	snprintf(req.net_show.net, sizeof(req.net_show.net), "tcp");
	req.net_show.verbose = 0;
	ask(f, &req, &r);
	assert_int_equal(nitems(r.doc, "net"), 1);
	tcp = item(r.doc, "net", 0);
	assert_string_equal(val(tcp, "net type", NULL), "tcp");
	assert_null(ul_doc_get(item(tcp, "local NI(s)", 0), "statistics"));
	ul_ctl_reply_fini(&r);

	/* export --backup's level: no status, no statistics, lo left out. */
	req.net_show.has_net = false;
	req.net_show.verbose = UL_CTL_SHOW_BACKUP;
	ask(f, &req, &r);
	assert_int_equal(nitems(r.doc, "net"), 1);
	ni0 = item(item(r.doc, "net", 0), "local NI(s)", 0);
	assert_null(ul_doc_get(ni0, "status"));
	assert_null(ul_doc_get(ni0, "statistics"));
	assert_null(ul_doc_get(ul_doc_get(ni0, "lnd tunables"), "timeout"));
	assert_string_equal(val(ni0, "interfaces", "0"), "eth0");
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
	const struct ul_ynode *p0;
	struct fx *f = *state;
	struct ul_ctl_reply r;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	req.peer_show.verbose = 3;
	ask(f, &req, &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(nitems(r.doc, "peer"), 2);
	p0 = item(r.doc, "peer", 0);
	assert_string_equal(val(p0, "primary nid", NULL), "192.168.1.20@tcp");
	assert_string_equal(val(p0, "Multi-Rail", NULL), "true");
	/* MULTI_RAIL | CONFIGURED */
	assert_int_equal(strtoul(val(p0, "peer state", NULL), NULL, 10) & 0x9,
			 0x9);
	assert_int_equal(nitems(p0, "peer ni"), 2);
	assert_string_equal(val(item(p0, "peer ni", 1), "nid", NULL),
			    "192.168.2.20@tcp");
	assert_string_equal(val(item(p0, "peer ni", 0), "state", NULL), "NA");
	assert_string_equal(val(item(r.doc, "peer", 1), "Multi-Rail", NULL),
			    "false");
	ul_ctl_reply_fini(&r);

	req.peer_show.has_nid = true;
	req.peer_show.nid = ht_nid("192.168.2.20@tcp");
	ask(f, &req, &r);
	assert_int_equal(nitems(r.doc, "peer"), 1);
	assert_string_equal(val(item(r.doc, "peer", 0), "primary nid", NULL),
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
		assert_int_equal(nitems(r.doc, "peer"), 2);
		ul_ctl_reply_fini(&r);
	}
	close(fd);
}

/* Peer add of primary (and nids, NULL-ended) as one item of items. */
static void add_peer_item(struct ul_ctl_msg *items, const char *primary,
			  const char *const *nids)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	a->has = UL_CTL_ARG_NID;
	a->nid = ht_nid(primary);
	for (; nids && *nids; nids++)
		a->nids[a->nnids++] = ht_nid(*nids);
	if (a->nnids)
		a->has |= UL_CTL_ARG_NIDS;
	ul_ctl_batch_add(items, a);
	free(a);
}

static bool has_peer(struct fx *f, const char *nid)
{
	struct ul_ctl_reply r;
	struct ul_ctl_req req;
	bool found;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	req.peer_show.has_nid = true;
	req.peer_show.nid = ht_nid(nid);
	ask(f, &req, &r);
	found = r.rc == 0;
	ul_ctl_reply_fini(&r);
	return found;
}

/*
 * A batch (proto.h): its items applied in order up to the first one the
 * node refuses, whose error comes back with the count applied before it;
 * a malformed item refuses the whole batch before any is applied; an op
 * the server does not batch is -EOPNOTSUPP with the connection kept.
 */
static void batch_applies_in_order_up_to_a_refusal(void **state)
{
	static const char *const taken[] = { "10.1.0.2@tcp", "192.168.2.20@tcp",
					     NULL };
	struct ul_ctl_req *req = calloc(1, sizeof(*req));
	struct fx *f = *state;
	struct ul_ctl_msg items, m;
	struct ul_ctl_reply r;
	int fd;

	assert_non_null(req);
	req->op = UL_CTL_OP_BATCH;
	req->batch.op = UL_CTL_OP_PEER_ADD;
	/* the second names another peer's NI: refused, the third not tried */
	ul_ctl_batch_init(&items);
	add_peer_item(&items, "10.1.0.1@tcp", NULL);
	add_peer_item(&items, "10.1.0.2@tcp", taken);
	add_peer_item(&items, "10.1.0.3@tcp", NULL);
	ul_ctl_batch_items(&items, 3, &req->batch);
	ask(f, req, &r);
	ul_ctl_msg_fini(&items);
	assert_int_equal(r.rc, -EEXIST);
	assert_true(r.has_batch_done);
	assert_int_equal(r.batch_done, 1);
	ul_ctl_reply_fini(&r);
	assert_true(has_peer(f, "10.1.0.1@tcp"));
	assert_false(has_peer(f, "10.1.0.2@tcp"));
	assert_false(has_peer(f, "10.1.0.3@tcp"));

	/* a good item, then one that announces a NID it lacks: none */
	ul_ctl_msg_init(&m, UL_CTL_OP_BATCH);
	ul_ctl_put_u32(&m, UL_CTL_A_BATCH_OP, UL_CTL_OP_PEER_ADD);
	add_peer_item(&m, "10.1.0.4@tcp", NULL);
	ul_ctl_nest_start(&m, UL_CTL_A_BATCH_ITEM);
	ul_ctl_put_u64(&m, UL_CTL_A_ARG_HAS, UL_CTL_ARG_NID);
	ul_ctl_nest_end(&m);
	assert_int_equal(ul_ctl_msg_finish(&m), 0);
	fd = client_connect(f);
	client_send(fd, m.buf, m.len);
	ul_ctl_msg_fini(&m);
	client_reply(f, fd, UL_CTL_OP_BATCH, &r);
	assert_int_equal(r.rc, -EPROTO);
	assert_false(r.has_batch_done);
	ul_ctl_reply_fini(&r);
	client_expect_eof(f, fd);
	close(fd);
	assert_false(has_peer(f, "10.1.0.4@tcp"));

	/* a show is no batch: -EOPNOTSUPP, and the connection serves on */
	req->batch.op = UL_CTL_OP_PEER_LIST;
	ul_ctl_batch_init(&items);
	add_peer_item(&items, "10.1.0.5@tcp", NULL);
	ul_ctl_batch_items(&items, 1, &req->batch);
	fd = client_connect(f);
	client_send_req(fd, req);
	ul_ctl_msg_fini(&items);
	client_reply(f, fd, UL_CTL_OP_BATCH, &r);
	assert_int_equal(r.rc, -EOPNOTSUPP);
	assert_false(r.has_batch_done);
	ul_ctl_reply_fini(&r);
	memset(req, 0, sizeof(*req));
	req->op = UL_CTL_OP_PEER_SHOW;
	client_send_req(fd, req);
	client_reply(f, fd, UL_CTL_OP_PEER_SHOW, &r);
	assert_int_equal(r.rc, 0);
	ul_ctl_reply_fini(&r);
	close(fd);
	free(req);
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
 * set routing 1 starts a 110 s wait; the node tick at its deadline makes
 * routing ENABLED and the ping info drops RTE_DISABLED; set routing 0
 * publishes it at once and the tick ends STOPPING. The tick is run by
 * hand at the deadline (no waiting).
 */
static void routing_tick_ends_the_waits(void **state)
{
	struct fx *f = *state;
	struct ul_core *core = ul_node_core(f->node);
	struct ul_err err = { 0 };
	uint64_t now = ul_loop_timers(f->loop)->now_ns;
	uint64_t when;

	assert_true(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);
	assert_int_equal(ul_node_routing_set(f->node, "routing", 1, 1, &err),
			 0);
	assert_int_equal(core->routing.state, UL_ROUTING_STARTING);
	assert_int_equal(core->tun.routing, 1);
	when = ul_routing_deadline(&core->routing);
	assert_true(when >= now + UINT64_C(110000000000));
	assert_true(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);
	ul_node_tick(f->node, when - 1);
	assert_int_equal(core->routing.state, UL_ROUTING_STARTING);
	ul_node_tick(f->node, when);
	assert_int_equal(core->routing.state, UL_ROUTING_ENABLED);
	assert_int_equal(ul_routing_deadline(&core->routing), 0);
	assert_false(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);

	assert_int_equal(ul_node_routing_set(f->node, "routing", 0, 1, &err),
			 0);
	assert_int_equal(core->routing.state, UL_ROUTING_STOPPING);
	assert_true(lo_features(f) & UL_WIRE_PING_FEAT_RTE_DISABLED);
	when = ul_routing_deadline(&core->routing);
	assert_true(when > 0);
	ul_node_tick(f->node, when);
	assert_int_equal(core->routing.state, UL_ROUTING_DISABLED);
	assert_int_equal(core->tun.routing, 0);
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
		cmocka_unit_test_setup_teardown(
			batch_applies_in_order_up_to_a_refusal, setup_show,
			teardown),
		cmocka_unit_test_setup_teardown(one_connection_many_requests,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(bad_clients_refused_good_served,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(
			stats_reset_zeroes_every_counter, setup_show, teardown),
		cmocka_unit_test_setup_teardown(create_checks_existing_path,
						setup_show, teardown),
		cmocka_unit_test_setup_teardown(ping_lo_answers, setup_ping,
						teardown),
		cmocka_unit_test_setup_teardown(ping_client_gone, setup_ping,
						teardown),
		cmocka_unit_test_setup_teardown(ping_unreachable_fails,
						setup_ping, teardown),
		cmocka_unit_test_setup_teardown(routing_tick_ends_the_waits,
						setup_ping, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
