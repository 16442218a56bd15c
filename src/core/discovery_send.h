/*
 * Discovery on the send path (reference/discovery.md §7.1 item 1, §7.2,
 * §8.1): a PUT or GET on a non-reserved portal to a peer that is not up
 * to date waits (message state WAIT_DISC, on ul_node.disc_parked) while
 * the peer is queued (ul_node.disc_queue) and the node tick pings its
 * primary NID. The reply is merged (core/discovery.h) and the waiting
 * messages go through the normal send path, so selection sees every NID
 * the peer has; a failed round (send error, REPLY error, timeout) ends
 * them with that error as their SEND event, and the peer is FAILED
 * (REDISCOVER) until the next send queues it again.
 *
 * Never waiting: ACKs and REPLYs, anything on the reserved portal (pings
 * and pushes themselves), recovery pings and messages to 0@lo.
 *
 * A round whose reply leaves the peer owing a push of our ping info
 * (§7.3) goes on to it (core/discovery_push.h) before the peer is up to
 * date; a peer that only owes a push is queued for the push alone.
 *
 * Not done: router-checker rounds (RTR_DISCOVERY).
 *
 * Timers: none of its own; a queued peer arms the node tick for now,
 * the ping client's timer (transaction_timeout) ends a silent ping and
 * response tracking a silent push.
 */
#ifndef UL_CORE_DISCOVERY_SEND_H
#define UL_CORE_DISCOVERY_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/peer.h"

struct ul_msg;
struct ul_node;
struct ulnet_ping_result;

/* §6 up to date: UP_TO_DATE and owing no push of our current info. */
bool ul_disc_peer_is_uptodate(const struct ul_node *n, const struct ul_peer *p);

/*
 * A request m (type, portal, destination in its header set) is about to
 * be routed: *must_wait says whether its peer must be discovered first
 * (the peer is created as traffic creates it). 0, or -errno when the
 * peer cannot be made (m untouched then).
 */
int ul_disc_on_send(struct ul_node *n, struct ul_msg *m, bool *must_wait);
/* Park m (its MD attached, its event prepared) and queue its peer. */
void ul_disc_park(struct ul_node *n, struct ul_msg *m);
/*
 * Move p (not busy, or ending a ping or push) to QUEUED or PUSH_QUEUED
 * (to) and queue it for the tick, which pings or pushes.
 */
void ul_disc_queue(struct ul_node *n, struct ul_peer *p, enum ul_disc_state to);
/*
 * p's NIDs were just merged or its push ACKed: a round in its ping or
 * push ends up to date, or goes on to a push if one is owed (§7.2); a
 * peer outside a round that is UP_TO_DATE is queued for an owed push.
 */
void ul_disc_settle(struct ul_node *n, struct ul_peer *p);
/* p's round ended with -errno rc: FAILED (REDISCOVER), rc kept. */
void ul_disc_round_failed(struct ul_node *n, struct ul_peer *p, int rc);
/* After a round's end: parked messages go, fail or wait on (§7.2). */
void ul_disc_reconsider_parked(struct ul_node *n);
/*
 * Merge ping info (a reply or a push) of target as core/discovery.h
 * does, and what needs the node: the peer's sequence (§5) and a remote
 * health failure for each of its NIDs newly reported DOWN (§8.3 merge
 * step 2). 0 and *out (borrowed), or -errno as ul_discovery_merge().
 */
int ul_disc_merge(struct ul_node *n, const struct ulnet_nid *target,
		  const struct ulnet_ping_result *res, struct ul_peer **out);
/*
 * Lustre's LNetAddPeer (discovery.md §11, §14.11): nids[0..count) are
 * the NIDs an upper layer knows for one node. With discovery on, the
 * first NID's peer gets its primary locked (lock_prim_nid) and is
 * discovered in the background; each further NID is a peer of its own,
 * and one held by a peer traffic made is stamped to fold into the first
 * NID's peer and pinged again. With discovery off, each NID on a local
 * net becomes its own non-MR peer. 0, -EALREADY when nids[0] is another
 * peer's non-primary NID, -EINVAL, -ENOMEM; err filled.
 */
struct ul_err;
int ul_disc_add_known(struct ul_node *n, const struct ulnet_nid *nids,
		      size_t count, struct ul_err *err);
/* The node tick's phase: ping or push every queued peer. */
uint64_t ul_disc_tick(struct ul_node *n, uint64_t now_ns);
/* Fail every parked message and drop every queued peer (shutdown). */
void ul_disc_shutdown(struct ul_node *n, int status);

#endif /* UL_CORE_DISCOVERY_SEND_H */
