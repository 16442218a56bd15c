/*
 * lnet.conf YAML -> struct ul_conf (conf.h).
 *
 * Two passes. First libyaml's events are built into a small tree of
 * scalars, sequences and mappings, which is where the limits on untrusted
 * input are enforced (size, depth, items per collection, total nodes) and
 * where aliases are refused: a tree without aliases cannot grow past the
 * text it came from. Then the tree is walked section by section into a
 * scratch ul_conf, which replaces the caller's only when everything
 * checked out.
 *
 * Every error names the line and column of the offending node, the field
 * path ("net[0].local NI(s)[1].tunables.peer_credits") and quotes the
 * value. A plain empty scalar, "~" or "null" where a mapping or sequence
 * is expected reads as an empty one ("tunables:" with nothing under it).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "ctl/conf.h"
#include "nid/nid_descr.h"

enum ynode_type {
	YN_SCALAR,
	YN_SEQ,
	YN_MAP,
};

struct ynode {
	enum ynode_type type;
	bool is_null;		   /* plain "", "~", "null", "Null" or "NULL" */
	unsigned int line, column; /* 1-based */
	char *str;		   /* YN_SCALAR: NUL-terminated, owned */
	struct ynode **kids;	   /* YN_SEQ: items; YN_MAP: key, value... */
	size_t nr, cap;
};

static void ynode_free(struct ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

/* ---- pass 1: events to tree --------------------------------------- */

struct ybuild {
	yaml_parser_t parser;
	struct ynode *stack[UL_CONF_MAX_DEPTH];
	unsigned int depth;
	size_t nr_nodes;
	unsigned int nr_docs;
	struct ynode *root;
	struct ul_err *err;
};

static void build_fail_fmt(struct ybuild *b, const yaml_mark_t *m, int code,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void build_fail_fmt(struct ybuild *b, const yaml_mark_t *m, int code,
			   const char *fmt, ...)
{
	char what[UL_ERR_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ul_err_fmt(b->err, code, "line %zu, column %zu: %s", m->line + 1,
		   m->column + 1, what);
}

/*
 * Record a failure at mark m and evaluate to code. Macros, as ul_err_set(),
 * so that the analyser sees the code come back from a variadic helper.
 */
#define build_fail(b, m, code, ...)                                            \
	(build_fail_fmt((b), (m), (code), __VA_ARGS__), (code))

static int syntax_error(struct ybuild *b)
{
	const yaml_parser_t *p = &b->parser;
	const char *problem = p->problem ? p->problem : "unknown problem";

	if (p->error == YAML_MEMORY_ERROR)
		return ul_err_set(b->err, -ENOMEM, "out of memory");
	if (p->error == YAML_READER_ERROR)
		return ul_err_set(b->err, -EINVAL,
				  "byte %zu: YAML reader error: %s",
				  p->problem_offset, problem);
	if (p->context)
		return build_fail(b, &p->problem_mark, -EINVAL,
				  "YAML syntax error: %s %s", p->context,
				  problem);
	return build_fail(b, &p->problem_mark, -EINVAL, "YAML syntax error: %s",
			  problem);
}

static bool scalar_is_null(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    ev->data.scalar.tag)
		return false;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static int attach(struct ybuild *b, struct ynode *n, const yaml_event_t *ev)
{
	struct ynode *parent, **kids;
	size_t cap;

	if (b->depth == 0) {
		b->root = n;
		return 0;
	}
	parent = b->stack[b->depth - 1];
	if (parent->type == YN_MAP && parent->nr % 2 == 0 &&
	    n->type != YN_SCALAR)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "a mapping key must be a scalar");
	if (parent->nr >= (parent->type == YN_MAP ? 2 : 1) * UL_CONF_MAX_ITEMS)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "more than %d items in one collection",
				  UL_CONF_MAX_ITEMS);
	if (parent->nr == parent->cap) {
		cap = parent->cap ? 2 * parent->cap : 8;
		/* An array of pointers to nodes is what is meant here. */
		/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
		kids = realloc(parent->kids, cap * sizeof(parent->kids[0]));
		if (!kids)
			return ul_err_set(b->err, -ENOMEM, "out of memory");
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->nr++] = n;
	return 0;
}

static int build_event(struct ybuild *b, const yaml_event_t *ev)
{
	struct ynode *n;
	int rc;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->nr_docs++)
			return build_fail(b, &ev->start_mark, -EINVAL,
					  "only one YAML document is allowed");
		return 0;
	case YAML_ALIAS_EVENT:
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "YAML aliases are not supported ('*%.64s')",
				  (const char *)ev->data.alias.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		b->depth--;
		return 0;
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		break;
	default:
		return 0;
	}
	if (b->nr_nodes++ >= UL_CONF_MAX_NODES)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "more than %d YAML nodes", UL_CONF_MAX_NODES);
	if (ev->type != YAML_SCALAR_EVENT && b->depth == UL_CONF_MAX_DEPTH)
		return build_fail(b, &ev->start_mark, -EINVAL,
				  "nested deeper than %d levels",
				  UL_CONF_MAX_DEPTH);
	n = calloc(1, sizeof(*n));
	if (!n)
		return ul_err_set(b->err, -ENOMEM, "out of memory");
	n->line = (unsigned int)ev->start_mark.line + 1;
	n->column = (unsigned int)ev->start_mark.column + 1;
	if (ev->type == YAML_SCALAR_EVENT) {
		n->type = YN_SCALAR;
		if (memchr(ev->data.scalar.value, '\0',
			   ev->data.scalar.length)) {
			free(n);
			return build_fail(b, &ev->start_mark, -EINVAL,
					  "a scalar holds a NUL character");
		}
		n->str = strdup((const char *)ev->data.scalar.value);
		if (!n->str) {
			free(n);
			return ul_err_set(b->err, -ENOMEM, "out of memory");
		}
		n->is_null = scalar_is_null(ev);
	} else {
		n->type = ev->type == YAML_SEQUENCE_START_EVENT ? YN_SEQ
								: YN_MAP;
	}
	rc = attach(b, n, ev);
	if (rc) {
		ynode_free(n);
		return rc;
	}
	if (n->type != YN_SCALAR)
		b->stack[b->depth++] = n;
	return 0;
}

