/*
 * `net add`, `net del`, `net set` (reference/lnetctl.md §6) on the
 * instance's side. NIs come and go through the node (ul_node_ni_add and
 * friends) so the LND starts and stops them; interfaces are the host's,
 * read with getifaddrs at each request. While LNet is down (`lnet
 * unconfigure`) add, del and set answer as LNet does then.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/core.h"
#include "core/node.h"
#include "ctl/conf.h"
#include "ctl/conf_apply.h"
#include "ctl/proto_doc.h"
#include "nid/expr.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

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

/*
 * Whether interface name is up with an IPv6 address (and is not a
 * loopback one): a --if LNet would start an IPv6 NI on, which this
 * socklnd cannot (IPv4 only).
 */
static bool if_has_ipv6(const char *name)
{
	struct ifaddrs *ifs, *ifa;
	bool found = false;

	if (getifaddrs(&ifs) < 0)
		return false;
	for (ifa = ifs; ifa && !found; ifa = ifa->ifa_next)
		found = ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET6 &&
			(ifa->ifa_flags & IFF_UP) &&
			!(ifa->ifa_flags & IFF_LOOPBACK) &&
			strcmp(ifa->ifa_name, name) == 0;
	freeifaddrs(ifs);
	return found;
}

#define IPV6_REFUSED "cannot add LNet NI: ulnet's socklnd is IPv4 only"

/* One NI of a request: its NID, interface and CPTs, resolved. */
struct ni_req {
	struct ulnet_nid nid;
	char ifname[UL_CONF_IFNAME_SIZE];
	uint64_t cpt_mask;
};

/*
 * The host's IPv4 address on interface name, or the interface that has
 * address ipv4 (name NULL). Loopback interfaces are never LNet's: its
 * interface enumeration skips them (lnetctl.md §6.1).
 */
static const struct ul_conf_ifaddr *
find_ifaddr(const struct ul_conf_ifaddr *ifs, size_t n, const char *name,
	    uint32_t ipv4)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (ifs[i].is_loopback)
			continue;
		if (name ? strcmp(ifs[i].ifname, name) == 0
			 : ifs[i].ipv4 == ipv4)
			return &ifs[i];
	}
	return NULL;
}

/*
 * Entry i of the request (interfaces first, then NIDs) as LNet reads one
 * "local NI" entry: its CPTs are checked before the interface is looked
 * up (lnet_genl_parse_local_ni), then the LND needs the interface up
 * with an address.
 */
static int resolve(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		   uint32_t net, size_t i, const struct ul_conf_ifaddr *ifs,
		   size_t nifs, struct ni_req *r, struct ul_err *err)
{
	const struct ul_conf_ifaddr *ifa;
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
		rc = cpt_mask(cpt, srv->ncpt, &r->cpt_mask);
	ul_expr_free(cpt);
	if (rc)
		return ul_err_set(err, -ERANGE, "invalid CPT value");
	if (i >= a->nifs) {
		r->nid = a->nids[i - a->nifs];
		if (r->nid.nid_size != 0)
			return ul_err_set(err, -EAFNOSUPPORT, IPV6_REFUSED);
		ifa = find_ifaddr(ifs, nifs, NULL, r->nid.nid_addr[0]);
		if (ifa)
			memcpy(r->ifname, ifa->ifname, sizeof(r->ifname));
		return 0;
	}
	ifa = find_ifaddr(ifs, nifs, r->ifname, 0);
	if (!ifa && if_has_ipv6(r->ifname))
		return ul_err_set(err, -EAFNOSUPPORT, IPV6_REFUSED);
	if (!ifa)
		return ul_err_set(err, -ENODEV, "cannot add LNet NI");
	r->nid.nid_type = (uint8_t)ulnet_net_type(net);
	r->nid.nid_num = (uint16_t)ulnet_net_num(net);
	r->nid.nid_addr[0] = ifa->ipv4;
	return 0;
}

/*
 * lnet_load_lnd, which LNet runs for the net of every "local NI" entry of
 * an add, del or set request before anything else, LNet up or down: the
 * socklnd is the only LND ulnet has (lo is refused before), and an LND
 * module that cannot be loaded is -EINVAL there.
 */
static int lnd_load(uint32_t net, struct ul_err *err)
{
	if (net != ULNET_NET_ANY && ulnet_net_type(net) != ULNET_LND_SOCK)
		return ul_err_set(err, -EINVAL, "LND type not supported");
	return 0;
}

