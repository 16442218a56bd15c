/*
 * bench_fabric: a fabric of many nodes on simlnd with the virtual clock,
 * in one process on one thread (issue 15 item 5): how fast the node code
 * runs when the network costs nothing, and what a node costs in memory.
 *
 *   clients: 2 NIs each on tcp (10.C.B.1 and .2), Multi-Rail
 *   servers: 4 NIs each (11.S.B.1 to .4), Multi-Rail, on tcp1 behind
 *            the routers, or on tcp when there are none
 *   routers: 2 NIs on tcp (12.R.B.1, .2) and 2 on tcp1 (13.R.B.1, .2),
 *            routing enabled; each client and each server has routes
 *            through four of them (its index and the three after)
 *
 * Every client sends its share of the PUTs (4 KiB, with ACK) to its own
 * four servers in turn (client i: servers i, i+1, i+2, i+3 modulo their
 * number, as a file striped over four), keeping LNet's default 8
 * outstanding and refilling from the ACK events. The first message to a
 * server discovers it (ping, push), as on a real fabric. Links: 10 Gbit/s
 * and 2 us each way, no loss. Nodes are built from lnet.conf text as
 * ulnetd builds them; only the nodes that have work are flushed (the
 * node's wake callback), as an event loop per node would. With routers,
 * the clock first runs until every route is checked and alive.
 *
 * Prints wall time (building the nodes and the routes apart), virtual
 * time, the application's events per second of wall time, what the nodes
 * routed, dropped and resent, and the process's peak resident memory.
 * Goal (issue 15): 10,000 nodes, 1,000,000 messages in <= 60 s wall time
 * on 2 cores, <= 4 GiB. It prints figures; it never fails on time.
 *
 * Usage: bench_fabric [NODES [PUTS [ROUTERS]]] (default 10000 1000000
 * and one router per 200 nodes; one server per 100 nodes; ROUTERS 0: a
 * flat fabric).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/core.h"
#include "core/node.h"
#include "core/route.h"
#include "ctl/conf.h"
#include "ctl/node_req.h"
#include "lnd/lolnd.h"
#include "lnd/simlnd.h"
#include "ulnet/ulnet.h"
#include "util/err.h"
#include "util/timer.h"

#define PORTAL 30u
#define PAYLOAD 4096u
#define WINDOW 8u
#define STRIPE 4u

struct bnode {
	struct ul_node *node;
	uint32_t idx;
	bool is_dirty;
	enum { CLIENT, SERVER, ROUTER } kind;
	/* client */
	struct ulnet_handle md;
	uint32_t left;	   /* PUTs still to start */
	uint32_t inflight; /* started, no final event yet */
	uint32_t turn;	   /* next of its STRIPE servers */
};

struct fabric {
	struct ul_timer_heap heap;
	struct ul_simfab *fab;
	struct bnode *nodes;
	uint32_t nnodes, nclients, nservers, nrouters;
	const char *snet; /* the servers' net: tcp1 behind routers, or tcp */
	struct ulnet_nid *snids; /* each server's first NID, the target */
	uint32_t *dirty;	 /* indexes of the nodes to flush */
	uint32_t ndirty;
	uint64_t acks, send_fails, puts_rx, events;
};

static struct fabric fb;
static uint8_t payload[PAYLOAD];
static uint8_t sink[PAYLOAD];

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_wake(void *ctx)
{
	struct bnode *b = ctx;

	if (b->is_dirty)
		return;
	b->is_dirty = true;
	fb.dirty[fb.ndirty++] = b->idx;
}

static void start_puts(struct bnode *b)
{
	while (b->left && b->inflight < WINDOW) {
		uint32_t s = (b->idx + b->turn++ % STRIPE) % fb.nservers;
		struct ulnet_process_id to = { fb.snids[s], ULNET_PID_LUSTRE };

		if (ul_node_put(b->node, NULL, b->md, ULNET_ACK_REQ, &to,
				PORTAL, 0, 0, 0)) {
			fb.send_fails++;
			b->left = 0;
			return;
		}
		b->left--;
		b->inflight++;
	}
}

static void client_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct bnode *b = (struct bnode *)(void *)u;

	fb.events++;
	if (ev->type == ULNET_EVENT_SEND && ev->status == 0)
		return;
	if (ev->type == ULNET_EVENT_ACK)
		fb.acks++;
	else if (ev->type == ULNET_EVENT_SEND)
		fb.send_fails++;
	else
		return;
	b->inflight--;
	start_puts(b);
}

