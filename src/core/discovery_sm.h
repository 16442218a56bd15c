/*
 * A peer's discovery life cycle (reference/discovery.md §6, §7): one
 * explicit state per peer (enum ul_disc_state, peer.h), changed only by
 * ul_disc_set_state(), which refuses (and logs) a move the table in
 * discovery_sm.c does not allow:
 *
 *   IDLE -> QUEUED -> PING_SENT -> UP_TO_DATE     (a round that worked)
 *                     PING_SENT -> QUEUED       (ping again)
 *                     PING_SENT -> PUSH_QUEUED -> PUSH_SENT -> UP_TO_DATE
 *                                              (merged; our info owed)
 *   UP_TO_DATE -> PUSH_QUEUED                   (our ping info changed)
 *   PUSH_SENT -> PUSH_QUEUED                    (it changed again)
 *   UP_TO_DATE -> QUEUED                        (a push it sent was cut
 *                                                or bad: ping it)
 *   QUEUED, PING_SENT, PUSH_QUEUED or PUSH_SENT -> FAILED -> QUEUED
 *                                               (a later send retries)
 *   UP_TO_DATE or FAILED -> IDLE                  (NIDs no longer current)
 *   IDLE or FAILED -> UP_TO_DATE                  (a `discover` merged)
 *
 * lnetctl's stage bits come from the state: QUEUED is DISCOVERING,
 * PING_SENT is DISCOVERING | PING_SENT, UP_TO_DATE is NIDS_UPTODATE,
 * PUSH_QUEUED is DISCOVERING | NIDS_UPTODATE, PUSH_SENT adds PUSH_SENT,
 * FAILED is REDISCOVER. DISCOVERED ("completed once"), FORCE_PUSH, the
 * router checker's RTR_DISCOVERY and RTR_DISCOVERED (core/rtrchk.h) and
 * the orthogonal flags (MULTI_RAIL, NO_DISCOVERY, CONFIGURED,
 * LOCK_PRIMARY, ROUTER_ENABLED) stay properties of the peer.
 *
 * Up to date (§6) is UP_TO_DATE and not needing a push (§7.3): a change
 * of our ping info makes every discovered MR peer owe one, and sends to
 * it wait until the push is ACKed.
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
#define UL_PEER_STATE_PUSH_SENT (1u << 10)
#define UL_PEER_STATE_FORCE_PUSH (1u << 14)
#define UL_PEER_STATE_RTR_DISCOVERY (1u << 16)
#define UL_PEER_STATE_RTR_DISCOVERED (1u << 17)
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

/* A round is queued or its ping or push is out (DISCOVERING). */
bool ul_disc_is_busy(const struct ul_peer *p);
/*
 * The last round merged its NIDs and nothing is under way (UP_TO_DATE);
 * up to date in §6's sense also needs !ul_disc_needs_push().
 */
bool ul_disc_is_uptodate(const struct ul_peer *p);
/*
 * §7.3 needs_push: p owes a push of our ping info of sequence my_seq;
 * is_disc_on is our `discovery`. Only MR peers, never while a push is
 * out; a forced push always; else only with discovery on at both ends
 * and p not having ACKed my_seq.
 */
bool ul_disc_needs_push(const struct ul_peer *p, uint32_t my_seq,
			bool is_disc_on);
/*
 * §8.2 passive, LNet's stale-push rule: a push of sequence seq is
 * dropped when it comes from p's own primary (is_from_primary: its
 * entry 1 is p's primary NID) with a sequence below the one we have,
 * or when it is no newer than what we have and p's NIDs are current
 * (merged, no ping owed). A reply is never stale (§5: a lower sequence
 * means the peer restarted).
 */
bool ul_disc_push_is_stale(const struct ul_peer *p, uint32_t seq,
			   bool is_from_primary);
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
