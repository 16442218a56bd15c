/*
 * The "net" and "ip2nets" sections of lnet.conf: a net or an ip2nets rule
 * with its tunables, LND tunables, CPTs, interfaces or "local NI(s)"
 * groups, and for ip2nets its ip-ranges.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

/* Keys of an export that describe an NI's state, not its configuration. */
static const char *const ni_state_keys[] = {
	"status",	  "statistics",	   "udsp info",	   "sent_stats",
	"received_stats", "dropped_stats", "health stats", NULL,
};

static int walk_tunables(struct ul_conf_walk *w, const struct ul_ynode *m,
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

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k < 0) {
			rc = ul_conf_walk_warn(
				w, key,
				"unrecognized key for 'tunables'; ignored");
		} else {
			rc = ul_conf_walk_once(w, key, &seen, k);
			if (!rc)
				rc = ul_conf_walk_get_int32(w, v, -1, INT_MAX,
							    vals[k]);
			if (!rc)
				t->flags |= bits[k];
		}
		ul_conf_walk_pop(w, old);
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

static int o2ib_param(struct ul_conf_walk *w, const struct ul_ynode *key,
		      const struct ul_ynode *v, struct ul_conf_lnd_tunables *t)
{
	struct ul_conf_lnd_param *p;
	struct ul_err e;
	long long val;
	const char *s;
	bool b;
	int rc;

	rc = ul_conf_walk_get_str(w, v, &s);
	if (rc)
		return rc;
	if (!strcmp(key->str, "map_on_demand") &&
	    ul_conf_parse_bool(s, &b, &e) == 0)
		val = b;
	else if ((rc = ul_conf_parse_int(s, INT_MIN, INT_MAX, &val, &e)))
		return ul_conf_walk_fail_err(w, v, rc, &e);
	p = ul_conf_walk_grow(w, &t->other, &t->nr_other, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->key = strdup(key->str);
	if (!p->key) {
		t->nr_other--;
		return ul_err_set(w->err, -ENOMEM, "out of memory");
	}
	p->value = val;
	p->line = key->line;
	return ul_conf_walk_warn(
		w, key, "o2iblnd tunable, not applicable to user space; kept");
}

static int walk_lnd_tunables(struct ul_conf_walk *w, const struct ul_ynode *m,
			     uint32_t net, struct ul_conf_lnd_tunables *t)
{
	static const char *const keys[] = { "conns_per_peer", "tos", NULL };
	unsigned int seen = 0;
	size_t i, n, old;
	int rc, k;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k >= 0 && (rc = ul_conf_walk_once(w, key, &seen, k))) {
			ul_conf_walk_pop(w, old);
			break;
		}
		if (k == 0) {
			rc = ul_conf_walk_get_int32(w, v, 0, 127,
						    &t->conns_per_peer);
			t->flags |= UL_CONF_LND_HAS_CONNS_PER_PEER;
		} else if (k == 1) {
			rc = ul_conf_walk_get_int32(w, v, -1, 255, &t->tos);
			t->flags |= UL_CONF_LND_HAS_TOS;
		} else if (!strcmp(key->str, "timeout")) {
			rc = ul_conf_walk_warn(
				w, key,
				"read-only LND timeout (net set "
				"--lnd-timeout sets it); ignored");
		} else if (ulnet_net_type(net) == ULNET_LND_O2IB &&
			   ul_conf_walk_key_index(o2ib_keys, key->str) >= 0) {
			rc = o2ib_param(w, key, v, t);
		} else {
			rc = ul_conf_walk_warn(
				w, key,
				"unrecognized key for 'lnd tunables'; "
				"ignored");
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

static int walk_cpt(struct ul_conf_walk *w, const struct ul_ynode *v,
		    struct ul_expr **out)
{
	struct ul_expr *e = NULL;
	struct ul_err er;
	size_t i, len;
	char *s, *p;
	int rc;

	if (v->type == UL_YNODE_MAP)
		return ul_conf_walk_fail(
			w, v,
			"expected a CPT expression or a list of "
			"CPT numbers, found a mapping");
	if (v->type == UL_YNODE_SCALAR) {
		if (v->is_null)
			return ul_conf_walk_fail(w, v, "no value specified");
		rc = ul_conf_parse_cpt(v->str, &e, &er);
		if (rc)
			return ul_conf_walk_fail_err(w, v, rc, &er);
		goto done;
	}
	if (v->nr == 0)
		return ul_conf_walk_fail(w, v, "Missing CPT configuration");
	/* A flow list [0, 1-2] reads as the expression "[0,1-2]". */
	for (len = 2, i = 0; i < v->nr; i++) {
		if (v->kids[i]->type != UL_YNODE_SCALAR)
			return ul_conf_walk_fail(w, v->kids[i],
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
		return ul_conf_walk_fail_err(w, v, rc, &er);
done:
	ul_expr_free(*out);
	*out = e;
	return 0;
}

/* "interfaces: {0: eth0, 1: eth1[0,1]}": one NI per entry. */
static int walk_interfaces(struct ul_conf_walk *w, const struct ul_ynode *m,
			   struct ul_conf_ni **nis, size_t *nr_nis)
{
	struct ul_conf_ni *ni;
	struct ul_err e;
	const char *s;
	size_t i, n, old;
	int rc;

	if (m->type != UL_YNODE_MAP)
		return ul_conf_walk_fail(
			w, m,
			"expected a mapping '<index>: <interface>', "
			"found %s",
			m->is_null ? "nothing" : ul_ytree_type_name(m));
	n = m->nr / 2;
	for (i = 0, rc = 0; !rc && i < n; i++) {
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, m->kids[2 * i]->str);
		rc = ul_conf_walk_get_str(w, v, &s);
		if (!rc) {
			ni = ul_conf_walk_grow(w, nis, nr_nis, sizeof(*ni));
			rc = ni ? 0 : -ENOMEM;
		}
		if (!rc) {
			ni->by = UL_CONF_NI_BY_IFACE;
			ni->line = v->line;
			rc = ul_conf_parse_ifname(s, ni->ifname, &ni->cpt, &e);
			if (rc) {
				(*nr_nis)--;
				rc = ul_conf_walk_fail_err(w, v, rc, &e);
			}
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

static int walk_ip_ranges(struct ul_conf_walk *w, const struct ul_ynode *m,
			  struct ul_conf_net *net)
{
	struct ul_conf_ip_range *r;
	struct ul_err e;
	const char *s;
	size_t i, n, old;
	int rc;

	if (m->type != UL_YNODE_MAP)
		return ul_conf_walk_fail(
			w, m,
			"expected a mapping '<index>: <ip-range>', "
			"found %s",
			m->is_null ? "nothing" : ul_ytree_type_name(m));
	n = m->nr / 2;
	for (i = 0, rc = 0; !rc && i < n; i++) {
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, m->kids[2 * i]->str);
		rc = ul_conf_walk_get_str(w, v, &s);
		if (!rc) {
			r = ul_conf_walk_grow(w, &net->ranges, &net->nr_ranges,
					      sizeof(*r));
			rc = r ? 0 : -ENOMEM;
		}
		if (!rc) {
			rc = ul_conf_parse_ip_range(s, r, &e);
			if (rc) {
				net->nr_ranges--;
				rc = ul_conf_walk_fail_err(w, v, rc, &e);
			} else {
				r->line = v->line;
			}
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

enum {
	GK_INTERFACES,
	GK_NID,
	GK_TUNABLES,
	GK_LND_TUNABLES,
	GK_CPT,
	GK_DEV_CPT,
};

static int walk_group(struct ul_conf_walk *w, const struct ul_ynode *m,
		      struct ul_conf_net *net, struct ul_conf_ni_group *g)
{
	static const char *const keys[] = { "interfaces", "nid",
					    "tunables",	  "lnd tunables",
					    "CPT",	  "dev cpt",
					    NULL };
	char buf[ULNET_NIDSTR_SIZE];
	const struct ul_ynode *nid_node = NULL;
	struct ul_conf_ni *ni;
	unsigned int seen = 0;
	size_t i, n, old;
	int rc, k;

	g->line = m->line;
	g->dev_cpt = -1;
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k < 0) {
			if (ul_conf_walk_key_index(ni_state_keys, key->str) >=
			    0)
				rc = ul_conf_walk_ignore_state(w, key);
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
		case GK_INTERFACES:
			rc = walk_interfaces(w, v, &g->nis, &g->nr_nis);
			break;
		case GK_NID:
			rc = ul_conf_walk_get_nid(w, v, &g->nid);
			if (!rc && ulnet_nid_net(&g->nid) != net->net)
				rc = ul_conf_walk_fail(
					w, v, "'%s' is not on net '%s'", v->str,
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
		case GK_DEV_CPT:
			rc = ul_conf_walk_get_int32(w, v, -1, UL_CONF_CPT_MAX,
						    &g->dev_cpt);
			g->flags |= UL_CONF_GROUP_HAS_DEV_CPT;
			break;
		default:
			rc = walk_cpt(w, v, &g->cpt);
			break;
		}
		ul_conf_walk_pop(w, old);
	}
	if (rc || g->nr_nis)
		return rc;
	/* Without interfaces the "nid:" key defines the NI (conf.h). */
	if (nid_node) {
		ni = ul_conf_walk_grow(w, &g->nis, &g->nr_nis, sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		ni->by = UL_CONF_NI_BY_NID;
		ni->nid = g->nid;
		ni->line = nid_node->line;
		return 0;
	}
	return ul_conf_walk_warn(
		w, m, "neither 'interfaces' nor 'nid': no NI is created");
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

static int walk_net_keys(struct ul_conf_walk *w, const struct ul_ynode *m,
			 bool is_ip2nets, struct ul_conf_net *net)
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
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *v = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k <= 0) {
			rc = ul_conf_walk_fail(w, key, "unknown key '%.64s'",
					       key->str);
			ul_conf_walk_pop(w, old);
			continue;
		}
		rc = ul_conf_walk_once(w, key, &seen, k);
		if (!rc && k == NK_LOCAL_NIS && is_ip2nets)
			rc = ul_conf_walk_fail(
				w, key, "'local NI(s)' not valid for ip2nets");
		if (!rc && k == NK_IP_RANGE && !is_ip2nets)
			rc = ul_conf_walk_fail(
				w, key, "'ip-range' only valid for ip2nets");
		if (rc) {
			ul_conf_walk_pop(w, old);
			continue;
		}
		switch (k) {
		case NK_LOCAL_NIS:
			rc = ul_conf_walk_want_seq(w, v, &nr);
			for (j = 0; !rc && j < nr; j++) {
				g = ul_conf_walk_grow(w, &net->groups,
						      &net->nr_groups,
						      sizeof(*g));
				if (!g) {
					rc = -ENOMEM;
					break;
				}
				old2 = ul_conf_walk_push_idx(w, j);
				rc = walk_group(w, v->kids[j], net, g);
				ul_conf_walk_pop(w, old2);
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
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

/* A "net" block or an "ip2nets" rule. */
static int walk_net(struct ul_conf_walk *w, const struct ul_ynode *m,
		    bool is_ip2nets, struct ul_conf_net *net)
{
	const char *first = is_ip2nets ? "net-spec" : "net type";
	const struct ul_ynode *key;
	size_t n, old;
	int rc;

	net->line = m->line;
	rc = ul_conf_walk_want_map(w, m, &n);
	if (rc)
		return rc;
	if (n == 0)
		return ul_conf_walk_fail(w, m, "missing '%s'", first);
	key = m->kids[0];
	if (strcmp(key->str, first) != 0)
		return ul_conf_walk_fail(
			w, key, "Malformed input. Expect '%s' found '%.64s'",
			first, key->str);
	old = ul_conf_walk_push_key(w, first);
	rc = ul_conf_walk_get_net(w, m->kids[1], &net->net);
	ul_conf_walk_pop(w, old);
	if (rc)
		return rc;
	return walk_net_keys(w, m, is_ip2nets, net);
}

int ul_conf_walk_nets(struct ul_conf_walk *w, const struct ul_ynode *v,
		      bool is_ip2nets)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_net *net;
	size_t i, nr, old;
	int rc;

	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		if (is_ip2nets)
			net = ul_conf_walk_grow(w, &c->ip2nets, &c->nr_ip2nets,
						sizeof(*net));
		else
			net = ul_conf_walk_grow(w, &c->nets, &c->nr_nets,
						sizeof(*net));
		if (!net)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, is_ip2nets ? c->nr_ip2nets - 1
							  : c->nr_nets - 1);
		rc = walk_net(w, v->kids[i], is_ip2nets, net);
		ul_conf_walk_pop(w, old);
	}
	return rc;
}
