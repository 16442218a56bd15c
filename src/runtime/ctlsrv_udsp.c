/*
 * `udsp show` (reference/lnetctl.md §12, udsp.md) on the instance's
 * side: the rules of the instance's set, as lnetctl prints them. `udsp
 * add|del` are node requests (ctl/node_req.h).
 */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "core/udsp.h"
#include "wire/udsp_block.h"
#include "ctl/proto_doc.h"
#include "nid/nid_descr.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

static void descr(struct ul_ctl_msg *doc, const char *key,
		  const struct ul_nid_descr *d)
{
	char buf[256];

	if (!d)
		return;
	ul_nid_descr_format(d, buf, sizeof(buf));
	ul_ctl_doc_str(doc, key, buf);
}

int ul_ctlsrv_udsp_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_udsp_rule *r;
	unsigned int i, n;
	bool any = false;

	/*
	 * LNet's GET_UDSP_SIZE ioctl fails while LNet is down, and only
	 * ENOENT (no rule) is silent (lustre_lnet_show_udsp).
	 */
	if (!ul_node_lnet_is_configured(srv->node))
		return ul_err_set(err, -ENETDOWN, "Network is down");
	if (!srv->udsp)
		return 0;
	n = ul_udsp_count(srv->udsp);
	for (i = 0; i < n; i++) {
		if ((a->has & UL_CTL_ARG_IDX) && (int)i != a->idx)
			continue;
		r = ul_udsp_get(srv->udsp, (int)i);
		if (!r)
			continue;
		if (!any)
			ul_ctl_doc_seq(doc, "udsp");
		any = true;
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_uint(doc, "idx", i);
		descr(doc, "src", r->src);
		descr(doc, "dst", r->dst);
		descr(doc, "rte", r->rte);
		if (r->action_type == UL_UDSP_ACTION_PRIORITY) {
			ul_ctl_doc_map(doc, "action");
			ul_ctl_doc_uint(doc, "priority", r->priority);
			ul_ctl_doc_end(doc);
		}
		ul_ctl_doc_end(doc);
	}
	if (any)
		ul_ctl_doc_end(doc);
	return 0;
}
