/*
 * The "net" and "ip2nets" sections of lnet.conf: a net or an ip2nets
 * rule with its tunables, LND tunables, CPTs, interfaces or "local NI(s)"
 * groups, and for ip2nets its ip-ranges. What lnetctl refuses while it
 * reads a block is refused here with its words (lnetctl.md §16); values
 * LNet checks are kept as written; keys lnetctl skips are skipped.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

/*
 * An integer value as lnetctl reads tunables (no value, not an integer:
 * its words), cut to an int as LNet stores it.
 */
static int tunable_value(struct ul_conf_walk *w, const struct ul_ynode *key,
			 const struct ul_ynode *v, int *out)
{
	long long val;
	int rc;

	rc = ul_conf_walk_get_long(w, key, v, &val);
	if (!rc)
		*out = (int)val;
	return rc;
}

/* A key lnetctl does not know under "tunables" or "lnd tunables". */
static int unknown_tunable(struct ul_conf_walk *w, const struct ul_ynode *key,
			   const char *what)
{
	/* the legacy parser looks up the keys it knows and says nothing */
	if (w->dialect == UL_CONF_OLD_API)
		return ul_conf_walk_skip(w, key, "unknown key; skipped");
	return ul_conf_walk_note(w, key, UL_CONF_NOTE_LNETCTL,
				 "Ignoring unrecognized key '%.64s' for '%s'",
				 key->str, what);
}

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
	size_t i, n, old;
	int rc = 0, k, v;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		/* lnetctl reads the value before it looks at the key */
		rc = tunable_value(w, key, m->kids[2 * i + 1], &v);
		k = ul_conf_walk_key_index(keys, key->str);
		if (!rc && k < 0) {
			rc = unknown_tunable(w, key, "tunables");
		} else if (!rc) {
			*vals[k] = v; /* a key given twice: the last wins */
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
	long long val;
	bool b;
	int rc;

	if (!strcmp(key->str, "map_on_demand") && v->type == UL_YNODE_SCALAR &&
	    !v->is_null) {
		/* LNet's yes/no words or 0/1; any other text sets nothing */
		if (ul_conf_parse_bool(v->str, &b, NULL) == 0)
			val = b;
		else if (ul_conf_parse_int(v->str, INT_MIN, INT_MAX, &val,
					   NULL))
			return ul_conf_walk_skip(w, key,
						 "not a yes/no word; "
						 "skipped");
	} else {
		rc = ul_conf_walk_get_long(w, key, v, &val);
		if (rc)
			return rc;
	}
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
	return ul_conf_walk_note(w, key, UL_CONF_NOTE_NOT_APPLIED,
				 "o2iblnd tunable, not applicable to user "
				 "space; kept");
}

