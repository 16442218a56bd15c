/*
 * Discovery push (reference/discovery.md §8.2, §9, §10): telling peers
 * that our ping info changed, and taking what peers tell us the same way.
 *
 * Active: when our NI list or an NI's link changes, the ping info gets a
 * new sequence number (§5) and every peer that needs a push (§7.3:
 * Multi-Rail, discovery on at both ends, our sequence not ACKed by it;
 * or a forced push) is queued; the node tick PUTs a copy of the info to
 * its primary NID on the reserved portal with the ping match bits, an
 * ACK asked for and response tracking forced. The ACK records the
 * sequence the peer now has (lp_node_seqno); a failed push (SEND error,
 * ACK error, no ACK: -ETIMEDOUT) ends the round FAILED with that error,
 * as a failed ping does. `set discovery 0` forces a push of the info,
 * now without DISCOVERY, to every MR peer (§10).
 *
 * Passive: a PUT on the push target is looked at while its bytes are in
 * the target's buffer: an unknown sender is ignored; a failed, invalid
 * or truncated push gets the sender pinged instead (FORCE_PING; a
 * truncated one also grows the push target); a push without MULTI_RAIL
 * is dropped; one without DISCOVERY from a peer we discovered deletes
 * that peer (MARK_DELETION), so the next traffic makes it again; a
 * stale one (ul_disc_push_is_stale()) is dropped; anything else is
 * merged as a ping reply is (core/discovery_send.h ul_disc_merge()).
 *
 * Timers: none; a push waits for its ACK under response tracking.
 */
#ifndef UL_CORE_DISCOVERY_PUSH_H
#define UL_CORE_DISCOVERY_PUSH_H

#include <stdbool.h>
#include <stdint.h>

struct ul_node;
struct ul_peer;
struct ulnet_event;

/*
 * Push our current ping info to p (state PUSH_SENT; its reference, which
 * the caller held, goes to the push). 0, or -errno and nothing sent (the
 * caller keeps its reference).
 */
int ul_disc_push_send(struct ul_node *n, struct ul_peer *p);
/*
 * Our ping info changed (after ul_ping_targets_refresh() or a feature
 * change): queue every up-to-date peer that now needs a push; is_force
 * first marks every MR peer FORCE_PUSH (`set discovery 0`, §10). Peers
 * in a round, never discovered or failed get theirs at the end of their
 * next round (LNet queues them for one at once).
 */
void ul_disc_push_update(struct ul_node *n, bool is_force);
/* The push target's PUT ev; data is its ev->mlength bytes (untrusted). */
void ul_disc_on_push(struct ul_node *n, const struct ulnet_event *ev,
		     const uint8_t *data);

#endif /* UL_CORE_DISCOVERY_PUSH_H */
