/*
 * `net add`, `net del`, `net set` (reference/lnetctl.md §6) on the
 * instance's side. NIs come and go through the node (ul_node_ni_add and
 * friends) so the LND starts and stops them; interfaces are the host's,
 * read with getifaddrs at each request.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* The net's tunables from the request, LNet's defaults where not given. */
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
	if (tun->peer_tx_credits > tun->credits)
		tun->peer_tx_credits = tun->credits;
}

struct ni_req {
	struct ulnet_nid nid;
	char ifname[UL_CONF_IFNAME_SIZE];
	struct ul_expr *cpt; /* owned; NULL: the request's --cpt */
};

static const struct ul_conf_ifaddr *
find_ifaddr(const struct ul_conf_ifaddr *ifs, size_t n, const char *name,
	    uint32_t ipv4)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (name ? strcmp(ifs[i].ifname, name) == 0
			 : ifs[i].ipv4 == ipv4)
			return &ifs[i];
	return NULL;
}

/* The NIs a request names: by interface (its address) or by NID. */
static int collect(const struct ul_ctl_args *a, uint32_t net,
		   struct ni_req *out, size_t *n, struct ul_err *err)
{
	struct ul_conf_ifaddr *ifs = NULL;
	size_t nifs = 0, i, k = 0;
	int rc;

	rc = ul_conf_host_ifaddrs(&ifs, &nifs);
	if (rc)
		return ul_err_set(err, rc, "cannot add LNet NI");
	for (i = 0; i < a->nifs; i++, k++) {
		const struct ul_conf_ifaddr *ifa;
		struct ul_err perr = { 0 };

		memset(&out[k], 0, sizeof(out[k]));
		rc = ul_conf_parse_ifname(a->ifs[i], out[k].ifname, &out[k].cpt,
					  &perr);
		ifa = rc ? NULL : find_ifaddr(ifs, nifs, out[k].ifname, 0);
		if (!ifa) {
			rc = ul_err_set(err, rc ? rc : -ENODEV,
					"cannot add LNet NI");
			k++;
			goto out;
		}
		out[k].nid.nid_type = (uint8_t)ulnet_net_type(net);
		out[k].nid.nid_num = (uint16_t)ulnet_net_num(net);
		out[k].nid.nid_addr[0] = ifa->ipv4;
	}
	for (i = 0; i < a->nnids; i++, k++) {
		const struct ul_conf_ifaddr *ifa;

		memset(&out[k], 0, sizeof(out[k]));
		out[k].nid = a->nids[i];
		ifa = find_ifaddr(ifs, nifs, NULL, a->nids[i].nid_addr[0]);
		if (ifa)
			memcpy(out[k].ifname, ifa->ifname,
			       sizeof(out[k].ifname));
	}
	rc = 0;
out:
	*n = k;
	free(ifs);
	return rc;
}

static int add_one(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		   const struct ni_req *r, const struct ul_net_tunables *tun,
		   uint64_t req_mask, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ul_err cerr = { 0 };
	uint64_t mask = req_mask;
	struct ul_ni *ni;
	int rc;

	if (r->cpt && cpt_mask(r->cpt, srv->ncpt, &mask))
		return ul_err_set(err, -ERANGE, "invalid CPT value");
	rc = ul_node_ni_add(srv->node, &r->nid, r->ifname, UL_NUMA_ANY, tun,
			    &cerr);
	if (rc == -ENOSPC)
		return ul_err_set(err, rc,
				  "too many NIs, check lnet_interfaces_max");
	if (rc)
		return ul_err_set(err, rc, "cannot add LNet NI");
	ni = ul_ni_find(core, &r->nid);
	if (ni) {
		ni->cpt_mask = mask;
		if (a->has & UL_CTL_ARG_CONNS_PER_PEER)
			ni->conns_per_peer = a->conns_per_peer;
		if (a->has & UL_CTL_ARG_TOS)
			ni->tos = a->tos;
	}
	return 0;
}