/* Build the tree of text[0..len); *root is NULL for an empty document. */
static int build_tree(const char *text, size_t len, struct ynode **root,
		      struct ul_err *err)
{
	struct ybuild b;
	yaml_event_t ev;
	bool done = false;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	b.err = err;
	if (!yaml_parser_initialize(&b.parser))
		return ul_err_set(err, -ENOMEM, "out of memory");
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)text,
				     len);
	while (!done) {
		if (!yaml_parser_parse(&b.parser, &ev)) {
			rc = syntax_error(&b);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = build_event(&b, &ev);
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	yaml_parser_delete(&b.parser);
	if (rc) {
		ynode_free(b.root);
		return rc;
	}
	*root = b.root;
	return 0;
}

/* ---- pass 2: tree to ul_conf -------------------------------------- */

#define PATH_SIZE 160

struct walk {
	struct ul_conf *conf;
	struct ul_err *err;
	char path[PATH_SIZE];
	size_t plen;
};

static size_t path_add(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append to the path; returns the length to restore with path_pop(). */
static size_t path_add(struct walk *w, const char *fmt, ...)
{
	size_t old = w->plen;
	va_list ap;
	int n;

	if (w->plen < sizeof(w->path)) {
		va_start(ap, fmt);
		n = vsnprintf(w->path + w->plen, sizeof(w->path) - w->plen, fmt,
			      ap);
		va_end(ap);
		if (n > 0)
			w->plen += (size_t)n;
		if (w->plen >= sizeof(w->path))
			w->plen = sizeof(w->path) - 1;
	}
	return old;
}

static size_t path_key(struct walk *w, const char *key)
{
	return path_add(w, w->plen ? ".%.40s" : "%.40s", key);
}

static size_t path_idx(struct walk *w, size_t i)
{
	return path_add(w, "[%zu]", i);
}

static void path_pop(struct walk *w, size_t old)
{
	w->plen = old;
	w->path[old] = '\0';
}

static void fail_fmt(struct walk *w, const struct ynode *n, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));

static void fail_fmt(struct walk *w, const struct ynode *n, const char *fmt,
		     ...)
{
	char what[UL_ERR_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!w->plen)
		ul_err_fmt(w->err, -EINVAL, "line %u, column %u: %s", n->line,
			   n->column, what);
	else
		ul_err_fmt(w->err, -EINVAL, "line %u, column %u: %s: %s",
			   n->line, n->column, w->path, what);
}

/* Refuse node n with a message that follows the path; gives -EINVAL. */
#define fail(w, n, ...) (fail_fmt((w), (n), __VA_ARGS__), -EINVAL)

/* A helper refused node n with code and reason e. */
static int fail_err(struct walk *w, const struct ynode *n, int code,
		    const struct ul_err *e)
{
	if (code == -ENOMEM)
		return ul_err_set(w->err, code, "out of memory");
	return fail(w, n, "%s", e->msg);
}

static int warn(struct walk *w, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a warning about node n; returns 0 or -ENOMEM. */
static int warn(struct walk *w, const struct ynode *n, const char *fmt, ...)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_warning *wa;
	size_t cap, off;
	va_list ap;

	if (c->nr_warnings >= UL_CONF_MAX_WARNINGS) {
		c->nr_warnings_dropped++;
		return 0;
	}
	/* Grow at powers of two: nr_warnings is the capacity's trigger. */
	if ((c->nr_warnings & (c->nr_warnings - 1)) == 0) {
		cap = c->nr_warnings ? 2 * c->nr_warnings : 1;
		wa = realloc(c->warnings, cap * sizeof(*wa));
		if (!wa)
			return ul_err_set(w->err, -ENOMEM, "out of memory");
		c->warnings = wa;
	}
	wa = &c->warnings[c->nr_warnings++];
	wa->line = n->line;
	wa->column = n->column;
	/* "<path>: <what>"; the path is shorter than the text. */
	off = w->plen ? (size_t)snprintf(wa->text, sizeof(wa->text),
					 "%s: ", w->path)
		      : 0;
	va_start(ap, fmt);
	vsnprintf(wa->text + off, sizeof(wa->text) - off, fmt, ap);
	va_end(ap);
	return 0;
}

static const char *type_name(const struct ynode *n)
{
	if (n->type == YN_MAP)
		return "a mapping";
	if (n->type == YN_SEQ)
		return "a sequence";
	return "a scalar";
}

/* The text of a scalar that has a value. */
static int get_str(struct walk *w, const struct ynode *n, const char **s)
{
	if (n->type != YN_SCALAR)
		return fail(w, n, "expected a value, found %s", type_name(n));
	if (n->is_null)
		return fail(w, n, "no value specified");
	*s = n->str;
	return 0;
}

static int get_int(struct walk *w, const struct ynode *n, long long min,
		   long long max, long long *out)
{
	struct ul_err e;
	const char *s;
	int rc;

	rc = get_str(w, n, &s);
	if (rc)
		return rc;
	rc = ul_conf_parse_int(s, min, max, out, &e);
	if (rc)
		return fail_err(w, n, rc, &e);
	return 0;
}

static int get_int32(struct walk *w, const struct ynode *n, long long min,
		     long long max, int *out)
{
	long long v;
	int rc;

	rc = get_int(w, n, min, max, &v);
	if (!rc)
		*out = (int)v;
	return rc;
}

/* n must be a mapping (or null: empty); *nr_pairs is its size. */
static int want_map(struct walk *w, const struct ynode *n, size_t *nr_pairs)
{
	if (n->type == YN_SCALAR && n->is_null) {
		*nr_pairs = 0;
		return 0;
	}
	if (n->type != YN_MAP)
		return fail(w, n, "expected a mapping, found %s", type_name(n));
	*nr_pairs = n->nr / 2;
	return 0;
}

static int want_seq(struct walk *w, const struct ynode *n, size_t *nr)
{
	if (n->type == YN_SCALAR && n->is_null) {
		*nr = 0;
		return 0;
	}
	if (n->type != YN_SEQ)
		return fail(w, n, "expected a sequence, found %s",
			    type_name(n));
	*nr = n->nr;
	return 0;
}

/* Index of key in a NULL-terminated table, or -1. */
static int key_index(const char *const *table, const char *key)
{
	int i;

	for (i = 0; table[i]; i++)
		if (!strcmp(table[i], key))
			return i;
	return -1;
}

/* Refuse a known key written twice in one mapping. */
static int once(struct walk *w, const struct ynode *k, unsigned int *seen,
		int idx)
{
	if (*seen & (1U << idx))
		return fail(w, k, "duplicate key '%.64s'", k->str);
	*seen |= 1U << idx;
	return 0;
}

/* Grow *arr (of *nr elements of size sz) by one zeroed element. */
static void *grow(struct walk *w, void *arr_ptr, size_t *nr, size_t sz)
{
	void **arr = arr_ptr;
	char *p;

	p = realloc(*arr, (*nr + 1) * sz);
	if (!p) {
		ul_err_fmt(w->err, -ENOMEM, "out of memory");
		return NULL;
	}
	memset(p + *nr * sz, 0, sz);
	*arr = p;
	return p + (*nr)++ * sz;
}

/* Keys of an export that describe state, not configuration. */
static const char *const ni_state_keys[] = {
	"status",	"statistics",	  "udsp info",
	"sent_stats",	"received_stats", "dropped_stats",
	"health stats", "dev cpt",	  NULL,
};

static const char *const peer_ni_state_keys[] = {
	"state",
	"max_ni_tx_credits",
	"available_tx_credits",
	"min_tx_credits",
	"tx_q_num_of_buf",
	"available_rtr_credits",
	"min_rtr_credits",
	"refcount",
	"statistics",
	"sent_stats",
	"received_stats",
	"dropped_stats",
	"udsp info",
	NULL,
};

static int ignore_state(struct walk *w, const struct ynode *k)
{
	return warn(w, k, "state shown by an export; ignored");
}

/* ---- net and ip2nets ------------------------------------------------ */

static int walk_tunables(struct walk *w, const struct ynode *m,
			 struct ul_conf_tunables *t)
{
	static const char *const keys[] = { "peer_timeout", "peer_credits",
					    "peer_buffer_credits", "credits",
					    NULL };
	static const unsigned int bits[] = {
		UL_CONF_TUN_HAS_PEER_TIMEOUT, UL_CONF_TUN_HAS_PEER_CREDITS,
		UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS, UL_CONF_TUN_HAS_CREDITS
	};
	int *const vals[] = { &t->peer_timeout, &t->peer_credits,
			      &t->peer_buffer_credits, &t->credits };
	unsigned int seen = 0;
	size_t i, n, old;
	int rc = 0, k;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k < 0) {
			rc = warn(w, key,
				  "unrecognized key for 'tunables'; ignored");
		} else {
			rc = once(w, key, &seen, k);
			if (!rc)
				rc = get_int32(w, v, -1, INT_MAX, vals[k]);
			if (!rc)
				t->flags |= bits[k];
		}
		path_pop(w, old);
	}
	return rc;
}

