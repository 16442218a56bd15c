/*
 * Resend (reference/health.md §7): a transmit attempt that failed with a
 * resendable health status goes back through selection, where the lower
 * health of the pathway it failed on lets another rail win, up to
 * retry_count times.
 *
 * The funnel (ul_msg_finalize) only queues the message on
 * ul_node.resendq; ul_resend_run() sends it again from the node's flush
 * or tick, never from inside an LND upcall, as LNet's monitor thread
 * does it "at once" but outside the completion. The MD stays attached
 * and no event goes out until the message is finally done.
 */
#include <errno.h>

#include "core/core.h"
#include "core/msg.h"

bool ul_resend_queue(struct ul_node *n, struct ul_msg *m, enum ul_msg_state was)
{
	struct ul_counters *g = &n->core->counters;
	uint32_t budget = n->core->tun.retry_count;

	if (!m->is_tx || m->is_no_resend || m->is_recovery ||
	    n->state != UL_NODE_STATE_RUNNING)
		return false;
	if (m->retry_count >= budget) {
		if (budget)
			g->failed_resends++;
		return false;
	}
	if (!ul_msg_set_state(n, m, UL_MSG_STATE_RESEND))
		return false;
	m->retry_count++;
	ul_msg_return_credits(n, m, was);
	ul_ni_put(m->ni);
	m->ni = NULL;
	m->nni = NULL;
	if (m->lpni)
		ul_peer_ni_put(m->lpni);
	m->lpni = NULL;
	m->is_committed = false;
	ul_node_add_work(n, &n->resendq, &m->link);
	return true;
}

/*
 * The source a resend keeps. LNet pins an ACK's or REPLY's source to the
 * NI the request came in on and its destination to the NID it came from,
 * so when that rail is gone every resend fails the same way and the
 * requester's operation ends in a response timeout. ulnet lets a resent
 * response go over any pathway to the requester (its wire handle names
 * an MD of the node, not of one NI): the first attempt follows LNet, the
 * resends reach a Multi-Rail requester over a rail that works
 * (docs/design-notes.md, "Health").
 */
static const struct ulnet_nid *resend_self(const struct ul_msg *m)
{
	if (m->type == UL_MSG_ACK || m->type == UL_MSG_REPLY)
		return NULL;
	return m->has_self ? &m->self : NULL;
}

void ul_resend_run(struct ul_node *n)
{
	struct ul_list batch;

	if (ul_list_empty(&n->resendq))
		return;
	/* What fails again at once waits for the next run. */
	ul_list_take(&n->resendq, &batch);
	n->api_depth++;
	while (!ul_list_empty(&batch)) {
		struct ul_msg *m =
			ul_list_first_entry(&batch, struct ul_msg, link);
		/* The peer NI it went to: for an MR peer, selection runs
		 * over the whole peer again (§7). */
		struct ulnet_nid dst = m->tx.hdr.dest_nid;
		int rc;

		ul_list_del(&m->link);
		ul_msg_set_state(n, m, UL_MSG_STATE_NEW);
		rc = ul_msg_route(n, m, resend_self(m), &dst, NULL,
				  m->numa_node, m->is_reserved);
		if (rc) {
			ul_msg_finalize(n, m, rc, UL_HSTATUS_OK);
			continue;
		}
		n->core->counters.resend_count++;
		if (m->md)
			ul_rspt_update(m->md, m);
		ul_msg_post(n, m);
	}
	n->api_depth--;
	ul_msg_drain_ready(n);
}

void ul_resend_fail_all(struct ul_node *n, int status)
{
	while (!ul_list_empty(&n->resendq)) {
		struct ul_msg *m =
			ul_list_first_entry(&n->resendq, struct ul_msg, link);

		ul_msg_finalize(n, m, status, UL_HSTATUS_OK);
	}
}
