/* lnet.conf model to core objects; see conf_apply.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "core/udsp.h"
#include "ctl/conf_apply.h"
#include "nid/expr.h"

struct apply {
	struct ul_core *c;
	const struct ul_conf_apply_opts *opts;
	struct ul_err *err;
	/* The LND tunables of the NIs being added (NULL: none). */
	const struct ul_conf_lnd_tunables *lnd;
};

__attribute__((format(printf, 3, 4))) static void
note(const struct apply *a, unsigned int line, const char *fmt, ...)
{
	char text[UL_ERR_MSG_SIZE];
	va_list ap;

	if (!a->opts->note)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	a->opts->note(a->opts->ctx, line, text);
}

/* Prefix the core's message with where in the file the item was. */
static int fail(const struct apply *a, unsigned int line, const char *what,
		int rc, const struct ul_err *cerr)
{
	return ul_err_set(a->err, rc, "line %u: %s: %s", line, what,
			  cerr->msg[0] ? cerr->msg : strerror(-rc));
}

/*
 * A block's tunables: the group's where it gave them, else the block's,
 * else LNet's defaults (the netlink import sends the last ones seen).
 */
static void net_tunables(const struct ul_conf_net *cn,
			 const struct ul_conf_ni_group *g,
			 struct ul_net_tunables *tun)
{
	const struct ul_conf_tunables *src = &cn->tunables;

	ul_net_tunables_default(tun);
	if (g && (g->flags & UL_CONF_GROUP_HAS_TUNABLES))
		src = &g->tunables;
	if ((src->flags & UL_CONF_TUN_HAS_PEER_CREDITS) &&
	    src->peer_credits > 0)
		tun->peer_tx_credits = src->peer_credits;
	if ((src->flags & UL_CONF_TUN_HAS_CREDITS) && src->credits > 0)
		tun->credits = src->credits;
	if ((src->flags & UL_CONF_TUN_HAS_PEER_TIMEOUT) &&
	    src->peer_timeout >= 0)
		tun->peer_timeout_sec = src->peer_timeout;
	if ((src->flags & UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS) &&
	    src->peer_buffer_credits > 0)
		tun->peer_buffer_credits = src->peer_buffer_credits;
}

static const struct ul_conf_ifaddr *find_if(const struct apply *a,
					    const char *ifname)
{
	size_t i;

	for (i = 0; i < a->opts->nr_ifaddrs; i++)
		if (strcmp(a->opts->ifaddrs[i].ifname, ifname) == 0)
			return &a->opts->ifaddrs[i];
	return NULL;
}

static int add_ni(const struct apply *a, const struct ulnet_nid *nid,
		  const char *ifname, const struct ul_net_tunables *tun,
		  int numa_node, unsigned int line)
{
	struct ul_err cerr = { 0 };
	char nidstr[ULNET_NIDSTR_SIZE], what[ULNET_NIDSTR_SIZE + 8];
	struct ul_ni *ni;
	int rc;

	if (a->opts->ni_add)
		rc = a->opts->ni_add(a->opts->ctx, nid, ifname, numa_node, tun,
				     &cerr);
	else
		rc = ul_ni_add(a->c, nid, ifname, numa_node, tun, NULL, &cerr);
	if (rc < 0) {
		snprintf(what, sizeof(what), "NI %s",
			 ulnet_nid_format(nid, nidstr, sizeof(nidstr)));
		return fail(a, line, what, rc, &cerr);
	}
	/* The NI's own LND tunables, as the socklnd reads them. */
	ni = ul_ni_find(a->c, nid);
	if (ni && a->lnd && (a->lnd->flags & UL_CONF_LND_HAS_CONNS_PER_PEER))
		ni->conns_per_peer = a->lnd->conns_per_peer;
	if (ni && a->lnd && (a->lnd->flags & UL_CONF_LND_HAS_TOS))
		ni->tos = a->lnd->tos;
	return 0;
}

