/*
 * Remote nets and routes (LNet's struct lnet_remotenet, struct
 * lnet_route; reference/routing.md §2, selection.md §5).
 *
 * A remote net is a net with no local NI; it holds the routes to it. A
 * route goes through a gateway, which is a peer (found or created by
 * ul_route_add) reached on a local net. Each new route is inserted at a
 * random position of its remote net's list, drawn from the instance's
 * seeded generator (ul_core_seed), unless the instance appends
 * (ul_core_set_route_append), which tests use to fix the order.
 *
 * Routes are refcounted with two-phase delete like the other objects; a
 * route holds a reference on its gateway peer.
 */
#ifndef UL_CORE_ROUTE_H
#define UL_CORE_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "ulnet/nid.h"
#include "util/list.h"

struct ul_core;
struct ul_err;
struct ul_peer;
struct ulnet_ping_ni;

/* Hop count not given (LNET_UNDEFINED_HOPS); compares as 1. */
#define UL_HOPS_UNDEFINED UINT32_MAX

struct ul_rnet {
	struct ul_list core_link; /* on ul_core.rnets, LNet's hash order */
	struct ul_list routes;	  /* struct ul_route.rnet_link */
	uint32_t net_id;
	uint32_t nroutes;
};

struct ul_route {
	struct ul_list rnet_link; /* on ul_rnet.routes, random order */
	struct ul_list gw_link;	  /* on ul_peer.routes of the gateway */
	struct ul_peer *gateway;  /* holds a reference */
	struct ulnet_nid gw_nid;  /* the NID the route was added with */
	uint32_t net_id;	  /* remote net */
	uint32_t local_net_id;	  /* net of gw_nid */
	uint32_t hops;		  /* 1..255 or UL_HOPS_UNDEFINED */
	uint32_t priority;	  /* lower better, 0 default */
	uint32_t seq;		  /* lr_seq round-robin stamp (§5.2) */
	bool is_alive;		  /* cached aliveness (routing.md §4.3) */
	bool is_single_hop;	  /* learned from the gateway's ping */
	int refcount;
	bool is_dead;
};

/*
 * Add a route to net_id through gw (lnetctl route add; checks and texts of
 * lnetctl.md §8.1 in order): -EACCES for lo, -ENXIO for ULNET_NET_ANY,
 * -ENODEV for an ANY gateway, -EINVAL for hops outside 1..255 (other than
 * UL_HOPS_UNDEFINED) or priority > INT32_MAX, or a gateway that is 0@lo or
 * on net_id; -EEXIST if net_id is local or a route to it through the same
 * gateway peer exists; -EHOSTUNREACH if the gateway's net is not local.
 * The gateway peer is found or created (non-MR, unconfigured).
 */
int ul_route_add(struct ul_core *c, uint32_t net_id, const struct ulnet_nid *gw,
		 uint32_t hops, uint32_t priority, struct ul_route **out,
		 struct ul_err *err);
/*
 * Delete the routes to net_id (ULNET_NET_ANY: any net) through the peer
 * owning gw (NULL: any gateway). A remote net loses its entry with its
 * last route. -ENOENT when nothing matched.
 */
int ul_route_del(struct ul_core *c, uint32_t net_id, const struct ulnet_nid *gw,
		 struct ul_err *err);

struct ul_rnet *ul_rnet_find(const struct ul_core *c, uint32_t net_id);

/* Route liveness of selection.md §5.1 / routing.md §4.2. */
bool ul_route_is_alive(const struct ul_core *c, const struct ul_route *r);
/*
 * Every route's gateway has been checked by the router checker and the
 * route is alive (true with no routes): what a simulation waits for
 * before traffic.
 */
bool ul_routes_all_up(const struct ul_core *c);
/*
 * A discover reply from gateway gw, whose NIs' statuses are merged
 * already (routing.md §4.3): with RTE_DISABLED, or no up NI of gw on a
 * route's local net, that route is down; otherwise it is single-hop when
 * the reply lists a NID on the remote net, and with
 * avoid_asym_router_failure a single-hop (or hop 1) route is up only if
 * one of those NIDs is. Every change of a route's cached flag is logged
 * ("route to N through G has gone from up to down"), as LNet does.
 */
void ul_route_on_gw_reply(struct ul_core *c, struct ul_peer *gw,
			  bool is_rte_disabled, const struct ulnet_ping_ni *nis,
			  size_t n);

/*
 * Every peer net of gateway gw is due for a router check now (route add,
 * routing.md §2.2); the caller wakes the node tick.
 */
void ul_route_gw_check_now(struct ul_peer *gw);
/*
 * The end of a router check of gw (routing.md §4.1): alive after a reply,
 * dead after a failure, which also marks every peer NI of gw down and
 * every route through it down (cached flag, logged as LNet logs it).
 */
void ul_route_gw_set_alive(struct ul_core *c, struct ul_peer *gw,
			   bool is_alive);

/*
 * A message from a node on src_net came in through gateway gw while gw
 * was dead (routing.md §4.1 third point): gw is alive again, its NIDs on
 * src_net are UP, and when its routes are judged by their cached flag
 * (discovery off here or for gw, §4.3) its routes to src_net are up.
 */
void ul_route_gw_revive(struct ul_core *c, struct ul_peer *gw,
			uint32_t src_net);

/* For ul_core_destroy(): every route and remote net. */
void ul_route_del_all(struct ul_core *c);

void ul_route_get(struct ul_route *r);
void ul_route_put(struct ul_route *r);

#endif /* UL_CORE_ROUTE_H */