/* o2iblnd's own tunables (lnetctl handle_lnd_tunable). */
static const char *const o2ib_keys[] = {
	"peercredits_hiw",
	"map_on_demand",
	"concurrent_sends",
	"fmr_pool_size",
	"fmr_flush_trigger",
	"fmr_cache",
	"ntx",
	NULL,
};

static int o2ib_param(struct walk *w, const struct ynode *key,
		      const struct ynode *v, struct ul_conf_lnd_tunables *t)
{
	struct ul_conf_lnd_param *p;
	struct ul_err e;
	long long val;
	const char *s;
	bool b;
	int rc;

	rc = get_str(w, v, &s);
	if (rc)
		return rc;
	if (!strcmp(key->str, "map_on_demand") &&
	    ul_conf_parse_bool(s, &b, &e) == 0)
		val = b;
	else if ((rc = ul_conf_parse_int(s, INT_MIN, INT_MAX, &val, &e)))
		return fail_err(w, v, rc, &e);
	p = grow(w, &t->other, &t->nr_other, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->key = strdup(key->str);
	if (!p->key) {
		t->nr_other--;
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	}
	p->value = val;
	p->line = key->line;
	return warn(w, key,
		    "o2iblnd tunable, not applicable to user space; kept");
}

static int walk_lnd_tunables(struct walk *w, const struct ynode *m,
			     uint32_t net, struct ul_conf_lnd_tunables *t)
{
	static const char *const keys[] = { "conns_per_peer", "tos", NULL };
	unsigned int seen = 0;
	size_t i, n, old;
	int rc, k;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k >= 0 && (rc = once(w, key, &seen, k))) {
			path_pop(w, old);
			break;
		}
		if (k == 0) {
			rc = get_int32(w, v, 0, 127, &t->conns_per_peer);
			t->flags |= UL_CONF_LND_HAS_CONNS_PER_PEER;
		} else if (k == 1) {
			rc = get_int32(w, v, -1, 255, &t->tos);
			t->flags |= UL_CONF_LND_HAS_TOS;
		} else if (!strcmp(key->str, "timeout")) {
			rc = warn(w, key,
				  "read-only LND timeout (net set "
				  "--lnd-timeout sets it); ignored");
		} else if (ulnet_net_type(net) == ULNET_LND_O2IB &&
			   key_index(o2ib_keys, key->str) >= 0) {
			rc = o2ib_param(w, key, v, t);
		} else {
			rc = warn(w, key,
				  "unrecognized key for 'lnd tunables'; "
				  "ignored");
		}
		path_pop(w, old);
	}
	return rc;
}

