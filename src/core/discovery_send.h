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
 * Not done: push (§8.2), so a peer is never told of our NID changes and
 * "needs a push" is never true; the ping's sink is the ping client's
 * fixed UL_PING_SINK_SIZE, so a reply is never truncated below it and
 * there is no re-ping with a larger buffer (§7.4); no router-checker
 * rounds (RTR_DISCOVERY).
 *
 * Timers: none of its own; a queued peer arms the node tick for now,
 * and the ping client's timer (transaction_timeout) ends a silent round.
 */
#ifndef UL_CORE_DISCOVERY_SEND_H
#define UL_CORE_DISCOVERY_SEND_H

#include <stdbool.h>
#include <stdint.h>

struct ul_msg;
struct ul_node;

/*
 * A request m (type, portal, destination in its header set) is about to
 * be routed: *must_wait says whether its peer must be discovered first
 * (the peer is created as traffic creates it). 0, or -errno when the
 * peer cannot be made (m untouched then).
 */
int ul_disc_on_send(struct ul_node *n, struct ul_msg *m, bool *must_wait);
/* Park m (its MD attached, its event prepared) and queue its peer. */
void ul_disc_park(struct ul_node *n, struct ul_msg *m);
/* The node tick's phase: ping every queued peer. Returns UINT64_MAX. */
uint64_t ul_disc_tick(struct ul_node *n, uint64_t now_ns);
/* Fail every parked message and drop every queued peer (shutdown). */
void ul_disc_shutdown(struct ul_node *n, int status);

#endif /* UL_CORE_DISCOVERY_SEND_H */
