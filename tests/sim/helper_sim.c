/*
 * The tests/sim harness (helper_sim.h): nodes built from lnet.conf text
 * over one simlnd fabric and one virtual clock, an event recorder and a
 * trace for determinism checks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/core.h"
#include "core/discovery_sm.h"
#include "core/ping.h"
#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "ctl/node_req.h"
#include "helper_sim.h"
#include "util/err.h"
#include "util/log.h"
#include "lnd/lolnd.h"

#define SIM_MAX_IFS 8
#define SIM_PID 12345u

/* A node's log line, prefixed with the time and the node's name. */
struct sim_log_ctx {
	struct sim *sim;
	const char *name;
};

static void trace_add(struct sim *sim, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void trace_add(struct sim *sim, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = sim->trace_cap - sim->trace_len;

		va_start(ap, fmt);
		n = vsnprintf(sim->trace + sim->trace_len, room, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < room)
			break;
		sim->trace_cap = sim->trace_cap * 2 + (size_t)n;
		sim->trace = realloc(sim->trace, sim->trace_cap);
		assert_non_null(sim->trace);
	}
	sim->trace_len += (size_t)n;
}

static const char *ev_name(enum ulnet_event_type t)
{
	switch (t) {
	case ULNET_EVENT_GET:
		return "GET";
	case ULNET_EVENT_PUT:
		return "PUT";
	case ULNET_EVENT_REPLY:
		return "REPLY";
	case ULNET_EVENT_ACK:
		return "ACK";
	case ULNET_EVENT_SEND:
		return "SEND";
	case ULNET_EVENT_UNLINK:
		return "UNLINK";
	}
	return "?";
}

/*
 * Every sim MD's handler. The node hands back the opaque api pointer it
 * was created with, which for a sim node is its struct sim_node.
 */
static void sim_event_cb(struct ulnet *u, const struct ulnet_event *ev)
{
	struct sim_node *sn = (struct sim_node *)(void *)u;
	struct sim *sim = sn->sim;
	struct sim_ev *rec;

	if (sn->nevs == sn->cap) {
		sn->cap = sn->cap ? sn->cap * 2 : 64;
		sn->evs = realloc(sn->evs, sn->cap * sizeof(*sn->evs));
		assert_non_null(sn->evs);
	}
	rec = &sn->evs[sn->nevs++];
	rec->at_ns = sim->heap.now_ns;
	rec->ev = *ev;
	trace_add(sim, "%" PRIu64 " %s %s st=%d ml=%u ul=%d tag=%" PRIuPTR "\n",
		  sim->heap.now_ns, sn->name, ev_name(ev->type), ev->status,
		  ev->mlength, ev->unlinked, (uintptr_t)ev->md_user_ptr);
}

static void sim_log_line(void *ctx, const char *line)
{
	const struct sim_log_ctx *lc = ctx;

	fprintf(stderr, "[%" PRIu64 " %s] %s\n", lc->sim->heap.now_ns, lc->name,
		line);
}

struct sim *sim_create(uint64_t seed)
{
	struct sim *sim = calloc(1, sizeof(*sim));

	assert_non_null(sim);
	ul_timer_heap_init(&sim->heap);
	assert_int_equal(ul_simfab_create(&sim->heap, seed, &sim->fab), 0);
	sim->trace_cap = 4096;
	sim->trace = calloc(1, sim->trace_cap);
	assert_non_null(sim->trace);
	sim->is_log = getenv("ULNET_SIM_LOG") != NULL;
	/* Distinct per sim and per node, the same in every run. */
	sim->next_cookie = 0x51a0000000000000ull + seed * 0x100;
	return sim;
}

static void conf_note(void *ctx, const struct ul_conf_warning *w)
{
	const struct sim *sim = ctx;

	if (sim->is_log)
		fprintf(stderr, "conf note, line %u: %s\n", w->line, w->text);
}

/* "eth0=10.0.0.1,eth1=10.0.1.1" into up IPv4 entries; returns how many. */
static size_t parse_ifs(const char *ifs, struct ul_conf_hostaddr *out)
{
	size_t n = 0;
	char buf[256], *save = NULL, *tok;

	if (!ifs)
		return 0;
	assert_true(strlen(ifs) < sizeof(buf));
	snprintf(buf, sizeof(buf), "%s", ifs);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct in_addr ip;

		assert_non_null(eq);
		assert_true(n < SIM_MAX_IFS);
		*eq = '\0';
		assert_true(strlen(tok) < sizeof(out[n].ifname));
		assert_int_equal(inet_pton(AF_INET, eq + 1, &ip), 1);
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].ifname, sizeof(out[n].ifname), "%s", tok);
		out[n].is_up = true;
		out[n].family = UL_CONF_ADDR_IPV4;
		out[n].ipv4 = ntohl(ip.s_addr);
		n++;
	}
	return n;
}