static int walk_cpt(struct walk *w, const struct ynode *v, struct ul_expr **out)
{
	struct ul_expr *e = NULL;
	struct ul_err er;
	size_t i, len;
	char *s, *p;
	int rc;

	if (v->type == YN_MAP)
		return fail(w, v,
			    "expected a CPT expression or a list of "
			    "CPT numbers, found a mapping");
	if (v->type == YN_SCALAR) {
		if (v->is_null)
			return fail(w, v, "no value specified");
		rc = ul_conf_parse_cpt(v->str, &e, &er);
		if (rc)
			return fail_err(w, v, rc, &er);
		goto done;
	}
	if (v->nr == 0)
		return fail(w, v, "Missing CPT configuration");
	/* A flow list [0, 1-2] reads as the expression "[0,1-2]". */
	for (len = 2, i = 0; i < v->nr; i++) {
		if (v->kids[i]->type != YN_SCALAR)
			return fail(w, v->kids[i],
				    "Malformed CPT configuration");
		len += strlen(v->kids[i]->str) + 1;
	}
	s = malloc(len + 1);
	if (!s)
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	p = s;
	*p++ = '[';
	for (i = 0; i < v->nr; i++) {
		if (i)
			*p++ = ',';
		len = strlen(v->kids[i]->str);
		memcpy(p, v->kids[i]->str, len);
		p += len;
	}
	*p++ = ']';
	*p = '\0';
	rc = ul_conf_parse_cpt(s, &e, &er);
	free(s);
	if (rc)
		return fail_err(w, v, rc, &er);
done:
	ul_expr_free(*out);
	*out = e;
	return 0;
}

/* "interfaces: {0: eth0, 1: eth1[0,1]}": one NI per entry. */
static int walk_interfaces(struct walk *w, const struct ynode *m,
			   struct ul_conf_ni **nis, size_t *nr_nis)
{
	struct ul_conf_ni *ni;
	struct ul_err e;
	const char *s;
	size_t i, n, old;
	int rc;

	if (m->type != YN_MAP)
		return fail(w, m,
			    "expected a mapping '<index>: <interface>', "
			    "found %s",
			    m->is_null ? "nothing" : type_name(m));
	n = m->nr / 2;
	for (i = 0, rc = 0; !rc && i < n; i++) {
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, m->kids[2 * i]->str);
		rc = get_str(w, v, &s);
		if (!rc) {
			ni = grow(w, nis, nr_nis, sizeof(*ni));
			rc = ni ? 0 : -ENOMEM;
		}
		if (!rc) {
			ni->by = UL_CONF_NI_BY_IFACE;
			ni->line = v->line;
			rc = ul_conf_parse_ifname(s, ni->ifname, &ni->cpt, &e);
			if (rc) {
				(*nr_nis)--;
				rc = fail_err(w, v, rc, &e);
			}
		}
		path_pop(w, old);
	}
	return rc;
}

static int walk_ip_ranges(struct walk *w, const struct ynode *m,
			  struct ul_conf_net *net)
{
	struct ul_conf_ip_range *r;
	struct ul_err e;
	const char *s;
	size_t i, n, old;
	int rc;

	if (m->type != YN_MAP)
		return fail(w, m,
			    "expected a mapping '<index>: <ip-range>', "
			    "found %s",
			    m->is_null ? "nothing" : type_name(m));
	n = m->nr / 2;
	for (i = 0, rc = 0; !rc && i < n; i++) {
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, m->kids[2 * i]->str);
		rc = get_str(w, v, &s);
		if (!rc) {
			r = grow(w, &net->ranges, &net->nr_ranges, sizeof(*r));
			rc = r ? 0 : -ENOMEM;
		}
		if (!rc) {
			rc = ul_conf_parse_ip_range(s, r, &e);
			if (rc) {
				net->nr_ranges--;
				rc = fail_err(w, v, rc, &e);
			} else {
				r->line = v->line;
			}
		}
		path_pop(w, old);
	}
	return rc;
}

static int get_nid(struct walk *w, const struct ynode *v, struct ulnet_nid *nid)
{
	char why[128];
	const char *s;
	int rc;

	rc = get_str(w, v, &s);
	if (rc)
		return rc;
	if (ulnet_nid_parse(s, nid, why, sizeof(why)))
		return fail(w, v, "'%.64s' is not a valid NID: %s", s, why);
	return 0;
}

static int get_net(struct walk *w, const struct ynode *v, uint32_t *net)
{
	char why[128];
	const char *s;
	int rc;

	rc = get_str(w, v, &s);
	if (rc)
		return rc;
	if (ulnet_net_parse(s, net, why, sizeof(why)))
		return fail(w, v, "Invalid network ID '%.64s': %s", s, why);
	if (ulnet_net_type(*net) == ULNET_LND_LO)
		return fail(w, v, "'%.64s': setting @lo not allowed", s);
	return 0;
}

enum {
	GK_INTERFACES,
	GK_NID,
	GK_TUNABLES,
	GK_LND_TUNABLES,
	GK_CPT,
};

static int walk_group(struct walk *w, const struct ynode *m,
		      struct ul_conf_net *net, struct ul_conf_ni_group *g)
{
	static const char *const keys[] = { "interfaces",   "nid", "tunables",
					    "lnd tunables", "CPT", NULL };
	char buf[ULNET_NIDSTR_SIZE];
	const struct ynode *nid_node = NULL;
	struct ul_conf_ni *ni;
	unsigned int seen = 0;
	size_t i, n, old;
	int rc, k;