static int add_one(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		   const struct ni_req *r, const struct ul_net_tunables *tun,
		   struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ul_err cerr = { 0 };
	struct ul_ni *ni;
	int rc;

	rc = ul_node_ni_add(srv->node, &r->nid, r->ifname, UL_NUMA_ANY, tun,
			    &cerr);
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
int ul_ctlsrv_net_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		      struct ul_ctl_msg *doc, struct ul_err *err)
{
	bool is_ip2net = a->flags & UL_CTL_ARGF_IP2NET;
	struct ul_conf_ifaddr *ifs = NULL;
	struct ul_net_tunables tun;
	struct ni_req *reqs = NULL;
	size_t nifs = 0, n, added = 0, i;
	uint32_t net;
	int rc;

	(void)doc;
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
	rc = lnd_load(net, err);
	if (rc)
		return rc;
	if (!ul_node_lnet_is_configured(srv->node))
		return ul_err_set(err, -ESHUTDOWN, "cannot add LNet NI");
	if (((a->has & UL_CTL_ARG_CONNS_PER_PEER) &&
	     (a->conns_per_peer < 0 || a->conns_per_peer > 127)) ||
	    ((a->has & UL_CTL_ARG_TOS) && (a->tos < -1 || a->tos > 255)))
		return ul_err_set(err, -ERANGE, "failed to parse lnd tunables");
	req_tunables(a, &tun);
	n = a->nifs + a->nnids;
	reqs = calloc(n + 1, sizeof(*reqs));
	rc = reqs ? ul_conf_host_ifaddrs(&ifs, &nifs) : -ENOMEM;
	if (rc) {
		rc = ul_err_set(err, rc, "cannot add LNet NI");
		goto out;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = resolve(srv, a, net, i, ifs, nifs, &reqs[added], err);
		if (rc == 0)
			rc = add_one(srv, a, &reqs[added], &tun, err);
		if (rc == 0)
			added++;
	}
	while (rc && is_ip2net && added)
		(void)ul_node_ni_del(srv->node, &reqs[--added].nid, NULL);
out:
	free(ifs);
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
int ul_ctlsrv_net_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		      struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	uint32_t net = del_net(a);
	char ifname[UL_CONF_IFNAME_SIZE];
	struct ul_expr *cpt;
	struct ul_net *lnet;
	struct ul_ni *ni;
	size_t i;

	(void)doc;
	int rc;

	if (net != ULNET_NET_ANY && ulnet_net_type(net) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	if (a->nnids || a->nifs) {
		rc = lnd_load(net, err);
		if (rc)
			return rc;
	}
	if (a->nnids == 0 && a->nifs == 0) {
		if (!ul_node_lnet_is_configured(srv->node))
			return ul_err_set(err, -ESHUTDOWN,
					  "cannot del network");
		if (net == ULNET_NET_ANY || !ul_net_find(core, net) ||
		    ul_node_net_del(srv->node, net, NULL))
			return ul_err_set(err, -EINVAL, "cannot del network");
		return 0;
	}
	for (i = 0; i < a->nnids; i++) {
		if (!ul_node_lnet_is_configured(srv->node))
			return ul_err_set(err, -ESHUTDOWN,
					  "cannot del LNet NI");
		if (!ul_ni_find(core, &a->nids[i]) ||
		    ul_node_ni_del(srv->node, &a->nids[i], NULL))
			return ul_err_set(err, -ENOENT, "cannot del LNet NI");
	}
	for (i = 0; i < a->nifs; i++) {
		lnet = !ul_node_lnet_is_configured(srv->node) ||
				       net == ULNET_NET_ANY
			       ? NULL
			       : ul_net_find(core, net);
		if (!lnet)
			return ul_err_set(err, -ENODEV,
					  "LNet net doesn't exist");
		cpt = NULL;
		if (ul_conf_parse_ifname(a->ifs[i], ifname, &cpt, NULL))
			return ul_err_set(err, -ENODEV, "cannot del LNet NI");
		ul_expr_free(cpt);
		ni = ul_ni_find_by_ifname(lnet, ifname);
		if (!ni || ul_node_ni_del(srv->node, &ni->nid, NULL))
			return ul_err_set(err, -ENODEV, "cannot del LNet NI");
	}
	return 0;
}

int ul_ctlsrv_net_set(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		      struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	bool only = a->has & UL_CTL_ARG_NID;
	struct ul_net *net;
	struct ul_ni *ni;
	uint32_t net_id;

	(void)doc;
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
		ul_node_lnd_timeout_param_set(srv->node,
					      (uint32_t)a->lnd_timeout);
		return 0;
	}
	/*
	 * As lnet_net_cmd: a NID on lo is refused before anything else;
	 * otherwise LNet walks the NIs it has, none while it is down.
	 */
	if (only && a->nid.nid_type == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	if (only && lnd_load(ulnet_nid_net(&a->nid), err))
		return -EINVAL;
	if (!ul_node_lnet_is_configured(srv->node))
		return 0;
	ul_list_for_each_entry(net, &core->nets, core_link)
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (only && !ulnet_nid_same(&ni->nid, &a->nid))
				continue;
			if (a->has & UL_CTL_ARG_HEALTH)
				ul_node_ni_set_healthv(srv->node, ni,
						       a->health);
			/*
			 * LNet applies the LND tunables only to the NIs of a
			 * request without a NID (--all, or no selector: the
			 * same request), through each LND: lolnd has none.
			 * The request carries them whole: conns_per_peer
			 * when above 0, and ToS 0 always (lnetctl.md §6.4).
			 */
			if ((a->has & UL_CTL_ARG_CONNS_PER_PEER) && !only &&
			    ni->nid.nid_type != ULNET_LND_LO) {
				if (a->conns_per_peer > 0)
					ni->conns_per_peer = a->conns_per_peer;
				ni->tos = 0;
			}
		}
	return 0;
}
