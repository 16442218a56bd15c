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

/* A net with no interface and no NID takes the first up interface. */
static int apply_default_ni(const struct apply *a, const struct ul_conf_net *cn,
			    const struct ul_net_tunables *tun)
{
	struct ulnet_nid nid;
	char netstr[ULNET_NIDSTR_SIZE];

	if (a->opts->nr_ifaddrs == 0)
		return ul_err_set(a->err, -ENODEV,
				  "line %u: net %s names no NI and no "
				  "interface is up here",
				  cn->line,
				  ulnet_net_format(cn->net, netstr,
						   sizeof(netstr)));
	if (if_nid(a, cn->net, a->opts->ifaddrs[0].ifname, cn->line, &nid) < 0)
		return a->err ? a->err->code : -ENODEV;
	return add_ni(a, &nid, a->opts->ifaddrs[0].ifname, tun, UL_NUMA_ANY,
		      cn->line);
}

static void note_lnd(const struct apply *a,
		     const struct ul_conf_lnd_tunables *l, unsigned int line)
{
	size_t i;

	if (l->flags & UL_CONF_LND_HAS_CONNS_PER_PEER)
		note(a, line, "conns_per_peer %d kept for the socklnd",
		     l->conns_per_peer);
	for (i = 0; i < l->nr_other; i++)
		note(a, l->other[i].line,
		     "lnd tunable '%s' not applied: no such LND in user space",
		     l->other[i].key);
}

