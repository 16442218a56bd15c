/* The walk state and the helpers every lnet.conf section uses. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"
#include "nid/lnd.h"

static size_t path_add(struct ul_conf_walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append to the path; returns the length to pop back to. */
static size_t path_add(struct ul_conf_walk *w, const char *fmt, ...)
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

size_t ul_conf_walk_push_key(struct ul_conf_walk *w, const char *key)
{
	return path_add(w, w->plen ? ".%.40s" : "%.40s", key);
}

size_t ul_conf_walk_push_idx(struct ul_conf_walk *w, size_t i)
{
	return path_add(w, "[%zu]", i);
}

void ul_conf_walk_pop(struct ul_conf_walk *w, size_t old)
{
	w->plen = old;
	w->path[old] = '\0';
}

void ul_conf_walk_fail_fmt(struct ul_conf_walk *w, const struct ul_ynode *n,
			   const char *fmt, ...)
{
	char what[UL_ERR_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	w->fail_line = n->line;
	if (!w->plen)
		ul_err_fmt(w->err, -EINVAL, "line %u, column %u: %s", n->line,
			   n->column, what);
	else
		ul_err_fmt(w->err, -EINVAL, "line %u, column %u: %s: %s",
			   n->line, n->column, w->path, what);
}

/* A helper refused node n with code and reason e. */
int ul_conf_walk_fail_err(struct ul_conf_walk *w, const struct ul_ynode *n,
			  int code, const struct ul_err *e)
{
	if (code == -ENOMEM)
		return ul_err_set(w->err, code, "out of memory");
	return ul_conf_walk_fail(w, n, "%s", e->msg);
}

void ul_conf_walk_report_as(struct ul_conf_walk *w, const char *d2_op,
			    const char *object, int errnum, int status)
{
	w->d2_op = d2_op;
	w->object = object;
	w->errnum = errnum;
	w->status = status;
}

void ul_conf_walk_report_descr(struct ul_conf_walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->descr, sizeof(w->descr), fmt, ap);
	va_end(ap);
}

/* Record a note about node n; returns 0 or -ENOMEM. */
int ul_conf_walk_note(struct ul_conf_walk *w, const struct ul_ynode *n,
		      enum ul_conf_note_kind kind, const char *fmt, ...)
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
	wa->kind = kind;
	wa->line = n->line;
	wa->column = n->column;
	wa->step = c->nr_steps;
	/* "<path>: <what>"; lnetctl's own lines stand alone */
	off = w->plen && kind != UL_CONF_NOTE_LNETCTL
		      ? (size_t)snprintf(wa->text, sizeof(wa->text),
					 "%s: ", w->path)
		      : 0;
	va_start(ap, fmt);
	vsnprintf(wa->text + off, sizeof(wa->text) - off, fmt, ap);
	va_end(ap);
	return 0;
}

int ul_conf_walk_skip(struct ul_conf_walk *w, const struct ul_ynode *k,
		      const char *why)
{
	return ul_conf_walk_note(w, k, UL_CONF_NOTE_SKIPPED, "%s", why);
}

/* Edit distance of a and b, case aside, capped at 16 (short keys). */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[33], i, j, diag, up, n = 0, m = 0;

	while (a[n] && n < 32)
		n++;
	while (b[m] && m < 32)
		m++;
	for (j = 0; j <= m; j++)
		row[j] = j;
	for (i = 1; i <= n; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= m; j++) {
			unsigned int cost = tolower((unsigned char)a[i - 1]) !=
					    tolower((unsigned char)b[j - 1]);

			up = row[j];
			row[j] = up + 1 < row[j - 1] + 1 ? up + 1
							 : row[j - 1] + 1;
			if (diag + cost < row[j])
				row[j] = diag + cost;
			diag = up;
		}
	}
	return row[m] < 16 ? row[m] : 16;
}

int ul_conf_walk_skip_key(struct ul_conf_walk *w, const struct ul_ynode *k,
			  const char *const *table, const char *why)
{
	unsigned int best = 16, d, limit;
	const char *near = NULL;
	size_t i;

	for (i = 0; table[i]; i++) {
		d = distance(k->str, table[i]);
		if (d < best) {
			best = d;
			near = table[i];
		}
	}
	/* A few letters off: a third of the key, at least 2, at most 4. */
	limit = (unsigned int)strlen(k->str) / 3;
	limit = limit < 2 ? 2 : limit > 4 ? 4 : limit;
	if (near && best <= limit)
		return ul_conf_walk_note(w, k, UL_CONF_NOTE_SKIPPED,
					 "%s (did you mean '%s'?)", why, near);
	return ul_conf_walk_skip(w, k, why);
}

/* The text of a scalar that has a value. */
int ul_conf_walk_get_str(struct ul_conf_walk *w, const struct ul_ynode *n,
			 const char **s)
{
	if (n->type != UL_YNODE_SCALAR)
		return ul_conf_walk_fail(w, n, "expected a value, found %s",
					 ul_ytree_type_name(n));
	if (n->is_null)
		return ul_conf_walk_fail(w, n, "no value specified");
	*s = n->str;
	return 0;
}

