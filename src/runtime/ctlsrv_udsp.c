/*
 * `udsp add`, `udsp del`, `udsp show` (reference/lnetctl.md §12,
 * udsp.md) on the instance's side. A rule arrives as the kernel's binary
 * block (core/udsp_block.h) and goes into the instance's rule set, which
 * applies it at once to every NI and peer and to those made later.
 */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "core/udsp.h"
#include "core/udsp_block.h"
#include "ctl/proto_doc.h"
#include "nid/nid_descr.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

static int need_set(const struct ul_ctlsrv *srv, struct ul_err *err)
{
	return srv->udsp ? 0
			 : ul_err_set(err, -EOPNOTSUPP,
				      "this instance has no UDSP rule set");
}

int ul_ctlsrv_udsp_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		       struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_udsp_rule *rule;
	int rc;

	(void)doc;
	rc = need_set(srv, err);
	if (rc)
		return rc;
	if (!(a->has & UL_CTL_ARG_UDSP_BLOCK))
		return ul_err_set(err, -EINVAL, "no rule given");
	rc = ul_udsp_block_decode(a->udsp_block, a->udsp_len, &rule, err);
	if (rc)
		return rc;
	rc = ul_udsp_add(srv->udsp, rule, err);
	ul_udsp_rule_free(rule);
	return rc;
}

int ul_ctlsrv_udsp_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
		       struct ul_ctl_msg *doc, struct ul_err *err)
{
	int rc;

	(void)doc;
	rc = need_set(srv, err);
	if (rc)
		return rc;
	if (a->flags & UL_CTL_ARGF_ALL)
		return ul_udsp_del(srv->udsp, -1, err);
	if (!(a->has & UL_CTL_ARG_IDX) || a->idx < 0)
		return ul_err_set(err, -EINVAL, "no index given");
	return ul_udsp_del(srv->udsp, a->idx, err);
}

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