static void server_event(struct ulnet *u, const struct ulnet_event *ev)
{
	(void)u;
	fb.events++;
	if (ev->type == ULNET_EVENT_PUT)
		fb.puts_rx++;
}

/*
 * Routes to net via STRIPE routers from first on: each router's first
 * NID on its side 12 (tcp) or 13 (tcp1). Appended to yaml at *len.
 */
static void add_routes(char *yaml, size_t cap, int *len, const char *net,
		       unsigned int side, uint32_t first)
{
	*len += snprintf(yaml + *len, cap - (size_t)*len, "route:\n");
	for (uint32_t k = 0; k < STRIPE && k < fb.nrouters; k++) {
		uint32_t r = (first + k) % fb.nrouters;

		*len += snprintf(yaml + *len, cap - (size_t)*len,
				 "  - net: %s\n    gateway: %u.%u.%u.1@%s\n",
				 net, side, r / 250u, r % 250u + 1,
				 side == 12 ? "tcp" : "tcp1");
	}
}

/*
 * Append a net of n NIs first.a.c.1 to .n on net to yaml at *len (the
 * "net:" key comes first, once).
 */
static void add_net(char *yaml, size_t cap, int *len, unsigned int first,
		    uint32_t i, unsigned int n, const char *net)
{
	*len += snprintf(yaml + *len, cap - (size_t)*len,
			 "  - net type: %s\n    local NI(s):\n", net);
	for (unsigned int k = 1; k <= n; k++)
		*len += snprintf(yaml + *len, cap - (size_t)*len,
				 "      - nid: %u.%u.%u.%u@%s\n", first,
				 i / 250u, i % 250u + 1, k, net);
}

static int node_make(struct bnode *b, uint32_t idx)
{
	struct ul_lnd lnd = { &ul_simlnd_ops, NULL, ULNET_LND_SOCK };
	struct ul_node_req_apply_ops ops = { 0 };
	struct ul_conf_hostaddr none[1];
	struct ul_node_req_env env = { 0 };
	struct ul_node_opts nopts = { 0 };
	struct ul_err err = { 0 };
	struct ul_conf conf;
	struct ul_core *core;
	char yaml[2048];
	int len = snprintf(yaml, sizeof(yaml), "net:\n");
	int rc;

	lnd.ctx = fb.fab;
	b->idx = idx;
	if (idx < fb.nclients) {
		b->kind = CLIENT;
		add_net(yaml, sizeof(yaml), &len, 10, idx, 2, "tcp");
		if (fb.nrouters)
			add_routes(yaml, sizeof(yaml), &len, "tcp1", 12, idx);
	} else if (idx < fb.nclients + fb.nservers) {
		uint32_t s = idx - fb.nclients;
		char nid[64];

		b->kind = SERVER;
		snprintf(nid, sizeof(nid), "11.%u.%u.1@%s", s / 250u,
			 s % 250u + 1, fb.snet);
		if (ulnet_nid_parse(nid, &fb.snids[s], NULL, 0))
			return -EINVAL;
		add_net(yaml, sizeof(yaml), &len, 11, s, 4, fb.snet);
		if (fb.nrouters)
			add_routes(yaml, sizeof(yaml), &len, "tcp", 13, s);
	} else {
		uint32_t r = idx - fb.nclients - fb.nservers;

		b->kind = ROUTER;
		add_net(yaml, sizeof(yaml), &len, 12, r, 2, "tcp");
		add_net(yaml, sizeof(yaml), &len, 13, r, 2, "tcp1");
		len += snprintf(yaml + len, sizeof(yaml) - (size_t)len,
				"routing:\n    enable: 1\n");
	}
	nopts.timers = &fb.heap;
	nopts.api = (struct ulnet *)(void *)b;
	nopts.pid = ULNET_PID_LUSTRE;
	nopts.interface_cookie = 0x1000u + idx;
	nopts.wake = on_wake;
	nopts.wake_ctx = b;
	if (ul_core_create(&core) || ul_node_create(core, &nopts, &b->node) ||
	    ul_lolnd_register(b->node))
		return -ENOMEM;
	ul_conf_init(&conf);
	rc = ul_conf_parse(yaml, (size_t)len, &conf, &err);
	if (rc == 0) {
		env.node = b->node;
		env.ncpt = 1;
		env.addrs = none;
		env.nr_addrs = 0;
		env.is_dry_run = true;
		rc = ul_node_req_apply(&env, &conf, &ops, &err);
	}
	ul_conf_fini(&conf);
	if (rc == 0)
		rc = ul_node_register_lnd(b->node, &lnd);
	if (rc == 0)
		rc = ul_node_startup(b->node, &err);
	if (rc)
		fprintf(stderr, "bench_fabric: node %u: %d %s\n", idx, rc,
			err.msg);
	return rc;
}

