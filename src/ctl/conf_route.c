/* The "route" section of lnet.conf: remote nets and their gateways. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

static int walk_route(struct ul_conf_walk *w, const struct ul_ynode *m,
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
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k < 0) {
			if (ul_conf_walk_key_index(ignored, key->str) >= 0)
				rc = ul_conf_walk_warn(
					w, key,
					"not settable on import; "
					"ignored");
			else
				rc = ul_conf_walk_fail(w, key,
						       "unknown key '%.64s'",
						       key->str);
			ul_conf_walk_pop(w, old);
			continue;
		}
		rc = ul_conf_walk_once(w, key, &seen, k);
		if (rc) {
			ul_conf_walk_pop(w, old);
			continue;
		}
		switch (k) {
		case 0:
			rc = ul_conf_walk_get_net(w, v, &r->net);
			break;
		case 1:
			rc = ul_conf_walk_get_nid(w, v, &r->gateway);
			break;
		case 2:
			rc = ul_conf_walk_get_int(w, v, INT_MIN, INT_MAX, &v64);
			if (!rc && v64 != -1 && (v64 < 1 || v64 > 255))
				rc = ul_conf_walk_fail(
					w, v,
					"'%s': invalid hop count must be "
					"between 1 and 255",
					v->str);
			r->hop = (int)v64;
			r->flags |= UL_CONF_ROUTE_HAS_HOP;
			break;
		default:
			rc = ul_conf_walk_get_int(w, v, INT_MIN, INT_MAX, &v64);
			if (!rc && v64 < 0)
				rc = ul_conf_walk_fail(
					w, v,
					"'%s': invalid priority, must not "
					"be negative",
					v->str);
			r->priority = (unsigned int)v64;
			r->flags |= UL_CONF_ROUTE_HAS_PRIORITY;
			break;
		}
		ul_conf_walk_pop(w, old);
	}
	if (rc)
		return rc;
	if (!(seen & 1U << 0))
		return ul_conf_walk_fail(w, m, "missing 'net'");
	if (!(seen & 1U << 1))
		return ul_conf_walk_fail(w, m, "missing 'gateway'");
	if (r->gateway.nid_type == ULNET_LND_LO ||
	    ulnet_nid_net(&r->gateway) == r->net)
		return ul_conf_walk_fail(
			w, m,
			"invalid settings for route creation (gateway "
			"on the remote net or on lo)");
	return 0;
}

int ul_conf_walk_routes(struct ul_conf_walk *w, const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_route *r;
	size_t i, nr, old;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		r = ul_conf_walk_grow(w, &c->routes, &c->nr_routes, sizeof(*r));
		if (!r)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, c->nr_routes - 1);
		rc = walk_route(w, v->kids[i], r);
		ul_conf_walk_pop(w, old);
	}
	return rc;
}
