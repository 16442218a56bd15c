/*
 * A peer's discovery life cycle (reference/discovery.md §6, §7): one
 * explicit state per peer (enum ul_disc_state, peer.h), changed only by
 * ul_disc_set_state(), which refuses (and logs) a move the table in
 * discovery_sm.c does not allow:
 *
 *   IDLE -> QUEUED -> PING_SENT -> UP_TO_DATE     (a round that worked)
 *                     PING_SENT -> QUEUED       (ping again)
 *   QUEUED or PING_SENT -> FAILED -> QUEUED     (a later send retries)
 *   UP_TO_DATE or FAILED -> IDLE                  (NIDs no longer current)
 *   IDLE or FAILED -> UP_TO_DATE                  (a `discover` merged)
 *
 * lnetctl's stage bits come from the state: QUEUED is DISCOVERING,
 * PING_SENT is DISCOVERING | PING_SENT, UP_TO_DATE is NIDS_UPTODATE,
 * FAILED is REDISCOVER. DISCOVERED ("completed once") and the
 * orthogonal flags (MULTI_RAIL, NO_DISCOVERY, CONFIGURED, LOCK_PRIMARY,
 * ROUTER_ENABLED) stay properties of the peer.
 *
 * There is no push yet (§8.2): no state waits for a push ACK and
 * "needs a push" is never true, so UP_TO_DATE alone is up to date (§6).
 */
#ifndef UL_CORE_DISCOVERY_SM_H
#define UL_CORE_DISCOVERY_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/peer.h"

struct ul_log;

/* LNet's peer state bits (lnetctl `peer state`, discovery.md §6). */
#define UL_PEER_STATE_MULTI_RAIL (1u << 0)
#define UL_PEER_STATE_NO_DISCOVERY (1u << 1)
#define UL_PEER_STATE_ROUTER_ENABLED (1u << 2)
#define UL_PEER_STATE_CONFIGURED (1u << 3)
#define UL_PEER_STATE_DISCOVERED (1u << 4)
#define UL_PEER_STATE_REDISCOVER (1u << 5)
#define UL_PEER_STATE_DISCOVERING (1u << 6)
#define UL_PEER_STATE_NIDS_UPTODATE (1u << 8)
#define UL_PEER_STATE_PING_SENT (1u << 9)
#define UL_PEER_STATE_LOCK_PRIMARY (1u << 20)

/*
 * Move p to state to if the life cycle allows it; a refused move is
 * logged through log (may be NULL) and leaves p as it was. Staying in
 * the same state is always allowed. Returns whether it moved.
 */
bool ul_disc_set_state(const struct ul_log *log, struct ul_peer *p,
		       enum ul_disc_state to);
/* Whether from -> to is in the table (for tests and assertions). */
bool ul_disc_is_allowed(enum ul_disc_state from, enum ul_disc_state to);
const char *ul_disc_state_name(enum ul_disc_state s);

/* A round is queued or its ping is out (DISCOVERING). */
bool ul_disc_is_busy(const struct ul_peer *p);
/* Up to date (§6): sends to it need no discovery first. */
bool ul_disc_is_uptodate(const struct ul_peer *p);
/*
 * The NIDs are no longer known to be current (a `discover`, a locked
 * primary's other NIDs deleted): UP_TO_DATE or FAILED go IDLE; a round in
 * progress is left to finish.
 */
void ul_disc_invalidate(struct ul_peer *p);
/*
 * A reply was merged outside a round (`lnetctl discover`): the peer is
 * up to date unless a round of its own is running, which ends by
 * itself.
 */
void ul_disc_on_merged(struct ul_peer *p);
/*
 * `peer set --state`: the stage bits of state, where p is not in a
 * round (a round keeps its stage). NIDS_UPTODATE gives UP_TO_DATE, its
 * absence IDLE; DISCOVERING, PING_SENT and REDISCOVER name events that
 * did not happen and are not taken.
 */
void ul_disc_set_stage_bits(struct ul_peer *p, uint32_t state);

/* The whole `peer state` word lnetctl shows for p. */
uint32_t ul_disc_state_bits(const struct ul_peer *p);

#endif /* UL_CORE_DISCOVERY_SM_H */
