/*
 * Configuration requests as node operations (node_req.h): lnetctl's
 * argument checks and LNet's answers, then one call into core/node.h.
 * The texts are LNet's (reference/lnetctl.md §6 to §12).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "core/udsp.h"
#include "wire/udsp_block.h"
#include "ctl/node_req.h"
#include "nid/expr.h"
#include "util/err.h"
#include "util/log.h"

/* ---- net add, net del, net set (lnetctl.md §6) ------------------------ */

/* The CPTs of expression e as a mask; -ERANGE when one is >= ncpt. */
static int cpt_mask(const struct ul_expr *e, unsigned int ncpt, uint64_t *out)
{
	uint64_t mask = 0;
	unsigned int i;

	for (i = 0; i < e->nr; i++) {
		const struct ul_range *r = &e->r[i];
		uint32_t top = r->lo + (r->hi - r->lo) / r->stride * r->stride;

		if (top >= ncpt)
			return -ERANGE;
	}
	for (i = 0; i < ncpt && i < 64; i++)
		if (ul_expr_match(e, i))
			mask |= 1ULL << i;
	*out = mask;
	return 0;
}

/*
 * The net's tunables from the request, LNet's defaults where not given;
 * a new net lowers peer credits to its credits (core/ni.c), and an
 * existing one compares what was asked for, unlowered, as LNet does.
 */
static void req_tunables(const struct ul_ctl_args *a,
			 struct ul_net_tunables *tun)
{
	ul_net_tunables_default(tun);
	if ((a->has & UL_CTL_ARG_PEER_TIMEOUT) && a->peer_timeout >= 0)
		tun->peer_timeout_sec = a->peer_timeout;
	if ((a->has & UL_CTL_ARG_PEER_CREDITS) && a->peer_credits > 0)
		tun->peer_tx_credits = a->peer_credits;
	if ((a->has & UL_CTL_ARG_PEER_BUF_CREDITS) &&
	    a->peer_buffer_credits > 0)
		tun->peer_buffer_credits = a->peer_buffer_credits;
	if ((a->has & UL_CTL_ARG_CREDITS) && a->credits > 0)
		tun->credits = a->credits;
}

/* The host as the request sees it: env's, or read now into *owned. */
struct host {
	const struct ul_conf_hostaddr *addrs;
	size_t n;
	struct ul_conf_hostaddr *owned;
};

static int host_get(const struct ul_node_req_env *env, struct host *h)
{
	memset(h, 0, sizeof(*h));
	if (env->addrs) {
		h->addrs = env->addrs;
		h->n = env->nr_addrs;
		return 0;
	}
	if (ul_conf_host_addrs(&h->owned, &h->n))
		return -ENODEV;
	h->addrs = h->owned;
	return 0;
}

/*
 * The up IPv4 address on interface name, or the entry of address ipv4
 * (name NULL). Loopback interfaces are never LNet's: its interface
 * enumeration skips them (lnetctl.md §6.1).
 */
static const struct ul_conf_hostaddr *find_ipv4(const struct host *h,
						const char *name, uint32_t ipv4)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		const struct ul_conf_hostaddr *e = &h->addrs[i];

		if (e->family != UL_CONF_ADDR_IPV4 || !e->is_up ||
		    e->is_loopback)
			continue;
		if (name ? strcmp(e->ifname, name) == 0 : e->ipv4 == ipv4)
			return e;
	}
	return NULL;
}

/*
 * Whether interface name is up with an IPv6 address (and is not a
 * loopback one): a --if LNet would start an IPv6 NI on, which this
 * socklnd cannot (IPv4 only).
 */
static bool has_ipv6(const struct host *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->addrs[i].family == UL_CONF_ADDR_IPV6 &&
		    h->addrs[i].is_up && !h->addrs[i].is_loopback &&
		    strcmp(h->addrs[i].ifname, name) == 0)
			return true;
	return false;
}

#define IPV6_REFUSED "cannot add LNet NI: ulnet's socklnd is IPv4 only"

/* One NI of a request: its NID, interface and CPTs, resolved. */
struct ni_req {
	struct ulnet_nid nid;
	char ifname[UL_CONF_IFNAME_SIZE];
	uint64_t cpt_mask;
};

