/*
 * The "udsp" section of lnet.conf: user-defined selection policy rules,
 * as each of lnetctl's importers submits them (udsp.md §7.2,
 * lnetctl.md §17.3; struct ul_conf_udsp).
 *
 * The netlink import reads the section as a stream of YAML events: the
 * keys "idx", "priority", "src", "dst" and "rte" are picked up at any
 * depth ("priority" under "action" too), and the end of any mapping
 * submits a rule if an "idx" was read since the last one. src, dst, rte
 * and idx start afresh after a submission; the priority never does. The
 * first end of a sequence ends the section. The walk below visits the
 * tree in that same order.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

/* What the netlink import has read since its last submission. */
struct udsp_stream {
	char *src, *dst, *rte;
	bool has_idx;
	long long idx;
	long long priority; /* -1 (UINT32_MAX) until one is read */
	bool is_done;	    /* a sequence ended */
};

static void stream_clear(struct udsp_stream *st)
{
	free(st->src);
	free(st->dst);
	free(st->rte);
	st->src = st->dst = st->rte = NULL;
	st->has_idx = false;
}

static int dup_text(struct ul_conf_walk *w, const char *s, char **out)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	*out = d;
	return 0;
}

/* The end of a mapping with an idx read: one rule for LNet. */
static int submit(struct ul_conf_walk *w, struct udsp_stream *st,
		  const struct ul_ynode *m)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_udsp *u;
	int rc;

	u = ul_conf_walk_grow(w, &c->udsps, &c->nr_udsps, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->idx = st->idx < INT_MIN   ? INT_MIN
		 : st->idx > INT_MAX ? INT_MAX
				     : (int)st->idx;
	u->flags = UL_CONF_UDSP_HAS_PRIORITY;
	u->priority = st->priority;
	u->seq_no = -1;
	u->line = m->line;
	rc = dup_text(w, st->src, &u->src);
	if (!rc)
		rc = dup_text(w, st->dst, &u->dst);
	if (!rc)
		rc = dup_text(w, st->rte, &u->rte);
	if (rc) {
		ul_conf_udsp_fini(u);
		c->nr_udsps--;
		return rc;
	}
	stream_clear(st);
	return 0;
}

static int visit(struct ul_conf_walk *w, struct udsp_stream *st,
		 const struct ul_ynode *n);

/* One key and its value, as the stream meets them. */
static int visit_pair(struct ul_conf_walk *w, struct udsp_stream *st,
		      const struct ul_ynode *key, const struct ul_ynode *v)
{
	char **text = NULL;
	long long val;
	size_t old;
	int rc = 0;

	if (key->type != UL_YNODE_SCALAR) {
		rc = visit(w, st, key);
		return rc || st->is_done ? rc : visit(w, st, v);
	}
	old = ul_conf_walk_push_key(w, key->str);
	if (!strcmp(key->str, "idx") || !strcmp(key->str, "priority")) {
		rc = ul_conf_walk_get_long(w, key, v, &val);
		if (!rc && key->str[0] == 'i') {
			st->idx = val;
			st->has_idx = true;
		} else if (!rc) {
			st->priority = val;
		}
	} else if (!strcmp(key->str, "src")) {
		text = &st->src;
	} else if (!strcmp(key->str, "dst")) {
		text = &st->dst;
	} else if (!strcmp(key->str, "rte")) {
		text = &st->rte;
	} else {
		rc = visit(w, st, v);
	}
	if (text && v->type == UL_YNODE_SCALAR) {
		free(*text);
		rc = dup_text(w, v->str, text);
	} else if (text) {
		rc = visit(w, st, v);
	}
	ul_conf_walk_pop(w, old);
	return rc;
}

