/*
 * `lnet configure`, `lnet unconfigure`, `debug recovery`, `debug peer`
 * and `cpt-of-nid` (reference/lnetctl.md §5, §14) on the instance's
 * side. "Unconfigured" is a state of the control server: the node and
 * its 0@lo stay up, everything configured goes, and the ops that need
 * LNet answer -ENETDOWN until `lnet configure` (ctlsrv.c's dispatcher).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/conf.h"
#include "ctl/conf_apply.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"
#include "util/log.h"

struct reapply {
	struct ul_ctlsrv *srv;
};

static int reapply_ni_add(void *ctx, const struct ulnet_nid *nid,
			  const char *ifname, int numa_node,
			  const struct ul_net_tunables *tun, struct ul_err *err)
{
	struct reapply *r = ctx;

	return ul_node_ni_add(r->srv->node, nid, ifname, numa_node, tun, err);
}

static void reapply_note(void *ctx, unsigned int line, const char *text)
{
	struct reapply *r = ctx;

	ul_log(r->srv->log, UL_D_WARNING, "lnet configure --all: line %u: %s",
	       line, text);
}

/* The daemon's --config file again, through the node. */
static int apply_conf(struct ul_ctlsrv *srv, struct ul_err *err)
{
	struct ul_conf_apply_opts opts = { 0 };
	struct reapply r = { srv };
	struct ul_conf_ifaddr *ifs = NULL;
	struct ul_conf conf;
	size_t nifs = 0;
	int rc;

	if (!srv->conf_path)
		return 0;
	ul_conf_init(&conf);
	rc = ul_conf_parse_file(srv->conf_path, &conf, err);
	if (rc == 0)
		rc = ul_conf_host_ifaddrs(&ifs, &nifs);
	if (rc == 0) {
		opts.ifaddrs = ifs;
		opts.nr_ifaddrs = nifs;
		opts.udsp = srv->udsp;
		opts.ni_add = reapply_ni_add;
		opts.note = reapply_note;
		opts.ctx = &r;
		rc = ul_conf_apply(ul_node_core(srv->node), &conf, &opts, err);
	}
	free(ifs);
	ul_conf_fini(&conf);
	return rc;
}

/*
 * Everything configured goes: UDSP rules, routes, every net but lo,
 * peers, fault rules, routing and its pools; then the ops that need LNet
 * fail.
 */
static void take_down(struct ul_ctlsrv *srv)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ul_net *net, *tmp;

	if (srv->udsp)
		ul_udsp_del(srv->udsp, -1, NULL);
	ul_route_del_all(core);
	if (srv->udsp)
		ul_udsp_on_route_del(srv->udsp);
	ul_list_for_each_entry_safe(net, tmp, &core->nets, core_link)
		if (ulnet_net_type(net->net_id) != ULNET_LND_LO)
			ul_node_net_del(srv->node, net->net_id, NULL);
	ul_peer_del_all(core);
	ul_ctlsrv_faults_clear(srv->faults);
	ul_ctlsrv_routing_reset(srv);
	srv->is_down = true;
}

int ul_ctlsrv_lnet_configure(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			     struct ul_ctl_msg *doc, struct ul_err *err)
{
	int rc;

	(void)doc;
	if (!srv->is_down)
		return 0; /* already up: nothing changes (§5) */
	srv->is_down = false;
	if (!(a->flags & UL_CTL_ARGF_ALL))
		return 0;
	/*
	 * LNet does not come up on a static configuration it cannot apply:
	 * what was applied before the failure goes again.
	 */
	rc = apply_conf(srv, err);
	if (rc)
		take_down(srv);
	return rc;
}

int ul_ctlsrv_lnet_unconfigure(struct ul_ctlsrv *srv,
			       const struct ul_ctl_args *a,
			       struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)a;
	(void)doc;
	(void)err;
	take_down(srv);
	return 0;
}

