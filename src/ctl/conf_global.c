/*
 * The instance-wide sections of lnet.conf: "routing", "buffers", "numa"
 * and "global", and the global parameters written at the top level.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

int ul_conf_walk_routing(struct ul_conf_walk *w, const struct ul_ynode *m)
{
	struct ul_conf *c = w->conf;
	size_t i, n, old;
	long long v = 0;
	int rc;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		if (strcmp(key->str, "enable") != 0) {
			rc = ul_conf_walk_fail(w, key, "unknown key '%.64s'",
					       key->str);
		} else {
			/*
			 * export --backup writes LNet's state (0..3: 2 is
			 * stopping, 3 starting); lnetctl turns any non-zero
			 * value into "enable".
			 */
			rc = ul_conf_walk_get_int(w, m->kids[2 * i + 1], 0, 3,
						  &v);
			c->routing_enable = v != 0;
			c->flags |= UL_CONF_HAS_ROUTING;
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

int ul_conf_walk_buffers(struct ul_conf_walk *w, const struct ul_ynode *m)
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

	rc = ul_conf_walk_want_map(w, m, &n);
	if (rc)
		return rc;
	/* A buffers section resets the pools it does not name. */
	c->flags |= UL_CONF_HAS_BUFFERS;
	c->flags &= ~(bits[0] | bits[1] | bits[2]);
	c->tiny_buffers = c->small_buffers = c->large_buffers = 0;
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k < 0)
			rc = ul_conf_walk_fail(w, key, "unknown key '%.64s'",
					       key->str);
		else
			rc = ul_conf_walk_once(w, key, &seen, k);
		if (!rc) {
			rc = ul_conf_walk_get_int32(w, m->kids[2 * i + 1], 0,
						    INT_MAX, vals[k]);
			c->flags |= bits[k];
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

static void set_global(struct ul_conf *c, enum ul_conf_global_key key,
		       int value)
{
	c->global.value[key] = value;
	c->global.flags |= 1U << key;
}

int ul_conf_walk_numa(struct ul_conf_walk *w, const struct ul_ynode *m)
{
	size_t i, n, old;
	int rc, v = 0;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		if (strcmp(key->str, "range") != 0)
			rc = ul_conf_walk_fail(w, key, "unknown key '%.64s'",
					       key->str);
		else
			rc = ul_conf_walk_get_int32(w, m->kids[2 * i + 1], 0,
						    INT_MAX, &v);
		ul_conf_walk_pop(w, old);
	}
	/* As lnetctl: a numa section without range sets 0. */
	if (!rc)
		set_global(w->conf, UL_CONF_GLOBAL_NUMA_RANGE, v);
	return rc;
}

int ul_conf_walk_global_param(struct ul_conf_walk *w,
			      const struct ul_ynode *key,
			      const struct ul_ynode *v, bool *known)
{
	struct ul_err e;
	long long val;
	size_t old;
	int rc, k;

	k = ul_conf_global_lookup(key->str);
	*known = k >= 0 || !strcmp(key->str, "lnd_timeout");
	if (!*known)
		return 0;
	old = ul_conf_walk_push_key(w, key->str);
	/* lnetctl's words for these two (lnetctl.md §16); scripts grep them */
	if (v->type == UL_YNODE_SCALAR && v->is_null)
		rc = ul_conf_walk_fail(
			w, v, "no value specified for key '%.64s'", key->str);
	else if (v->type == UL_YNODE_SCALAR &&
		 ul_conf_parse_int(v->str, LLONG_MIN, LLONG_MAX, &val, NULL))
		rc = ul_conf_walk_fail(w, v,
				       "invalid value '%.64s' for key '%.64s'",
				       v->str, key->str);
	else
		rc = ul_conf_walk_get_int(w, v, LLONG_MIN, LLONG_MAX, &val);
	if (!rc && k < 0) {
		rc = ul_conf_walk_warn(w, key, "read-only; ignored");
	} else if (!rc) {
		rc = ul_conf_global_check(k, val, &e);
		if (rc)
			rc = ul_conf_walk_fail_err(w, v, rc, &e);
		else
			set_global(w->conf, k, (int)val);
		if (!rc && k == UL_CONF_GLOBAL_RECOVERY_INTERVAL)
			rc = ul_conf_walk_warn(w, key,
					       "deprecated, has no effect");
	}
	ul_conf_walk_pop(w, old);
	return rc;
}

int ul_conf_walk_global(struct ul_conf_walk *w, const struct ul_ynode *m)
{
	size_t i, n;
	bool known;
	int rc;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		rc = ul_conf_walk_global_param(w, key, m->kids[2 * i + 1],
					       &known);
		if (!rc && !known)
			rc = ul_conf_walk_fail(w, key, "invalid key '%.64s'",
					       key->str);
	}
	return rc;
}
