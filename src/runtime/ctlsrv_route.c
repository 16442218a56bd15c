/*
 * `route show` (reference/lnetctl.md §8.3) on the instance's side, over
 * core/route.h; `route add|del` are node requests (ctl/node_req.h).
 */
#include <errno.h>
#include <stdio.h>

#include "core/core.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

/* One route of route show (lnetctl.md §8.3); *any: "route:" is open. */
static void show_one(struct ul_core *core, const struct ul_ctl_args *a,
		     const struct ul_route *r, struct ul_ctl_msg *doc,
		     bool *any)
{
	bool is_backup = a->flags & UL_CTL_ARGF_BACKUP;
	int32_t hop = r->hops == UL_HOPS_UNDEFINED ? -1 : (int32_t)r->hops;
	char net[ULNET_NIDSTR_SIZE];

	if (((a->has & UL_CTL_ARG_HOP) && hop != a->hop) ||
	    ((a->has & UL_CTL_ARG_PRIORITY) &&
	     (int64_t)r->priority != a->priority))
		return;
	if (!*any)
		ul_ctl_doc_seq(doc, "route");
	*any = true;
	ul_ctl_doc_map(doc, NULL);
	ul_ctl_doc_str(doc, "net",
		       ulnet_net_format(r->net_id, net, sizeof(net)));
	ul_ctl_doc_nid(doc, "gateway", &r->gw_nid);
	if (a->verbose || is_backup) {
		ul_ctl_doc_int(doc, "hop", hop);
		ul_ctl_doc_uint(doc, "priority", r->priority);
	}
	if (a->verbose && !is_backup) {
		ul_ctl_doc_str(doc, "state",
			       ul_route_is_alive(core, r) ? "up" : "down");
		ul_ctl_doc_str(doc, "type",
			       r->is_single_hop ? "single-hop" : "multi-hop");
	}
	ul_ctl_doc_end(doc);
}

/* The routes to only (ULNET_NET_ANY: all) through gw (NULL: any). */
static void show_scan(struct ul_core *core, const struct ul_ctl_args *a,
		      uint32_t only, const struct ulnet_nid *gw,
		      struct ul_ctl_msg *doc, bool *any)
{
	struct ul_route *r;
	struct ul_rnet *rn;

	ul_list_for_each_entry(rn, &core->rnets, core_link) {
		if (only != ULNET_NET_ANY && rn->net_id != only)
			continue;
		ul_list_for_each_entry(r, &rn->routes, rnet_link)
			if (!gw || ulnet_nid_same(gw, &r->gw_nid))
				show_one(core, a, r, doc, any);
	}
}

int ul_ctlsrv_route_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	uint32_t only = ULNET_NET_ANY;
	bool any = false;
	size_t i;

	(void)err;
	/* A net LNet cannot parse filters nothing, as in LNet (ANY). */
	if ((a->has & UL_CTL_ARG_NET) &&
	    ulnet_net_parse(a->net, &only, NULL, 0))
		only = ULNET_NET_ANY;
	/* LNet scans once per gateway of the list, in the list's order. */
	if (a->nnids)
		for (i = 0; i < a->nnids; i++)
			show_scan(core, a, only, &a->nids[i], doc, &any);
	else
		show_scan(core, a, only, NULL, doc, &any);
	if (any)
		ul_ctl_doc_end(doc);
	return 0;
}