/* The NID an interface gives on net: its IPv4 address. */
static int if_nid(const struct apply *a, uint32_t net, const char *ifname,
		  unsigned int line, struct ulnet_nid *nid)
{
	const struct ul_conf_ifaddr *ifa = find_if(a, ifname);
	char netstr[ULNET_NIDSTR_SIZE];

	if (!ifa)
		return ul_err_set(a->err, -ENODEV,
				  "line %u: interface '%s' on %s: no such "
				  "interface with an IPv4 address is up here; "
				  "give the NI as 'nid:' instead",
				  line, ifname,
				  ulnet_net_format(net, netstr,
						   sizeof(netstr)));
	memset(nid, 0, sizeof(*nid));
	nid->nid_type = (uint8_t)ulnet_net_type(net);
	nid->nid_num = (uint16_t)ulnet_net_num(net);
	nid->nid_addr[0] = ifa->ipv4;
	return 0;
}

static void note_cpt(const struct apply *a, const struct ul_expr *cpt,
		     unsigned int line)
{
	if (cpt)
		note(a, line,
		     "CPT binding not applied: ulnet has no CPU partitions");
}

/*
 * numa_node: the group's "dev cpt" (conf.h), else UL_NUMA_ANY: no NUMA
 * node is known for an NI without a device.
 */
static int apply_iface_nis(const struct apply *a, uint32_t net,
			   const struct ul_conf_ni *nis, size_t nr,
			   const struct ul_net_tunables *tun, int numa_node)
{
	size_t i;
	int rc;

	for (i = 0; i < nr; i++) {
		struct ulnet_nid nid;

		if (nis[i].by == UL_CONF_NI_BY_NID) {
			nid = nis[i].nid;
			rc = add_ni(a, &nid, NULL, tun, numa_node, nis[i].line);
		} else {
			rc = if_nid(a, net, nis[i].ifname, nis[i].line, &nid);
			if (rc == 0)
				rc = add_ni(a, &nid, nis[i].ifname, tun,
					    numa_node, nis[i].line);
		}
		if (rc < 0)
			return rc;
		note_cpt(a, nis[i].cpt, nis[i].line);
	}
	return 0;
}

/*
 * A net with no interface and no NID takes the first up IPv4 interface
 * other than lo (lnetctl.md §17.2).
 */
static int apply_default_ni(const struct apply *a, const struct ul_conf_net *cn,
			    const struct ul_net_tunables *tun)
{
	const struct ul_conf_ifaddr *ifa = NULL;
	struct ulnet_nid nid;
	size_t i;

	for (i = 0; i < a->opts->nr_ifaddrs && !ifa; i++)
		if (strcmp(a->opts->ifaddrs[i].ifname, "lo") != 0)
			ifa = &a->opts->ifaddrs[i];
	if (!ifa)
		return ul_err_set(a->err, -ENOMSG,
				  "line %u: No UP interfaces were found",
				  cn->line);
	if (if_nid(a, cn->net, ifa->ifname, cn->line, &nid) < 0)
		return a->err ? a->err->code : -ENODEV;
	return add_ni(a, &nid, ifa->ifname, tun, UL_NUMA_ANY, cn->line);
}

/* LNet's checks of the LND tunables (lnetctl.md §6.1). */
static int check_lnd(const struct apply *a,
		     const struct ul_conf_lnd_tunables *l, unsigned int line)
{
	size_t i;

	if (((l->flags & UL_CONF_LND_HAS_CONNS_PER_PEER) &&
	     (l->conns_per_peer < 0 || l->conns_per_peer > 127)) ||
	    ((l->flags & UL_CONF_LND_HAS_TOS) && (l->tos < -1 || l->tos > 255)))
		return ul_err_set(a->err, -ERANGE,
				  "line %u: failed to parse lnd tunables "
				  "(conns_per_peer 0..127, tos -1..255)",
				  line);
	for (i = 0; i < l->nr_other; i++)
		note(a, l->other[i].line,
		     "lnd tunable '%s' not applied: no such LND in user space",
		     l->other[i].key);
	return 0;
}

