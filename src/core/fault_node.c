/*
 * Fault rules acting on the node's traffic (reference/fault.md §4, §6):
 * the node owns the rule set (ul_node.faults, core/fault.h); this file
 * asks it on the send and receive paths and holds delayed sends.
 *
 * Send side, right before the LND, credits held: a delay rule parks the
 * message on ul_node.delayq (state DELAYED, credits kept, as LNet keeps
 * them for the whole latency); a drop rule with a health mask, or a
 * drop_all rule, completes the attempt as failed with the simulated
 * health status and -EIO (socklnd's), and the health funnel does the
 * rest (counters, health, resend). Receive side, before the sender's
 * peer NI is looked up: a drop rule without a health mask (or drop_all)
 * discards the message silently, counted as a drop on the receiving NI.
 *
 * A delay rule on the receive side holds a received message once its
 * payload is in place, before it is delivered (its event, its ACK, a
 * GET's REPLY); the LND has finished with it, so nothing else waits.
 *
 * Timers: none of its own; ul_fault_tick() runs from the node tick and
 * returns the next release time. Released sends go straight to the LND
 * (no deadline, credit or rule check, fault.md §6), released receives
 * are delivered.
 */
#include <errno.h>

#include "core/core.h"
#include "core/msg.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

static int64_t now_sec(const struct ul_node *n)
{
	return (int64_t)(n->opts.timers->now_ns / NSEC_PER_SEC);
}

static uint32_t type_bit(uint32_t type)
{
	switch (type) {
	case UL_MSG_ACK:
		return UL_FAULT_MSG_ACK;
	case UL_MSG_PUT:
		return UL_FAULT_MSG_PUT;
	case UL_MSG_GET:
		return UL_FAULT_MSG_GET;
	case UL_MSG_REPLY:
		return UL_FAULT_MSG_REPLY;
	default:
		return 0;
	}
}

static uint32_t hdr_portal(const struct ul_wire_lnet_hdr *hdr)
{
	if (hdr->type == UL_WIRE_MSG_PUT)
		return hdr->msg.put.ptl_index;
	if (hdr->type == UL_WIRE_MSG_GET)
		return hdr->msg.get.ptl_index;
	return 0;
}

static void fault_msg_of(const struct ul_wire_lnet_hdr *hdr,
			 const struct ulnet_nid *local, struct ul_fault_msg *fm)
{
	fm->src = hdr->src_nid;
	fm->dst = hdr->dest_nid;
	fm->local = local;
	fm->type = type_bit(hdr->type);
	fm->portal = hdr_portal(hdr);
}

static bool has_rules(const struct ul_node *n)
{
	return !ul_list_empty(&n->faults.drop) ||
	       !ul_list_empty(&n->faults.delay);
}

/* Keep delayq ordered by release time (FIFO among equals). */
static void delay_insert(struct ul_node *n, struct ul_msg *m)
{
	struct ul_msg *it;

	ul_list_for_each_entry(it, &n->delayq, link) {
		if (it->release_ns > m->release_ns) {
			ul_list_add_after(it->link.prev, &m->link);
			return;
		}
	}
	ul_list_add_tail(&n->delayq, &m->link);
}

bool ul_fault_on_tx(struct ul_node *n, struct ul_msg *m)
{
	struct ul_fault_msg fm;
	struct ul_fault_hit hit;
	char a[64];

	if (!has_rules(n) || !m->lpni)
		return false;
	/* Send side: the local NID is not available (fault.md §4.2). */
	fault_msg_of(&m->tx.hdr, NULL, &fm);
	if (ul_fault_match(&n->faults, true, UL_FAULT_SIDE_TX, &fm, now_sec(n),
			   &hit)) {
		if (!ul_msg_set_state(n, m, UL_MSG_STATE_DELAYED))
			return false;
		m->release_ns = n->opts.timers->now_ns +
				(uint64_t)hit.latency * NSEC_PER_SEC;
		delay_insert(n, m);
		ul_node_tick_arm(n, m->release_ns);
		return true;
	}
	if (!ul_fault_match(&n->faults, false, UL_FAULT_SIDE_TX, &fm,
			    now_sec(n), &hit))
		return false;
	ul_node_log(n, UL_D_NET, "fault: %s to %s fails with %s",
		    ul_wire_msg_type_name(m->type),
		    ulnet_nid_format(&m->tx.target_nid, a, sizeof(a)),
		    ul_hstatus_name((enum ul_hstatus)hit.hstatus));
	/* As the LND would complete it: the attempt is in the LND. */
	if (ul_msg_set_state(n, m, UL_MSG_STATE_LND))
		ul_msg_finalize(n, m, -EIO, (enum ul_hstatus)hit.hstatus);
	return true;
}

bool ul_fault_on_rx(struct ul_node *n, struct ul_ni *ni,
		    const struct ul_wire_lnet_hdr *hdr,
		    const struct ulnet_nid *from_nid)
{
	struct ul_fault_msg fm;
	struct ul_fault_hit hit;
	char a[64];

	if (ul_list_empty(&n->faults.drop))
		return false;
	fault_msg_of(hdr, &ni->nid, &fm);
	if (!ul_fault_match(&n->faults, false, UL_FAULT_SIDE_RX, &fm,
			    now_sec(n), &hit))
		return false;
	ul_node_log(n, UL_D_NET, "fault: %s from %s dropped on receive",
		    ul_wire_msg_type_name(hdr->type),
		    ulnet_nid_format(from_nid, a, sizeof(a)));
	return true;
}

bool ul_fault_rx_delay(struct ul_node *n, struct ul_msg *m)
{
	struct ul_fault_msg fm;
	struct ul_fault_hit hit;
	char a[64];

	if (ul_list_empty(&n->faults.delay))
		return false;
	fault_msg_of(&m->rx_hdr, &m->ni->nid, &fm);
	if (!ul_fault_match(&n->faults, true, UL_FAULT_SIDE_RX, &fm, now_sec(n),
			    &hit))
		return false;
	if (!ul_msg_set_state(n, m, UL_MSG_STATE_DELAYED))
		return false;
	ul_node_log(n, UL_D_NET, "fault: %s from %s delayed %u s on receive",
		    ul_wire_msg_type_name(m->type),
		    ulnet_nid_format(&m->from_nid, a, sizeof(a)), hit.latency);
	m->release_ns =
		n->opts.timers->now_ns + (uint64_t)hit.latency * NSEC_PER_SEC;
	delay_insert(n, m);
	ul_node_tick_arm(n, m->release_ns);
	return true;
}

/* A held message goes on: a send to its LND, a receive delivered. */
static void release(struct ul_node *n, struct ul_msg *m)
{
	if (m->is_tx) {
		ul_msg_lnd_send(n, m);
		return;
	}
	ul_msg_rx_deliver(n, m);
}

uint64_t ul_fault_tick(struct ul_node *n, uint64_t now_ns)
{
	while (!ul_list_empty(&n->delayq)) {
		struct ul_msg *m =
			ul_list_first_entry(&n->delayq, struct ul_msg, link);

		if (m->release_ns > now_ns)
			return m->release_ns;
		ul_list_del(&m->link);
		release(n, m);
	}
	return UINT64_MAX;
}

void ul_fault_release_all(struct ul_node *n, bool is_shutdown)
{
	while (!ul_list_empty(&n->delayq)) {
		struct ul_msg *m =
			ul_list_first_entry(&n->delayq, struct ul_msg, link);

		ul_list_del(&m->link);
		if (is_shutdown)
			ul_msg_finalize(n, m, -ECANCELED, UL_HSTATUS_OK);
		else
			release(n, m);
	}
}