	g->line = m->line;
	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k < 0) {
			if (key_index(ni_state_keys, key->str) >= 0)
				rc = ignore_state(w, key);
			else
				rc = fail(w, key, "unknown key '%.64s'",
					  key->str);
			path_pop(w, old);
			continue;
		}
		rc = once(w, key, &seen, k);
		if (rc) {
			path_pop(w, old);
			continue;
		}
		switch (k) {
		case GK_INTERFACES:
			rc = walk_interfaces(w, v, &g->nis, &g->nr_nis);
			break;
		case GK_NID:
			rc = get_nid(w, v, &g->nid);
			if (!rc && ulnet_nid_net(&g->nid) != net->net)
				rc = fail(w, v, "'%s' is not on net '%s'",
					  v->str,
					  ulnet_net_format(net->net, buf,
							   sizeof(buf)));
			g->flags |= UL_CONF_GROUP_HAS_NID;
			nid_node = v;
			break;
		case GK_TUNABLES:
			rc = walk_tunables(w, v, &g->tunables);
			g->flags |= UL_CONF_GROUP_HAS_TUNABLES;
			break;
		case GK_LND_TUNABLES:
			rc = walk_lnd_tunables(w, v, net->net,
					       &g->lnd_tunables);
			g->flags |= UL_CONF_GROUP_HAS_LND_TUNABLES;
			break;
		default:
			rc = walk_cpt(w, v, &g->cpt);
			break;
		}
		path_pop(w, old);
	}
	if (rc || g->nr_nis)
		return rc;
	/* Without interfaces the "nid:" key defines the NI (conf.h). */
	if (nid_node) {
		ni = grow(w, &g->nis, &g->nr_nis, sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		ni->by = UL_CONF_NI_BY_NID;
		ni->nid = g->nid;
		ni->line = nid_node->line;
		return 0;
	}
	return warn(w, m, "neither 'interfaces' nor 'nid': no NI is created");
}

enum {
	NK_NAME,
	NK_LOCAL_NIS,
	NK_INTERFACES,
	NK_IP_RANGE,
	NK_TUNABLES,
	NK_LND_TUNABLES,
	NK_CPT,
};

static int walk_net_keys(struct walk *w, const struct ynode *m, bool is_ip2nets,
			 struct ul_conf_net *net)
{
	static const char *const keys[] = {
		"",	    "local NI(s)",  "interfaces", "ip-range",
		"tunables", "lnd tunables", "CPT",	  NULL,
	};
	struct ul_conf_ni_group *g;
	unsigned int seen = 1U << NK_NAME;
	size_t i, j, nr, old, old2;
	int rc = 0, k;

	for (i = 1; !rc && i < m->nr / 2; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k <= 0) {
			rc = fail(w, key, "unknown key '%.64s'", key->str);
			path_pop(w, old);
			continue;
		}
		rc = once(w, key, &seen, k);
		if (!rc && k == NK_LOCAL_NIS && is_ip2nets)
			rc = fail(w, key,
				  "'local NI(s)' not valid for ip2nets");
		if (!rc && k == NK_IP_RANGE && !is_ip2nets)
			rc = fail(w, key, "'ip-range' only valid for ip2nets");
		if (rc) {
			path_pop(w, old);
			continue;
		}
		switch (k) {
		case NK_LOCAL_NIS:
			rc = want_seq(w, v, &nr);
			for (j = 0; !rc && j < nr; j++) {
				g = grow(w, &net->groups, &net->nr_groups,
					 sizeof(*g));
				if (!g) {
					rc = -ENOMEM;
					break;
				}
				old2 = path_idx(w, j);
				rc = walk_group(w, v->kids[j], net, g);
				path_pop(w, old2);
			}
			break;
		case NK_INTERFACES:
			rc = walk_interfaces(w, v, &net->nis, &net->nr_nis);
			break;
		case NK_IP_RANGE:
			rc = walk_ip_ranges(w, v, net);
			break;
		case NK_TUNABLES:
			rc = walk_tunables(w, v, &net->tunables);
			net->flags |= UL_CONF_NET_HAS_TUNABLES;
			break;
		case NK_LND_TUNABLES:
			rc = walk_lnd_tunables(w, v, net->net,
					       &net->lnd_tunables);
			net->flags |= UL_CONF_NET_HAS_LND_TUNABLES;
			break;
		default:
			rc = walk_cpt(w, v, &net->cpt);
			break;
		}
		path_pop(w, old);
	}
	return rc;
}

/* A "net" block or an "ip2nets" rule. */
static int walk_net(struct walk *w, const struct ynode *m, bool is_ip2nets,
		    struct ul_conf_net *net)
{
	const char *first = is_ip2nets ? "net-spec" : "net type";
	const struct ynode *key;
	size_t n, old;
	int rc;

	net->line = m->line;
	rc = want_map(w, m, &n);
	if (rc)
		return rc;
	if (n == 0)
		return fail(w, m, "missing '%s'", first);
	key = m->kids[0];
	if (strcmp(key->str, first) != 0)
		return fail(w, key,
			    "Malformed input. Expect '%s' found '%.64s'", first,
			    key->str);
	old = path_key(w, first);
	rc = get_net(w, m->kids[1], &net->net);
	path_pop(w, old);
	if (rc)
		return rc;
	return walk_net_keys(w, m, is_ip2nets, net);
}

static int walk_nets(struct walk *w, const struct ynode *v, bool is_ip2nets)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_net *net;
	size_t i, nr, old;
	int rc;

	rc = want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		if (is_ip2nets)
			net = grow(w, &c->ip2nets, &c->nr_ip2nets,
				   sizeof(*net));
		else
			net = grow(w, &c->nets, &c->nr_nets, sizeof(*net));
		if (!net)
			return -ENOMEM;
		old = path_idx(w,
			       is_ip2nets ? c->nr_ip2nets - 1 : c->nr_nets - 1);
		rc = walk_net(w, v->kids[i], is_ip2nets, net);
		path_pop(w, old);
	}
	return rc;
}

/* ---- route, peer ---------------------------------------------------- */

static int walk_route(struct walk *w, const struct ynode *m,
		      struct ul_conf_route *r)
{
	static const char *const keys[] = { "net", "gateway", "hop", "priority",
					    NULL };
	static const char *const ignored[] = { "state", "type",
					       "health_sensitivity", NULL };
	unsigned int seen = 0;
	size_t i, n, old;
	long long v64 = 0;
	int rc, k;

