/*
 * The LNet object model of one instance (struct ul_core): local nets and
 * NIs (ni.h), peers (peer.h), remote nets and routes (route.h), the
 * tunables (tunables.h) and the few global counters selection needs.
 *
 * Pure logic: no I/O, no clock, no threads, no process-wide state. One
 * loop thread owns an instance; nothing here locks. Everything hangs off
 * the struct so that tests/sim can run many instances in one process.
 *
 * The observer lets a module above core (UDSP) apply its rules to new
 * objects (reference/udsp.md §5) without core depending on it: core calls
 * each hook, if set, right after the object is linked and visible to
 * lookups.
 */
#ifndef UL_CORE_CORE_H
#define UL_CORE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ni.h"
#include "core/peer.h"
#include "core/route.h"
#include "core/routing.h"
#include "core/tunables.h"
#include "util/hash.h"
#include "util/list.h"

struct ul_log;

struct ul_core_observer {
	void *ctx; /* passed back to every hook */
	/* A local net was created (before its first NI is added). */
	void (*on_net_add)(void *ctx, struct ul_net *net);
	/* An NI was added to a local net. */
	void (*on_ni_add)(void *ctx, struct ul_ni *ni);
	/* A peer was created (configuration, traffic or route add). */
	void (*on_peer_add)(void *ctx, struct ul_peer *peer);
	/* A peer gained a peer net (its first NID on that net). */
	void (*on_peer_net_add)(void *ctx, struct ul_peer_net *lpn);
	/* A peer NI was attached to a peer (new, or moved from another). */
	void (*on_peer_ni_add)(void *ctx, struct ul_peer_ni *lpni);
};

/*
 * Global message counters (`lnetctl stats show`, health.md §4.2), kept by
 * the message layer (core/node.h) on the node's thread.
 */
struct ul_counters {
	uint32_t msgs_alloc; /* messages alive now */
	uint32_t msgs_max;   /* most alive at once */
	uint32_t rst_alloc;  /* response trackers alive now */
	uint32_t errors;     /* shown by LNet, never incremented */
	uint64_t send_count; /* messages sent (successfully) */
	uint64_t recv_count; /* messages received */
	uint64_t route_count;
	uint64_t drop_count;  /* messages dropped, sent or received */
	uint64_t send_length; /* payload bytes of those */
	uint64_t recv_length;
	uint64_t route_length;
	uint64_t drop_length;
	uint32_t resend_count;	     /* resends handed back to selection */
	uint32_t failed_resends;     /* resendable failures past retry_count */
	uint32_t successful_resends; /* successes after at least one resend */
	uint32_t response_timeout_count;
	uint32_t local_interrupt_count;
	uint32_t local_dropped_count;
	uint32_t local_aborted_count;
	uint32_t local_no_route_count;
	uint32_t local_timeout_count;
	uint32_t local_error_count;
	uint32_t remote_dropped_count;
	uint32_t remote_error_count;
	uint32_t remote_timeout_count;
	uint32_t network_timeout_count;
	uint64_t late_count; /* completions after the message deadline */
};

/* NUMA nodes a distance table may describe. */
#define UL_NUMA_MAX_NODES 64

struct ul_core {
	struct ul_tunables tun;
	struct ul_list nets;  /* struct ul_net, configuration order */
	uint32_t nnis;	      /* local NIs, lo excluded */
	struct ul_ni *lo_ni;  /* 0@lo, always present */
	struct ul_list peers; /* struct ul_peer, creation order */
	uint32_t npeers;
	struct ul_hash peer_ni_hash; /* every peer NI by NID */
	struct ul_list rnets;	     /* struct ul_rnet, LNet's hash order */
	struct ul_routing routing;   /* this node's routing and pools */
	uint32_t net_seq;	     /* ln_net_seq (selection.md §4.5) */
	uint64_t lock_seq;	     /* stamps of peers' LOCK_PRIMARY */
	uint64_t rng_state;	     /* route insertion positions */
	bool is_route_append;	     /* insert routes last, not randomly */
	uint32_t numa_nnodes;	     /* 0: default distances 10 / 20 */
	uint32_t *numa_dist;	     /* numa_nnodes^2 distances, row major */
	uint32_t numa_max;	     /* largest distance: "any" node */
	struct ul_core_observer obs;
	struct ul_counters counters; /* the message layer's */
	const struct ul_log *log;    /* the node's, for route state changes */
};

/*
 * Create an instance with LNet's default tunables, the lo net with 0@lo,
 * no peers and no routes; route insertion seeded with 0. 0 or -ENOMEM.
 */
int ul_core_create(struct ul_core **out);
/*
 * Unlink and put everything, then free the instance (NULL is fine).
 * Objects someone still holds a reference on stay valid until their last
 * put; none of them points back at the instance.
 */
void ul_core_destroy(struct ul_core *c);

/* Install (a copy of) obs; NULL removes every hook. */
void ul_core_set_observer(struct ul_core *c,
			  const struct ul_core_observer *obs);

/* Seed the generator that places new routes (deterministic). */
void ul_core_seed(struct ul_core *c, uint64_t seed);
/* Next value of that generator. */
uint32_t ul_core_random(struct ul_core *c);
/* Append new routes instead of placing them at random. */
void ul_core_set_route_append(struct ul_core *c, bool is_append);

/*
 * Set the NUMA distance table: nnodes (1..UL_NUMA_MAX_NODES) rows of
 * nnodes distances, row major; nnodes 0 restores the default (10 on the
 * same node, 20 otherwise). 0, -EINVAL or -ENOMEM.
 */
int ul_core_set_numa_table(struct ul_core *c, uint32_t nnodes,
			   const uint32_t *dist);
/*
 * Distance between two NUMA nodes as LNet's cfs_cpt_distance() gives it:
 * UL_NUMA_ANY on either side (or a node outside the table) gives the
 * table's largest distance.
 */
uint32_t ul_core_numa_distance(const struct ul_core *c, int node_a, int node_b);

#endif /* UL_CORE_CORE_H */