static int node_mds(struct bnode *b)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = { 0 };
	struct ulnet_handle h;

	md.numa_node = -1;
	md.threshold = ULNET_MD_THRESH_INF;
	if (b->kind == ROUTER)
		return 0;
	if (b->kind == SERVER) {
		ulnet_nid_set_any(&any.nid);
		md.start = sink;
		md.length = sizeof(sink);
		md.options = ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE |
			     ULNET_MD_TRUNCATE;
		md.handler = server_event;
		return ul_node_md_attach(b->node, PORTAL, &any, 0, 0,
					 ULNET_INS_AFTER, &md, ULNET_RETAIN,
					 &h);
	}
	md.start = payload;
	md.length = sizeof(payload);
	md.handler = client_event;
	return ul_node_md_bind(b->node, &md, ULNET_RETAIN, &b->md);
}

/* Flush the nodes that have work until none has. */
static void flush_dirty(void)
{
	while (fb.ndirty) {
		struct bnode *b = &fb.nodes[fb.dirty[--fb.ndirty]];

		b->is_dirty = false;
		if (ul_node_flush(b->node))
			on_wake(b);
	}
}

/*
 * Run the clock up to until_ns, flushing the nodes that have work, or
 * until every client is done when want is not 0 (or nothing is left).
 */
static void clock_run(uint64_t until_ns, uint64_t want)
{
	for (;;) {
		uint64_t next;

		flush_dirty();
		if (want && fb.acks + fb.send_fails >= want)
			return;
		next = ul_timer_heap_next(&fb.heap);
		if (next == UL_TIMER_NEVER || next > until_ns)
			break;
		ul_timer_heap_run(&fb.heap, next > fb.heap.now_ns
						    ? next
						    : fb.heap.now_ns);
	}
	if (until_ns != UL_TIMER_NEVER && fb.heap.now_ns < until_ns)
		fb.heap.now_ns = until_ns;
}

/*
 * Run the clock a second at a time until every client's and server's
 * routes are up (routers enable forwarding a few seconds after start,
 * and the checker pings each gateway). Virtual seconds it took, or -1.
 */
static int warm_up(void)
{
	for (int sec = 0; sec <= 300; sec++) {
		uint32_t i;

		for (i = 0; i < fb.nclients + fb.nservers; i++)
			if (!ul_routes_all_up(ul_node_core(fb.nodes[i].node)))
				break;
		if (i == fb.nclients + fb.nservers)
			return sec;
		clock_run((uint64_t)(sec + 1) * 1000000000u, 0);
	}
	return -1;
}

/* What every node counted: routed, dropped, resent, timed out. */
static void print_counters(void)
{
	uint64_t routed = 0, drops = 0, resends = 0, rto = 0;

	for (uint32_t i = 0; i < fb.nnodes; i++) {
		const struct ul_counters *c =
			&ul_node_core(fb.nodes[i].node)->counters;

		routed += c->route_count;
		drops += c->drop_count;
		resends += c->resend_count;
		rto += c->response_timeout_count;
	}
	printf("  %-40s %12" PRIu64 " routed, %" PRIu64 " dropped, %" PRIu64
	       " resent, %" PRIu64 " response timeouts\n",
	       "messages, all nodes", routed, drops, resends, rto);
}

static double mib(long kib)
{
	return (double)kib / 1024.0;
}

