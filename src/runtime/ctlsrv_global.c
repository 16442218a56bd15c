/*
 * `global show`, `stats show` and `stats reset` (reference/lnetctl.md
 * §9, §10) on the instance's side; `set <name> <value>` is a node
 * request (ctl/node_req.h).
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "core/msg.h"
#include "core/node.h"
#include "core/ping.h"
#include "ctl/node_req.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"

/*
 * lnetctl reads numa_range with an ioctl (IOC_LIBCFS_GET_NUMA_RANGE),
 * which fails with -ENETDOWN while LNet is down, and every other value
 * from the module's parameters, which are always there: while down the
 * document leaves numa_range out, and ulnetctl reports it as lnetctl
 * does (global.c).
 */
int ul_ctlsrv_global_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_tunables *t = &ul_node_core(srv->node)->tun;
	size_t i, nsettable;
	const enum ul_tunable *settable = ul_node_req_settable(&nsettable);

	(void)a;
	(void)err;
	ul_ctl_doc_map(doc, "global");
	/* lnetctl.md §9: lnd_timeout comes between these two. */
	for (i = 0; i < nsettable; i++) {
		if (!ul_node_lnet_is_configured(srv->node) &&
		    settable[i] == UL_TUNABLE_NUMA_RANGE)
			continue;
		if (settable[i] == UL_TUNABLE_RESPONSE_TRACKING)
			ul_ctl_doc_uint(doc, "lnd_timeout",
					ul_tunables_lnd_timeout(t));
		ul_ctl_doc_int(doc, ul_tunable_name(settable[i]),
			       ul_tunables_get(t, settable[i]));
	}
	ul_ctl_doc_end(doc);
	return 0;
}

int ul_ctlsrv_stats_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_counters *c = &ul_node_core(srv->node)->counters;

	(void)a;
	(void)err;
	ul_ctl_doc_map(doc, "statistics");
	ul_ctl_doc_uint(doc, "msgs_alloc", c->msgs_alloc);
	ul_ctl_doc_uint(doc, "msgs_max", c->msgs_max);
	ul_ctl_doc_uint(doc, "rst_alloc", c->rst_alloc);
	ul_ctl_doc_uint(doc, "errors", c->errors);
	ul_ctl_doc_uint(doc, "send_count", c->send_count);
	ul_ctl_doc_uint(doc, "resend_count", c->resend_count);
	ul_ctl_doc_uint(doc, "response_timeout_count",
			c->response_timeout_count);
	ul_ctl_doc_uint(doc, "local_interrupt_count", c->local_interrupt_count);
	ul_ctl_doc_uint(doc, "local_dropped_count", c->local_dropped_count);
	ul_ctl_doc_uint(doc, "local_aborted_count", c->local_aborted_count);
	ul_ctl_doc_uint(doc, "local_no_route_count", c->local_no_route_count);
	ul_ctl_doc_uint(doc, "local_timeout_count", c->local_timeout_count);
	ul_ctl_doc_uint(doc, "local_error_count", c->local_error_count);
	ul_ctl_doc_uint(doc, "remote_dropped_count", c->remote_dropped_count);
	ul_ctl_doc_uint(doc, "remote_error_count", c->remote_error_count);
	ul_ctl_doc_uint(doc, "remote_timeout_count", c->remote_timeout_count);
	ul_ctl_doc_uint(doc, "network_timeout_count", c->network_timeout_count);
	ul_ctl_doc_uint(doc, "failed_resends", c->failed_resends);
	ul_ctl_doc_uint(doc, "successful_resends", c->successful_resends);
	ul_ctl_doc_uint(doc, "recv_count", c->recv_count);
	ul_ctl_doc_uint(doc, "route_count", c->route_count);
	ul_ctl_doc_uint(doc, "drop_count", c->drop_count);
	ul_ctl_doc_uint(doc, "send_length", c->send_length);
	ul_ctl_doc_uint(doc, "recv_length", c->recv_length);
	ul_ctl_doc_uint(doc, "route_length", c->route_length);
	ul_ctl_doc_uint(doc, "drop_length", c->drop_length);
	ul_ctl_doc_end(doc);
	return 0;
}

/*
 * lnetctl.md §10: every global counter, and every NI's and peer NI's
 * message counts and latency samples. LNet's lnet_counters_reset()
 * zeroes the whole counter block, the messages alive now (msgs_alloc,
 * msgs_max, rst_alloc) included, so a message freed after the reset
 * takes msgs_alloc below zero (a 32-bit wrap), as it does in LNet. The
 * NIs' and peer NIs' health counters stay, as LNet's
 * lnet_iface_stats_reset() leaves ni_hstats and lpni_hstats alone.
 */
int ul_ctlsrv_stats_reset(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err)
{
	struct ul_node *n = srv->node;
	struct ul_core *core = ul_node_core(n);
	struct ul_counters *c = &core->counters;
	struct ul_peer_ni_msgs *pm;
	struct ul_net *net;
	struct ul_ni *ni;

	(void)a;
	(void)doc;
	(void)err;
	memset(c, 0, sizeof(*c));
	ul_list_for_each_entry(net, &core->nets, core_link)
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			memset(&ni->stats, 0, sizeof(ni->stats));
			memset(ni->lat, 0, sizeof(ni->lat));
		}
	ul_list_for_each_entry(pm, &n->lpni_msgs, link) {
		memset(&pm->stats, 0, sizeof(pm->stats));
		memset(pm->lat, 0, sizeof(pm->lat));
	}
	return 0;
}