int ul_ctlsrv_debug_recovery(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			     struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	bool is_local = a->flags & UL_CTL_ARGF_LOCAL;
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *p;
	struct ul_net *net;
	struct ul_ni *ni;
	unsigned int k = 0;
	char key[32];

	if (!(a->flags & (UL_CTL_ARGF_LOCAL | UL_CTL_ARGF_PEER)))
		return ul_err_set(err, -EINVAL, "--local or --peer needed");
	/*
	 * An NI below full health is what LNet's recovery queue holds;
	 * 0@lo too, after `net set --health` lowered it.
	 */
	if (is_local) {
		ul_list_for_each_entry(net, &core->nets, core_link)
			ul_list_for_each_entry(ni, &net->nis, net_link) {
				if (ni->healthv >= UL_HEALTH_MAX)
					continue;
				if (!k)
					ul_ctl_doc_map(doc,
						       "Local NI recovery");
				snprintf(key, sizeof(key), "nid-%u", k++);
				ul_ctl_doc_nid(doc, key, &ni->nid);
			}
	} else {
		ul_list_for_each_entry(p, &core->peers, core_link)
			ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
				ul_list_for_each_entry(lpni, &lpn->peer_nis,
						       peer_net_link) {
					if (lpni->healthv >= UL_HEALTH_MAX)
						continue;
					if (!k)
						ul_ctl_doc_map(
							doc,
							"Peer NI recovery");
					snprintf(key, sizeof(key), "nid-%u",
						 k++);
					ul_ctl_doc_nid(doc, key, &lpni->nid);
				}
	}
	if (k)
		ul_ctl_doc_end(doc);
	return 0;
}

int ul_ctlsrv_debug_peer(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	char s[ULNET_NIDSTR_SIZE], t[ULNET_NIDSTR_SIZE];
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *p;

	(void)doc;
	if (!(a->has & UL_CTL_ARG_NID))
		return ul_err_set(err, -EINVAL, "no NID given");
	/*
	 * LNet hands IOC_LIBCFS_GET_PEER to the LND of the NID's net:
	 * -EINVAL without a local NI there (lolnd has no ioctl either),
	 * -ENOENT when it has no peer to show.
	 */
	if (a->nid.nid_type == ULNET_LND_LO ||
	    !ul_net_find(core, ulnet_nid_net(&a->nid)))
		return ul_err_set(err, -EINVAL, "no local NI on the NID's net");
	p = ul_peer_find(core, &a->nid);
	if (!p)
		return ul_err_set(err, -ENOENT, "peer not found");
	ul_log(srv->log, UL_D_INFO,
	       "peer %s: mr %d configured %d lock_prim %d alive %d nis %u "
	       "routes %u refs %d",
	       ulnet_nid_format(&p->primary_nid, s, sizeof(s)), p->is_mr,
	       p->is_configured, p->is_lock_prim, p->is_alive, p->nnis,
	       p->rtr_refcount, p->refcount);
	ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
			ul_log(srv->log, UL_D_INFO,
			       "peer %s: ni %s health %d refs %d", s,
			       ulnet_nid_format(&lpni->nid, t, sizeof(t)),
			       lpni->healthv, lpni->refcount);
	return 0;
}

unsigned int ul_ctlsrv_cpt_of(const struct ulnet_nid *nid, unsigned int ncpt)
{
	uint32_t hi = ulnet_nid_net(nid), lo = nid->nid_addr[0];
	unsigned int sum = 0, i;

	for (i = 0; i < 4; i++)
		sum += ((hi >> (8 * i)) & 0xff) + ((lo >> (8 * i)) & 0xff);
	return ncpt > 1 ? sum % ncpt : 0;
}

int ul_ctlsrv_cpt_of_nid(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err)
{
	size_t i;

	(void)err;
	if (!a->nnids)
		return 0;
	ul_ctl_doc_seq(doc, "cpt-of-nid");
	for (i = 0; i < a->nnids; i++) {
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_nid(doc, "nid", &a->nids[i]);
		ul_ctl_doc_uint(doc, "cpt",
				ul_ctlsrv_cpt_of(&a->nids[i], srv->ncpt));
		ul_ctl_doc_end(doc);
	}
	ul_ctl_doc_end(doc);
	return 0;
}
