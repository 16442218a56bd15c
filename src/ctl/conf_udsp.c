/* The "udsp" section of lnet.conf: user-defined selection policy rules. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"
#include "nid/nid_descr.h"

enum {
	UK_IDX,
	UK_SRC,
	UK_DST,
	UK_RTE,
	UK_PRIORITY,
	UK_ACTION,
};

static int udsp_descr(struct ul_conf_walk *w, const struct ul_ynode *key,
		      const struct ul_ynode *v, char **out)
{
	struct ul_nid_descr *d;
	struct ul_err e;
	const char *s;
	int rc;

	rc = ul_conf_walk_get_str(w, v, &s);
	if (rc)
		return rc;
	rc = ul_nid_descr_parse(s, &d, &e);
	if (rc == -ENOMEM)
		return ul_err_set(w->err, rc, "out of memory");
	if (rc)
		return ul_conf_walk_fail(w, v,
					 "failed to parse %s parameter: %s",
					 key->str, e.msg);
	ul_nid_descr_free(d);
	*out = strdup(s);
	if (!*out)
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	return 0;
}

static int udsp_priority(struct ul_conf_walk *w, const struct ul_ynode *v,
			 struct ul_conf_udsp *u)
{
	long long val;
	int rc;

	rc = ul_conf_walk_get_int(w, v, 0, UINT32_MAX, &val);
	if (!rc) {
		u->priority = (unsigned int)val;
		u->flags |= UL_CONF_UDSP_HAS_PRIORITY;
	}
	return rc;
}

static int walk_udsp_action(struct ul_conf_walk *w, const struct ul_ynode *m,
			    struct ul_conf_udsp *u)
{
	size_t i, n, old;
	int rc;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		if (strcmp(key->str, "priority") != 0)
			rc = ul_conf_walk_fail(w, key, "unknown key '%.64s'",
					       key->str);
		else
			rc = udsp_priority(w, m->kids[2 * i + 1], u);
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

static int walk_udsp_rule(struct ul_conf_walk *w, const struct ul_ynode *m,
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
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *val = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k < 0)
			rc = ul_conf_walk_fail(w, key, "unknown key '%.64s'",
					       key->str);
		else
			rc = ul_conf_walk_once(w, key, &seen, k);
		if (rc) {
			ul_conf_walk_pop(w, old);
			break;
		}
		switch (k) {
		case UK_IDX:
			rc = ul_conf_walk_get_int(w, val, 0, INT_MAX, &v);
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
		ul_conf_walk_pop(w, old);
	}
	if (rc)
		return rc;
	*has_idx = seen & 1U << UK_IDX;
	if (!u->src && !u->dst && !u->rte)
		return ul_conf_walk_fail(
			w, m, "at least one of src, dst and rte is needed");
	if (u->src && u->dst && u->rte)
		return ul_conf_walk_fail(
			w, m,
			"The combination of src, dst and rte is not "
			"supported");
	if (u->src && u->rte)
		return ul_conf_walk_fail(w, m,
					 "src and rte cannot be combined");
	return 0;
}

int ul_conf_walk_udsps(struct ul_conf_walk *w, const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_udsp *u;
	size_t i, nr, old;
	bool has_idx;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		u = ul_conf_walk_grow(w, &c->udsps, &c->nr_udsps, sizeof(*u));
		if (!u)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, i);
		has_idx = false;
		rc = walk_udsp_rule(w, v->kids[i], u, &has_idx);
		if (!rc && !has_idx) {
			/* lnetctl submits a rule only once it read an idx. */
			rc = ul_conf_walk_warn(w, v->kids[i],
					       "rule without 'idx' is skipped");
			free(u->src);
			free(u->dst);
			free(u->rte);
			c->nr_udsps--;
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}