static int visit(struct ul_conf_walk *w, struct udsp_stream *st,
		 const struct ul_ynode *n)
{
	size_t i, old;
	int rc = 0;

	if (n->type == UL_YNODE_MAP) {
		for (i = 0; !rc && !st->is_done && i + 1 < n->nr; i += 2)
			rc = visit_pair(w, st, n->kids[i], n->kids[i + 1]);
		if (!rc && !st->is_done && st->has_idx)
			rc = submit(w, st, n);
	} else if (n->type == UL_YNODE_SEQ) {
		for (i = 0; !rc && !st->is_done && i < n->nr; i++) {
			old = ul_conf_walk_push_idx(w, i);
			rc = visit(w, st, n->kids[i]);
			ul_conf_walk_pop(w, old);
		}
		st->is_done = true;
	}
	return rc;
}

/*
 * The legacy parser's lookup of a key in an item (cYAML_get_object_item):
 * depth first, in document order, so "priority" under "action" is found.
 * NULL if the item has no such key.
 */
static const struct ul_ynode *old_find(const struct ul_ynode *n,
				       const char *key)
{
	const struct ul_ynode *v;
	size_t i;

	if (!n || n->type == UL_YNODE_SCALAR)
		return NULL;
	for (i = 0; i < n->nr; i++) {
		if (n->type == UL_YNODE_MAP && i % 2 == 0) {
			if (n->kids[i]->str && !strcmp(n->kids[i]->str, key))
				return n->kids[i + 1];
			continue;
		}
		v = old_find(n->kids[i], key);
		if (v)
			return v;
	}
	return NULL;
}

/* --old-api: one rule per item, its keys found as the legacy parser does. */
static int walk_old_rule(struct ul_conf_walk *w, const struct ul_ynode *m,
			 struct ul_conf_udsp *u)
{
	static const char *const keys[] = { "src", "dst", "rte", NULL };
	char **const texts[] = { &u->src, &u->dst, &u->rte };
	const struct ul_ynode *v;
	const char *str;
	long long val;
	int rc = 0, k;

	u->idx = -1;
	u->line = m->line;
	u->seq_no = ul_conf_walk_seq_no(m);
	for (k = 0; !rc && keys[k]; k++) {
		v = old_find(m, keys[k]);
		if (v)
			rc = ul_conf_walk_get_str(w, v, &str);
		if (v && !rc)
			rc = dup_text(w, str, texts[k]);
	}
	v = rc ? NULL : old_find(m, "idx");
	if (v) {
		rc = ul_conf_walk_get_int(w, v, INT_MIN, INT_MAX, &val);
		/* LNet appends for any negative index: -1 says so here. */
		u->idx = val < 0 ? -1 : (int)val;
	}
	v = rc ? NULL : old_find(m, "priority");
	if (v) {
		rc = ul_conf_walk_get_int(w, v, LLONG_MIN, LLONG_MAX,
					  &u->priority);
		u->flags |= UL_CONF_UDSP_HAS_PRIORITY;
	}
	return rc;
}

static int walk_old_rules(struct ul_conf_walk *w, const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_udsp *u;
	size_t i, nr, old;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		u = ul_conf_walk_grow(w, &c->udsps, &c->nr_udsps, sizeof(*u));
		if (!u)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, i);
		rc = walk_old_rule(w, v->kids[i], u);
		ul_conf_walk_pop(w, old);
		if (rc) {
			ul_conf_udsp_fini(u);
			c->nr_udsps--;
		}
	}
	return rc;
}

int ul_conf_walk_udsps(struct ul_conf_walk *w, const struct ul_ynode *key,
		       const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_step s = { .sec = UL_CONF_SEC_UDSP, .key = -1 };
	struct udsp_stream st = { .priority = -1 };
	int rc, rc2;

	s.first = c->nr_udsps;
	s.line = key->line;
	s.seq_no = -1;
	if (w->dialect == UL_CONF_OLD_API) {
		ul_conf_walk_report_as(w, "add", "udsp", -EINVAL, -EINVAL);
		rc = walk_old_rules(w, v);
	} else {
		rc = visit(w, &st, v);
		stream_clear(&st);
	}
	s.nr = c->nr_udsps - s.first;
	s.is_cut = rc != 0;
	if (rc == -ENOMEM)
		return rc;
	rc2 = ul_conf_walk_step(w, &s);
	return rc ? rc : rc2;
}
