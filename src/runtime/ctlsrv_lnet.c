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
#include "core/health.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/conf.h"
#include "ctl/node_req.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"
#include "util/log.h"

/* An lnet.conf applied inside the daemon (ctl/node_req.h). */
struct local_import {
	struct ul_ctlsrv *srv;
	const char *path;
};

/*
 * An error as lnetctl would print it, as one log line with its line;
 * also one lnetctl keeps to itself (§16 Quirk), so that a daemon that
 * does not come up says why. The first error that fails the import is
 * the caller's; one the import goes past is a warning.
 */
static void local_report(void *ctx, const struct ul_conf_report *r)
{
	struct local_import *li = ctx;

	ul_node_req_log_report(li->srv->log, li->path, r);
}

/* Every note of the file, lnetctl's own lines included, with its line. */
static void local_note(void *ctx, const struct ul_conf_warning *w)
{
	struct local_import *li = ctx;

	ul_log(li->srv->log, UL_D_WARNING, "%s line %u column %u: %s", li->path,
	       w->line, w->column, w->text);
}

/* Apply the lnet.conf text[0..len) read from path (for the log). */
static int apply_text(struct ul_ctlsrv *srv, const char *path, const char *text,
		      size_t len, struct ul_err *err)
{
	struct local_import li = { srv, path };
	struct ul_node_req_apply_ops ops = { local_report, local_note, &li };
	struct ul_node_req_env env;
	struct ul_conf conf;
	int rc;

	ul_conf_init(&conf);
	rc = ul_conf_read(text, len, UL_CONF_NETLINK, &conf, err);
	if (rc == 0) {
		ul_ctlsrv_node_env(srv, &env);
		rc = ul_node_req_apply(&env, &conf, &ops, err);
	}
	ul_conf_fini(&conf);
	return rc;
}

int ul_ctlsrv_apply_conf(struct ul_ctlsrv *srv, struct ul_err *err)
{
	size_t len = 0;
	char *text = NULL;
	int rc;

	if (!srv->conf_path)
		return 0;
	memset(err, 0, sizeof(*err));
	rc = ul_conf_load_file(srv->conf_path, &text, &len, err);
	if (rc == 0)
		rc = apply_text(srv, srv->conf_path, text, len, err);
	free(text);
	return rc;
}

/*
 * Everything configured goes: UDSP rules, routes, every net but lo,
 * peers, fault rules, routing and its pools; then the ops that need LNet
 * fail.
 */
static void take_down(struct ul_ctlsrv *srv)
{
	if (srv->udsp)
		ul_udsp_del(srv->udsp, -1, NULL);
	ul_node_lnet_unconfigure(srv->node);
	if (srv->udsp)
		ul_udsp_on_route_del(srv->udsp);
}

void ul_ctlsrv_set_default_net(struct ul_ctlsrv *srv, bool is_default_net)
{
	srv->is_default_net = is_default_net;
}

int ul_ctlsrv_lnet_configure(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			     struct ul_ctl_msg *doc, struct ul_err *err)
{
	int rc;

	(void)doc;
	if (ul_node_lnet_is_configured(srv->node))
		return 0; /* already up: nothing changes (§5) */
	ul_node_lnet_configure(srv->node);
	if (!(a->flags & UL_CTL_ARGF_ALL))
		return 0;
	/*
	 * LNet does not come up on a static configuration it cannot apply:
	 * what was applied before the failure goes again.
	 */
	if (!srv->conf_path && srv->is_default_net)
		rc = apply_text(srv, "default networks",
				UL_NODE_REQ_DEFAULT_NET,
				strlen(UL_NODE_REQ_DEFAULT_NET), err);
	else
		rc = ul_ctlsrv_apply_conf(srv, err);
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

struct rec_list {
	struct ul_ctl_msg *doc;
	const char *title;
	unsigned int k;
};

static void rec_list_one(void *arg, const struct ulnet_nid *nid)
{
	struct rec_list *rl = arg;
	char key[32];

	if (!rl->k)
		ul_ctl_doc_map(rl->doc, rl->title);
	snprintf(key, sizeof(key), "nid-%u", rl->k++);
	ul_ctl_doc_nid(rl->doc, key, nid);
}

/* The node's recovery queues as they are (health.md §5.4). */
int ul_ctlsrv_debug_recovery(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			     struct ul_ctl_msg *doc, struct ul_err *err)
{
	bool is_local = a->flags & UL_CTL_ARGF_LOCAL;
	struct rec_list rl = {
		doc, is_local ? "Local NI recovery" : "Peer NI recovery", 0
	};

	if (!(a->flags & (UL_CTL_ARGF_LOCAL | UL_CTL_ARGF_PEER)))
		return ul_err_set(err, -EINVAL, "--local or --peer needed");
	ul_health_recovery_list(srv->node, is_local, rec_list_one, &rl);
	if (rl.k)
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
	return ul_nid_cpt_hash(nid, ncpt);
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