int ul_conf_walk_get_int(struct ul_conf_walk *w, const struct ul_ynode *n,
			 long long min, long long max, long long *out)
{
	struct ul_err e;
	const char *s;
	int rc;

	rc = ul_conf_walk_get_str(w, n, &s);
	if (rc)
		return rc;
	rc = ul_conf_parse_int(s, min, max, out, &e);
	if (rc)
		return ul_conf_walk_fail_err(w, n, rc, &e);
	return 0;
}

int ul_conf_walk_get_int32(struct ul_conf_walk *w, const struct ul_ynode *n,
			   long long min, long long max, int *out)
{
	long long v;
	int rc;

	rc = ul_conf_walk_get_int(w, n, min, max, &v);
	if (!rc)
		*out = (int)v;
	return rc;
}

/* n must be a mapping (or null: empty); *nr_pairs is its size. */
int ul_conf_walk_want_map(struct ul_conf_walk *w, const struct ul_ynode *n,
			  size_t *nr_pairs)
{
	if (n->type == UL_YNODE_SCALAR && n->is_null) {
		*nr_pairs = 0;
		return 0;
	}
	if (n->type != UL_YNODE_MAP)
		return ul_conf_walk_fail(w, n, "expected a mapping, found %s",
					 ul_ytree_type_name(n));
	*nr_pairs = n->nr / 2;
	return 0;
}

int ul_conf_walk_want_seq(struct ul_conf_walk *w, const struct ul_ynode *n,
			  size_t *nr)
{
	if (n->type == UL_YNODE_SCALAR && n->is_null) {
		*nr = 0;
		return 0;
	}
	if (n->type != UL_YNODE_SEQ)
		return ul_conf_walk_fail(w, n, "expected a sequence, found %s",
					 ul_ytree_type_name(n));
	*nr = n->nr;
	return 0;
}

/* Index of key in a NULL-terminated table, or -1. */
int ul_conf_walk_key_index(const char *const *table, const char *key)
{
	int i;

	for (i = 0; table[i]; i++)
		if (!strcmp(table[i], key))
			return i;
	return -1;
}

/* Grow *arr (of *nr elements of size sz) by one zeroed element. */
void *ul_conf_walk_grow(struct ul_conf_walk *w, void *arr_ptr, size_t *nr,
			size_t sz)
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

int ul_conf_walk_step(struct ul_conf_walk *w, const struct ul_conf_step *s)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_step *st;

	st = ul_conf_walk_grow(w, &c->steps, &c->nr_steps, sizeof(*st));
	if (!st)
		return -ENOMEM;
	*st = *s;
	return 0;
}

int ul_conf_walk_seq_no(const struct ul_ynode *m)
{
	long long v;
	size_t i;

	for (i = 0; m && m->type == UL_YNODE_MAP && i + 1 < m->nr; i += 2)
		if (m->kids[i]->str && strcmp(m->kids[i]->str, "seq_no") == 0 &&
		    m->kids[i + 1]->type == UL_YNODE_SCALAR &&
		    ul_conf_parse_int(m->kids[i + 1]->str, 0, INT_MAX, &v,
				      NULL) == 0)
			return (int)v;
	return -1;
}

int ul_conf_walk_get_long(struct ul_conf_walk *w, const struct ul_ynode *key,
			  const struct ul_ynode *v, long long *out)
{
	if (v->type == UL_YNODE_SCALAR && v->is_null)
		return ul_conf_walk_fail(
			w, v, "no value specified for key '%.64s'", key->str);
	if (v->type != UL_YNODE_SCALAR ||
	    ul_conf_parse_int(v->str, LLONG_MIN, LLONG_MAX, out, NULL))
		return ul_conf_walk_fail(
			w, v, "invalid value '%.64s' for key '%.64s'",
			v->type == UL_YNODE_SCALAR ? v->str : "", key->str);
	return 0;
}

int ul_conf_walk_get_nid(struct ul_conf_walk *w, const struct ul_ynode *v,
			 struct ulnet_nid *nid)
{
	char why[128];
	const char *s;
	int rc;

	rc = ul_conf_walk_get_str(w, v, &s);
	if (rc)
		return rc;
	if (ulnet_nid_parse(s, nid, why, sizeof(why)))
		return ul_conf_walk_fail(w, v, "'%.64s' is not a valid NID: %s",
					 s, why);
	return 0;
}

int ul_conf_walk_get_peer_nid(struct ul_conf_walk *w, const struct ul_ynode *v,
			      struct ulnet_nid *nid)
{
	const char *s;
	int rc;

	if (w->dialect == UL_CONF_OLD_API)
		return ul_conf_walk_get_nid(w, v, nid);
	rc = ul_conf_walk_get_str(w, v, &s);
	if (rc)
		return rc;
	if (ul_nid_parse_lnet(s, nid) == 0)
		return 0;
	return ul_conf_walk_get_nid(w, v, nid); /* for its words */
}

int ul_conf_walk_get_net(struct ul_conf_walk *w, const struct ul_ynode *v,
			 uint32_t *net)
{
	const char *s;
	int rc;

	rc = ul_conf_walk_get_str(w, v, &s);
	if (rc)
		return rc;
	/* lnetctl's words alone (lnetctl.md §16), after the place */
	if (ulnet_net_parse(s, net, NULL, 0))
		return ul_conf_walk_fail(w, v, "Invalid network ID '%.64s'", s);
	return 0;
}