static int apply_net(struct apply *a, const struct ul_conf_net *cn)
{
	struct ul_net_tunables tun;
	size_t i, added = 0;
	int rc;

	if (ulnet_net_type(cn->net) == ULNET_LND_LO)
		return ul_err_set(a->err, -EACCES,
				  "line %u: setting @lo not allowed", cn->line);
	net_tunables(cn, NULL, &tun);
	note_cpt(a, cn->cpt, cn->line);
	rc = check_lnd(a, &cn->lnd_tunables, cn->line);
	if (rc < 0)
		return rc;
	a->lnd = &cn->lnd_tunables;
	rc = apply_iface_nis(a, cn->net, cn->nis, cn->nr_nis, &tun,
			     UL_NUMA_ANY);
	if (rc < 0)
		return rc;
	added += cn->nr_nis;
	for (i = 0; i < cn->nr_groups; i++) {
		const struct ul_conf_ni_group *g = &cn->groups[i];

		net_tunables(cn, g, &tun);
		note_cpt(a, g->cpt, g->line);
		rc = check_lnd(a, &g->lnd_tunables, g->line);
		if (rc < 0)
			return rc;
		a->lnd = (g->flags & UL_CONF_GROUP_HAS_LND_TUNABLES)
				 ? &g->lnd_tunables
				 : &cn->lnd_tunables;
		rc = apply_iface_nis(a, cn->net, g->nis, g->nr_nis, &tun,
				     (g->flags & UL_CONF_GROUP_HAS_DEV_CPT) &&
						     g->dev_cpt >= 0
					     ? g->dev_cpt
					     : UL_NUMA_ANY);
		if (rc < 0)
			return rc;
		added += g->nr_nis;
	}
	if (added == 0)
		rc = apply_default_ni(a, cn, &tun);
	a->lnd = NULL;
	return rc;
}

static bool in_ranges(const struct ul_conf_net *rule, uint32_t ipv4)
{
	size_t i;

	if (rule->nr_ranges == 0)
		return true;
	for (i = 0; i < rule->nr_ranges; i++)
		if (!rule->ranges[i].is_ipv6 &&
		    ul_expr_match_octets(rule->ranges[i].oct, ipv4))
			return true;
	return false;
}

/*
 * ip2nets (lnetctl.md §17.2): a rule applies to the named interfaces, or
 * to every up interface, whose address is in its ranges; a rule for a net
 * an earlier rule of the section configured is skipped; a section of
 * which no rule applied is an error.
 */
static int apply_ip2nets(struct apply *a, const struct ul_conf *conf,
			 const struct ul_conf_step *st)
{
	size_t r, i, k, applied = 0;
	int rc;

	for (r = st->first; r < st->first + st->nr; r++) {
		const struct ul_conf_net *cn = &conf->ip2nets[r];
		struct ul_net_tunables tun;
		bool is_dup = false;

		for (k = st->first; k < r && !is_dup; k++)
			is_dup = conf->ip2nets[k].net == cn->net &&
				 ul_net_find(a->c, cn->net);
		if (is_dup)
			continue;
		rc = check_lnd(a, &cn->lnd_tunables, cn->line);
		if (rc < 0)
			return rc;
		a->lnd = &cn->lnd_tunables;
		net_tunables(cn, NULL, &tun);
		for (i = 0; i < a->opts->nr_ifaddrs; i++) {
			const struct ul_conf_ifaddr *ifa = &a->opts->ifaddrs[i];
			struct ulnet_nid nid;
			bool named = cn->nr_nis == 0;

			for (k = 0; k < cn->nr_nis; k++)
				named |= strcmp(cn->nis[k].ifname,
						ifa->ifname) == 0;
			if (!named || !in_ranges(cn, ifa->ipv4))
				continue;
			rc = if_nid(a, cn->net, ifa->ifname, cn->line, &nid);
			if (rc == 0)
				rc = add_ni(a, &nid, ifa->ifname, &tun,
					    UL_NUMA_ANY, cn->line);
			if (rc < 0)
				return rc;
			applied++;
		}
		a->lnd = NULL;
	}
	if (!st->is_cut && applied == 0)
		return ul_err_set(a->err, -EINVAL, "No ip2nets rules applied");
	return 0;
}

