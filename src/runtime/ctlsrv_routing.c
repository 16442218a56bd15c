/*
 * `routing show` (reference/lnetctl.md §8.4, routing.md §7.2) on the
 * instance's side, over core/routing.h. `set routing` and `set
 * tiny|small|large_buffers` are node requests (ctl/node_req.h,
 * ul_node_routing_set). The pools are the ones forwarding takes its
 * buffers from (core/forward.c): credits go below zero while messages
 * wait for a buffer, and mincredits keeps the lowest.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "core/node.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"
#include "util/log.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

static const char *const pool_names[UL_RTRPOOL_NR] = { "tiny", "small",
						       "large" };

static int pool_pages(int kind)
{
	long page = sysconf(_SC_PAGESIZE);

	if (kind == UL_RTRPOOL_TINY)
		return 0;
	if (kind == UL_RTRPOOL_SMALL)
		return 1;
	/* LNET_MTU (1 MiB) in pages */
	return (int)((1L << 20) / (page > 0 ? page : 4096));
}

int ul_ctlsrv_routing_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			   struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_routing *r = &ul_node_core(srv->node)->routing;
	unsigned int cpt;
	char key[32];
	int kind;

	(void)err;
	if (!r->ncpt)
		return 0; /* routing never enabled: no pools, no output */
	if (a->flags & UL_CTL_ARGF_BACKUP) {
		ul_ctl_doc_map(doc, "routing");
		ul_ctl_doc_uint(doc, "enable", r->state);
		ul_ctl_doc_end(doc);
	} else {
		ul_ctl_doc_seq(doc, "routing");
		for (cpt = 0; cpt < r->ncpt; cpt++) {
			ul_ctl_doc_map(doc, NULL);
			snprintf(key, sizeof(key), "cpt[%u]", cpt);
			ul_ctl_doc_map(doc, key);
			for (kind = 0; kind < UL_RTRPOOL_NR; kind++) {
				const struct ul_rtrpool *p =
					&r->pools[cpt][kind];

				ul_ctl_doc_map(doc, pool_names[kind]);
				ul_ctl_doc_int(doc, "npages", pool_pages(kind));
				ul_ctl_doc_int(doc, "nbuffers", p->nbuffers);
				ul_ctl_doc_int(doc, "credits", p->credits);
				ul_ctl_doc_int(doc, "mincredits",
					       p->mincredits);
				ul_ctl_doc_end(doc);
			}
			ul_ctl_doc_end(doc);
			ul_ctl_doc_end(doc);
		}
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_uint(doc, "enable", r->state);
		ul_ctl_doc_end(doc);
		ul_ctl_doc_end(doc);
	}
	/* Totals over CPTs, as lnetctl adds them up (§8.4). */
	ul_ctl_doc_map(doc, "buffers");
	for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
		ul_ctl_doc_int(doc, pool_names[kind],
			       ul_routing_total(r, (enum ul_rtrpool_kind)kind));
	ul_ctl_doc_end(doc);
	return 0;
}