	r->line = m->line;
	r->hop = -1;
	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k < 0) {
			if (key_index(ignored, key->str) >= 0)
				rc = warn(w, key,
					  "not settable on import; "
					  "ignored");
			else
				rc = fail(w, key, "unknown key '%.64s'",
					  key->str);
			path_pop(w, old);
			continue;
		}
		rc = once(w, key, &seen, k);
		if (rc) {
			path_pop(w, old);
			continue;
		}
		switch (k) {
		case 0:
			rc = get_net(w, v, &r->net);
			break;
		case 1:
			rc = get_nid(w, v, &r->gateway);
			break;
		case 2:
			rc = get_int(w, v, INT_MIN, INT_MAX, &v64);
			if (!rc && v64 != -1 && (v64 < 1 || v64 > 255))
				rc = fail(w, v,
					  "'%s': invalid hop count must be "
					  "between 1 and 255",
					  v->str);
			r->hop = (int)v64;
			r->flags |= UL_CONF_ROUTE_HAS_HOP;
			break;
		default:
			rc = get_int(w, v, INT_MIN, INT_MAX, &v64);
			if (!rc && v64 < 0)
				rc = fail(w, v,
					  "'%s': invalid priority, must not "
					  "be negative",
					  v->str);
			r->priority = (unsigned int)v64;
			r->flags |= UL_CONF_ROUTE_HAS_PRIORITY;
			break;
		}
		path_pop(w, old);
	}
	if (rc)
		return rc;
	if (!(seen & 1U << 0))
		return fail(w, m, "missing 'net'");
	if (!(seen & 1U << 1))
		return fail(w, m, "missing 'gateway'");
	if (r->gateway.nid_type == ULNET_LND_LO ||
	    ulnet_nid_net(&r->gateway) == r->net)
		return fail(w, m,
			    "invalid settings for route creation (gateway "
			    "on the remote net or on lo)");
	return 0;
}

/* "health stats" of an export: only "health value" is tolerated. */
static int walk_peer_health(struct walk *w, const struct ynode *key,
			    const struct ynode *m)
{
	size_t i, n;
	int rc;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++)
		if (strcmp(m->kids[2 * i]->str, "health value") != 0)
			rc = fail(w, m->kids[2 * i],
				  "wrong health config format: '%.64s'",
				  m->kids[2 * i]->str);
	return rc ? rc : ignore_state(w, key);
}

static int walk_peer_nis(struct walk *w, const struct ynode *v,
			 struct ul_conf_peer *p)
{
	struct ulnet_nid *nid;
	const struct ynode *m, *key;
	size_t i, j, nr, n, old, old2;
	bool have_nid;
	int rc;

	rc = want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		m = v->kids[i];
		old = path_idx(w, i);
		rc = want_map(w, m, &n);
		have_nid = false;
		for (j = 0; !rc && j < n; j++) {
			key = m->kids[2 * j];
			old2 = path_key(w, key->str);
			if (!strcmp(key->str, "nid")) {
				if (have_nid) {
					rc = fail(w, key,
						  "duplicate key 'nid'");
				} else {
					nid = grow(w, &p->nis, &p->nr_nis,
						   sizeof(*nid));
					rc = nid ? get_nid(w,
							   m->kids[2 * j + 1],
							   nid)
						 : -ENOMEM;
					have_nid = true;
				}
			} else if (!strcmp(key->str, "health stats")) {
				rc = walk_peer_health(w, key,
						      m->kids[2 * j + 1]);
			} else if (key_index(peer_ni_state_keys, key->str) >=
				   0) {
				rc = ignore_state(w, key);
			} else {
				rc = fail(w, key, "unknown key '%.64s'",
					  key->str);
			}
			path_pop(w, old2);
		}
		if (!rc && !have_nid)
			rc = fail(w, m, "missing 'nid'");
		path_pop(w, old);
	}
	return rc;
}

static int walk_peer(struct walk *w, const struct ynode *m,
		     struct ul_conf_peer *p)
{
	static const char *const keys[] = { "primary nid", "Multi-Rail",
					    "peer ni", NULL };
	unsigned int seen = 0;
	struct ul_err e;
	size_t i, n, old;
	const char *s;
	int rc, k;

	p->line = m->line;
	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *v = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k < 0) {
			if (!strcmp(key->str, "peer state"))
				rc = ignore_state(w, key);
			else
				rc = fail(w, key, "unknown key '%.64s'",
					  key->str);
			path_pop(w, old);
			continue;
		}
		rc = once(w, key, &seen, k);
		if (rc) {
			path_pop(w, old);
			continue;
		}
		switch (k) {
		case 0:
			rc = get_nid(w, v, &p->primary_nid);
			break;
		case 1:
			rc = get_str(w, v, &s);
			if (!rc) {
				rc = ul_conf_parse_bool(s, &p->is_multi_rail,
							&e);
				if (rc)
					rc = fail_err(w, v, rc, &e);
			}
			p->flags |= UL_CONF_PEER_HAS_MULTI_RAIL;
			break;
		default:
			rc = walk_peer_nis(w, v, p);
			break;
		}
		path_pop(w, old);
	}
	if (!rc && !(seen & 1U << 0))
		rc = fail(w, m, "missing 'primary nid'");
	return rc;
}

static int walk_routes(struct walk *w, const struct ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_route *r;
	size_t i, nr, old;
	int rc;

	rc = want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		r = grow(w, &c->routes, &c->nr_routes, sizeof(*r));
		if (!r)
			return -ENOMEM;
		old = path_idx(w, c->nr_routes - 1);
		rc = walk_route(w, v->kids[i], r);
		path_pop(w, old);
	}
	return rc;
}

static int walk_peers(struct walk *w, const struct ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_peer *p;
	size_t i, nr, old;
	int rc;

	rc = want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		p = grow(w, &c->peers, &c->nr_peers, sizeof(*p));
		if (!p)
			return -ENOMEM;
		old = path_idx(w, c->nr_peers - 1);
		rc = walk_peer(w, v->kids[i], p);
		path_pop(w, old);
	}
	return rc;
}