int ul_ctlsrv_net_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		      struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_net_tunables tun;
	struct ni_req *reqs = NULL;
	struct ul_expr *cpt = NULL;
	uint64_t req_mask = 0;
	size_t n = 0, i;
	uint32_t net;
	int rc;

	(void)doc;
	if (a->nnids)
		net = ulnet_nid_net(&a->nids[0]);
	else if (!(a->has & UL_CTL_ARG_NET) ||
		 ulnet_net_parse(a->net, &net, NULL, 0) || net == ULNET_NET_ANY)
		return ul_err_set(err, -ENOENT, "cannot parse net");
	if (ulnet_net_type(net) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	if (ulnet_net_type(net) != ULNET_LND_SOCK)
		return ul_err_set(err, -EPROTONOSUPPORT,
				  "LND type not supported");
	if (((a->has & UL_CTL_ARG_CONNS_PER_PEER) &&
	     (a->conns_per_peer < 0 || a->conns_per_peer > 127)) ||
	    ((a->has & UL_CTL_ARG_TOS) && (a->tos < -1 || a->tos > 255)))
		return ul_err_set(err, -ERANGE, "failed to parse lnd tunables");
	/* An unparsable --cpt is ignored, as lnetctl does (§6.1). */
	if ((a->has & UL_CTL_ARG_CPT) &&
	    ul_conf_parse_cpt(a->cpt, &cpt, NULL) == 0) {
		rc = cpt_mask(cpt, srv->ncpt, &req_mask);
		ul_expr_free(cpt);
		if (rc)
			return ul_err_set(err, -ERANGE, "invalid CPT value");
	}
	req_tunables(a, &tun);
	reqs = calloc(a->nifs + a->nnids + 1, sizeof(*reqs));
	if (!reqs)
		return ul_err_set(err, -ENOMEM, "cannot add LNet NI");
	rc = collect(a, net, reqs, &n, err);
	for (i = 0; rc == 0 && i < n; i++)
		rc = add_one(srv, a, &reqs[i], &tun, req_mask, err);
	for (i = 0; i < n; i++)
		ul_expr_free(reqs[i].cpt);
	free(reqs);
	return rc;
}

int ul_ctlsrv_net_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		      struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	char ifname[UL_CONF_IFNAME_SIZE];
	struct ul_expr *cpt;
	struct ul_net *lnet;
	struct ul_ni *ni;
	uint32_t net;
	size_t i;

	(void)doc;
	for (i = 0; i < a->nnids; i++) {
		if (!ul_ni_find(core, &a->nids[i]) ||
		    ul_node_ni_del(srv->node, &a->nids[i], NULL))
			return ul_err_set(err, -ENOENT, "cannot del LNet NI");
	}
	if (a->nnids)
		return 0;
	if (!(a->has & UL_CTL_ARG_NET) ||
	    ulnet_net_parse(a->net, &net, NULL, 0))
		return ul_err_set(err, -ENOENT, "cannot parse net");
	if (ulnet_net_type(net) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "setting @lo not allowed");
	lnet = ul_net_find(core, net);
	if (a->nifs == 0) {
		if (!lnet || ul_node_net_del(srv->node, net, NULL))
			return ul_err_set(err, -EINVAL, "cannot del network");
		return 0;
	}
	if (!lnet)
		return ul_err_set(err, -ENODEV, "LNet net doesn't exist");
	for (i = 0; i < a->nifs; i++) {
		cpt = NULL;
		if (ul_conf_parse_ifname(a->ifs[i], ifname, &cpt, NULL))
			return ul_err_set(err, -ENODEV, "cannot del LNet NI");
		ul_expr_free(cpt);
		lnet = ul_net_find(core, net);
		ni = lnet ? ul_ni_find_by_ifname(lnet, ifname) : NULL;
		if (!ni || ul_node_ni_del(srv->node, &ni->nid, NULL))
			return ul_err_set(err, -ENODEV, "cannot del LNet NI");
	}
	return 0;
}

/* health.md: 0 takes an NI down, full health brings it back up. */
static void set_health(struct ul_ni *ni, int v)
{
	ni->healthv = v;
	if (v <= 0)
		ni->status = UL_NI_STATUS_DOWN;
	else if (v >= UL_HEALTH_MAX && !ni->is_fatal)
		ni->status = UL_NI_STATUS_UP;
}

void ul_ctlsrv_lnd_timeout_apply(struct ul_ctlsrv *srv)
{
	uint32_t sec;

	if (srv->lnd_timeout < 0)
		return;
	sec = srv->lnd_timeout > 0
		      ? (uint32_t)srv->lnd_timeout
		      : ul_tunables_lnd_timeout(&ul_node_core(srv->node)->tun);
	(void)ul_node_lnd_set_timeout(srv->node, ULNET_LND_SOCK, sec);
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
		srv->lnd_timeout = a->lnd_timeout;
		ul_ctlsrv_lnd_timeout_apply(srv);
		return 0;
	}
	ul_list_for_each_entry(net, &core->nets, core_link)
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (ni->nid.nid_type == ULNET_LND_LO)
				continue;
			if (only && !ulnet_nid_same(&ni->nid, &a->nid))
				continue;
			if (a->has & UL_CTL_ARG_HEALTH)
				set_health(ni, a->health);
			/*
			 * LNet applies a new count only to the NIs of a
			 * request without a NID (--all, or no selector: the
			 * same request) and, as the request carries the LND
			 * tunables whole, resets ToS to 0 (lnetctl.md §6.4).
			 */
			if ((a->has & UL_CTL_ARG_CONNS_PER_PEER) && !only) {
				ni->conns_per_peer = a->conns_per_peer;
				ni->tos = 0;
			}
		}
	return 0;
}
