/*
 * Response tracking (reference/health.md §6): an MD that sent a PUT
 * asking for an ACK, or a GET, carries a deadline by which the answer
 * must come, and the next hop of its last attempt.
 *
 * Timers: none of its own; ul_rspt_tick() runs from the node tick. As
 * LNet's monitor, it looks for expired trackers every
 * transaction_timeout / 2 seconds (rspt_check_ns), so a response is
 * declared lost between 1x and about 1.5x transaction_timeout after the
 * request. An expired tracker unlinks its MD with -ETIMEDOUT (ulnet.h: a
 * timeout is never status 0) and takes a remote failure on the next
 * hop's peer NI.
 */
#include <errno.h>

#include "core/core.h"
#include "core/health.h"
#include "core/msg.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

/* health.md §6 tracked(type, md_options). */
bool ul_rspt_is_tracked(const struct ul_node *n, enum ul_msg_type type,
			uint32_t options)
{
	uint32_t mode = n->core->tun.response_tracking;

	if (options & ULNET_MD_NO_TRACK_RESPONSE)
		return false;
	if (options & ULNET_MD_TRACK_RESPONSE)
		return true;
	if (mode == 3)
		return true;
	if (type == UL_MSG_PUT)
		return mode == 2;
	if (type == UL_MSG_GET)
		return mode == 1;
	return false;
}

/* transaction_timeout / 2, at least a second. */
static uint64_t check_interval(const struct ul_node *n)
{
	uint32_t half = n->core->tun.transaction_timeout / 2;

	return (uint64_t)(half ? half : 1) * NSEC_PER_SEC;
}

void ul_rspt_attach(struct ul_node *n, struct ul_md *md,
		    const struct ulnet_nid *next_hop)
{
	md->rspt_deadline_ns =
		n->opts.timers->now_ns +
		(uint64_t)n->core->tun.transaction_timeout * NSEC_PER_SEC;
	md->rspt_nid = *next_hop;
	if (ul_list_empty(&md->rspt_link)) {
		md->rspt_start_ns = ul_msg_clock_ns(n);
		ul_list_add_tail(&n->rspt, &md->rspt_link);
		n->core->counters.rst_alloc++;
	}
	if (!n->rspt_check_ns) {
		n->rspt_check_ns = n->opts.timers->now_ns + check_interval(n);
		ul_node_tick_arm(n, n->rspt_check_ns);
	}
}

void ul_rspt_update(struct ul_md *md, const struct ulnet_nid *next_hop)
{
	/* A resend keeps the first attempt's deadline, as LNet does. */
	if (!ul_list_empty(&md->rspt_link))
		md->rspt_nid = *next_hop;
}

void ul_msg_rspt_detach(struct ul_node *n, struct ul_md *md)
{
	if (ul_list_empty(&md->rspt_link))
		return;
	ul_list_del(&md->rspt_link);
	n->core->counters.rst_alloc--;
}

void ul_msg_rspt_clear(struct ul_node *n)
{
	while (!ul_list_empty(&n->rspt))
		ul_msg_rspt_detach(n,
				   ul_list_first_entry(&n->rspt, struct ul_md,
						       rspt_link));
	n->rspt_check_ns = 0;
}

uint64_t ul_rspt_tick(struct ul_node *n, uint64_t now_ns)
{
	struct ul_md *md, *tmp;
	char buf[64];

	if (ul_list_empty(&n->rspt)) {
		n->rspt_check_ns = 0;
		return UINT64_MAX;
	}
	if (now_ns < n->rspt_check_ns)
		return n->rspt_check_ns;
	ul_list_for_each_entry_safe(md, tmp, &n->rspt, rspt_link) {
		struct ul_peer_ni *lpni;

		if (md->rspt_deadline_ns >= now_ns)
			continue;
		ul_msg_rspt_detach(n, md);
		n->core->counters.response_timeout_count++;
		ul_node_log(n, UL_D_NETERROR,
			    "no response from %s in %u s: MD unlinked",
			    ulnet_nid_format(&md->rspt_nid, buf, sizeof(buf)),
			    n->core->tun.transaction_timeout);
		/* §6 step 2: whatever its number of NIs. */
		lpni = ul_peer_ni_find(n->core, &md->rspt_nid);
		if (lpni)
			ul_health_lpni_fail(n, lpni);
		ul_node_md_unlink_internal(n, md, -ETIMEDOUT);
	}
	if (ul_list_empty(&n->rspt)) {
		n->rspt_check_ns = 0;
		return UINT64_MAX;
	}
	n->rspt_check_ns = now_ns + check_interval(n);
	return n->rspt_check_ns;
}
