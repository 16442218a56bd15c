/*
 * ulnetctl import --show and --exec (reference/lnetctl.md §16): each
 * net, route and peer of the file asked for as a query and printed as its
 * show command prints it, the other sections printing nothing; and the
 * file's ping and discover sections run, their results not printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "ctl/ytree.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"
#include "import.h"

/* A net or peer show for --show, printed as the show command prints it. */
static int show_call(const struct ul_ctl_req *req, const char *object)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	rc = ulnetctl_ctl_call(req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_d1("show", object, rc, err.msg);
	rc = reply.rc ? ulnetctl_d1("show", object, reply.rc, reply.err_msg)
		      : ul_doc_print(stdout, reply.doc, UL_DOC_A);
	ul_ctl_reply_fini(&reply);
	return rc;
}

/* --show of one net: `net show --net NET -v 4` (with its udsp info). */
static int show_net(uint32_t net)
{
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	req.net_show.has_net = true;
	req.net_show.verbose = 4;
	ulnet_net_format(net, req.net_show.net, sizeof(req.net_show.net));
	return show_call(&req, "net");
}

/* --show of one peer: `peer show --nid PRIMARY`. */
static int show_peer(struct ulnet_nid nid)
{
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	req.peer_show.has_nid = true;
	req.peer_show.nid = nid;
	return show_call(&req, "peer");
}

/* A route of the file: `route show --net NET --gateway GW -v`. */
static int show_route(const struct ul_conf_route *r)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	if (r->net_text) {
		snprintf(a->net, sizeof(a->net), "%s", r->net_text);
		a->has |= UL_CTL_ARG_NET;
	}
	if (r->flags & UL_CONF_ROUTE_HAS_GW_NID) {
		a->nids[0] = r->gateway;
		a->nnids = 1;
		a->has |= UL_CTL_ARG_NIDS;
	}
	a->has |= UL_CTL_ARG_VERBOSE;
	a->verbose = 1;
	rc = ulnetctl_do(UL_CTL_OP_ROUTE_SHOW, a, "show", "route", UL_DOC_A);
	free(a);
	return rc;
}

/*
 * One step of the file as queries: a net block or an ip2nets rule prints
 * its net, a route or a peer itself; the other sections print nothing,
 * as in lnetctl.
 */
static int show_step(const struct ul_conf *c, const struct ul_conf_step *st)
{
	size_t i;
	int rc = 0;

	for (i = st->first; i < st->first + st->nr && !rc; i++) {
		switch (st->sec) {
		case UL_CONF_SEC_NET:
			rc = show_net(c->nets[i].net);
			break;
		case UL_CONF_SEC_IP2NETS:
			rc = show_net(c->ip2nets[i].net);
			break;
		case UL_CONF_SEC_ROUTE:
			rc = show_route(&c->routes[i]);
			break;
		case UL_CONF_SEC_PEER:
			rc = show_peer(c->peers[i].primary_nid);
			break;
		default:
			/* global and udsp queries print nothing (§16) */
			return 0;
		}
	}
	return rc;
}

int ulnetctl_import_show(const struct ul_conf *conf)
{
	const struct ul_conf_refusal *f = &conf->refusal;
	struct ulnetctl_import im = {
		.is_show = true, .is_old_api = conf->dialect == UL_CONF_OLD_API
	};
	size_t i;
	int rc;

	for (i = 0; i < conf->nr_steps; i++) {
		rc = show_step(conf, &conf->steps[i]);
		if (rc)
			return rc;
	}
	return f->is_set ? ulnetctl_import_unreadable(&im, f->errnum, f->msg)
			 : 0;
}

/* The value of key in mapping n, or NULL. */
static const struct ul_ynode *ymap_get(const struct ul_ynode *n,
				       const char *key)
{
	size_t k;

	for (k = 0; n && n->type == UL_YNODE_MAP && k + 1 < n->nr; k += 2)
		if (n->kids[k]->str && strcmp(n->kids[k]->str, key) == 0)
			return n->kids[k + 1];
	return NULL;
}

