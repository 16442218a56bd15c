/*
 * ulnetctl selftest run / stat (selftest.h): lnet_selftest for ulnet.
 *
 *	ulnetctl selftest run --from NODES --to NODES [--concurrency N]
 *		[--distribute A:B] [--seconds N] [--interval S] [--text]
 *		[--rates FILE] [--plot FILE.png] TEST
 *	ulnetctl selftest run --batch FILE.yaml [same options]
 *	ulnetctl selftest stat
 *
 * TEST is written as lst's add_test writes it: `ping`, or `brw read` /
 * `brw write` with `size=N` (K and M suffixes) and `check=simple|full`.
 * NODES is a comma-separated list of control sockets (ulnetds selftest
 * drives), NIDs (ulnet nodes that only serve: their sink answers; a
 * kernel node has none) and local:N (nodes selftest runs
 * itself on loopback for the command's length, selftest_local.c). The batch file names groups
 * and a list of tests (selftest_parse_batch below). Every test of a
 * batch runs at once, for --seconds; each sender is asked for one stream
 * (op PERF_PUT, runtime/perf.h) over its own control connection, from a
 * thread of its own, while this thread samples every ulnetd's counters
 * (op SELFTEST_STAT) each interval: the per-rail rates over time.
 *
 * Distribution (lst's --distribute A:B, lstcon_dstnodes_prep in
 * lustre-release lnet/selftest/console.c): sender i of the group sends to
 * B targets, starting at target ((i / A) * B) mod n, wrapping around.
 * "1:1" pairs them off, "1:all" sends from every sender to every target.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl/conf.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "ctl/ytree.h"
#include "runtime/perf.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"
#include "selftest.h"

#define DEFAULT_SECONDS 10
#define DEFAULT_INTERVAL_MS 1000
/* A stream drains for up to a transaction timeout after its time. */
#define DRAIN_ALLOWANCE_MS 200000u