/* ---- routing, buffers, numa, global --------------------------------- */

static int walk_routing(struct walk *w, const struct ynode *m)
{
	struct ul_conf *c = w->conf;
	size_t i, n, old;
	long long v = 0;
	int rc;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];

		old = path_key(w, key->str);
		if (strcmp(key->str, "enable") != 0) {
			rc = fail(w, key, "unknown key '%.64s'", key->str);
		} else {
			rc = get_int(w, m->kids[2 * i + 1], 0, 1, &v);
			c->routing_enable = v;
			c->flags |= UL_CONF_HAS_ROUTING;
		}
		path_pop(w, old);
	}
	return rc;
}

static int walk_buffers(struct walk *w, const struct ynode *m)
{
	static const char *const keys[] = { "tiny", "small", "large", NULL };
	static const unsigned int bits[] = { UL_CONF_HAS_TINY_BUFFERS,
					     UL_CONF_HAS_SMALL_BUFFERS,
					     UL_CONF_HAS_LARGE_BUFFERS };
	struct ul_conf *c = w->conf;
	int *const vals[] = { &c->tiny_buffers, &c->small_buffers,
			      &c->large_buffers };
	unsigned int seen = 0;
	size_t i, n, old;
	int rc, k;

	rc = want_map(w, m, &n);
	if (rc)
		return rc;
	/* A buffers section resets the pools it does not name. */
	c->flags |= UL_CONF_HAS_BUFFERS;
	c->flags &= ~(bits[0] | bits[1] | bits[2]);
	c->tiny_buffers = c->small_buffers = c->large_buffers = 0;
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k < 0)
			rc = fail(w, key, "unknown key '%.64s'", key->str);
		else
			rc = once(w, key, &seen, k);
		if (!rc) {
			rc = get_int32(w, m->kids[2 * i + 1], 0, INT_MAX,
				       vals[k]);
			c->flags |= bits[k];
		}
		path_pop(w, old);
	}
	return rc;
}

static void set_global(struct ul_conf *c, enum ul_conf_global_key key,
		       int value)
{
	c->global.value[key] = value;
	c->global.flags |= 1U << key;
}

static int walk_numa(struct walk *w, const struct ynode *m)
{
	size_t i, n, old;
	int rc, v = 0;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];

		old = path_key(w, key->str);
		if (strcmp(key->str, "range") != 0)
			rc = fail(w, key, "unknown key '%.64s'", key->str);
		else
			rc = get_int32(w, m->kids[2 * i + 1], 0, INT_MAX, &v);
		path_pop(w, old);
	}
	/* As lnetctl: a numa section without range sets 0. */
	if (!rc)
		set_global(w->conf, UL_CONF_GLOBAL_NUMA_RANGE, v);
	return rc;
}

/* One global parameter; false in *known when key is not one. */
static int global_param(struct walk *w, const struct ynode *key,
			const struct ynode *v, bool *known)
{
	struct ul_err e;
	long long val;
	size_t old;
	int rc, k;

	k = ul_conf_global_lookup(key->str);
	*known = k >= 0 || !strcmp(key->str, "lnd_timeout");
	if (!*known)
		return 0;
	old = path_key(w, key->str);
	rc = get_int(w, v, LLONG_MIN, LLONG_MAX, &val);
	if (!rc && k < 0) {
		rc = warn(w, key, "read-only; ignored");
	} else if (!rc) {
		rc = ul_conf_global_check(k, val, &e);
		if (rc)
			rc = fail_err(w, v, rc, &e);
		else
			set_global(w->conf, k, (int)val);
		if (!rc && k == UL_CONF_GLOBAL_RECOVERY_INTERVAL)
			rc = warn(w, key, "deprecated, has no effect");
	}
	path_pop(w, old);
	return rc;
}

static int walk_global(struct walk *w, const struct ynode *m)
{
	size_t i, n;
	bool known;
	int rc;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];

		rc = global_param(w, key, m->kids[2 * i + 1], &known);
		if (!rc && !known)
			rc = fail(w, key, "invalid key '%.64s'", key->str);
	}
	return rc;
}

/* ---- udsp ----------------------------------------------------------- */

enum {
	UK_IDX,
	UK_SRC,
	UK_DST,
	UK_RTE,
	UK_PRIORITY,
	UK_ACTION,
};

static int udsp_descr(struct walk *w, const struct ynode *key,
		      const struct ynode *v, char **out)
{
	struct ul_nid_descr *d;
	struct ul_err e;
	const char *s;
	int rc;

	rc = get_str(w, v, &s);
	if (rc)
		return rc;
	rc = ul_nid_descr_parse(s, &d, &e);
	if (rc == -ENOMEM)
		return ul_err_set(w->err, rc, "out of memory");
	if (rc)
		return fail(w, v, "failed to parse %s parameter: %s", key->str,
			    e.msg);
	ul_nid_descr_free(d);
	*out = strdup(s);
	if (!*out)
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	return 0;
}

static int udsp_priority(struct walk *w, const struct ynode *v,
			 struct ul_conf_udsp *u)
{
	long long val;
	int rc;

	rc = get_int(w, v, 0, UINT32_MAX, &val);
	if (!rc) {
		u->priority = (unsigned int)val;
		u->flags |= UL_CONF_UDSP_HAS_PRIORITY;
	}
	return rc;
}

static int walk_udsp_action(struct walk *w, const struct ynode *m,
			    struct ul_conf_udsp *u)
{
	size_t i, n, old;
	int rc;

	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];

		old = path_key(w, key->str);
		if (strcmp(key->str, "priority") != 0)
			rc = fail(w, key, "unknown key '%.64s'", key->str);
		else
			rc = udsp_priority(w, m->kids[2 * i + 1], u);
		path_pop(w, old);
	}
	return rc;
}