static int apply_routes(const struct apply *a, const struct ul_conf *conf,
			const struct ul_conf_step *st)
{
	size_t i;

	for (i = st->first; i < st->first + st->nr; i++) {
		const struct ul_conf_route *cr = &conf->routes[i];
		uint32_t hops = cr->hop < 0 ? UL_HOPS_UNDEFINED
					    : (uint32_t)cr->hop;
		struct ul_err cerr = { 0 };
		struct ul_route *route;
		int rc;

		if (!(cr->flags & UL_CONF_ROUTE_HAS_NET_ID) ||
		    !(cr->flags & UL_CONF_ROUTE_HAS_GW_NID))
			return ul_err_set(a->err, -EINVAL,
					  "line %u: route: needs a remote net "
					  "and one gateway NID",
					  cr->line);
		if ((cr->hop != -1 && (cr->hop < 1 || cr->hop > 255)) ||
		    cr->priority < 0)
			return ul_err_set(a->err, -EINVAL,
					  "line %u: route: hop must be 1..255 "
					  "and priority >= 0",
					  cr->line);
		rc = ul_route_add(a->c, cr->net, &cr->gateway, hops,
				  (uint32_t)cr->priority, &route, &cerr);
		if (rc < 0)
			return fail(a, cr->line, "route", rc, &cerr);
		/* Router rules see routes added after them (udsp.h (d)). */
		if (a->opts->udsp)
			ul_udsp_on_route_add(a->opts->udsp, route);
	}
	return 0;
}

/*
 * A peer is Multi-Rail unless the file says "Multi-Rail: False" (lnetctl's
 * default for peer add). The kernel's netlink server ignores the flag and
 * makes every configured peer MR (lnetctl.md §7.1 Quirk); ulnet honours
 * what the operator wrote.
 */
static int apply_peers(const struct apply *a, const struct ul_conf *conf,
		       const struct ul_conf_step *st)
{
	size_t i, k;

	for (i = st->first; i < st->first + st->nr; i++) {
		const struct ul_conf_peer *cp = &conf->peers[i];
		bool is_mr = !(cp->flags & UL_CONF_PEER_HAS_MULTI_RAIL) ||
			     cp->is_multi_rail;
		struct ul_err cerr = { 0 };
		struct ul_peer *peer;
		int rc;

		rc = ul_peer_add(a->c, &cp->primary_nid, is_mr, false, &peer,
				 &cerr);
		if (rc < 0)
			return fail(a, cp->line, "peer", rc, &cerr);
		for (k = 0; k < cp->nr_nis; k++) {
			if (ulnet_nid_same(&cp->nis[k], &cp->primary_nid))
				continue;
			rc = ul_peer_ni_add(a->c, peer, &cp->nis[k], NULL,
					    &cerr);
			if (rc < 0)
				return fail(a, cp->line, "peer ni", rc, &cerr);
		}
	}
	return 0;
}

static int set_tunable(const struct apply *a, const char *name, long long v,
		       unsigned int line)
{
	struct ul_err cerr = { 0 };
	int id = ul_tunable_from_name(name);
	int rc;

	if (id < 0) {
		note(a, line, "'%s' not applied: unknown here", name);
		return 0;
	}
	rc = ul_tunables_set(&a->c->tun, (enum ul_tunable)id, v, &cerr);
	return rc < 0 ? fail(a, line, name, rc, &cerr) : 0;
}

