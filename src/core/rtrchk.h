/*
 * The router checker: LNet's monitor-thread work for routes
 * (reference/routing.md §4, §5, §7.5), run from the node tick.
 *
 * On a node with gateways (peers that routes go through), while
 * alive_router_check_interval > 0: each gateway is pinged on each local
 * net it has a NID on, one net per round, every
 * alive_router_check_interval seconds per net, and at once when a route
 * through it is added (ul_route_gw_check_now) or the node starts. The
 * ping is an ordinary discovery ping (response-tracked, resendable, so
 * its timeout is the message's transaction deadline); it leaves on the
 * net the checker chose (select_path.c, rtr_check_net). Its reply is
 * merged as any discovery reply (core/discovery.h): the gateway's NIDs
 * and their UP/DOWN statuses, Multi-Rail, ROUTER_ENABLED from the
 * RTE_DISABLED bit, and each route's cached aliveness and single-hop
 * flag (core/route.h); the gateway is then alive. A failed round (no
 * reply, an error, a malformed reply) makes it dead: its peer NIs and
 * its routes go down. Route choice reads the result through
 * ul_route_is_alive().
 *
 * On a router (routing not DISABLED), every pass (1 s) marks all NIs of
 * a local net DOWN once no LNet ping from another node arrived on any
 * of them for alive_router_check_interval + router_ping_timeout; a ping
 * that arrives marks its NI UP at once, before it is answered, so the
 * REPLY already says so. The ping info is rebuilt on every change.
 *
 * Timers: none of its own. ul_rtrchk_tick() returns when it next has
 * work: the earliest due gateway check, or the next router pass.
 */
#ifndef UL_CORE_RTRCHK_H
#define UL_CORE_RTRCHK_H

#include <stdint.h>

struct ul_node;
struct ul_ni;
struct ul_peer_ni;
struct ul_wire_lnet_hdr;

/* The node tick's phase; returns when it next has work (UINT64_MAX). */
uint64_t ul_rtrchk_tick(struct ul_node *n, uint64_t now_ns);
/*
 * The LND says the peer NI nid reset or closed its connections, or
 * refused a reconnect (lnd.h peer_down, not a restart): if it belongs
 * to a gateway, that gateway is dead with its peer NIs and routes
 * (routing.md §4.1 last point, §4.3 third; LNet's auto_down) until a
 * router check answers again.
 */
void ul_rtrchk_on_peer_down(struct ul_node *n, const struct ulnet_nid *nid);
/*
 * A message hdr arrived on ni from lpni (NULL on 0@lo), before it is
 * matched: lpni is heard from (its status is UP, routing.md §4.2); a
 * message from another net through a dead gateway revives it (§4.1,
 * ul_route_gw_revive); on a router an LNet ping from another node marks
 * ni UP (§7.5).
 */
void ul_rtrchk_on_rx(struct ul_node *n, struct ul_ni *ni,
		     struct ul_peer_ni *lpni,
		     const struct ul_wire_lnet_hdr *hdr);

#endif /* UL_CORE_RTRCHK_H */
