/*
 * The "route" section of lnet.conf: remote nets and their gateways, kept
 * as written. lnetctl streams the section to LNet, which checks the net,
 * the gateway, the hop count and the priority (lnetctl.md §8.1); other
 * keys (an export's state, type, health_sensitivity) go unread.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

enum { RK_NET, RK_GATEWAY, RK_HOP, RK_PRIORITY };

static int keep_text(struct ul_conf_walk *w, const struct ul_ynode *v,
		     char **out)
{
	char *s;

	/* an empty value is no value: LNet reports what is missing */
	if (v->type != UL_YNODE_SCALAR || v->is_null)
		return 0;
	s = strdup(v->str);
	if (!s)
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	free(*out);
	*out = s;
	return 0;
}

static int walk_route(struct ul_conf_walk *w, const struct ul_ynode *m,
		      struct ul_conf_route *r)
{
	static const char *const keys[] = { "net", "gateway", "hop", "priority",
					    NULL };
	size_t i, n, old;
	int rc, k;

	r->line = m->line;
	r->hop = -1;
	r->seq_no = ul_conf_walk_seq_no(m);
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		switch (k) {
		case RK_NET:
			rc = keep_text(w, v, &r->net_text);
			break;
		case RK_GATEWAY:
			rc = keep_text(w, v, &r->gateway_text);
			break;
		case RK_HOP:
			rc = ul_conf_walk_get_int32(w, v, INT_MIN, INT_MAX,
						    &r->hop);
			r->flags |= UL_CONF_ROUTE_HAS_HOP;
			break;
		case RK_PRIORITY:
			rc = ul_conf_walk_get_int32(w, v, INT_MIN, INT_MAX,
						    &r->priority);
			r->flags |= UL_CONF_ROUTE_HAS_PRIORITY;
			break;
		default:
			if (strcmp(key->str, "seq_no") != 0)
				rc = ul_conf_walk_skip(
					w, key,
					"not settable on import; "
					"skipped");
			break;
		}
		ul_conf_walk_pop(w, old);
	}
	if (rc)
		return rc;
	if (r->net_text && !ulnet_net_parse(r->net_text, &r->net, NULL, 0))
		r->flags |= UL_CONF_ROUTE_HAS_NET_ID;
	if (r->gateway_text &&
	    !ulnet_nid_parse(r->gateway_text, &r->gateway, NULL, 0))
		r->flags |= UL_CONF_ROUTE_HAS_GW_NID;
	return 0;
}

int ul_conf_walk_routes(struct ul_conf_walk *w, const struct ul_ynode *key,
			const struct ul_ynode *v)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_step s = { .sec = UL_CONF_SEC_ROUTE, .key = -1 };
	struct ul_conf_route *r;
	size_t i, nr, old;
	int rc, rc2;

	s.first = c->nr_routes;
	s.line = key->line;
	s.seq_no = -1;
	/* LNet's own refusals of a route name the route (lnetctl.md §16) */
	ul_conf_walk_report_as(w, w->dialect == UL_CONF_OLD_API ? "add" : NULL,
			       "route", -EINVAL, -EINVAL);
	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		r = ul_conf_walk_grow(w, &c->routes, &c->nr_routes, sizeof(*r));
		if (!r)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, i);
		rc = walk_route(w, v->kids[i], r);
		ul_conf_walk_pop(w, old);
		if (rc) {
			ul_conf_route_fini(r);
			c->nr_routes--;
		}
	}
	s.nr = c->nr_routes - s.first;
	s.is_cut = rc != 0;
	if (rc == -ENOMEM)
		return rc;
	rc2 = ul_conf_walk_step(w, &s);
	return rc ? rc : rc2;
}