/*
 * Entry i of the request (interfaces first, then NIDs) as LNet reads one
 * "local NI" entry: its CPTs are checked before the interface is looked
 * up (lnet_genl_parse_local_ni), then the LND needs the interface up
 * with an address.
 */
static int resolve(const struct ul_node_req_env *env,
		   const struct ul_ctl_args *a, uint32_t net, size_t i,
		   const struct host *h, struct ni_req *r, struct ul_err *err)
{
	const struct ul_conf_hostaddr *e;
	struct ul_expr *cpt = NULL;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (i < a->nifs &&
	    ul_conf_parse_ifname(a->ifs[i], r->ifname, &cpt, NULL))
		return ul_err_set(err, -ENODEV, "cannot add LNet NI");
	/* An unparsable --cpt is ignored, as lnetctl does (§6.1). */
	if (!cpt && (a->has & UL_CTL_ARG_CPT))
		(void)ul_conf_parse_cpt(a->cpt, &cpt, NULL);
	if (cpt)
		rc = cpt_mask(cpt, env->ncpt ? env->ncpt : 1, &r->cpt_mask);
	ul_expr_free(cpt);
	if (rc)
		return ul_err_set(err, -ERANGE, "invalid CPT value");
	if (i >= a->nifs) {
		r->nid = a->nids[i - a->nifs];
		if (r->nid.nid_size != 0)
			return ul_err_set(err, -EAFNOSUPPORT, IPV6_REFUSED);
		e = find_ipv4(h, NULL, r->nid.nid_addr[0]);
		if (e)
			memcpy(r->ifname, e->ifname, sizeof(r->ifname));
		return 0;
	}
	e = find_ipv4(h, r->ifname, 0);
	if (!e && has_ipv6(h, r->ifname))
		return ul_err_set(err, -EAFNOSUPPORT, IPV6_REFUSED);
	if (!e)
		return ul_err_set(err, -ENODEV, "cannot add LNet NI");
	r->nid.nid_type = (uint8_t)ulnet_net_type(net);
	r->nid.nid_num = (uint16_t)ulnet_net_num(net);
	r->nid.nid_addr[0] = e->ipv4;
	return 0;
}

/*
 * lnet_load_lnd, which LNet runs for the net of every "local NI" entry of
 * an add, del or set request before anything else, LNet up or down: the
 * socklnd is the only LND ulnet has (lo is refused before), and an LND
 * module that cannot be loaded is -EINVAL there. A dry run starts no
 * LND, so it takes any.
 */
static int lnd_load(const struct ul_node_req_env *env, uint32_t net,
		    struct ul_err *err)
{
	if (net != ULNET_NET_ANY && ulnet_net_type(net) != ULNET_LND_SOCK &&
	    !env->is_dry_run)
		return ul_err_set(err, -EINVAL, "LND type not supported");
	return 0;
}

static int add_one(const struct ul_node_req_env *env,
		   const struct ul_ctl_args *a, const struct ni_req *r,
		   const struct ul_net_tunables *tun, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(env->node);
	int numa = (a->has & UL_CTL_ARG_NUMA) && a->numa >= 0 ? a->numa
							      : UL_NUMA_ANY;
	struct ul_err cerr = { 0 };
	struct ul_ni *ni;
	int rc;

	rc = ul_node_ni_add(env->node, &r->nid, r->ifname[0] ? r->ifname : NULL,
			    numa, tun, &cerr);
	if (rc == -ENOSPC)
		return ul_err_set(err, rc,
				  "too many NIs, check lnet_interfaces_max");
	if (rc)
		return ul_err_set(err, rc, "cannot add LNet NI");
	ni = ul_ni_find(core, &r->nid);
	if (ni) {
		ni->cpt_mask = r->cpt_mask;
		/* 0 is the LND's default, which the NI's start chose. */
		if ((a->has & UL_CTL_ARG_CONNS_PER_PEER) &&
		    a->conns_per_peer > 0)
			ni->conns_per_peer = a->conns_per_peer;
		if (a->has & UL_CTL_ARG_TOS)
			ni->tos = a->tos;
	}
	return 0;
}

