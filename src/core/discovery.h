/*
 * What a discovery ping learns from a peer (reference/discovery.md §8.3,
 * §10, §11), for `lnetctl discover` and for the send path's rounds
 * (core/discovery_send.h), and for the pushes peers send us
 * (core/discovery_push.h): the info is merged into the peer table here.
 *
 * The merge follows LNet's process_data and merge steps:
 *  - the peer that takes the reply: the target's peer (created by the
 *    ping's traffic), or the peer whose primary an upper layer said it
 *    belongs to (merge_primary, ul_disc_add_known: the target's peer
 *    goes), or the peer that owns the reply's primary NID;
 *  - ROUTER_ENABLED from the reply's RTE_DISABLED feature; NO_DISCOVERY
 *    when the reply lacks DISCOVERY or our discovery is off (a peer that
 *    newly gets it, was discovered or MR and is not configured is
 *    deleted, its lock with it, and made again by the traffic, its
 *    routes added again, as LNet does); Multi-Rail by §10's table;
 *  - the statuses of the peer's NIDs the reply lists;
 *  - only for an unconfigured MR peer with discovery on both sides: the
 *    reply's NIDs are added, those it no longer lists removed (a locked
 *    primary or a gateway's NID is marked down instead);
 *  - the reply's primary becomes the primary unless the primary is
 *    locked, and goes first either way;
 *  - DISCOVERED, and NIDS_UPTODATE unless a round of the peer's own is
 *    in progress (it ends the round itself); a gateway's routes learn single-hop
 *    and aliveness (core/route.h).
 * Errors of single NIDs are ignored, as LNet ignores them (configuration
 * wins over discovery); only -ENOMEM fails the merge.
 */
#ifndef UL_CORE_DISCOVERY_H
#define UL_CORE_DISCOVERY_H

struct ul_core;
struct ul_err;
struct ul_peer;
struct ulnet_nid;
struct ulnet_ping_result;

/* A discover of target begins: its peer's NIDs are no longer up to date. */
void ul_discovery_start(struct ul_core *c, const struct ulnet_nid *target);
/*
 * Merge the ping reply res of target. 0 and *out (borrowed) the peer that
 * holds the result, -EINVAL when neither target nor the reply's primary
 * can be a peer (0@lo alone), or -ENOMEM.
 */
int ul_discovery_merge(struct ul_core *c, const struct ulnet_nid *target,
		       const struct ulnet_ping_result *res,
		       struct ul_peer **out, struct ul_err *err);

/*
 * LNet's lnet_peer_deletion() (discovery.md §10, MARK_DELETION): p goes
 * with all its NIDs, its routes are taken off first and added again
 * after (their gateway made again from each route's NID, as traffic
 * makes a peer); traffic makes p again. 0 or -ENOMEM.
 */
int ul_discovery_peer_delete(struct ul_core *c, struct ul_peer *p);

#endif /* UL_CORE_DISCOVERY_H */
