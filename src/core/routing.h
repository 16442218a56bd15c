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
 * A pool owns nbuffers buffers of one size. They are allocated the first
 * time they are needed and kept on the pool's free list afterwards, so a
 * pool never holds more memory than it has lent at its busiest (LNet
 * allocates every page when routing starts; ulnet's large pool would be
 * 1 GiB of a process's memory by default). Counting follows LNet:
 *	credits = nbuffers - buffers lent - messages waiting
 * so credits go negative while messages wait, and a buffer given back
 * while credits <= 0 goes to the first waiter. Pools grow at once and
 * shrink as buffers come back (routing.md §7.2). The waiters are the
 * forwarding code's (forward.c); this file only counts them.
 */
#ifndef UL_CORE_ROUTING_H
#define UL_CORE_ROUTING_H

#include <stdbool.h>
#include <stdint.h>

#include "ulnet/nid.h"
#include "util/list.h"

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

/* Bytes of a small buffer: one page (routing.md §7.2). */
#define UL_RTRBUF_PAGE_BYTES 4096u

/* One router buffer: a forwarded message's payload while it is on us. */
struct ul_rtrbuf {
	struct ul_list link; /* on its pool's free list while not lent */
	uint32_t size_bytes; /* room in data */
	unsigned char data[];
};

struct ul_rtrpool {
	int nbuffers;	      /* buffers in the pool now */
	int req;	      /* buffers it should have (rbp_req_nbuffers) */
	int credits;	      /* nbuffers - nlent - nwait (module comment) */
	int mincredits;	      /* lowest credits seen */
	int nlent;	      /* buffers out with a message */
	int nwait;	      /* messages waiting for a buffer */
	int nfree;	      /* allocated buffers on free */
	struct ul_list free;  /* struct ul_rtrbuf, allocated and not lent */
	struct ul_list waitq; /* forward.c's messages waiting, FIFO */
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
 * their wait is over. true if the state changed. Becoming DISABLED frees
 * the free buffers; buffers still lent are freed as they come back, and
 * messages still waiting keep their (negative) credits until the caller
 * drops them with ul_rtrpool_unwait().
 */
bool ul_routing_tick(struct ul_routing *r, uint64_t now_ns);
/* When ul_routing_tick() next has something to do; 0: never. */
uint64_t ul_routing_deadline(const struct ul_routing *r);
/*
 * lnet unconfigure: DISABLED, no pools (while buffers are still lent
 * the pools stay, empty, until they come back); the configured totals
 * stay.
 */
void ul_routing_reset(struct ul_routing *r);
/* LNet's recommended minimum total of a pool kind (512, 4096, 256). */
int ul_routing_min_nbufs(enum ul_rtrpool_kind kind);
/* Buffers of one kind over every CPT (routing show's "buffers:"). */
int ul_routing_total(const struct ul_routing *r, enum ul_rtrpool_kind kind);
/*
 * Free every pool's free buffers (node destroy). Lent buffers must have
 * come back first.
 */
void ul_routing_fini(struct ul_routing *r);

/* The pool kind for a payload of nob bytes (lnet_msg2bufpool). */
enum ul_rtrpool_kind ul_rtrpool_kind_of(uint32_t nob);
/* The pool of kind on the CPT a NID hashes to; NULL when no pools exist. */
struct ul_rtrpool *ul_routing_pool(struct ul_routing *r,
				   const struct ulnet_nid *nid,
				   enum ul_rtrpool_kind kind);
/*
 * Take one buffer credit of p: 0 with *out a buffer of p's size now;
 * -EAGAIN when none is free (the credit is owed: the caller queues its
 * message on p->waitq and gets a buffer from ul_rtrpool_put() later);
 * -ENOMEM (nothing taken).
 */
int ul_rtrpool_get(struct ul_rtrpool *p, enum ul_rtrpool_kind kind,
		   struct ul_rtrbuf **out);
/*
 * Give buf back to p. It returns buf when a message waits for it (the
 * caller hands it to the first one on p->waitq); otherwise NULL, buf kept
 * on the free list or freed when the pool is shrinking.
 */
struct ul_rtrbuf *ul_rtrpool_put(struct ul_rtrpool *p, struct ul_rtrbuf *buf);
/* A waiter of p left without its buffer (dropped): its credit returns. */
void ul_rtrpool_unwait(struct ul_rtrpool *p);

/* LNet's lnet_routing_enabled(): any state but DISABLED. */
static inline bool ul_routing_is_on(const struct ul_routing *r)
{
	return r->state != UL_ROUTING_DISABLED;
}

#endif /* UL_CORE_ROUTING_H */