/*
 * LNet adds the NIs of a request one at a time (lnet_net_cmd calls
 * lnet_dyn_add_ni per entry): the ones before a failure stay. One net of
 * an --ip2net rule is different: LNet starts all its NIs or none
 * (lnet_startup_lndnet), so those added here go again on a failure.
 */
static int net_add(const struct ul_node_req_env *env,
		   const struct ul_ctl_args *a, struct ul_err *err)
{
	bool is_ip2net = a->flags & UL_CTL_ARGF_IP2NET;
	struct ul_net_tunables tun;
	struct ni_req *reqs = NULL;
	size_t n, added = 0, i;
	struct host h = { 0 };
	uint32_t net;
	int rc;

	if (a->has & UL_CTL_ARG_NET) {
		if (ulnet_net_parse(a->net, &net, NULL, 0) ||
		    net == ULNET_NET_ANY)
			return ul_err_set(err, -ENOENT, "cannot parse net");
	} else if (a->nnids) {
		net = ulnet_nid_net(&a->nids[0]);
	} else {
		return ul_err_set(err, -ENOENT, "cannot parse net");
	}
	if (ulnet_net_type(net) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	rc = lnd_load(env, net, err);
	if (rc)
		return rc;
	if (!ul_node_lnet_is_configured(env->node))
		return ul_err_set(err, -ESHUTDOWN, "cannot add LNet NI");
	if (((a->has & UL_CTL_ARG_CONNS_PER_PEER) &&
	     (a->conns_per_peer < 0 || a->conns_per_peer > 127)) ||
	    ((a->has & UL_CTL_ARG_TOS) && (a->tos < -1 || a->tos > 255)))
		return ul_err_set(err, -ERANGE, "failed to parse lnd tunables");
	req_tunables(a, &tun);
	n = a->nifs + a->nnids;
	reqs = calloc(n + 1, sizeof(*reqs));
	rc = reqs ? host_get(env, &h) : -ENOMEM;
	if (rc) {
		rc = ul_err_set(err, rc, "cannot add LNet NI");
		goto out;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = resolve(env, a, net, i, &h, &reqs[added], err);
		if (rc == 0)
			rc = add_one(env, a, &reqs[added], &tun, err);
		if (rc == 0)
			added++;
	}
	while (rc && is_ip2net && added)
		(void)ul_node_ni_del(env->node, &reqs[--added].nid, NULL);
out:
	free(h.owned);
	free(reqs);
	return rc;
}

/* The net a del request names; ULNET_NET_ANY for a name LNet cannot parse. */
static uint32_t del_net(const struct ul_ctl_args *a)
{
	uint32_t net;

	if (a->has & UL_CTL_ARG_NET)
		return ulnet_net_parse(a->net, &net, NULL, 0) ? ULNET_NET_ANY
							      : net;
	return a->nnids ? ulnet_nid_net(&a->nids[0]) : ULNET_NET_ANY;
}

/*
 * LNet's answers (lnet_net_cmd): lo is refused first; a net without NI
 * entries goes whole (lnet_dyn_del_net: -ESHUTDOWN while LNet is down,
 * -EINVAL for a net it does not have, an unparsable name included); then
 * each entry in turn, the earlier ones staying deleted: a NID through
 * lnet_dyn_del_ni (-ESHUTDOWN, -ENOENT), an interface by its net's NI
 * list (-ENODEV, with no net at all while LNet is down).
 */
static int net_del(const struct ul_node_req_env *env,
		   const struct ul_ctl_args *a, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(env->node);
	bool is_up = ul_node_lnet_is_configured(env->node);
	uint32_t net = del_net(a);
	char ifname[UL_CONF_IFNAME_SIZE];
	struct ul_expr *cpt;
	struct ul_net *lnet;
	struct ul_ni *ni;
	size_t i;
	int rc;

	if (net != ULNET_NET_ANY && ulnet_net_type(net) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	if (a->nnids || a->nifs) {
		rc = lnd_load(env, net, err);
		if (rc)
			return rc;
	}
	if (a->nnids == 0 && a->nifs == 0) {
		if (!is_up)
			return ul_err_set(err, -ESHUTDOWN,
					  "cannot del network");
		if (net == ULNET_NET_ANY || !ul_net_find(core, net) ||
		    ul_node_net_del(env->node, net, NULL))
			return ul_err_set(err, -EINVAL, "cannot del network");
		return 0;
	}
	for (i = 0; i < a->nnids; i++) {
		if (!is_up)
			return ul_err_set(err, -ESHUTDOWN,
					  "cannot del LNet NI");
		if (!ul_ni_find(core, &a->nids[i]) ||
		    ul_node_ni_del(env->node, &a->nids[i], NULL))
			return ul_err_set(err, -ENOENT, "cannot del LNet NI");
	}
	for (i = 0; i < a->nifs; i++) {
		lnet = !is_up || net == ULNET_NET_ANY ? NULL
						      : ul_net_find(core, net);
		if (!lnet)
			return ul_err_set(err, -ENODEV,
					  "LNet net doesn't exist");
		cpt = NULL;
		if (ul_conf_parse_ifname(a->ifs[i], ifname, &cpt, NULL))
			return ul_err_set(err, -ENODEV, "cannot del LNet NI");
		ul_expr_free(cpt);
		ni = ul_ni_find_by_ifname(lnet, ifname);
		if (!ni || ul_node_ni_del(env->node, &ni->nid, NULL))
			return ul_err_set(err, -ENODEV, "cannot del LNet NI");
	}
	return 0;
}

static int net_set(const struct ul_node_req_env *env,
		   const struct ul_ctl_args *a, struct ul_err *err)
{
	bool only = a->has & UL_CTL_ARG_NID;
	struct ul_node_net_set s = { 0 };
	uint32_t net_id;

	if (a->has & UL_CTL_ARG_LND_TIMEOUT) {
		if (!(a->has & UL_CTL_ARG_NET) ||
		    ulnet_net_parse(a->net, &net_id, NULL, 0))
			return ul_err_set(err, -EINVAL,
					  "\"Invalid network type: %s\"",
					  a->net);
		/* socklnd is the only LND here with a timeout to set. */
		if (ulnet_net_type(net_id) != ULNET_LND_SOCK)
			return ul_err_set(
				err, -EINVAL,
				"\"Failed to set LND timeout for "
				"net %s\"",
				ulnet_lnd_name(ulnet_net_type(net_id)));
		ul_node_lnd_timeout_param_set(env->node,
					      (uint32_t)a->lnd_timeout);
		return 0;
	}
	/*
	 * As lnet_net_cmd: a NID on lo is refused before anything else;
	 * otherwise LNet walks the NIs it has, none while it is down.
	 */
	if (only && a->nid.nid_type == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	if (only && lnd_load(env, ulnet_nid_net(&a->nid), err))
		return -EINVAL;
	if (!ul_node_lnet_is_configured(env->node))
		return 0;
	s.only = only ? &a->nid : NULL;
	s.has_health = a->has & UL_CTL_ARG_HEALTH;
	s.health = a->health;
	s.has_conns_per_peer = a->has & UL_CTL_ARG_CONNS_PER_PEER;
	s.conns_per_peer = a->conns_per_peer;
	ul_node_net_set(env->node, &s);
	return 0;
}

/* ---- peer add, peer del, peer set (lnetctl.md §7) --------------------- */

static int peer_add_del(const struct ul_node_req_env *env, bool is_add,
			const struct ul_ctl_args *a, struct ul_err *err)
{
	struct ul_node_peer_req r = {
		.nids = a->nids,
		.nnids = a->nnids,
		.is_mr = !(a->flags & UL_CTL_ARGF_NON_MR),
		.is_lock = a->flags &
			   (UL_CTL_ARGF_LOCK_PRIM | UL_CTL_ARGF_FORCE),
		.is_import = a->flags & UL_CTL_ARGF_IMPORT,
	};

	if (!(a->has & UL_CTL_ARG_NID))
		return ul_err_set(err, -ENOMSG, "no configuration");
	r.prim = a->nid;
	return is_add ? ul_node_peer_add(env->node, &r, err)
		      : ul_node_peer_del(env->node, &r, err);
}

static int peer_set(const struct ul_node_req_env *env,
		    const struct ul_ctl_args *a, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(env->node);
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *p;
	int rc;

	/*
	 * LNet reads one request's "peer state" before its "peer ni"
	 * health: a state for an unknown peer fails first; otherwise both
	 * apply.
	 */
	if (a->has & UL_CTL_ARG_STATE) {
		rc = ul_node_peer_set_state(
			env->node, (a->has & UL_CTL_ARG_NID) ? &a->nid : NULL,
			a->state, err);
		if (rc)
			return rc;
	}
	/*
	 * The value as given, as lnet_peer_ni_set_healthv() stores it
	 * (lnetctl sends none below 0; the kernel's clamp_t() result is
	 * unused, so 2000 stays 2000).
	 */
	if (!(a->has & UL_CTL_ARG_HEALTH))
		return 0;
	if (a->has & UL_CTL_ARG_NID) {
		lpni = ul_peer_ni_find(core, &a->nid);
		if (lpni)
			ul_node_lpni_set_healthv(env->node, lpni, a->health);
		return 0;
	}
	if (!(a->flags & UL_CTL_ARGF_ALL))
		return 0; /* neither --nid nor --all: nothing, as lnetctl */
	ul_list_for_each_entry(p, &core->peers, core_link)
		ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link)
				ul_node_lpni_set_healthv(env->node, lpni,
							 a->health);
	return 0;
}

/* ---- route add, route del (lnetctl.md §8.1 to §8.3) ------------------- */

/* A remote net by name: 0, or lnetctl's errno and text. */
static int remote_net(const struct ul_ctl_args *a, uint32_t *net,
		      struct ul_err *err)
{
	if (!(a->has & UL_CTL_ARG_NET) ||
	    ulnet_net_parse(a->net, net, NULL, 0) || *net == ULNET_NET_ANY)
		return ul_err_set(err, -ENXIO,
				  "setting LNET_NET_ANY not allowed");
	if (ulnet_net_type(*net) == ULNET_LND_LO)
		return ul_err_set(err, -EACCES, "setting @lo not allowed");
	return 0;
}

static int route_add(const struct ul_node_req_env *env,
		     const struct ul_ctl_args *a, struct ul_err *err)
{
	uint32_t net, hops = UL_HOPS_UNDEFINED, prio = 0;
	int rc;

	rc = remote_net(a, &net, err);
	if (rc)
		return rc;
	if ((a->has & UL_CTL_ARG_HOP) && a->hop != -1) {
		if (a->hop < 1 || a->hop > 255)
			return ul_err_set(err, -EINVAL,
					  "invalid hop count must be between "
					  "1 and 255");
		hops = (uint32_t)a->hop;
	}
	if (a->has & UL_CTL_ARG_PRIORITY) {
		if (a->priority < 0)
			return ul_err_set(err, -EINVAL,
					  "invalid priority, must not be "
					  "negative");
		prio = (uint32_t)a->priority;
	}
	return ul_node_route_add(env->node, net, a->nids, a->nnids, hops, prio,
				 err);
}

static int route_del(const struct ul_node_req_env *env,
		     const struct ul_ctl_args *a, struct ul_err *err)
{
	uint32_t net;
	int rc;

	/* LNet reads the net before it knows add from del (§8.1 table). */
	rc = remote_net(a, &net, err);
	if (rc)
		return rc;
	return ul_node_route_del(env->node, net, a->nids, a->nnids, err);
}

/* ---- set (lnetctl.md §9) ---------------------------------------------- */

/* What `set` may change: lnetctl's names, not the module-only ones. */
static const enum ul_tunable settable[] = {
	UL_TUNABLE_NUMA_RANGE,	       UL_TUNABLE_MAX_INTERFACES,
	UL_TUNABLE_DISCOVERY,	       UL_TUNABLE_DROP_ASYM_ROUTE,
	UL_TUNABLE_RETRY_COUNT,	       UL_TUNABLE_TRANSACTION_TIMEOUT,
	UL_TUNABLE_HEALTH_SENSITIVITY, UL_TUNABLE_RECOVERY_INTERVAL,
	UL_TUNABLE_ROUTER_SENSITIVITY, UL_TUNABLE_RESPONSE_TRACKING,
	UL_TUNABLE_RECOVERY_LIMIT,     UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL,
};

#define NSETTABLE (sizeof(settable) / sizeof(settable[0]))

const enum ul_tunable *ul_node_req_settable(size_t *n)
{
	*n = NSETTABLE;
	return settable;
}

static bool is_routing_name(const char *name)
{
	return strcmp(name, "routing") == 0 ||
	       strcmp(name, "tiny_buffers") == 0 ||
	       strcmp(name, "small_buffers") == 0 ||
	       strcmp(name, "large_buffers") == 0;
}

static int set(const struct ul_node_req_env *env, const struct ul_ctl_args *a,
	       struct ul_err *err)
{
	size_t i;
	int id;

	if (!(a->has & UL_CTL_ARG_NAME) || !(a->has & UL_CTL_ARG_VALUE))
		return ul_err_set(err, -EINVAL, "set needs a name and a value");
	if (is_routing_name(a->name))
		return ul_node_routing_set(env->node, a->name, a->value,
					   env->ncpt ? env->ncpt : 1, err);
	id = ul_tunable_from_name(a->name);
	for (i = 0; i < NSETTABLE; i++)
		if (id >= 0 && settable[i] == (enum ul_tunable)id)
			break;
	if (i == NSETTABLE)
		return ul_err_set(err, -ENOENT, "no such parameter '%s'",
				  a->name);
	/* numa_range goes by an ioctl, which needs LNet up. */
	if (!ul_node_lnet_is_configured(env->node) &&
	    id == UL_TUNABLE_NUMA_RANGE)
		return ul_err_set(err, -ENETDOWN, "Network is down");
	return ul_node_tunable_set(env->node, id, a->value, err);
}

/* ---- udsp add, udsp del (lnetctl.md §12) ------------------------------ */

/* A rule arrives as the kernel's binary block (wire/udsp_block.h). */
static int udsp_add(const struct ul_node_req_env *env,
		    const struct ul_ctl_args *a, struct ul_err *err)
{
	struct ul_udsp_rule *rule;
	int rc;

	if (!(a->has & UL_CTL_ARG_UDSP_BLOCK))
		return ul_err_set(err, -EINVAL, "no rule given");
	rc = ul_udsp_rule_decode(a->udsp_block, a->udsp_len, &rule, err);
	if (rc)
		return rc;
	rc = ul_node_udsp_add(env->node, rule, err);
	ul_udsp_rule_free(rule);
	return rc;
}

static int udsp_del(const struct ul_node_req_env *env,
		    const struct ul_ctl_args *a, struct ul_err *err)
{
	if (a->flags & UL_CTL_ARGF_ALL)
		return ul_node_udsp_del(env->node, -1, err);
	if (!(a->has & UL_CTL_ARG_IDX) || a->idx < 0)
		return ul_err_set(err, -EINVAL, "no index given");
	return ul_node_udsp_del(env->node, a->idx, err);
}

int ul_node_req_call(const struct ul_node_req_env *env, uint16_t op,
		     const struct ul_ctl_args *a, struct ul_err *err)
{
	/* The ops LNet refuses whole while it is down (lnetctl.md §5). */
	switch (op) {
	case UL_CTL_OP_PEER_ADD:
	case UL_CTL_OP_PEER_DEL:
	case UL_CTL_OP_PEER_SET:
	case UL_CTL_OP_ROUTE_ADD:
	case UL_CTL_OP_ROUTE_DEL:
	case UL_CTL_OP_UDSP_ADD:
	case UL_CTL_OP_UDSP_DEL:
		if (!ul_node_lnet_is_configured(env->node))
			return ul_err_set(err, -ENETDOWN, "Network is down");
		break;
	default:
		break;
	}
	switch (op) {
	case UL_CTL_OP_NET_ADD:
		return net_add(env, a, err);
	case UL_CTL_OP_NET_DEL:
		return net_del(env, a, err);
	case UL_CTL_OP_NET_SET:
		return net_set(env, a, err);
	case UL_CTL_OP_PEER_ADD:
		return peer_add_del(env, true, a, err);
	case UL_CTL_OP_PEER_DEL:
		return peer_add_del(env, false, a, err);
	case UL_CTL_OP_PEER_SET:
		return peer_set(env, a, err);
	case UL_CTL_OP_ROUTE_ADD:
		return route_add(env, a, err);
	case UL_CTL_OP_ROUTE_DEL:
		return route_del(env, a, err);
	case UL_CTL_OP_SET:
		return set(env, a, err);
	case UL_CTL_OP_UDSP_ADD:
		return udsp_add(env, a, err);
	case UL_CTL_OP_UDSP_DEL:
		return udsp_del(env, a, err);
	default:
		return ul_err_set(err, -EOPNOTSUPP, "operation not supported");
	}
}

/* ---- applying an lnet.conf -------------------------------------------- */

struct apply {
	const struct ul_node_req_env *env;
	const struct ul_node_req_apply_ops *ops;
	struct ul_err *err; /* the first failure */
};

static int apply_call(void *ctx, uint16_t op, const struct ul_ctl_args *a,
		      struct ul_err *err, bool *is_lost)
{
	const struct apply *ap = ctx;
	int rc;

	(void)is_lost; /* the node always answers */
	rc = ul_node_req_call(ap->env, op, a, err);
	return rc > 0 ? -EINVAL : rc;
}

/*
 * The caller sees every report; the first one that fails the apply is
 * also its error, with its line. lnetctl's silent refusals get the name
 * of what was refused, since nothing else says it.
 */
/* A report's text: the server's, or its errno's. */
static const char *report_descr(const struct ul_conf_report *r)
{
	return r->descr && r->descr[0] ? r->descr : strerror(-r->errnum);
}

void ul_node_req_log_report(const struct ul_log *log, const char *where,
			    const struct ul_conf_report *r)
{
	ul_log(log, r->is_ignored ? UL_D_WARNING : UL_D_ERROR,
	       "%s line %u: %s %s: errno %d: %s%s", where, r->line,
	       r->d2_op ? r->d2_op : r->op, r->object, r->errnum,
	       report_descr(r),
	       r->is_ignored ? " (skipped, as lnetctl does)" : "");
}

static void apply_report(void *ctx, const struct ul_conf_report *r)
{
	const struct apply *ap = ctx;
	const char *descr = report_descr(r);

	if (ap->ops && ap->ops->report)
		ap->ops->report(ap->ops->ctx, r);
	if (ap->err->msg[0] || r->is_ignored)
		return;
	if (strncmp(descr, "line ", 5) == 0) /* the parse's: it says where */
		ul_err_fmt(ap->err, r->errnum, "%s", descr);
	else if (r->is_silent &&
		 strncmp(descr, r->object, strlen(r->object)) != 0)
		ul_err_fmt(ap->err, r->errnum, "line %u: %s: %s", r->line,
			   r->object, descr);
	else
		ul_err_fmt(ap->err, r->errnum, "line %u: %s", r->line, descr);
}

static void apply_note(void *ctx, const struct ul_conf_warning *w)
{
	const struct apply *ap = ctx;

	if (ap->ops && ap->ops->note)
		ap->ops->note(ap->ops->ctx, w);
}

int ul_node_req_apply(const struct ul_node_req_env *env,
		      const struct ul_conf *conf,
		      const struct ul_node_req_apply_ops *ops,
		      struct ul_err *err)
{
	struct ul_conf_import_opts o = { 0 };
	struct apply ap = { env, ops, err };
	struct host h;
	int rc;

	memset(err, 0, sizeof(*err));
	rc = host_get(env, &h);
	if (rc)
		return ul_err_set(err, rc, "cannot list interfaces");
	o.addrs = h.addrs;
	o.nr_addrs = h.n;
	o.is_numa_from_dev_cpt = env->is_dry_run;
	o.is_nid_over_iface = env->is_dry_run;
	o.ops.call = apply_call;
	o.ops.report = apply_report;
	o.ops.note = apply_note;
	o.ops.ctx = &ap;
	rc = ul_conf_import(conf, &o);
	free(h.owned);
	/* the first error's errno says best what went wrong */
	if (rc && err->code < 0)
		rc = err->code;
	else if (rc > 0)
		rc = -rc;
	if (rc && !err->msg[0])
		ul_err_set(err, rc, "%s", strerror(-rc));
	return rc;
}