static int st_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int st_err(const char *fmt, ...)
{
	char msg[UL_CTL_STR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ul_show_yaml_err(stderr, "selftest", "run", -EINVAL, msg);
	return ULNETCTL_RC_BAD_PARAM;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- Nodes and groups ------------------------------------------------ */

static void batch_free(struct st_batch *b)
{
	size_t i;

	for (i = 0; i < b->nnodes; i++) {
		if (b->nodes[i].local_idx)
			free(b->nodes[i].ctl);
		free(b->nodes[i].name);
		free(b->nodes[i].points);
	}
	for (i = 0; i < b->ngroups; i++)
		free(b->groups[i].name);
	for (i = 0; i < b->ntests; i++)
		free(b->tests[i].spec);
}

/* A word with a '/' or ending in ".ctl" is a control socket. */
static bool is_socket_name(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 4 && strcmp(s + n - 4, ".ctl") == 0);
}

/* The node called name, added when new; its index or -1 (message out). */
static long node_of(struct st_batch *b, const char *name)
{
	struct st_node *nd;
	size_t i;

	for (i = 0; i < b->nnodes; i++)
		if (strcmp(b->nodes[i].name, name) == 0)
			return (long)i;
	if (b->nnodes == ST_NODES_MAX)
		return st_err("more than %d nodes", ST_NODES_MAX), -1;
	nd = &b->nodes[b->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->name = strdup(name);
	if (!nd->name)
		return st_err("out of memory"), -1;
	if (strncmp(name, "local:", 6) == 0) {
		char *end;
		unsigned long idx = strtoul(name + 6, &end, 10);

		if (*end || end == name + 6 || idx < 1 || idx > ST_LOCAL_MAX) {
			free(nd->name);
			return st_err("'%s': local nodes are local:1 to "
				      "local:%d",
				      name, ST_LOCAL_MAX),
			       -1;
		}
		nd->local_idx = (unsigned int)idx;
		if (nd->local_idx > b->nlocal)
			b->nlocal = nd->local_idx;
	} else if (is_socket_name(name)) {
		nd->ctl = nd->name;
	} else if (ulnet_nid_parse(name, &nd->nid, NULL, 0) == 0) {
		nd->has_nid = true;
	} else {
		free(nd->name);
		return st_err("'%s' is neither a control socket (a path) nor "
			      "a NID",
			      name),
		       -1;
	}
	return (long)b->nnodes++;
}

static long group_add(struct st_batch *b, const char *name)
{
	struct st_group *g;
	size_t i;

	for (i = 0; i < b->ngroups; i++)
		if (strcmp(b->groups[i].name, name) == 0)
			return st_err("group '%s' named twice", name), -1;
	if (b->ngroups == ST_GROUPS_MAX)
		return st_err("more than %d groups", ST_GROUPS_MAX), -1;
	g = &b->groups[b->ngroups];
	memset(g, 0, sizeof(*g));
	g->name = strdup(name);
	if (!g->name)
		return st_err("out of memory"), -1;
	return (long)b->ngroups++;
}

static int group_member(struct st_batch *b, size_t gi, const char *name)
{
	struct st_group *g = &b->groups[gi];
	long ni;

	if (g->n == ST_NODES_MAX)
		return st_err("group '%s': more than %d nodes", g->name,
			      ST_NODES_MAX);
	ni = node_of(b, name);
	if (ni < 0)
		return ULNETCTL_RC_BAD_PARAM;
	g->nodes[g->n++] = (size_t)ni;
	return 0;
}

/* A comma-separated member list as a new group. */
static long group_from_list(struct st_batch *b, const char *name,
			    const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	long gi;
	int rc = 0;

	if (!copy)
		return st_err("out of memory"), -1;
	gi = group_add(b, name);
	for (tok = strtok_r(copy, ",", &save); gi >= 0 && tok && !rc;
	     tok = strtok_r(NULL, ",", &save))
		rc = group_member(b, (size_t)gi, tok);
	free(copy);
	if (gi >= 0 && !rc && b->groups[gi].n == 0)
		rc = st_err("--%s: no node given", name);
	return rc ? -1 : gi;
}

static long group_find(const struct st_batch *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->ngroups; i++)
		if (strcmp(b->groups[i].name, name) == 0)
			return (long)i;
	return st_err("no group '%s'", name), -1;
}

/* ---- Tests ------------------------------------------------------------ */

/* "A:B" (B may be "all"). */
static int parse_distribute(const char *s, struct st_test *t)
{
	unsigned long a, span = 0;
	char *end;

	errno = 0;
	a = strtoul(s, &end, 10);
	if (errno || end == s || *end != ':' || a == 0 || a > ST_NODES_MAX)
		return st_err("bad distribution '%s' (A:B, as 1:1 or 1:all)",
			      s);
	if (strcmp(end + 1, "all") != 0) {
		const char *b = end + 1;

		span = strtoul(b, &end, 10);
		if (errno || end == b || *end || span == 0 ||
		    span > ST_NODES_MAX)
			return st_err("bad distribution '%s' (A:B, as 1:1 or "
				      "1:all)",
				      s);
	}
	t->dist = (uint32_t)a;
	t->span = (uint32_t)span;
	return 0;
}

/* One word of a test: brw's read/write, size=, check=. */
static int test_word(struct st_test *t, const char *w)
{
	if (t->op != UL_PERF_OP_PING && !strcmp(w, "read")) {
		t->op = UL_PERF_OP_GET;
	} else if (t->op != UL_PERF_OP_PING && !strcmp(w, "write")) {
		t->op = UL_PERF_OP_PUT;
	} else if (t->op != UL_PERF_OP_PING && !strncmp(w, "size=", 5)) {
		if (ulnetctl_parse_size(w + 5, UL_PERF_MAX_SIZE, &t->size))
			return st_err("bad size '%s' (1 to 1M, K and M "
				      "suffixes)",
				      w + 5);
	} else if (t->op != UL_PERF_OP_PING && !strcmp(w, "check=simple")) {
		t->check = UL_PERF_CHECK_SIMPLE;
	} else if (t->op != UL_PERF_OP_PING && !strcmp(w, "check=full")) {
		t->check = UL_PERF_CHECK_FULL;
	} else {
		return st_err("unknown test option '%s'", w);
	}
	return 0;
}

/*
 * A test as lst writes it, the words in argv: "ping", or "brw" and then
 * read|write, size=N, check=simple|full (brw write of 4 KiB unchecked
 * when left out, lst's defaults).
 */
static int test_parse(struct st_test *t, int argc, char **argv)
{
	size_t len = 0, off;
	int i, rc;

	if (argc < 1)
		return st_err("no test given (ping, or brw read|write "
			      "[size=N] [check=simple|full])");
	t->size = 4096;
	if (!strcmp(argv[0], "ping"))
		t->op = UL_PERF_OP_PING;
	else if (!strcmp(argv[0], "brw"))
		t->op = UL_PERF_OP_PUT;
	else
		return st_err("unknown test '%s' (ping or brw)", argv[0]);
	for (i = 1; i < argc; i++) {
		rc = test_word(t, argv[i]);
		if (rc)
			return rc;
	}
	if (t->op == UL_PERF_OP_PING)
		t->size = 0;
	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	t->spec = malloc(len + 1);
	if (!t->spec)
		return st_err("out of memory");
	for (i = 0, off = 0; i < argc; i++)
		off += (size_t)snprintf(t->spec + off, len + 1 - off, "%s%s",
					i ? " " : "", argv[i]);
	return 0;
}

/* A test string of the batch file, split into words. */
static int test_parse_str(struct st_test *t, const char *s)
{
	char *copy = strdup(s), *words[16], *tok, *save = NULL;
	int n = 0, rc;

	if (!copy)
		return st_err("out of memory");
	for (tok = strtok_r(copy, " \t", &save); tok && n < 16;
	     tok = strtok_r(NULL, " \t", &save))
		words[n++] = tok;
	rc = tok ? st_err("test '%s': too many words", s)
		 : test_parse(t, n, words);
	free(copy);
	return rc;
}

/* ---- The batch file ---------------------------------------------------- */

static const char *scalar(const struct ul_ynode *n)
{
	return n && n->type == UL_YNODE_SCALAR ? n->str : NULL;
}

static int at(const struct ul_ynode *n, const char *what)
{
	return st_err("line %u, column %u: %s", n->line, n->column, what);
}

static int batch_groups(struct st_batch *b, const struct ul_ynode *g)
{
	size_t i, j;
	long gi;
	int rc;

	if (g->type != UL_YNODE_MAP)
		return at(g, "groups: a mapping of group names to node lists");
	for (i = 0; i + 1 < g->nr; i += 2) {
		const struct ul_ynode *list = g->kids[i + 1];

		if (!scalar(g->kids[i]))
			return at(g->kids[i], "a group name must be a word");
		gi = group_add(b, g->kids[i]->str);
		if (gi < 0)
			return ULNETCTL_RC_BAD_PARAM;
		if (list->type != UL_YNODE_SEQ || list->nr == 0)
			return at(list, "a group is a list of nodes");
		for (j = 0; j < list->nr; j++) {
			if (!scalar(list->kids[j]))
				return at(list->kids[j],
					  "a node is a control socket or a "
					  "NID");
			rc = group_member(b, (size_t)gi, list->kids[j]->str);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int batch_uint(const struct ul_ynode *v, unsigned long max,
		      uint32_t *out)
{
	const char *s = scalar(v);

	if (!s || ulnetctl_parse_size(s, max, out))
		return at(v, "expected a number");
	return 0;
}

static int batch_test(struct st_batch *b, const struct ul_ynode *m)
{
	struct st_test *t;
	const char *key, *val;
	size_t i;
	long gi;
	int rc = 0;

	if (m->type != UL_YNODE_MAP)
		return at(m, "a test is a mapping (test, from, to, ...)");
	if (b->ntests == ST_TESTS_MAX)
		return at(m, "too many tests");
	t = &b->tests[b->ntests++];
	memset(t, 0, sizeof(*t));
	t->concurrency = 1;
	t->dist = t->span = 1;
	t->from = t->to = SIZE_MAX;
	for (i = 0; i + 1 < m->nr && !rc; i += 2) {
		key = scalar(m->kids[i]);
		val = scalar(m->kids[i + 1]);
		if (!key || !val)
			return at(m->kids[i], "test keys take a word each");
		if (!strcmp(key, "test")) {
			rc = test_parse_str(t, val);
		} else if (!strcmp(key, "from") || !strcmp(key, "to")) {
			gi = group_find(b, val);
			if (gi < 0)
				return ULNETCTL_RC_BAD_PARAM;
			*(key[0] == 'f' ? &t->from : &t->to) = (size_t)gi;
		} else if (!strcmp(key, "concurrency")) {
			rc = batch_uint(m->kids[i + 1], UL_PERF_INFLIGHT_MAX,
					&t->concurrency);
		} else if (!strcmp(key, "distribute")) {
			rc = parse_distribute(val, t);
		} else {
			return at(m->kids[i], "unknown test key (test, from, "
					      "to, concurrency, distribute)");
		}
	}
	if (!rc && (!t->spec || t->from == SIZE_MAX || t->to == SIZE_MAX))
		return at(m, "a test needs test, from and to");
	return rc;
}

/*
 * The batch file:
 *
 *	seconds: 10		(optional; the command line wins)
 *	interval: 1		(optional)
 *	groups:
 *	    clients: [ /run/ulnet/a.ctl, /run/ulnet/b.ctl ]
 *	    servers: [ /run/ulnet/c.ctl, 10.0.0.9@tcp ]
 *	batch:
 *	    - test: brw write size=1M check=simple
 *	      from: clients
 *	      to: servers
 *	      concurrency: 8
 *	      distribute: 1:1
 */
static int batch_parse(struct st_batch *b, const char *path)
{
	static const struct ul_ytree_limits lim = { 1024 * 1024, 16, 4096,
						    65536 };
	const struct ul_ynode *g, *tests, *v;
	struct ul_ynode *root = NULL;
	struct ul_err err = { 0 };
	char *text = NULL;
	size_t len = 0, i;
	int rc;

	rc = ul_conf_load_file(path, &text, &len, &err);
	if (rc)
		return st_err("%s", err.msg);
	rc = ul_ytree_parse(text, len, &lim, &root, &err);
	free(text);
	if (rc)
		return st_err("%s: %s", path, err.msg);
	if (!root || root->type != UL_YNODE_MAP) {
		ul_ytree_free(root);
		return st_err("%s: expected a mapping with groups and batch",
			      path);
	}
	g = ul_doc_get(root, "groups");
	tests = ul_doc_get(root, "batch");
	if (!g || !tests) {
		ul_ytree_free(root);
		return st_err("%s: groups and batch are both needed", path);
	}
	rc = batch_groups(b, g);
	if (!rc && (tests->type != UL_YNODE_SEQ || tests->nr == 0))
		rc = at(tests, "batch: a list of tests");
	for (i = 0; !rc && i < tests->nr; i++)
		rc = batch_test(b, tests->kids[i]);
	v = ul_doc_get(root, "seconds");
	if (!rc && v)
		rc = batch_uint(v, 86400, &b->seconds);
	v = ul_doc_get(root, "local_rails");
	if (!rc && v)
		rc = batch_uint(v, ST_LOCAL_RAILS_MAX, &b->local_rails);
	v = ul_doc_get(root, "interval");
	if (!rc && v) {
		uint32_t s = 0;

		rc = batch_uint(v, 3600, &s);
		b->interval_ms = s * 1000u;
	}
	for (i = 0; !rc && i < root->nr; i += 2) {
		static const char *const keys[] = { "groups", "batch",
						    "seconds", "interval",
						    "local_rails" };
		const char *k = scalar(root->kids[i]);
		size_t j = 0;

		while (k && j < sizeof(keys) / sizeof(keys[0]) &&
		       strcmp(k, keys[j]) != 0)
			j++;
		if (!k || j == sizeof(keys) / sizeof(keys[0]))
			rc = at(root->kids[i], "unknown key (groups, batch, "
					       "seconds, interval, "
					       "local_rails)");
	}
	ul_ytree_free(root);
	return rc;
}

/* ---- Counters --------------------------------------------------------- */

static int stat_call(const char *ctl, struct ul_ctl_reply *reply,
		     struct ul_err *err)
{
	struct ul_ctl_req *req = calloc(1, sizeof(*req));
	int rc;

	if (!req)
		return ul_err_set(err, -ENOMEM, "out of memory");
	req->op = UL_CTL_OP_SELFTEST_STAT;
	rc = ulnetctl_ctl_call_at(ctl, req, ULNETCTL_CTL_TIMEOUT_MS, reply,
				  err);
	free(req);
	if (rc == 0 && reply->rc) {
		rc = ul_err_set(err, reply->rc, "%s", reply->err_msg);
		ul_ctl_reply_fini(reply);
	}
	return rc;
}

static uint64_t doc_u64(const struct ul_ynode *map, const char *key)
{
	const char *s = scalar(ul_doc_get(map, key));

	return s ? strtoull(s, NULL, 10) : 0;
}

/* Read one node's SELFTEST_STAT document into st. */
static int stat_take(const struct st_node *nd, uint64_t t0, struct st_stat *st,
		     struct ul_err *err)
{
	const struct ul_ynode *root, *rails, *sink;
	struct ul_ctl_reply reply;
	size_t i;
	int rc;

	rc = stat_call(nd->ctl, &reply, err);
	if (rc)
		return rc;
	memset(st, 0, sizeof(*st));
	st->t_ns = now_ns() - t0;
	root = ul_doc_get(reply.doc, "selftest stat");
	rails = ul_doc_get(root, "rails");
	for (i = 0; rails && rails->type == UL_YNODE_SEQ && i < rails->nr &&
		    st->nrails < ST_RAILS_MAX;
	     i++) {
		const struct ul_ynode *r = rails->kids[i];
		struct st_rail *sr = &st->rails[st->nrails];
		const char *nid = scalar(ul_doc_get(r, "nid"));

		if (!nid || ulnet_nid_parse(nid, &sr->nid, NULL, 0))
			continue;
		sr->send_count = doc_u64(r, "send_count");
		sr->send_bytes = doc_u64(r, "send_bytes");
		sr->recv_count = doc_u64(r, "recv_count");
		sr->recv_bytes = doc_u64(r, "recv_bytes");
		st->nrails++;
	}
	sink = ul_doc_get(root, "sink");
	if (sink) {
		st->has_sink = true;
		st->sink_checked = doc_u64(sink, "checked");
		st->sink_check_errors = doc_u64(sink, "check_errors");
	}
	ul_ctl_reply_fini(&reply);
	return 0;
}

static double mibs(uint64_t a, uint64_t b, uint64_t ns)
{
	return b > a ? ulnetctl_mib_per_s(b - a, ns) : 0.0;
}

/* Sample every ulnetd; a point per node from its previous sample. */
static int sample_all(struct st_batch *b, uint64_t t0)
{
	struct ul_err err = { 0 };
	struct st_stat now;
	size_t i, r;

	for (i = 0; i < b->nnodes; i++) {
		struct st_node *nd = &b->nodes[i];
		struct st_point *p;
		uint64_t ns;

		if (!nd->ctl)
			continue;
		if (stat_take(nd, t0, &now, &err))
			continue; /* a node gone mid-run: a gap in its line */
		if (nd->npoints == ST_SAMPLES_MAX) {
			nd->prev = now;
			continue;
		}
		p = realloc(nd->points, (nd->npoints + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		nd->points = p;
		p = &nd->points[nd->npoints++];
		memset(p, 0, sizeof(*p));
		ns = now.t_ns - nd->prev.t_ns;
		p->t = (double)now.t_ns / 1e9;
		for (r = 0; r < now.nrails && r < nd->prev.nrails; r++) {
			p->send_mibs[r] = mibs(nd->prev.rails[r].send_bytes,
					       now.rails[r].send_bytes, ns);
			p->recv_mibs[r] = mibs(nd->prev.rails[r].recv_bytes,
					       now.rails[r].recv_bytes, ns);
		}
		nd->prev = now;
	}
	return 0;
}

/* The first sample of every ulnetd; a served node's NID from its rails. */
static int sample_first(struct st_batch *b, uint64_t t0)
{
	struct ul_err err = { 0 };
	size_t i;

	for (i = 0; i < b->nnodes; i++) {
		struct st_node *nd = &b->nodes[i];

		if (!nd->ctl)
			continue;
		if (stat_take(nd, t0, &nd->first, &err))
			return st_err("node %s: %s", nd->name, err.msg);
		nd->prev = nd->first;
		if (!nd->has_nid && nd->first.nrails) {
			nd->nid = nd->first.rails[0].nid;
			nd->has_nid = true;
		}
	}
	return 0;
}

/* ---- Running ----------------------------------------------------------- */

/* How the senders' threads tell the sampling thread they are done. */
struct st_sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ndone;
};

/* One sender of one test: a stream over its own control connection. */
struct st_job {
	struct st_test *test;
	const struct st_node *node;
	struct ul_ctl_req req;
	struct ul_ctl_reply reply;
	struct ul_err err;
	int rc;
	struct st_sync *sync;
	pthread_t thread;
};

static void *job_run(void *arg)
{
	struct st_job *j = arg;

	j->rc = ulnetctl_ctl_call_at(j->node->ctl, &j->req,
				     j->req.perf.duration_ms +
					     DRAIN_ALLOWANCE_MS,
				     &j->reply, &j->err);
	pthread_mutex_lock(&j->sync->lock);
	j->sync->ndone++;
	pthread_cond_signal(&j->sync->cond);
	pthread_mutex_unlock(&j->sync->lock);
	return NULL;
}

/* Sender i's targets, as lstcon_dstnodes_prep chooses them. */
static int job_targets(const struct st_batch *b, const struct st_test *t,
		       size_t i, struct ul_ctl_perf_req *pr)
{
	const struct st_group *to = &b->groups[t->to];
	size_t span = t->span && t->span < to->n ? t->span : to->n;
	size_t start = ((i / t->dist) * span) % to->n, k;

	for (k = 0; k < span && k < UL_CTL_PERF_TARGETS_MAX; k++) {
		const struct st_node *nd =
			&b->nodes[to->nodes[(start + k) % to->n]];

		if (!nd->has_nid)
			return st_err("node %s has no NID to send to",
				      nd->name);
		pr->targets[k] = nd->nid;
	}
	pr->ntargets = (uint32_t)k;
	return 0;
}

static void add_fail(struct st_result *r, int32_t status, uint64_t count)
{
	size_t i;

	for (i = 0; i < r->nfails; i++) {
		if (r->fails[i].status == status) {
			r->fails[i].count += count;
			return;
		}
	}
	if (r->nfails < UL_CTL_PERF_FAILS_MAX) {
		r->fails[r->nfails].status = status;
		r->fails[r->nfails++].count = count;
	}
}

/* Add one sender's answer to its test's result. */
static void job_collect(struct st_job *j)
{
	struct st_result *r = &j->test->res;
	const char *why = j->err.msg;
	size_t i;

	if (j->rc == 0 && j->reply.rc)
		why = j->reply.err_msg;
	if (j->rc || j->reply.rc) {
		r->nerrors++;
		if (!r->error[0])
			snprintf(r->error, sizeof(r->error), "%.200s: %.700s",
				 j->node->name, why);
		if (j->rc == 0)
			ul_ctl_reply_fini(&j->reply);
		return;
	}
	r->started += j->reply.perf.started;
	r->completed += j->reply.perf.puts;
	r->failed += j->reply.perf.failed;
	r->bytes += j->reply.perf.bytes;
	r->check_errors += j->reply.perf.check_errors;
	r->mibs += ulnetctl_mib_per_s(j->reply.perf.send_bytes,
				      j->reply.perf.send_ns);
	if (j->reply.perf.send_ns)
		r->rpcs += (double)j->reply.perf.puts /
			   ((double)j->reply.perf.send_ns / 1e9);
	for (i = 0; i < j->reply.perf.nfails; i++)
		add_fail(r, j->reply.perf.fails[i].status,
			 j->reply.perf.fails[i].count);
	ul_ctl_reply_fini(&j->reply);
}

static int jobs_plan(struct st_batch *b, struct st_job **out, size_t *njobs)
{
	struct st_job *jobs;
	size_t n = 0, ti, i;
	int rc;

	for (ti = 0; ti < b->ntests; ti++)
		n += b->groups[b->tests[ti].from].n;
	if (!n)
		return st_err("no sender");
	jobs = calloc(n, sizeof(*jobs));
	if (!jobs)
		return st_err("out of memory");
	n = 0;
	for (ti = 0; ti < b->ntests; ti++) {
		struct st_test *t = &b->tests[ti];
		const struct st_group *from = &b->groups[t->from];

		for (i = 0; i < from->n; i++) {
			struct st_job *j = &jobs[n++];

			j->test = t;
			j->node = &b->nodes[from->nodes[i]];
			if (!j->node->ctl) {
				rc = st_err("node %s sends in a test, so it "
					    "must be a control socket",
					    j->node->name);
				free(jobs);
				return rc;
			}
			j->req.op = UL_CTL_OP_PERF_PUT;
			j->req.perf.op = t->op;
			j->req.perf.check = t->check;
			j->req.perf.size = t->size;
			j->req.perf.inflight = t->concurrency;
			j->req.perf.duration_ms = b->seconds * 1000u;
			rc = job_targets(b, t, i, &j->req.perf);
			if (rc) {
				free(jobs);
				return rc;
			}
		}
	}
	*out = jobs;
	*njobs = n;
	return 0;
}

/*
 * Wait until at_ns after t0 or until all n senders are done, whichever
 * comes first; true when they are all done.
 */
static bool wait_until(struct st_sync *sy, uint64_t t0, uint64_t at_ns,
		       size_t n)
{
	uint64_t abs = t0 + at_ns;
	struct timespec ts = { .tv_sec = (time_t)(abs / 1000000000u),
			       .tv_nsec = (long)(abs % 1000000000u) };
	bool is_done;

	pthread_mutex_lock(&sy->lock);
	while (sy->ndone < n &&
	       pthread_cond_timedwait(&sy->cond, &sy->lock, &ts) == 0)
		;
	is_done = sy->ndone >= n;
	pthread_mutex_unlock(&sy->lock);
	return is_done;
}

static void mark_end(struct st_batch *b)
{
	size_t i;

	for (i = 0; i < b->nnodes; i++) {
		if (!b->nodes[i].has_end) {
			b->nodes[i].end = b->nodes[i].prev;
			b->nodes[i].has_end = true;
		}
	}
}

/*
 * Run every test at once; sample each interval (and when the run time
 * is over) until all have ended: a sender still draining lost operations
 * keeps the samples coming, so the plot shows the tail.
 */
static int batch_run(struct st_batch *b)
{
	const uint64_t run_ns = (uint64_t)b->seconds * 1000000000u;
	const uint64_t step = (uint64_t)b->interval_ms * 1000000u;
	uint64_t t0 = now_ns(), next = step, at;
	struct st_sync sy = { .ndone = 0 };
	pthread_condattr_t ca;
	struct st_job *jobs = NULL;
	bool has_end = false, is_done;
	size_t njobs = 0, nstarted, i;
	int rc;

	rc = sample_first(b, t0);
	if (!rc)
		rc = jobs_plan(b, &jobs, &njobs);
	if (rc)
		return rc;
	pthread_mutex_init(&sy.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sy.cond, &ca);
	pthread_condattr_destroy(&ca);
	for (nstarted = 0; nstarted < njobs; nstarted++) {
		jobs[nstarted].sync = &sy;
		if (pthread_create(&jobs[nstarted].thread, NULL, job_run,
				   &jobs[nstarted]))
			break;
	}
	if (nstarted < njobs)
		rc = st_err("cannot start a thread for every sender");
	for (;;) {
		at = next;
		/* A sample falls on the end of the run time too. */
		if (!has_end && run_ns > next - step && run_ns < next)
			at = run_ns;
		is_done = wait_until(&sy, t0, at, nstarted);
		if (is_done && now_ns() - t0 < at) {
			/* Done between two samples: the last one is now. */
			if (!has_end && !sample_all(b, t0))
				mark_end(b);
			break;
		}
		if (sample_all(b, t0))
			break;
		if (!has_end && at >= run_ns) {
			has_end = true;
			mark_end(b);
		}
		if (at == next)
			next += step;
		if (is_done)
			break;
	}
	for (i = 0; i < nstarted; i++) {
		pthread_join(jobs[i].thread, NULL);
		job_collect(&jobs[i]);
	}
	/* Nothing was sampled at the end (a node gone): its last sample. */
	mark_end(b);
	pthread_cond_destroy(&sy.cond);
	pthread_mutex_destroy(&sy.lock);
	free(jobs);
	return rc;
}

/* ---- Commands ----------------------------------------------------------- */

static int selftest_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "batch", required_argument, NULL, 'b' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 'T' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "distribute", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "rates", required_argument, NULL, 'r' },
		{ "plot", required_argument, NULL, 'p' },
		{ "text", no_argument, NULL, 'x' },
		{ "local-rails", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch = NULL, *from = NULL, *to = NULL, *dist = "1:1";
	const char *rates = NULL, *plot = NULL;
	uint32_t conc = 1, secs = 0, ival = 0, lrails = 0;
	bool is_text = false;
	struct st_batch *b;
	struct st_test *t;
	char *rates_tmp = NULL;
	size_t i;
	int opt, rc = 0;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "+b:f:T:c:d:t:i:r:p:xL:h", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'b':
			batch = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'T':
			to = optarg;
			break;
		case 'c':
			if (ulnetctl_parse_size(optarg, UL_PERF_INFLIGHT_MAX,
						&conc))
				return st_err("bad concurrency '%s' (1..%d)",
					      optarg, UL_PERF_INFLIGHT_MAX);
			break;
		case 'd':
			dist = optarg;
			break;
		case 't':
			if (ulnetctl_parse_size(optarg, 86400, &secs))
				return st_err("bad seconds '%s'", optarg);
			break;
		case 'i':
			if (ulnetctl_parse_size(optarg, 3600, &ival))
				return st_err("bad interval '%s'", optarg);
			break;
		case 'r':
			rates = optarg;
			break;
		case 'p':
			plot = optarg;
			break;
		case 'x':
			is_text = true;
			break;
		case 'L':
			if (ulnetctl_parse_size(optarg, ST_LOCAL_RAILS_MAX,
						&lrails))
				return st_err("bad local rails '%s' (1..%d)",
					      optarg, ST_LOCAL_RAILS_MAX);
			break;
		default:
			ulnetctl_print_help(ulnetctl_selftest_cmds, "selftest",
					    "run");
			return opt == 'h' ? 0 : ULNETCTL_RC_BAD_PARAM;
		}
	}
	if (!batch && (!from || !to))
		return st_err("give --from and --to with a test, or --batch");
	if (batch && (from || to || optind < argc))
		return st_err("--batch takes its groups and tests from the "
			      "file");
	b = calloc(1, sizeof(*b));
	if (!b)
		return st_err("out of memory");
	if (batch) {
		rc = batch_parse(b, batch);
	} else {
		long gf = group_from_list(b, "from", from);
		long gt = gf < 0 ? -1 : group_from_list(b, "to", to);

		rc = gt < 0 ? ULNETCTL_RC_BAD_PARAM : 0;
		t = &b->tests[0];
		if (!rc)
			rc = test_parse(t, argc - optind, argv + optind);
		if (!rc) {
			b->ntests = 1;
			t->from = (size_t)gf;
			t->to = (size_t)gt;
			t->concurrency = conc;
			rc = parse_distribute(dist, t);
		}
	}
	if (secs)
		b->seconds = secs;
	if (!b->seconds)
		b->seconds = DEFAULT_SECONDS;
	if (ival)
		b->interval_ms = ival * 1000u;
	if (!b->interval_ms)
		b->interval_ms = DEFAULT_INTERVAL_MS;
	if (lrails)
		b->local_rails = lrails;
	if (!b->local_rails)
		b->local_rails = 2;
	if (!rc && st_local_start(b) < 0)
		rc = st_err("cannot start %s",
			    b->local_err[0] ? b->local_err : "local nodes");
	if (!rc)
		rc = batch_run(b);
	if (!rc)
		rc = is_text ? st_report_text(b) : st_report_yaml(b);
	if (!rc && plot && !rates) {
		size_t n = strlen(plot) + 8;

		rates_tmp = malloc(n);
		if (!rates_tmp)
			rc = st_err("out of memory");
		else
			snprintf(rates_tmp, n, "%s.tsv", plot);
		rates = rates_tmp;
	}
	if (!rc && rates)
		rc = st_write_rates(b, rates);
	if (!rc && plot)
		rc = st_plot(b, rates, plot);
	/* A test that lost or spoiled data says so in the exit status. */
	for (i = 0; !rc && i < b->ntests; i++) {
		const struct st_result *r = &b->tests[i].res;

		if (r->nerrors)
			rc = st_err("test %zu: %s", i + 1, r->error);
		else if (r->failed || r->check_errors)
			rc = st_err("test %zu (%s): %llu failed, %llu check "
				    "errors",
				    i + 1, b->tests[i].spec,
				    (unsigned long long)r->failed,
				    (unsigned long long)r->check_errors);
	}
	for (i = 0; !rc && i < b->nnodes; i++) {
		const struct st_node *nd = &b->nodes[i];

		if (nd->ctl &&
		    nd->end.sink_check_errors > nd->first.sink_check_errors)
			rc = st_err("node %s: written data failed the check",
				    nd->name);
	}
	free(rates_tmp);
	st_local_stop(b);
	batch_free(b);
	free(b);
	return rc;
}

/* The node's own counters, as selftest samples them. */
static int selftest_stat(int argc, char **argv)
{
	struct ul_ctl_args a;

	if (argc > 1) {
		if (ulnetctl_is_help(argv[1])) {
			ulnetctl_print_help(ulnetctl_selftest_cmds, "selftest",
					    "stat");
			return 0;
		}
		return st_err("selftest stat takes no argument");
	}
	memset(&a, 0, sizeof(a));
	return ulnetctl_do(UL_CTL_OP_SELFTEST_STAT, &a, "selftest", "stat",
			   UL_DOC_A);
}

const struct ulnetctl_cmd ulnetctl_selftest_cmds[] = {
	{ "run", selftest_run, NULL,
	  "run lnet_selftest's tests between ulnetds and print lst stat's "
	  "rates\n"
	  "\tTEST: ping | brw read|write [size=N] [check=simple|full]\n"
	  "\t--from NODES: senders, comma-separated control sockets\n"
	  "\t--to NODES: targets, control sockets or NIDs\n"
	  "\t--batch FILE: groups and tests from a YAML file instead\n"
	  "\t--concurrency: operations in flight per sender (default 1)\n"
	  "\t--distribute A:B: senders per target set (default 1:1; 1:all)\n"
	  "\t--seconds: run time (default 10)\n"
	  "\t--interval: seconds between samples (default 1)\n"
	  "\t--text: lst stat's text instead of YAML\n"
	  "\t--rates FILE: per-rail rates over time (TSV)\n"
	  "\t--plot FILE.png: the same as a gnuplot chart\n"
	  "\t--local-rails N: NIs of each local:N node (default 2)\n"
	  "\tNODES may name local:1, local:2...: nodes selftest runs itself\n"
	  "\ton 127.2.RAIL.N@tcp for the run (no daemon needed)\n" },
	{ "stat", selftest_stat, NULL,
	  "show the counters selftest samples: each rail, the perf sink\n" },
	{ NULL, NULL, NULL, NULL },
};
