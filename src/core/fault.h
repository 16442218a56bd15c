/*
 * LNet's fault injection rules (reference/fault.md, lnetctl.md §13): drop
 * rules and delay rules matched on a message's source and destination
 * NIDs, local NID, type and portal, and the rate / interval / random /
 * drop_all decision of whether a matching message is hit. Pure logic: no
 * clock and no I/O; the caller passes the time in seconds, and the random
 * draws come from a generator seeded per set (tests seed it).
 *
 * This is the store and the matching; the message layer consults it with
 * the health work (until then rules are only kept, listed and reset).
 *
 * A rule's source, destination or local NID is a NID, or a wildcard: the
 * ANY NID ("*") matches every NID, an all-ones address on a net ("*@tcp",
 * shown as 255.255.255.255@tcp) every NID of that net (fault.md §3).
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
	UL_FAULT_MSG_ALL = 0xfu,
};

/* Health statuses a drop rule may simulate: bit N = status N (lnd.h). */
#define UL_FAULT_HEALTH_RANDOM 0xffffffffu
#define UL_FAULT_HSTATUS_MAX 10 /* NETWORK_TIMEOUT */

/* What `fault ... add` gives (struct lnet_fault_attr). */
struct ul_fault_attr {
	bool is_delay;
	struct ulnet_nid src, dst; /* ANY or "*@net" wildcards allowed */
	struct ulnet_nid local;	   /* -o; ANY when not given */
	uint64_t ptl_mask;	   /* bit N: portal N, 0: every portal */
	uint32_t msg_mask;	   /* UL_FAULT_MSG_*, 0: every type */
	uint32_t rate;		   /* one in every rate matches, 0: off */
	uint32_t interval;	   /* one per interval seconds, 0: off */
	uint32_t latency;	   /* delay rules: seconds held */
	uint32_t health_mask;	   /* drop rules: statuses to simulate */
	bool is_random;		   /* drop rules: hit with p ~ 1/2 */
	bool is_drop_all;	   /* drop rules: every matching message */
};

/* A rule's counters, as `fault ... show` prints them. */
struct ul_fault_stats {
	uint64_t count; /* fs_count: messages that went to the decision */
	uint64_t put, ack, get, reply; /* hits by type */
	uint64_t hits;		       /* ds_dropped / ls_delayed */
};

struct ul_fault_rule {
	struct ul_list link; /* ul_fault_set.drop or .delay, newest first */
	struct ul_fault_attr attr;
	struct ul_fault_stats stats;
	/* the decision's state (fault.md §4.4) */
	uint64_t next_index; /* rate: the count that is hit next */
	int64_t next_time;   /* interval: first hit at or after this */
	int64_t base_time;   /* interval: start of the next window */
};

struct ul_fault_set {
	struct ul_list drop, delay; /* struct ul_fault_rule, newest first */
	uint64_t rng;		    /* xorshift state, never 0 */
};

/* Which path asks (fault.md §4.3). */
enum ul_fault_side {
	UL_FAULT_SIDE_RX, /* a received message, before it is processed */
	UL_FAULT_SIDE_TX, /* the LND is about to transmit */
};

/* The message being checked: the NIDs in its LNet header. */
struct ul_fault_msg {
	struct ulnet_nid src, dst;
	const struct ulnet_nid *local; /* receiving NI; NULL when unknown */
	uint32_t type;		       /* one UL_FAULT_MSG_* bit */
	uint32_t portal;	       /* PUT and GET only */
};

/* What ul_fault_match() hit. */
struct ul_fault_hit {
	struct ul_fault_rule *rule;
	int hstatus;	  /* drop on TX: the status to complete with, else 0 */
	uint32_t latency; /* delay: seconds to hold the message */
};

/* seed: any value (0 is replaced); the same seed gives the same draws. */
void ul_fault_set_init(struct ul_fault_set *set, uint64_t seed);
/* Free every rule of both kinds. */
void ul_fault_set_clear(struct ul_fault_set *set);
/*
 * Check a (fault.md §2: exactly one of rate and interval, latency for
 * delay rules, portal filter leaves PUT or GET), store its normalised
 * copy at the head of its list with a fresh decision state. 0, -EINVAL
 * (err text in *why when why is not NULL) or -ENOMEM.
 */
int ul_fault_add(struct ul_fault_set *set, const struct ul_fault_attr *a,
		 int64_t now, const char **why);
/*
 * Delete the rules of that kind whose stored source equals src (or src
 * is ANY) and whose stored destination equals dst (or dst is ANY); the
 * comparison is exact, "*@tcp" is only deleted by "*@tcp". The number
 * deleted, or -ENOENT when none was.
 */
int ul_fault_del(struct ul_fault_set *set, bool is_delay,
		 const struct ulnet_nid *src, const struct ulnet_nid *dst);
/* Zero the counters of every rule of that kind, redraw their next hit. */
void ul_fault_reset(struct ul_fault_set *set, bool is_delay, int64_t now);
/* Whether pattern (a rule's NID) covers nid (NULL: not available). */
bool ul_fault_nid_match(const struct ulnet_nid *pattern,
			const struct ulnet_nid *nid);
/* Whether a rule's attributes cover m (no decision, no counting). */
bool ul_fault_attr_match(const struct ul_fault_attr *a,
			 const struct ul_fault_msg *m);
/*
 * The check the message layer makes at side for m: the first rule of
 * that kind (newest first) that takes part at side, matches m and
 * decides to act wins: its counters are updated, *hit filled and true
 * returned. Rules that take part and match but do not act count m in
 * fs_count (rate and interval rules, fault.md §4.4).
 */
bool ul_fault_match(struct ul_fault_set *set, bool is_delay,
		    enum ul_fault_side side, const struct ul_fault_msg *m,
		    int64_t now, struct ul_fault_hit *hit);
/*
 * The health status a drop rule with this mask simulates, from a draw c
 * in 0..UL_FAULT_HSTATUS_MAX (fault.md §5). Pure, for tests.
 */
int ul_fault_hstatus_pick(uint32_t mask, uint32_t c);

#endif /* UL_CORE_FAULT_H */