static int apply_net(const struct apply *a, const struct ul_conf_net *cn)
{
	struct ul_net_tunables tun;
	size_t i, added = 0;
	int rc;

	net_tunables(cn, NULL, &tun);
	note_cpt(a, cn->cpt, cn->line);
	note_lnd(a, &cn->lnd_tunables, cn->line);
	rc = apply_iface_nis(a, cn->net, cn->nis, cn->nr_nis, &tun,
			     UL_NUMA_ANY);
	if (rc < 0)
		return rc;
	added += cn->nr_nis;
	for (i = 0; i < cn->nr_groups; i++) {
		const struct ul_conf_ni_group *g = &cn->groups[i];

		net_tunables(cn, g, &tun);
		note_cpt(a, g->cpt, g->line);
		note_lnd(a, &g->lnd_tunables, g->line);
		rc = apply_iface_nis(a, cn->net, g->nis, g->nr_nis, &tun,
				     (g->flags & UL_CONF_GROUP_HAS_DEV_CPT) &&
						     g->dev_cpt >= 0
					     ? g->dev_cpt
					     : UL_NUMA_ANY);
		if (rc < 0)
			return rc;
		added += g->nr_nis;
	}
	if (added == 0 && cn->nr_groups == 0)
		return apply_default_ni(a, cn, &tun);
	return 0;
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
 * configured earlier in the import is skipped; no rule applying at all
 * is an error.
 */
static int apply_ip2nets(const struct apply *a, const struct ul_conf *conf)
{
	size_t r, i, applied = 0;
	int rc;

	for (r = 0; r < conf->nr_ip2nets; r++) {
		const struct ul_conf_net *cn = &conf->ip2nets[r];
		struct ul_net_tunables tun;

		if (ul_net_find(a->c, cn->net)) {
			note(a, cn->line,
			     "ip2nets rule skipped: its net is configured "
			     "already");
			continue;
		}
		net_tunables(cn, NULL, &tun);
		for (i = 0; i < a->opts->nr_ifaddrs; i++) {
			const struct ul_conf_ifaddr *ifa = &a->opts->ifaddrs[i];
			struct ulnet_nid nid;
			size_t k;
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
	}
	if (conf->nr_ip2nets && applied == 0)
		return ul_err_set(a->err, -ENOENT, "No ip2nets rules applied");
	return 0;
}

static int apply_routes(const struct apply *a, const struct ul_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->nr_routes; i++) {
		const struct ul_conf_route *cr = &conf->routes[i];
		uint32_t hops = cr->hop < 0 ? UL_HOPS_UNDEFINED
					    : (uint32_t)cr->hop;
		struct ul_err cerr = { 0 };
		int rc;

		struct ul_route *route;

		rc = ul_route_add(a->c, cr->net, &cr->gateway, hops,
				  cr->priority, &route, &cerr);
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
static int apply_peers(const struct apply *a, const struct ul_conf *conf)
{
	size_t i, k;

	for (i = 0; i < conf->nr_peers; i++) {
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

static int apply_global(const struct apply *a, const struct ul_conf *conf)
{
	unsigned int key;

	for (key = 0; key < UL_CONF_GLOBAL_NR; key++) {
		const char *name = ul_conf_global_name(key);
		struct ul_err cerr = { 0 };
		int id, rc;

		if (!(conf->global.flags & (1U << key)))
			continue;
		id = ul_tunable_from_name(name);
		if (id < 0) {
			note(a, 0, "global '%s' not applied: unknown here",
			     name);
			continue;
		}
		rc = ul_tunables_set(&a->c->tun, (enum ul_tunable)id,
				     conf->global.value[key], &cerr);
		if (rc < 0)
			return fail(a, 0, name, rc, &cerr);
	}
	return 0;
}

static int apply_routing(const struct apply *a, const struct ul_conf *conf)
{
	struct ul_err cerr = { 0 };
	int id = ul_tunable_from_name("routing");
	int rc;

	if (conf->flags & UL_CONF_HAS_ROUTING) {
		rc = id < 0 ? -EINVAL
			    : ul_tunables_set(&a->c->tun, (enum ul_tunable)id,
					      conf->routing_enable, &cerr);
		if (rc < 0)
			return fail(a, 0, "routing", rc, &cerr);
	}
	if (conf->flags & UL_CONF_HAS_BUFFERS)
		note(a, 0,
		     "router buffers (tiny %d, small %d, large %d) not "
		     "applied: ulnet has no router buffer pools yet",
		     conf->tiny_buffers, conf->small_buffers,
		     conf->large_buffers);
	return 0;
}

/*
 * UDSP rules go through the same checks as `lnetctl udsp add`. lnetctl's
 * importer refuses a rule whose priority is 0 and carries a priority over
 * to the next rule (udsp.md §7.2); ulnet takes each rule as written.
 */
static int apply_udsp(const struct apply *a, const struct ul_conf *conf)
{
	size_t i;
	int rc = 0;

	/* One full application for the whole section, not one per rule. */
	if (a->opts->udsp)
		ul_udsp_defer(a->opts->udsp, true);
	for (i = 0; i < conf->nr_udsps && rc == 0; i++) {
		const struct ul_conf_udsp *cu = &conf->udsps[i];
		struct ul_udsp_rule *rule;
		struct ul_err cerr = { 0 };

		if (!a->opts->udsp) {
			note(a, cu->line,
			     "udsp rule idx %u not applied: no UDSP set given",
			     cu->idx);
			continue;
		}
		rc = ul_udsp_rule_from_strings(
			cu->src, cu->dst, cu->rte,
			cu->flags & UL_CONF_UDSP_HAS_PRIORITY, cu->priority,
			(int)cu->idx, &rule, &cerr);
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

static int apply_section(const struct apply *a, const struct ul_conf *conf,
			 enum ul_conf_section sec)
{
	size_t i;
	int rc;

	switch (sec) {
	case UL_CONF_SEC_NET:
		for (i = 0; i < conf->nr_nets; i++) {
			rc = apply_net(a, &conf->nets[i]);
			if (rc < 0)
				return rc;
		}
		return 0;
	case UL_CONF_SEC_IP2NETS:
		return apply_ip2nets(a, conf);
	case UL_CONF_SEC_ROUTE:
		return apply_routes(a, conf);
	case UL_CONF_SEC_PEER:
		return apply_peers(a, conf);
	case UL_CONF_SEC_ROUTING:
	case UL_CONF_SEC_BUFFERS:
		return apply_routing(a, conf);
	case UL_CONF_SEC_NUMA:
	case UL_CONF_SEC_GLOBAL:
		return apply_global(a, conf);
	case UL_CONF_SEC_UDSP:
		return apply_udsp(a, conf);
	case UL_CONF_SEC_NR:
	default:
		return 0;
	}
}

int ul_conf_apply(struct ul_core *c, const struct ul_conf *conf,
		  const struct ul_conf_apply_opts *opts, struct ul_err *err)
{
	static const struct ul_conf_apply_opts none;
	struct apply a = { c, opts ? opts : &none, err };
	bool done[UL_CONF_SEC_NR] = { false };
	unsigned int i;
	int rc;

	for (i = 0; i < conf->nr_order; i++) {
		enum ul_conf_section sec = conf->order[i];
		/* routing and buffers share one step, as do numa and global */
		enum ul_conf_section step =
			sec == UL_CONF_SEC_BUFFERS ? UL_CONF_SEC_ROUTING
			: sec == UL_CONF_SEC_NUMA  ? UL_CONF_SEC_GLOBAL
						   : sec;

		if (sec >= UL_CONF_SEC_NR || done[step])
			continue;
		done[step] = true;
		rc = apply_section(&a, conf, step);
		if (rc < 0)
			return rc;
	}
	return 0;
}