int main(int argc, char **argv)
{
	uint32_t nnodes = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0)
				   : 10000u;
	uint64_t nputs = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000u;
	uint32_t nrouters = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0)
				     : nnodes / 200u;
	struct ul_simlink_props link = { 1250000000u, 2000u, 0.0, true };
	uint64_t t0, t1, t2, tw, per, extra, want = 0, v0;
	int warm_sec = 0;
	struct rusage ru;
	long rss_built;

	fb.nservers = nnodes / 100u ? nnodes / 100u : 1u;
	if (nnodes < 2 || nputs == 0 || nrouters + fb.nservers >= nnodes) {
		fprintf(stderr, "usage: bench_fabric [NODES>=2 [PUTS>=1 "
				"[ROUTERS]]]\n");
		return 2;
	}
	fb.nrouters = nrouters;
	fb.snet = nrouters ? "tcp1" : "tcp";
	fb.nclients = nnodes - fb.nservers - nrouters;
	fb.nnodes = nnodes;
	fb.nodes = calloc(nnodes, sizeof(*fb.nodes));
	fb.dirty = calloc(nnodes, sizeof(*fb.dirty));
	fb.snids = calloc(fb.nservers, sizeof(*fb.snids));
	if (!fb.nodes || !fb.dirty || !fb.snids)
		return 1;
	ul_timer_heap_init(&fb.heap);
	if (ul_simfab_create(&fb.heap, 1, &fb.fab))
		return 1;
	ul_simfab_default_set(fb.fab, &link);

	t0 = wall_ns();
	for (uint32_t i = 0; i < nnodes; i++)
		if (node_make(&fb.nodes[i], i) || node_mds(&fb.nodes[i]))
			return 1;
	flush_dirty();
	getrusage(RUSAGE_SELF, &ru);
	rss_built = ru.ru_maxrss;
	tw = wall_ns();
	if (fb.nrouters) {
		warm_sec = warm_up();
		if (warm_sec < 0) {
			fprintf(stderr, "bench_fabric: routes not up after 300 "
					"s of virtual time\n");
			return 1;
		}
	}
	v0 = fb.heap.now_ns;
	per = nputs / fb.nclients;
	extra = nputs % fb.nclients;
	for (uint32_t i = 0; i < fb.nclients; i++) {
		fb.nodes[i].left = (uint32_t)(per + (i < extra ? 1 : 0));
		want += fb.nodes[i].left;
	}
	t1 = wall_ns();
	for (uint32_t i = 0; i < fb.nclients; i++)
		start_puts(&fb.nodes[i]);
	clock_run(UL_TIMER_NEVER, want);
	t2 = wall_ns();
	getrusage(RUSAGE_SELF, &ru);

	printf("bench_fabric: %u nodes on simlnd (%u clients with 2 NIs on "
	       "tcp, %u servers with 4 on %s, %u routers with 2 + 2),\n"
	       "  one thread, virtual clock\n",
	       nnodes, fb.nclients, fb.nservers, fb.snet, fb.nrouters);
	printf("  %-40s %12.2f s\n", "building the nodes (wall)",
	       (double)(tw - t0) / 1e9);
	if (fb.nrouters)
		printf("  %-40s %12.2f s  (%d s of virtual time)\n",
		       "routes up (wall)", (double)(t1 - tw) / 1e9, warm_sec);
	printf("  %-40s %12" PRIu64 "\n", "PUTs of 4 KiB with ACK", want);
	printf("  %-40s %12" PRIu64 " (%" PRIu64 " failed)\n", "  ACKed",
	       fb.acks, fb.send_fails);
	printf("  %-40s %12.2f s  (goal <= 60 s for 1,000,000 at 10,000 "
	       "nodes)\n",
	       "wall time of the messages", (double)(t2 - t1) / 1e9);
	printf("  %-40s %12.3f ms\n", "virtual time they took",
	       (double)(fb.heap.now_ns - v0) / 1e6);
	printf("  %-40s %12.0f\n", "application events per second (wall)",
	       (double)fb.events / ((double)(t2 - t1) / 1e9));
	printf("  %-40s %12.0f\n", "PUTs per second (wall)",
	       (double)fb.acks / ((double)(t2 - t1) / 1e9));
	printf("  %-40s %12.1f MiB  (goal <= 4096 MiB)\n",
	       "peak resident memory", mib(ru.ru_maxrss));
	printf("  %-40s %12.1f MiB, %.1f KiB per node\n",
	       "  of it once the nodes were built", mib(rss_built),
	       (double)rss_built / nnodes);
	if (fb.puts_rx != fb.acks)
		printf("  (servers saw %" PRIu64 " PUTs, clients %" PRIu64
		       " ACKs)\n",
		       fb.puts_rx, fb.acks);

	print_counters();
	fflush(stdout);
	t0 = wall_ns();
	for (uint32_t i = 0; i < nnodes; i++)
		ul_node_shutdown(fb.nodes[i].node);
	flush_dirty();
	printf("  %-40s %12.2f s\n", "shutting every node down (wall)",
	       (double)(wall_ns() - t0) / 1e9);
	for (uint32_t i = 0; i < nnodes; i++)
		ul_node_destroy(fb.nodes[i].node);
	ul_simfab_destroy(fb.fab);
	ul_timer_heap_fini(&fb.heap);
	free(fb.nodes);
	free(fb.dirty);
	free(fb.snids);
	return fb.acks == want ? 0 : 1;
}