/* One ping or discover of --exec; a failure is the D1 "manage:" entry. */
static int exec_one(bool is_ping, const char *text, const struct ul_ynode *sec)
{
	const struct ul_ynode *src = ymap_get(sec, "source");
	const struct ul_ynode *tmo = ymap_get(sec, "timeout");
	const char *what = is_ping ? "ping" : "discover";
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ulnet_nid nid;
	struct ul_ctl_req req;
	uint32_t wait = ULNETCTL_CTL_TIMEOUT_MS;
	char descr[UL_CTL_STR_MAX + 64];
	long ms;
	int rc;

	if (!text || ulnet_nid_parse(text, &nid, NULL, 0)) {
		snprintf(descr, sizeof(descr), "cannot parse NID '%s'",
			 text ? text : "");
		return ulnetctl_d1("manage", what, -EINVAL, descr);
	}
	memset(&req, 0, sizeof(req));
	if (is_ping) {
		req.op = UL_CTL_OP_PING;
		req.ping.target = nid;
		if (src && src->str &&
		    !ulnet_nid_parse(src->str, &req.ping.src, NULL, 0))
			req.ping.has_src = true;
		/* The section's timeout is in milliseconds (§16). */
		ms = tmo && tmo->str ? strtol(tmo->str, NULL, 10) : 0;
		if (ms > 0 && ms <= UINT32_MAX / 2) {
			req.ping.has_timeout = true;
			req.ping.timeout_ms = (uint32_t)ms;
			wait += req.ping.timeout_ms;
		}
		rc = ulnetctl_ctl_call(&req, wait, &reply, &err);
	} else {
		req.args.nid = nid;
		req.args.has = UL_CTL_ARG_NID;
		rc = ulnetctl_call(UL_CTL_OP_DISCOVER, &req.args, wait, &reply,
				   &err);
	}
	if (rc)
		return ulnetctl_d1("manage", what, rc, err.msg);
	/* Results are not printed (§16 --exec); a failure is. */
	rc = reply.rc ? ulnetctl_d1("manage", what, reply.rc, reply.err_msg)
		      : 0;
	ul_ctl_reply_fini(&reply);
	return rc;
}

/* --exec of one document. */
static int exec_document(const struct ul_ynode *root)
{
	const struct ul_ynode *nids, *n;
	size_t i, k;
	int rc = 0;

	for (i = 0;
	     root && root->type == UL_YNODE_MAP && i + 1 < root->nr && !rc;
	     i += 2) {
		const char *sec = root->kids[i]->str;
		bool is_ping = sec && strcmp(sec, "ping") == 0;

		if (!sec || (!is_ping && strcmp(sec, "discover") != 0))
			continue;
		nids = ymap_get(root->kids[i + 1], "nids");
		for (k = 0; nids && k < nids->nr && !rc; k++) {
			if (nids->type == UL_YNODE_MAP && ++k >= nids->nr)
				break;
			n = nids->kids[k];
			rc = exec_one(is_ping, n->str, root->kids[i + 1]);
		}
	}
	return rc;
}

/*
 * --exec: the ping and discover sections (§16), in document order, of
 * every document (as the netlink import reads them); their "nids" a
 * mapping (0: nid) or a list.
 */
int ulnetctl_import_exec(const char *text, size_t len)
{
	static const struct ul_ytree_limits lim = { UL_CONF_MAX_BYTES,
						    UL_CONF_MAX_DEPTH,
						    UL_CONF_MAX_ITEMS,
						    UL_CONF_MAX_NODES };
	struct ul_ynode *docs = NULL;
	struct ul_err err = { 0 };
	size_t i;
	int rc;

	rc = ul_ytree_parse_stream(text, len, &lim, &docs, &err);
	if (rc)
		return ulnetctl_d1("manage", "import", rc, err.msg);
	for (i = 0; i < docs->nr && !rc; i++)
		rc = exec_document(docs->kids[i]);
	ul_ytree_free(docs);
	return rc;
}
