/*
 * `fault drop|delay add|del|show|reset` (reference/lnetctl.md §13) on the
 * instance's side: the rules live in a core/fault.h set owned by the
 * control server. They are stored, listed and counted; making the
 * message layer drop and delay by them is the health work's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

int ul_ctlsrv_faults_create(struct ul_fault_set **out)
{
	struct ul_fault_set *set = malloc(sizeof(*set));

	if (!set)
		return -ENOMEM;
	ul_fault_set_init(set);
	*out = set;
	return 0;
}

void ul_ctlsrv_faults_destroy(struct ul_fault_set *set)
{
	if (!set)
		return;
	ul_fault_set_clear(set);
	free(set);
}

void ul_ctlsrv_faults_clear(struct ul_fault_set *set)
{
	if (set)
		ul_fault_set_clear(set);
}

static bool is_delay(const struct ul_ctl_args *a)
{
	return a->flags & UL_CTL_ARGF_DELAY;
}

int ul_ctlsrv_fault_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_fault_rule r;
	int rc;

	(void)doc;
	if (!(a->has & UL_CTL_ARG_NID) || !(a->has & UL_CTL_ARG_NID2))
		return ul_err_set(err, -EINVAL,
				  "a rule needs a source and a destination");
	if (!a->rate == !a->interval)
		return ul_err_set(err, -EINVAL,
				  "exactly one of rate and interval");
	if (is_delay(a) && !a->latency)
		return ul_err_set(err, -EINVAL, "delay latency is 0");
	memset(&r, 0, sizeof(r));
	r.is_delay = is_delay(a);
	r.src = a->nid;
	r.dst = a->nid2;
	r.has_local = a->has & UL_CTL_ARG_LOCAL_NID;
	r.local = a->local_nid;
	r.rate = a->rate;
	r.interval = a->interval;
	r.latency = a->latency;
	r.msg_mask = a->msg_mask;
	r.ptl_mask = a->ptl_mask;
	r.health_mask = a->health_mask;
	r.is_random = a->flags & UL_CTL_ARGF_RANDOM;
	r.is_drop_all = a->flags & UL_CTL_ARGF_DROP_ALL;
	rc = ul_fault_add(srv->faults, &r);
	return rc ? ul_err_set(err, rc, "out of memory") : 0;
}

int ul_ctlsrv_fault_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err)
{
	int rc;

	(void)doc;
	rc = ul_fault_del(srv->faults, is_delay(a), &a->nid, &a->nid2,
			  a->flags & UL_CTL_ARGF_ALL);
	return rc < 0 ? ul_err_set(err, rc, "%s", strerror(-rc)) : 0;
}

int ul_ctlsrv_fault_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_fault_rule *r;
	bool any = false;

	(void)err;
	ul_list_for_each_entry(r, &srv->faults->rules, link) {
		if (r->is_delay != is_delay(a))
			continue;
		if (!any)
			ul_ctl_doc_seq(doc, "fault");
		any = true;
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_str(doc, "rule_type",
			       r->is_delay ? "delay" : "drop");
		ul_ctl_doc_nid(doc, "fa_src", &r->src);
		ul_ctl_doc_nid(doc, "fa_dst", &r->dst);
		ul_ctl_doc_uint(doc, "fa_ptl_mask", r->ptl_mask);
		ul_ctl_doc_uint(doc, "fa_msg_mask", r->msg_mask);
		if (r->is_delay) {
			ul_ctl_doc_uint(doc, "la_rate", r->rate);
			ul_ctl_doc_uint(doc, "la_interval", r->interval);
			ul_ctl_doc_uint(doc, "la_latency", r->latency);
			ul_ctl_doc_uint(doc, "ls_delayed", r->acted);
		} else {
			ul_ctl_doc_uint(doc, "da_rate", r->rate);
			ul_ctl_doc_uint(doc, "da_interval", r->interval);
			ul_ctl_doc_uint(doc, "ds_dropped", r->acted);
		}
		ul_ctl_doc_uint(doc, "fs_count", r->count);
		ul_ctl_doc_uint(doc, "fs_put", r->put);
		ul_ctl_doc_uint(doc, "fs_ack", r->ack);
		ul_ctl_doc_uint(doc, "fs_get", r->get);
		ul_ctl_doc_uint(doc, "fs_reply", r->reply);
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
	ul_fault_reset(srv->faults, is_delay(a));
	return 0;
}