/*
 * The node's lnet.conf goes in as ulnetd's --config takes it
 * (ctl/node_req.h), as a dry run: nets of any LND type, "dev cpt" as
 * the NUMA node, and the made-up interfaces ifs as the host's.
 */
static void apply_yaml(struct sim *sim, struct ul_node *node, const char *yaml,
		       const char *ifs)
{
	struct ul_conf_hostaddr addrs[SIM_MAX_IFS];
	struct ul_node_req_apply_ops ops = { NULL, conf_note, sim };
	struct ul_node_req_env env = { 0 };
	struct ul_err err = { 0 };
	struct ul_conf conf;
	int rc;

	ul_conf_init(&conf);
	rc = ul_conf_parse(yaml, strlen(yaml), &conf, &err);
	if (rc != 0)
		fail_msg("sim: lnet.conf does not parse: %s", err.msg);
	env.node = node;
	env.ncpt = 64;
	env.addrs = addrs;
	env.nr_addrs = parse_ifs(ifs, addrs);
	env.is_dry_run = true;
	rc = ul_node_req_apply(&env, &conf, &ops, &err);
	if (rc != 0)
		fail_msg("sim: lnet.conf does not apply: %s", err.msg);
	ul_conf_fini(&conf);
}

struct sim_node *sim_node_add_ifs(struct sim *sim, const char *name,
				  const char *yaml, const char *ifs)
{
	struct sim_node *sn = calloc(1, sizeof(*sn));
	struct ul_lnd lnd = {
		.ops = &ul_simlnd_ops,
		.ctx = sim->fab,
		.lnd_type = ULNET_LND_SOCK,
	};
	struct ul_node_opts nopts = { 0 };
	struct ul_err err = { 0 };
	struct ul_log *log = NULL;
	struct ul_core *core;
	int rc;

	assert_non_null(sn);
	assert_true(sim->nnodes < SIM_MAX_NODES);
	assert_true(strlen(name) < sizeof(sn->name));
	sn->sim = sim;
	snprintf(sn->name, sizeof(sn->name), "%s", name);
	if (sim->is_log) {
		struct sim_log_ctx *lc = calloc(1, sizeof(*lc));

		log = calloc(1, sizeof(*log));
		assert_non_null(lc);
		assert_non_null(log);
		lc->sim = sim;
		lc->name = sn->name;
		log->fn = sim_log_line;
		log->ctx = lc;
		log->mask = UL_LOG_DEFAULT_MASK | UL_D_NET;
	}
	nopts.timers = &sim->heap;
	nopts.log = log;
	nopts.api = (struct ulnet *)(void *)sn;
	nopts.pid = SIM_PID;
	nopts.interface_cookie = sim->next_cookie++;
	assert_int_equal(ul_core_create(&core), 0);
	assert_int_equal(ul_node_create(core, &nopts, &sn->node), 0);
	assert_int_equal(ul_lolnd_register(sn->node), 0);
	apply_yaml(sim, sn->node, yaml, ifs);
	assert_int_equal(ul_node_register_lnd(sn->node, &lnd), 0);
	rc = ul_node_startup(sn->node, &err);
	if (rc != 0)
		fail_msg("sim: node %s does not start: %d %s", name, rc,
			 err.msg);
	sim->nodes[sim->nnodes++] = sn;
	/* The log sink lives as long as the node: freed in sim_destroy. */
	sn->log = log;
	return sn;
}

struct sim_node *sim_node_add(struct sim *sim, const char *name,
			      const char *yaml)
{
	return sim_node_add_ifs(sim, name, yaml, NULL);
}

/* Deliver every queued event of every node until none is left. */
static void flush_all(struct sim *sim)
{
	bool is_more;
	unsigned int rounds = 0;

	do {
		is_more = false;
		for (size_t i = 0; i < sim->nnodes; i++)
			if (ul_node_flush(sim->nodes[i]->node))
				is_more = true;
		/* A node that always has more is a bug, not a load. */
		assert_true(++rounds < 1000000);
	} while (is_more);
}

void sim_run(struct sim *sim, uint64_t until_ns)
{
	for (;;) {
		uint64_t next;

		flush_all(sim);
		next = ul_timer_heap_next(&sim->heap);
		if (next == UL_TIMER_NEVER || next > until_ns)
			break;
		/* Never backwards: a deadline in the past runs now. */
		if (next < sim->heap.now_ns)
			next = sim->heap.now_ns;
		ul_timer_heap_run(&sim->heap, next);
	}
	if (until_ns != UL_TIMER_NEVER && until_ns > sim->heap.now_ns)
		sim->heap.now_ns = until_ns;
}

