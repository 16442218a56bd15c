/*
 * LNet Health inside a node (reference/health.md): the health arithmetic
 * of local and peer NIs (§1), the completion funnel's classification and
 * per-status action (§4, §4.1), the counters (§4.2), and the recovery
 * queues with their pings (§5).
 *
 * Recovery queues, in struct ul_node: ni_recq (struct ul_node_ni) and
 * lpni_recq (struct ul_peer_ni_msgs). Each queued NI carries ping_count,
 * next_ping_sec and whether a recovery ping is pending or failed; the
 * node tick (ul_health_tick) sends the pings that are due.
 */
#ifndef UL_CORE_HEALTH_H
#define UL_CORE_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/lnd.h"

struct ul_msg;
struct ul_ni;
struct ul_node;
struct ul_node_ni;
struct ul_peer_ni;

/* What the funnel decided for a finished attempt. */
enum ul_health_verdict {
	UL_HEALTH_FINALIZE, /* deliver the final event */
	UL_HEALTH_RESEND,   /* try again on another pathway (§7) */
};

/*
 * health.md §4 for message m ending with status and hs: counters, health
 * values, recovery queues; RESEND when §4.1 allows a resend (the retry
 * budget is resend.c's to check).
 */
enum ul_health_verdict ul_health_check(struct ul_node *n, struct ul_msg *m,
				       int status, enum ul_hstatus hs);

/* §1: a local NI loses or gains one health_sensitivity step. */
void ul_health_ni_dec(struct ul_node *n, struct ul_ni *ni);
void ul_health_ni_inc(struct ul_node *n, struct ul_ni *ni);
/* A remote failure on lpni: one step down, offered to recovery (§5.2). */
void ul_health_lpni_fail(struct ul_node *n, struct ul_peer_ni *lpni);

/*
 * Recovery queue admission: a local NI below full health (net set
 * --health, a local failure), a peer NI (§5.2 conditions).
 */
void ul_health_ni_queue(struct ul_node *n, struct ul_ni *ni);
void ul_health_lpni_queue(struct ul_node *n, struct ul_peer_ni *lpni);
/* A started NI or a peer NI leaves the node: off its queue. */
void ul_health_nni_forget(struct ul_node *n, struct ul_node_ni *nni);

/*
 * The recovery pass of the node tick (§5.1, §5.2). Returns the earliest
 * time (ns) it needs to run again, or UINT64_MAX.
 */
uint64_t ul_health_tick(struct ul_node *n, uint64_t now_ns);

/* `debug recovery`: call fn for each queued NID, queue order. */
typedef void (*ul_health_nid_fn)(void *arg, const struct ulnet_nid *nid);
void ul_health_recovery_list(struct ul_node *n, bool is_local,
			     ul_health_nid_fn fn, void *arg);

/* Ping count and next ping (monotonic s, 0: none) of a local / peer NI. */
void ul_health_ni_ping_state(const struct ul_ni *ni, uint32_t *count,
			     int64_t *next);
void ul_health_lpni_ping_state(const struct ul_peer_ni *lpni, uint32_t *count,
			       int64_t *next);

#endif /* UL_CORE_HEALTH_H */
