/*
 * `fault drop|delay add|del|show|reset` (reference/lnetctl.md §13) on the
 * instance's side: decode the request, call the node's operation (the
 * node owns the rules and applies them to its traffic, core/node.h),
 * encode the reply.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/node.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

static bool is_delay(const struct ul_ctl_args *a)
{
	return a->flags & UL_CTL_ARGF_DELAY;
}

/* A rule NID the request left out is ANY, as LNet takes it. */
static void nid_or_any(const struct ul_ctl_args *a, uint64_t bit,
		       const struct ulnet_nid *nid, struct ulnet_nid *out)
{
	if (a->has & bit)
		*out = *nid;
	else
		ulnet_nid_set_any(out);
}

int ul_ctlsrv_fault_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_fault_attr fa;
	int rc;

	(void)doc;
	memset(&fa, 0, sizeof(fa));
	fa.is_delay = is_delay(a);
	nid_or_any(a, UL_CTL_ARG_NID, &a->nid, &fa.src);
	nid_or_any(a, UL_CTL_ARG_NID2, &a->nid2, &fa.dst);
	nid_or_any(a, UL_CTL_ARG_LOCAL_NID, &a->local_nid, &fa.local);
	fa.rate = a->rate;
	fa.interval = a->interval;
	fa.latency = a->latency;
	fa.msg_mask = a->msg_mask;
	fa.ptl_mask = a->ptl_mask;
	fa.health_mask = a->health_mask;
	fa.is_random = a->flags & UL_CTL_ARGF_RANDOM;
	fa.is_drop_all = a->flags & UL_CTL_ARGF_DROP_ALL;
	rc = ul_node_fault_add(srv->node, &fa, NULL);
	/* LNet gives no text: the client prints strerror's */
	return rc ? ul_err_set(err, rc, "%s", "") : 0;
}

int ul_ctlsrv_fault_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ulnet_nid src, dst;
	int rc;

	(void)doc;
	/* --all sends neither NID: both ANY, every rule of the kind */
	nid_or_any(a, UL_CTL_ARG_NID, &a->nid, &src);
	nid_or_any(a, UL_CTL_ARG_NID2, &a->nid2, &dst);
	rc = ul_node_fault_del(srv->node, is_delay(a), &src, &dst);
	return rc < 0 ? ul_err_set(err, rc, "%s", "") : 0;
}

int ul_ctlsrv_fault_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_list *head =
		ul_node_fault_rules(srv->node, is_delay(a));
	const struct ul_fault_rule *r;
	bool any = false;

	(void)err;
	ul_list_for_each_entry(r, head, link) {
		const struct ul_fault_attr *fa = &r->attr;

		if (!any)
			ul_ctl_doc_seq(doc, "fault");
		any = true;
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_str(doc, "rule_type",
			       fa->is_delay ? "delay" : "drop");
		ul_ctl_doc_nid(doc, "fa_src", &fa->src);
		ul_ctl_doc_nid(doc, "fa_dst", &fa->dst);
		ul_ctl_doc_uint(doc, "fa_ptl_mask", fa->ptl_mask);
		ul_ctl_doc_uint(doc, "fa_msg_mask", fa->msg_mask);
		if (fa->is_delay) {
			ul_ctl_doc_uint(doc, "la_rate", fa->rate);
			ul_ctl_doc_uint(doc, "la_interval", fa->interval);
			ul_ctl_doc_uint(doc, "la_latency", fa->latency);
			ul_ctl_doc_uint(doc, "ls_delayed", r->stats.hits);
		} else {
			ul_ctl_doc_uint(doc, "da_rate", fa->rate);
			ul_ctl_doc_uint(doc, "da_interval", fa->interval);
			ul_ctl_doc_uint(doc, "ds_dropped", r->stats.hits);
		}
		ul_ctl_doc_uint(doc, "fs_count", r->stats.count);
		ul_ctl_doc_uint(doc, "fs_put", r->stats.put);
		ul_ctl_doc_uint(doc, "fs_ack", r->stats.ack);
		ul_ctl_doc_uint(doc, "fs_get", r->stats.get);
		ul_ctl_doc_uint(doc, "fs_reply", r->stats.reply);
		ul_ctl_doc_end(doc);
	}
	if (any)
		ul_ctl_doc_end(doc);
	return 0;
}

int ul_ctlsrv_fault_reset(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err)
{
	(void)doc;
	(void)err;
	ul_node_fault_reset(srv->node, is_delay(a));
	return 0;
}
