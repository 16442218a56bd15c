/*
 * `peer list` (reference/lnetctl.md §7) on the instance's side, over
 * core/peer.h, and the CPT order peer show walks; `peer add|del|set` are
 * node requests (ctl/node_req.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

bool ul_ctlsrv_peer_is_lo(const struct ul_peer *p)
{
	return p->primary_nid.nid_type == ULNET_LND_LO;
}

int ul_ctlsrv_peers_by_cpt(const struct ul_ctlsrv *srv, struct ul_peer ***out,
			   size_t *n)
{
	struct ul_core *core = ul_node_core(srv->node);
	unsigned int ncpt = srv->ncpt ? srv->ncpt : 1;
	size_t *start, total = 0, k;
	unsigned int *cpt;
	struct ul_peer **v;
	struct ul_peer *p;

	*out = NULL;
	*n = 0;
	ul_list_for_each_entry(p, &core->peers, core_link)
		total += !ul_ctlsrv_peer_is_lo(p);
	if (!total)
		return 0;
	v = calloc(total, sizeof(struct ul_peer *));
	cpt = calloc(total, sizeof(*cpt));
	start = calloc((size_t)ncpt + 1, sizeof(*start));
	if (!v || !cpt || !start) {
		free(v);
		free(cpt);
		free(start);
		return -ENOMEM;
	}
	/* A stable counting sort: creation order within each CPT. */
	k = 0;
	ul_list_for_each_entry(p, &core->peers, core_link) {
		if (ul_ctlsrv_peer_is_lo(p))
			continue;
		cpt[k] = ul_ctlsrv_cpt_of(&p->primary_nid, ncpt);
		start[cpt[k] + 1]++;
		k++;
	}
	for (unsigned int c = 0; c < ncpt; c++)
		start[c + 1] += start[c];
	k = 0;
	ul_list_for_each_entry(p, &core->peers, core_link) {
		if (ul_ctlsrv_peer_is_lo(p))
			continue;
		v[start[cpt[k]]++] = p;
		k++;
	}
	free(cpt);
	free(start);
	*out = v;
	*n = total;
	return 0;
}

int ul_ctlsrv_peer_list(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_peer **peers;
	size_t n, i;
	int rc;

	(void)a;
	(void)err;
	rc = ul_ctlsrv_peers_by_cpt(srv, &peers, &n);
	if (rc || !n)
		return rc;
	ul_ctl_doc_seq(doc, "peer list");
	for (i = 0; i < n; i++) {
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_nid(doc, "nid", &peers[i]->primary_nid);
		ul_ctl_doc_end(doc);
	}
	ul_ctl_doc_end(doc);
	free(peers);
	return 0;
}