static int walk_lnd_tunables(struct ul_conf_walk *w, const struct ul_ynode *m,
			     uint32_t net, struct ul_conf_lnd_tunables *t)
{
	bool is_o2ib = ulnet_net_type(net) == ULNET_LND_O2IB;
	size_t i, n, old;
	int rc, v;

	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];
		const struct ul_ynode *val = m->kids[2 * i + 1];

		old = ul_conf_walk_push_key(w, key->str);
		if (is_o2ib &&
		    ul_conf_walk_key_index(o2ib_keys, key->str) >= 0) {
			rc = o2ib_param(w, key, val, t);
			ul_conf_walk_pop(w, old);
			continue;
		}
		rc = tunable_value(w, key, val, &v);
		if (rc) {
			/* as lnetctl: the value is read first */
		} else if (!strcmp(key->str, "conns_per_peer")) {
			t->conns_per_peer = v;
			t->flags |= UL_CONF_LND_HAS_CONNS_PER_PEER;
		} else if (!strcmp(key->str, "tos")) {
			t->tos = v;
			t->flags |= UL_CONF_LND_HAS_TOS;
		} else if (is_o2ib) {
			/* o2iblnd's branch skips other keys without a word */
			rc = ul_conf_walk_skip(w, key, "unknown key; skipped");
		} else {
			/* an export's read-only "timeout" too */
			rc = unknown_tunable(w, key, "lnd tunables");
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

/*
 * A CPT expression lnetctl parses (text, as written), refused in its
 * words: "Unable to parse CPT '<text>'" after the place.
 */
static int parse_cpt(struct ul_conf_walk *w, const struct ul_ynode *n,
		     const char *s, const char *text, struct ul_expr **e)
{
	struct ul_err er;
	int rc = ul_conf_parse_cpt(s, e, &er);

	if (rc == -EINVAL)
		return ul_conf_walk_fail(w, n, "Unable to parse CPT '%.64s'",
					 text);
	if (rc)
		return ul_conf_walk_fail_err(w, n, rc, &er);
	return 0;
}

static int walk_cpt(struct ul_conf_walk *w, const struct ul_ynode *v,
		    struct ul_expr **out)
{
	struct ul_expr *e = NULL;
	char one[80];
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
		rc = parse_cpt(w, v, v->str, v->str, &e);
		if (rc)
			return rc;
		goto done;
	}
	if (v->nr == 0) {
		/* lnetctl's errno and status for it are -ENODATA */
		if (w->dialect == UL_CONF_NETLINK)
			ul_conf_walk_report_as(w, NULL, "import", -ENODATA,
					       -ENODATA);
		return ul_conf_walk_fail(w, v, "Missing CPT configuration");
	}
	/*
	 * A flow list [0, 1-2] reads as the expression "[0,1-2]"; lnetctl
	 * parses each item as "[<item>]" and names the one it cannot.
	 */
	for (len = 2, i = 0; i < v->nr; i++) {
		if (v->kids[i]->type != UL_YNODE_SCALAR)
			return ul_conf_walk_fail(w, v->kids[i],
						 "Malformed CPT configuration");
		snprintf(one, sizeof(one), "[%.64s]", v->kids[i]->str);
		rc = parse_cpt(w, v->kids[i], one, v->kids[i]->str, &e);
		if (rc)
			return rc;
		ul_expr_free(e);
		e = NULL;
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
	rc = parse_cpt(w, v, s, s, &e);
	free(s);
	if (rc)
		return rc;
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

static int walk_group_key(struct ul_conf_walk *w, int k,
			  const struct ul_ynode *v, struct ul_conf_net *net,
			  struct ul_conf_ni_group *g)
{
	char buf[ULNET_NIDSTR_SIZE];
	int rc;

	switch (k) {
	case GK_INTERFACES:
		return walk_interfaces(w, v, &g->nis, &g->nr_nis);
	case GK_NID:
		rc = ul_conf_walk_get_nid(w, v, &g->nid);
		if (!rc && ulnet_nid_net(&g->nid) != net->net)
			rc = ul_conf_walk_fail(
				w, v, "'%s' is not on net '%s'", v->str,
				ulnet_net_format(net->net, buf, sizeof(buf)));
		g->flags |= UL_CONF_GROUP_HAS_NID;
		return rc;
	case GK_TUNABLES:
		g->flags |= UL_CONF_GROUP_HAS_TUNABLES;
		return walk_tunables(w, v, &g->tunables);
	case GK_LND_TUNABLES:
		g->flags |= UL_CONF_GROUP_HAS_LND_TUNABLES;
		return walk_lnd_tunables(w, v, net->net, &g->lnd_tunables);
	case GK_DEV_CPT:
		g->flags |= UL_CONF_GROUP_HAS_DEV_CPT;
		return ul_conf_walk_get_int32(w, v, -1, UL_CONF_CPT_MAX,
					      &g->dev_cpt);
	default:
		return walk_cpt(w, v, &g->cpt);
	}
}

static int walk_group(struct ul_conf_walk *w, const struct ul_ynode *m,
		      struct ul_conf_net *net, struct ul_conf_ni_group *g)
{
	static const char *const keys[] = { "interfaces", "nid",
					    "tunables",	  "lnd tunables",
					    "CPT",	  "dev cpt",
					    NULL };
	const struct ul_ynode *nid_node = NULL;
	struct ul_conf_ni *ni;
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
			/* an export's state and counters, any other key */
			rc = ul_conf_walk_skip_key(w, key, keys, "skipped");
		} else {
			rc = walk_group_key(w, k, v, net, g);
			if (k == GK_NID)
				nid_node = v;
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
	/* the legacy parser skips such an item; netlink merges the block */
	if (w->dialect == UL_CONF_OLD_API)
		return ul_conf_walk_skip(w, m, "no 'interfaces'; skipped");
	return 0;
}

static int walk_local_nis(struct ul_conf_walk *w, const struct ul_ynode *v,
			  struct ul_conf_net *net)
{
	struct ul_conf_ni_group *g;
	size_t j, nr, old;
	int rc;

	net->flags |= UL_CONF_NET_HAS_LOCAL_NIS;
	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (j = 0; !rc && j < nr; j++) {
		g = ul_conf_walk_grow(w, &net->groups, &net->nr_groups,
				      sizeof(*g));
		if (!g)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, j);
		rc = walk_group(w, v->kids[j], net, g);
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

enum {
	NK_LOCAL_NIS,
	NK_INTERFACES,
	NK_IP_RANGE,
	NK_TUNABLES,
	NK_LND_TUNABLES,
	NK_CPT,
};

static int walk_net_key(struct ul_conf_walk *w, int k,
			const struct ul_ynode *key, const struct ul_ynode *v,
			bool is_ip2nets, struct ul_conf_net *net)
{
	switch (k) {
	case NK_LOCAL_NIS:
		if (is_ip2nets)
			/* sic: lnetctl prints it without the first quote */
			return ul_conf_walk_fail(
				w, key, "local NI(s)' not valid for ip2nets");
		return walk_local_nis(w, v, net);
	case NK_INTERFACES:
		return walk_interfaces(w, v, &net->nis, &net->nr_nis);
	case NK_IP_RANGE:
		if (!is_ip2nets)
			return ul_conf_walk_fail(
				w, key, "'ip-range' only valid for ip2nets");
		return walk_ip_ranges(w, v, net);
	case NK_TUNABLES:
		net->flags |= UL_CONF_NET_HAS_TUNABLES;
		return walk_tunables(w, v, &net->tunables);
	case NK_LND_TUNABLES:
		net->flags |= UL_CONF_NET_HAS_LND_TUNABLES;
		return walk_lnd_tunables(w, v, net->net, &net->lnd_tunables);
	default:
		return walk_cpt(w, v, &net->cpt);
	}
}

/*
 * The keys after the first. A key given twice adds to the first
 * (interfaces, groups, ranges) or replaces it (tunables keys, CPT), as
 * lnetctl reads one event after the other; an unknown key is skipped.
 */
static int walk_net_keys(struct ul_conf_walk *w, const struct ul_ynode *m,
			 bool is_ip2nets, struct ul_conf_net *net)
{
	static const char *const keys[] = {
		"local NI(s)",	"interfaces", "ip-range", "tunables",
		"lnd tunables", "CPT",	      NULL,
	};
	size_t i, old;
	int rc = 0, k;

	for (i = 1; !rc && i < m->nr / 2; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(keys, key->str);
		if (k >= 0)
			rc = walk_net_key(w, k, key, m->kids[2 * i + 1],
					  is_ip2nets, net);
		else if (strcmp(key->str, "seq_no") != 0)
			rc = ul_conf_walk_skip_key(w, key, keys,
						   "unknown key; skipped");
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
	net->seq_no = ul_conf_walk_seq_no(m);
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

int ul_conf_walk_nets(struct ul_conf_walk *w, const struct ul_ynode *key,
		      const struct ul_ynode *v, bool is_ip2nets)
{
	struct ul_conf *c = w->conf;
	struct ul_conf_step s = { .key = -1, .seq_no = -1 };
	struct ul_conf_net *net;
	size_t *nr_arr = is_ip2nets ? &c->nr_ip2nets : &c->nr_nets;
	size_t i, nr, old;
	int rc, rc2;

	s.sec = is_ip2nets ? UL_CONF_SEC_IP2NETS : UL_CONF_SEC_NET;
	s.first = *nr_arr;
	s.line = key->line;
	/*
	 * lnetctl reads an empty section's first event as the first key of
	 * a block (--old-api finds no block).
	 */
	if (v->type == UL_YNODE_SCALAR && v->is_null &&
	    w->dialect == UL_CONF_NETLINK)
		return ul_conf_walk_fail(w, v,
					 "Malformed input. Expect '%s' found "
					 "''",
					 is_ip2nets ? "net-spec" : "net type");
	rc = ul_conf_walk_want_seq(w, v, &nr);
	for (i = 0; !rc && i < nr; i++) {
		net = ul_conf_walk_grow(w, is_ip2nets ? &c->ip2nets : &c->nets,
					nr_arr, sizeof(*net));
		if (!net)
			return -ENOMEM;
		old = ul_conf_walk_push_idx(w, i);
		rc = walk_net(w, v->kids[i], is_ip2nets, net);
		ul_conf_walk_pop(w, old);
		if (rc) {
			ul_conf_net_fini(net);
			(*nr_arr)--;
		}
	}
	s.nr = *nr_arr - s.first;
	s.is_cut = rc != 0;
	if (rc == -ENOMEM)
		return rc;
	rc2 = ul_conf_walk_step(w, &s);
	return rc ? rc : rc2;
}
