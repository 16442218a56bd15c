/*
 * LNet's fault injection rules (reference/fault.md, lnetctl.md §13): drop
 * rules and delay rules matched on a message's source and destination
 * NIDs, type and portal. This is the store and the matching logic; the
 * message layer consults it with the health work (until then rules are
 * kept, listed and counted only by what calls ul_fault_match()).
 *
 * A rule's source or destination is a NID, or a wildcard: the ANY NID
 * ("*") matches every NID, an all-ones address on a net ("*@tcp", shown
 * as 255.255.255.255@tcp) every NID of that net.
 */
#ifndef UL_CORE_FAULT_H
#define UL_CORE_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "ulnet/nid.h"
#include "util/list.h"

/* fa_msg_mask bits (lnetctl.md §13). */
enum {
	UL_FAULT_MSG_ACK = 1u << 0,
	UL_FAULT_MSG_PUT = 1u << 1,
	UL_FAULT_MSG_GET = 1u << 2,
	UL_FAULT_MSG_REPLY = 1u << 3,
};

struct ul_fault_rule {
	struct ul_list link;
	bool is_delay;
	struct ulnet_nid src, dst;
	bool has_local;
	struct ulnet_nid local; /* -o: only messages sent from this NID */
	uint32_t rate;		/* one in every rate matches, 0: off */
	uint32_t interval;	/* one per interval seconds, 0: off */
	uint32_t latency;	/* delay rules: seconds */
	uint32_t msg_mask;	/* UL_FAULT_MSG_*, 0: every type */
	uint64_t ptl_mask;	/* bit N: portal N, 0: every portal */
	uint32_t health_mask;	/* drop rules: health statuses to report */
	bool is_random;		/* drop at a random point of the interval */
	bool is_drop_all;	/* every matching message */
	/* counters (fs_*, ds_dropped / ls_delayed) */
	uint64_t count, put, ack, get, reply, acted;
};

struct ul_fault_set {
	struct ul_list rules; /* in the order added */
};

void ul_fault_set_init(struct ul_fault_set *set);
/* Free every rule. */
void ul_fault_set_clear(struct ul_fault_set *set);
/* Add a copy of r: 0 or -ENOMEM. */
int ul_fault_add(struct ul_fault_set *set, const struct ul_fault_rule *r);
/*
 * Delete the rules of that kind with this source and destination, or
 * every rule of that kind when all is set. The number deleted, or
 * -ENOENT when none matched.
 */
int ul_fault_del(struct ul_fault_set *set, bool is_delay,
		 const struct ulnet_nid *src, const struct ulnet_nid *dst,
		 bool all);
/* Zero the counters of every rule of that kind. */
void ul_fault_reset(struct ul_fault_set *set, bool is_delay);
/* Whether pattern (a rule's src or dst) covers nid. */
bool ul_fault_nid_match(const struct ulnet_nid *pattern,
			const struct ulnet_nid *nid);
/*
 * Whether r applies to a message of type msg (UL_FAULT_MSG_*) on portal
 * from src to dst; counts it (fs_count and the type's counter) if so.
 * Whether the rule then acts is the rate/interval decision of the caller.
 */
bool ul_fault_match(struct ul_fault_rule *r, const struct ulnet_nid *src,
		    const struct ulnet_nid *dst, uint32_t msg, uint32_t portal);

#endif /* UL_CORE_FAULT_H */
