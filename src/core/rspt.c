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
 *
 * Dead peers (ulnet's, not LNet's): when the LND reports that the peer
 * NI a request was delivered to lost its connections (peer_down), the
 * tracker's deadline comes in to one lnd_timeout from then, and the
 * check runs at that deadline rather than at the next half-period; when
 * it reports a new incarnation of the request's destination, the
 * tracker ends at once: the process that had the request is gone.
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

/* The request went to its destination itself, not to a router. */
static bool is_direct(const struct ul_msg *m)
{
	return ulnet_nid_same(&m->tx.target_nid, &m->tx.hdr.dest_nid);
}

void ul_rspt_attach(struct ul_node *n, struct ul_md *md, const struct ul_msg *m)
{
	md->rspt_deadline_ns =
		n->opts.timers->now_ns +
		(uint64_t)n->core->tun.transaction_timeout * NSEC_PER_SEC;
	md->rspt_nid = m->tx.target_nid;
	md->is_rspt_direct = is_direct(m);
	md->is_rspt_hastened = false;
	if (ul_list_empty(&md->rspt_link)) {
		md->is_rspt_delivered = false;
		md->rspt_start_ns = ul_msg_clock_ns(n);
		ul_list_add_tail(&n->rspt, &md->rspt_link);
		n->core->counters.rst_alloc++;
	}
	if (!n->rspt_check_ns) {
		n->rspt_check_ns = n->opts.timers->now_ns + check_interval(n);
		ul_node_tick_arm(n, n->rspt_check_ns);
	}
}

void ul_rspt_update(struct ul_md *md, const struct ul_msg *m)
{
	/* A resend keeps the first attempt's deadline, as LNet does. */
	if (ul_list_empty(&md->rspt_link))
		return;
	md->rspt_nid = m->tx.target_nid;
	md->is_rspt_direct = is_direct(m);
}

/* Run the expiry pass at when_ns, if none is due before. */
static void check_by(struct ul_node *n, uint64_t when_ns)
{
	if (n->rspt_check_ns && n->rspt_check_ns <= when_ns)
		return;
	n->rspt_check_ns = when_ns;
	ul_node_tick_arm(n, when_ns);
}

void ul_rspt_on_peer_down(struct ul_node *n, const struct ulnet_nid *nid,
			  bool is_restarted, uint32_t lnd_timeout_sec,
			  uint64_t now_ns)
{
	uint64_t soon_ns = now_ns + (uint64_t)lnd_timeout_sec * NSEC_PER_SEC;
	struct ul_md *md, *tmp;
	char buf[64];

	ul_list_for_each_entry_safe(md, tmp, &n->rspt, rspt_link) {
		if (!md->is_rspt_delivered ||
		    !ulnet_nid_same(&md->rspt_nid, nid))
			continue;
		if (is_restarted && md->is_rspt_direct) {
			ul_msg_rspt_detach(n, md);
			ul_node_log_limit(n, UL_D_NETERROR,
					  "%s restarted before it answered: MD "
					  "unlinked",
					  ulnet_nid_format(nid, buf,
							   sizeof(buf)));
			ul_node_md_unlink_internal(n, md, -ECONNRESET);
			continue;
		}
		if (md->rspt_deadline_ns <= soon_ns)
			continue;
		md->rspt_deadline_ns = soon_ns;
		md->is_rspt_hastened = true;
		/* the pass expires deadlines before its own time */
		check_by(n, soon_ns + 1);
	}
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
	uint64_t next;
	char buf[64];

	if (ul_list_empty(&n->rspt)) {
		n->rspt_check_ns = 0;
		return UINT64_MAX;
	}
	if (now_ns < n->rspt_check_ns)
		return n->rspt_check_ns;
	next = now_ns + check_interval(n);
	ul_list_for_each_entry_safe(md, tmp, &n->rspt, rspt_link) {
		struct ul_peer_ni *lpni;

		if (md->rspt_deadline_ns >= now_ns) {
			if (md->is_rspt_hastened &&
			    md->rspt_deadline_ns + 1 < next)
				next = md->rspt_deadline_ns + 1;
			continue;
		}
		ul_msg_rspt_detach(n, md);
		n->core->counters.response_timeout_count++;
		ulnet_nid_format(&md->rspt_nid, buf, sizeof(buf));
		if (md->is_rspt_hastened)
			ul_node_log_limit(
				n, UL_D_NETERROR,
				"no response from %s, whose connections "
				"were lost: MD %#llx unlinked",
				buf, (unsigned long long)md->cookie);
		else
			ul_node_log_limit(
				n, UL_D_NETERROR,
				"no response from %s in %u s: MD %#llx "
				"unlinked",
				buf, n->core->tun.transaction_timeout,
				(unsigned long long)md->cookie);
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
	n->rspt_check_ns = next;
	return n->rspt_check_ns;
}