static int walk_udsp_rule(struct walk *w, const struct ynode *m,
			  struct ul_conf_udsp *u, bool *has_idx)
{
	static const char *const keys[] = { "idx",	"src",	  "dst", "rte",
					    "priority", "action", NULL };
	char **const descr[] = { NULL, &u->src, &u->dst, &u->rte };
	unsigned int seen = 0;
	size_t i, n, old;
	long long v = 0;
	int rc, k;

	u->line = m->line;
	rc = want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ynode *key = m->kids[2 * i];
		const struct ynode *val = m->kids[2 * i + 1];

		old = path_key(w, key->str);
		k = key_index(keys, key->str);
		if (k < 0)
			rc = fail(w, key, "unknown key '%.64s'", key->str);
		else
			rc = once(w, key, &seen, k);
		if (rc) {
			path_pop(w, old);
			break;
		}
		switch (k) {
		case UK_IDX:
			rc = get_int(w, val, 0, INT_MAX, &v);
			u->idx = (unsigned int)v;
			break;
		case UK_SRC:
		case UK_DST:
		case UK_RTE:
			rc = udsp_descr(w, key, val, descr[k]);
			break;
		case UK_PRIORITY:
			rc = udsp_priority(w, val, u);
			break;
		default:
			rc = walk_udsp_action(w, val, u);
			break;
		}
		path_pop(w, old);
	}
	if (rc)
		return rc;
	*has_idx = seen & 1U << UK_IDX;
	if (!u->src && !u->dst && !u->rte)
		return fail(w, m, "at least one of src, dst and rte is needed");
	if (u->src && u->dst && u->rte)
		return fail(w, m,
			    "The combination of src, dst and rte is not "
			    "supported");
	if (u->src && u->rte)
		return fail(w, m, "src and rte cannot be combined");
	return 0;
}

static int walk_udsps(struct walk *w, const struct ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_udsp *u;
	size_t i, nr, old;
	bool has_idx;
	int rc;

	rc = want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		u = grow(w, &c->udsps, &c->nr_udsps, sizeof(*u));
		if (!u)
			return -ENOMEM;
		old = path_idx(w, i);
		has_idx = false;
		rc = walk_udsp_rule(w, v->kids[i], u, &has_idx);
		if (!rc && !has_idx) {
			/* lnetctl submits a rule only once it read an idx. */
			rc = warn(w, v->kids[i],
				  "rule without 'idx' is skipped");
			free(u->src);
			free(u->dst);
			free(u->rte);
			c->nr_udsps--;
		}
		path_pop(w, old);
	}
	return rc;
}

/* ---- top level ------------------------------------------------------ */

static void note_section(struct ul_conf *c, enum ul_conf_section sec)
{
	unsigned int i;

	for (i = 0; i < c->nr_order; i++)
		if (c->order[i] == sec)
			return;
	c->order[c->nr_order++] = sec;
}

static int walk_section(struct walk *w, const struct ynode *key,
			const struct ynode *v)
{
	static const char *const names[UL_CONF_SEC_NR + 1] = {
		"net",	   "ip2nets", "route",	"peer", "routing",
		"buffers", "numa",    "global", "udsp", NULL,
	};
	size_t old;
	bool known;
	int rc, sec;

	sec = key_index(names, key->str);
	if (sec < 0) {
		rc = global_param(w, key, v, &known);
		if (rc || known) {
			if (!rc)
				note_section(w->conf, UL_CONF_SEC_GLOBAL);
			return rc;
		}
		if (!strcmp(key->str, "ping") || !strcmp(key->str, "discover"))
			return warn(w, key,
				    "section '%s' is only run by import "
				    "--exec; ignored",
				    key->str);
		if (!strcmp(key->str, "statistics"))
			return warn(w, key, "section 'statistics' ignored");
		return fail(w, key, "unknown section '%.64s'", key->str);
	}
	note_section(w->conf, sec);
	old = path_key(w, key->str);
	switch (sec) {
	case UL_CONF_SEC_NET:
	case UL_CONF_SEC_IP2NETS:
		rc = walk_nets(w, v, sec == UL_CONF_SEC_IP2NETS);
		break;
	case UL_CONF_SEC_ROUTE:
		rc = walk_routes(w, v);
		break;
	case UL_CONF_SEC_PEER:
		rc = walk_peers(w, v);
		break;
	case UL_CONF_SEC_ROUTING:
		rc = walk_routing(w, v);
		break;
	case UL_CONF_SEC_BUFFERS:
		rc = walk_buffers(w, v);
		break;
	case UL_CONF_SEC_NUMA:
		rc = walk_numa(w, v);
		break;
	case UL_CONF_SEC_GLOBAL:
		rc = walk_global(w, v);
		break;
	default:
		rc = walk_udsps(w, v);
		break;
	}
	path_pop(w, old);
	return rc;
}

int ul_conf_parse(const char *text, size_t len, struct ul_conf *conf,
		  struct ul_err *err)
{
	struct ynode *root = NULL;
	struct ul_conf tmp;
	struct walk w;
	size_t i;
	int rc;

	if (len > UL_CONF_MAX_BYTES)
		return ul_err_set(err, -EINVAL,
				  "the document is larger than %d bytes",
				  UL_CONF_MAX_BYTES);
	rc = build_tree(text, len, &root, err);
	if (rc)
		return rc;
	ul_conf_init(&tmp);
	memset(&w, 0, sizeof(w));
	w.conf = &tmp;
	w.err = err;
	if (root && root->type != YN_MAP && !root->is_null)
		rc = fail(&w, root, "expected a mapping of sections, found %s",
			  type_name(root));
	for (i = 0; !rc && root && root->type == YN_MAP && i < root->nr / 2;
	     i++)
		rc = walk_section(&w, root->kids[2 * i], root->kids[2 * i + 1]);
	ynode_free(root);
	if (rc) {
		ul_conf_fini(&tmp);
		return rc;
	}
	ul_conf_fini(conf);
	*conf = tmp;
	return 0;
}