/* A global parameter as lnetctl's setters pass it on (lnetctl.md §9). */
static int apply_global(const struct apply *a, const struct ul_conf_step *st)
{
	long long v = st->value;

	if (st->key < 0)
		return 0; /* lnd_timeout is read-only */
	if ((st->key == UL_CONF_GLOBAL_DISCOVERY ||
	     st->key == UL_CONF_GLOBAL_DROP_ASYM_ROUTE) &&
	    v != 0)
		v = 1;
	return set_tunable(a, ul_conf_global_name(st->key), v, st->line);
}

/*
 * UDSP rules as written, each as `udsp add` takes it (ul_conf.udsp_rules):
 * a dry run says what the rules of a file do, not what lnetctl's importer
 * would make of them (lnetctl.md §17.3). A rule without idx is appended.
 */
static int apply_udsp(const struct apply *a, const struct ul_conf *conf,
		      const struct ul_conf_step *st)
{
	size_t i;
	int rc = 0;

	/* One full application for the whole section, not one per rule. */
	if (a->opts->udsp)
		ul_udsp_defer(a->opts->udsp, true);
	for (i = st->rules_first; i < st->rules_first + st->rules_nr && !rc;
	     i++) {
		const struct ul_conf_udsp *cu = &conf->udsp_rules[i];
		struct ul_udsp_rule *rule;
		struct ul_err cerr = { 0 };

		if (!a->opts->udsp) {
			note(a, cu->line,
			     "udsp rule idx %d not applied: no UDSP set given",
			     cu->idx);
			continue;
		}
		rc = ul_udsp_rule_from_strings(
			cu->src, cu->dst, cu->rte,
			cu->flags & UL_CONF_UDSP_HAS_PRIORITY,
			(uint32_t)cu->priority, cu->idx, &rule, &cerr);
		if (rc == 0) {
			rc = ul_udsp_add(a->opts->udsp, rule, &cerr);
			ul_udsp_rule_free(rule);
		}
		if (rc < 0)
			rc = fail(a, cu->line, "udsp", rc, &cerr);
	}
	if (a->opts->udsp)
		ul_udsp_defer(a->opts->udsp, false);
	return rc;
}

static int apply_step(struct apply *a, const struct ul_conf *conf,
		      const struct ul_conf_step *st)
{
	size_t i;
	int rc;

	switch (st->sec) {
	case UL_CONF_SEC_NET:
		for (i = st->first; i < st->first + st->nr; i++) {
			rc = apply_net(a, &conf->nets[i]);
			if (rc < 0)
				return rc;
		}
		return 0;
	case UL_CONF_SEC_IP2NETS:
		return apply_ip2nets(a, conf, st);
	case UL_CONF_SEC_ROUTE:
		return apply_routes(a, conf, st);
	case UL_CONF_SEC_PEER:
		return apply_peers(a, conf, st);
	case UL_CONF_SEC_ROUTING:
		return set_tunable(a, "routing", st->value == 1, st->line);
	case UL_CONF_SEC_BUFFERS:
		note(a, st->line,
		     "router buffers not applied: no router buffer pools");
		return 0;
	case UL_CONF_SEC_NUMA:
		return set_tunable(a, "numa_range", st->value, st->line);
	case UL_CONF_SEC_GLOBAL:
		return apply_global(a, st);
	case UL_CONF_SEC_UDSP:
		return apply_udsp(a, conf, st);
	case UL_CONF_SEC_NR:
	default:
		return 0;
	}
}

int ul_conf_apply(struct ul_core *c, const struct ul_conf *conf,
		  const struct ul_conf_apply_opts *opts, struct ul_err *err)
{
	static const struct ul_conf_apply_opts none;
	struct apply a = { c, opts ? opts : &none, err, NULL };
	size_t i;
	int rc;

	for (i = 0; i < conf->nr_steps; i++) {
		rc = apply_step(&a, conf, &conf->steps[i]);
		if (rc < 0)
			return rc;
	}
	if (conf->refusal.is_set)
		return ul_err_set(err, -EINVAL, "%s", conf->refusal.where);
	return 0;
}
