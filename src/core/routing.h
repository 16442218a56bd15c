/*
 * Routing on this node and its router buffer pools (reference/routing.md
 * §7.1, §7.2; lnetctl.md §8.4), as pure logic on a "now" the caller
 * gives. The caller runs ul_routing_tick() when ul_routing_deadline()
 * comes (the control server keeps a loop timer for it).
 *
 * States, with LNet's values (routing show's "enable"):
 *	DISABLED  -- set routing 1 -->  STARTING (pools made or refilled)
 *	STARTING  -- the wait passed -->  ENABLED
 *	STARTING, ENABLED  -- set routing 0 -->  STOPPING
 *	STOPPING  -- the wait passed and every buffer is back, or three
 *	             waits passed -->  DISABLED (buffers freed, pools kept)
 * The wait is alive_router_check_interval + router_ping_timeout (110 s
 * by default); set routing 1 while STOPPING is -EBUSY. The ping info
 * carries RTE_DISABLED in every state but ENABLED.
 *
 * ulnet forwards nothing yet: a pool's buffers are counts, all of them
 * free (credits = nbuffers). Pools grow at once and shrink only as
 * buffers come back (routing.md §7.2), which without forwarding is never.
 */
#ifndef UL_CORE_ROUTING_H
#define UL_CORE_ROUTING_H

#include <stdbool.h>
#include <stdint.h>

enum ul_routing_state {
	UL_ROUTING_DISABLED = 0,
	UL_ROUTING_ENABLED = 1,
	UL_ROUTING_STOPPING = 2,
	UL_ROUTING_STARTING = 3,
};

/* The pools per CPT, by payload size (routing.md §7.2). */
enum ul_rtrpool_kind {
	UL_RTRPOOL_TINY,
	UL_RTRPOOL_SMALL,
	UL_RTRPOOL_LARGE,
	UL_RTRPOOL_NR
};

/* CPTs a node may have (ulnetd --cpts). */
#define UL_ROUTING_CPT_MAX 64

struct ul_rtrpool {
	int nbuffers;	/* buffers in the pool now */
	int req;	/* buffers it should have (rbp_req_nbuffers) */
	int credits;	/* free buffers */
	int mincredits; /* fewest free buffers seen */
};

struct ul_routing {
	enum ul_routing_state state;
	/* tiny/small/large_router_buffers: totals over CPTs, 0 = default */
	int nbufs[UL_RTRPOOL_NR];
	unsigned int ncpt; /* CPTs the pools span; 0: no pools exist */
	struct ul_rtrpool pools[UL_ROUTING_CPT_MAX][UL_RTRPOOL_NR];
	uint64_t min_ns; /* STARTING/STOPPING ends no sooner than this */
	uint64_t max_ns; /* STOPPING ends no later than this */
};

/*
 * set routing 1: DISABLED becomes STARTING for wait_ns, the pools made
 * on ncpt CPTs (1..UL_ROUTING_CPT_MAX) or refilled to the configured
 * totals. STARTING or ENABLED: nothing; STOPPING: -EBUSY. *warn gets bit
 * (1 << kind) for each pool sized from a configured total below LNet's
 * recommended minimum (512, 4096, 256), as LNet warns then.
 */
int ul_routing_enable(struct ul_routing *r, unsigned int ncpt, uint64_t now_ns,
		      uint64_t wait_ns, unsigned int *warn);
/*
 * set routing 0: STARTING or ENABLED becomes STOPPING, which ends
 * between wait_ns and 3 x wait_ns from now. true if the state changed.
 */
bool ul_routing_disable(struct ul_routing *r, uint64_t now_ns,
			uint64_t wait_ns);
/*
 * set <kind>_buffers total (0: LNet's default; -1: unchanged). While
 * DISABLED nothing is kept (lnetctl.md §8.4 Quirk); else the total is
 * kept and every CPT's pool asked for max(total / ncpt, 1) buffers.
 * *warn as for ul_routing_enable(). 0, or -ERANGE for a total < -1.
 */
int ul_routing_set_buffers(struct ul_routing *r, enum ul_rtrpool_kind kind,
			   int64_t total, unsigned int *warn);
/*
 * The time is now_ns: STARTING becomes ENABLED, STOPPING DISABLED, when
 * their wait is over. true if the state changed.
 */
bool ul_routing_tick(struct ul_routing *r, uint64_t now_ns);
/* When ul_routing_tick() next has something to do; 0: never. */
uint64_t ul_routing_deadline(const struct ul_routing *r);
/* lnet unconfigure: DISABLED, no pools; the configured totals stay. */
void ul_routing_reset(struct ul_routing *r);
/* LNet's recommended minimum total of a pool kind (512, 4096, 256). */
int ul_routing_min_nbufs(enum ul_rtrpool_kind kind);
/* Buffers of one kind over every CPT (routing show's "buffers:"). */
int ul_routing_total(const struct ul_routing *r, enum ul_rtrpool_kind kind);
/* LNet's lnet_routing_enabled(): any state but DISABLED. */
static inline bool ul_routing_is_on(const struct ul_routing *r)
{
	return r->state != UL_ROUTING_DISABLED;
}

#endif /* UL_CORE_ROUTING_H */