bool sim_run_idle(struct sim *sim, uint64_t limit_ns)
{
	uint64_t end = sim->heap.now_ns + limit_ns;

	sim_run(sim, end);
	return ul_timer_heap_next(&sim->heap) == UL_TIMER_NEVER;
}

void sim_destroy(struct sim *sim)
{
	for (size_t i = 0; i < sim->nnodes; i++)
		ul_node_shutdown(sim->nodes[i]->node);
	flush_all(sim);
	/* Every NI has left the fabric and taken its messages with it. */
	assert_int_equal(ul_simfab_nis(sim->fab), 0);
	assert_int_equal(ul_simfab_pending(sim->fab), 0);
	for (size_t i = 0; i < sim->nnodes; i++) {
		struct sim_node *sn = sim->nodes[i];

		ul_node_destroy(sn->node);
		if (sn->log)
			free(sn->log->ctx);
		free(sn->log);
		free(sn->evs);
		free(sn);
	}
	/* A node that left a timer armed would fire into freed memory. */
	assert_int_equal(sim->heap.count, 0);
	ul_simfab_destroy(sim->fab);
	ul_timer_heap_fini(&sim->heap);
	free(sim->trace);
	free(sim);
}

struct ulnet_md sim_md(struct sim_node *sn, void *buf, size_t len,
		       int threshold, uint32_t options, uintptr_t tag)
{
	struct ulnet_md md = {
		.start = buf,
		.length = len,
		.threshold = threshold,
		.options = options,
		.user_ptr = (void *)tag,
		.handler = sim_event_cb,
		.numa_node = -1,
	};

	(void)sn;
	return md;
}

size_t sim_ev_count(const struct sim_node *sn, uintptr_t tag)
{
	size_t n = 0;

	for (size_t i = 0; i < sn->nevs; i++)
		n += (uintptr_t)sn->evs[i].ev.md_user_ptr == tag;
	return n;
}

size_t sim_ev_count_type(const struct sim_node *sn, uintptr_t tag,
			 enum ulnet_event_type type)
{
	size_t n = 0;

	for (size_t i = 0; i < sn->nevs; i++)
		n += (uintptr_t)sn->evs[i].ev.md_user_ptr == tag &&
		     sn->evs[i].ev.type == type;
	return n;
}

const struct sim_ev *sim_ev_last(const struct sim_node *sn, uintptr_t tag)
{
	for (size_t i = sn->nevs; i > 0; i--)
		if ((uintptr_t)sn->evs[i - 1].ev.md_user_ptr == tag)
			return &sn->evs[i - 1];
	return NULL;
}

struct ulnet_nid sim_nid(const char *s)
{
	struct ulnet_nid nid;

	if (ulnet_nid_parse(s, &nid, NULL, 0) != 0)
		fail_msg("sim: bad NID '%s'", s);
	return nid;
}

struct ulnet_process_id sim_pid(const char *nid)
{
	struct ulnet_process_id id = { .nid = sim_nid(nid), .pid = SIM_PID };

	return id;
}

struct ulnet_ni_info sim_ni_info(struct sim_node *sn, const char *nid)
{
	struct ulnet_ni_info info[32];
	struct ulnet_nid want = sim_nid(nid);
	size_t n = 0;

	assert_int_equal(ul_node_ni_info(sn->node, info, 32, &n), 0);
	for (size_t i = 0; i < n && i < 32; i++)
		if (ulnet_nid_same(&info[i].nid, &want))
			return info[i];
	fail_msg("sim: node %s has no NI %s", sn->name, nid);
	return info[0];
}

void sim_fill(void *buf, size_t len, uint32_t seed)
{
	unsigned char *p = buf;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
}

uint64_t sim_csum(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void sim_peer_known(struct sim_node *sn, const char *nid)
{
	struct ulnet_nid id = sim_nid(nid);
	struct ul_peer_ni *lpni;
	struct ul_peer *p;

	assert_int_equal(ul_peer_ni_find_or_create(ul_node_core(sn->node), &id,
						   NULL, &lpni),
			 0);
	p = ul_peer_ni_peer(lpni);
	p->is_discovered = true;
	/* It has our ping info too: no push is owed (discovery.md §7.3). */
	p->node_seqno = ul_ping_seq(sn->node);
	assert_true(ul_disc_set_state(NULL, p, UL_DISC_STATE_UP_TO_DATE));
}
