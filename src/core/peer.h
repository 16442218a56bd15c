/*
 * Peers (LNet's struct lnet_peer, lnet_peer_net, lnet_peer_ni).
 *
 * A peer is one remote node, named by its primary NID. Its NIDs are peer
 * NIs grouped by net into peer nets. Order matters for selection ties
 * (reference/selection.md §1): the peer net holding the primary NID comes
 * first, the others in creation order; inside a peer net the primary NID
 * comes first, the others in insertion order. (A discover reply puts its
 * own primary first, which is not the peer's when that one is locked, as
 * LNet does.) Every peer NI is in the instance's NID hash, so a NID names
 * at most one peer NI.
 *
 * Peers come from configuration (ul_peer_add: "configured", MR unless
 * asked otherwise), from traffic (ul_peer_ni_find_or_create: one non-MR
 * peer per unknown NID, as LNet creates before discovery) and from route
 * add (the gateway), change with discovery (core/discovery.h), and lose
 * the NIs of a local net that is deleted (ul_peer_on_net_del).
 *
 * Lifetime as in ni.h: refcounts, two-phase delete. A peer NI holds a
 * reference on its peer net, a peer net on its peer; the instance's hash
 * and lists hold one each. Pointers from find functions are borrowed.
 */
#ifndef UL_CORE_PEER_H
#define UL_CORE_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "ulnet/nid.h"
#include "util/hash.h"
#include "util/list.h"

struct ul_core;
struct ul_err;
struct ul_net;
struct ul_ni;
struct ul_peer_ni_msgs;

/*
 * A short NID list: preferred local NIDs or preferred gateways of a peer
 * NI. Empty lists, by far the most common, cost no allocation; the array
 * grows by doubling.
 */
struct ul_nid_list {
	struct ulnet_nid *nids; /* count entries, room for cap */
	uint32_t count;
	uint32_t cap;
};

/* The count NIDs of l, in insertion order. */
const struct ulnet_nid *ul_nid_list_items(const struct ul_nid_list *l);
bool ul_nid_list_has(const struct ul_nid_list *l, const struct ulnet_nid *nid);
/* Append nid unless present: 0 or -ENOMEM. */
int ul_nid_list_add(struct ul_nid_list *l, const struct ulnet_nid *nid);
/* Empty the list and free its array. */
void ul_nid_list_clear(struct ul_nid_list *l);

/* lpni_ns_status: what pings and received traffic say about a peer NI. */
enum ul_ns_status {
	UL_NS_STATUS_UP,
	UL_NS_STATUS_DOWN,
};

struct ul_peer_ni {
	struct ul_list peer_net_link; /* on ul_peer_net.peer_nis */
	struct ul_hnode hnode;	      /* in ul_core.peer_ni_hash by nid */
	struct ul_peer_net *peer_net; /* holds a reference */
	int64_t txqnob;		      /* bytes queued; compared for gateways */
	struct ulnet_nid nid;
	int healthv;	       /* 0..UL_HEALTH_MAX; peer set may put more */
	uint32_t sel_priority; /* UDSP peer NI priority, lower better */
	int txcredits;	       /* credits toward this NI (may be < 0) */
	int mintxcredits; /* lowest txcredits reached (lpni_mintxcredits) */
	uint32_t seq;	  /* round-robin stamp (selection.md §4.5) */
	int refcount;
	uint8_t ns_status;   /* enum ul_ns_status */
	bool is_pref_non_mr; /* pref_nids holds the automatic sticky NID
				 * (LNET_PEER_NI_NON_MR_PREF, §4.6) */
	bool is_dead;
	struct ul_nid_list pref_nids;	  /* preferred local NIDs */
	struct ul_nid_list pref_rtr_nids; /* preferred gateway primaries */
	/*
	 * The message layer's credit queue, statistics and health counters
	 * (core/msg.h); NULL until the first message. It lives as long as
	 * this peer NI (queued messages hold references on it) and is freed
	 * with it, so deleted peer NIs leave nothing behind in the node.
	 */
	struct ul_peer_ni_msgs *msgs;
};

/* Unlink and free a peer NI's message-layer part (core/msg.c). */
void ul_peer_ni_msgs_free(struct ul_peer_ni_msgs *pm);

struct ul_peer_net {
	struct ul_list peer_link; /* on ul_peer.peer_nets */
	struct ul_list peer_nis;  /* struct ul_peer_ni.peer_net_link */
	struct ul_peer *peer;	  /* holds a reference */
	uint32_t net_id;
	uint32_t sel_priority; /* UDSP peer net priority, lower better */
	int healthv;	       /* max healthv of its peer NIs */
	uint32_t seq;	       /* round-robin stamp (selection.md §4.5) */
	/* lpn_next_ping: when the router checker next pings a gateway on
	 * this net (ns, node time; 0: due now). Node thread. */
	uint64_t rtr_next_check_ns;
	int refcount;
	bool is_dead;
};

/*
 * Where a peer's discovery stands (core/discovery_sm.h owns the moves;
 * the stage bits of lnetctl's `peer state` are derived from it).
 */
enum ul_disc_state {
	UL_DISC_STATE_IDLE,	   /* NIDs not known to be current; no round */
	UL_DISC_STATE_QUEUED,	   /* DISCOVERING: a round waits for the tick */
	UL_DISC_STATE_PING_SENT,   /* DISCOVERING | PING_SENT: reply awaited */
	UL_DISC_STATE_UP_TO_DATE,  /* NIDS_UPTODATE: the last reply merged */
	UL_DISC_STATE_FAILED,	   /* REDISCOVER: the last round failed */
	UL_DISC_STATE_PUSH_QUEUED, /* DISCOVERING | NIDS_UPTODATE: a push of
				    * our ping info waits for the tick */
	UL_DISC_STATE_PUSH_SENT,   /* ... | PUSH_SENT: its ACK awaited */
	UL_DISC_STATE_NR,
};

/* What a peer's last discover reply said of its routing (state bit 2). */
enum ul_peer_rtr {
	UL_PEER_RTR_UNKNOWN,  /* no reply merged yet */
	UL_PEER_RTR_ENABLED,  /* no RTE_DISABLED: LNet's ROUTER_ENABLED */
	UL_PEER_RTR_DISABLED, /* the reply had RTE_DISABLED */
};

struct ul_peer {
	struct ul_list core_link; /* on ul_core.peers, creation order */
	struct ul_list peer_nets; /* primary's net first */
	struct ul_list routes;	  /* struct ul_route.gw_link through it */
	/* Discovery (core/discovery_sm.h); owned by the node's thread. */
	struct ul_list disc_link; /* on ul_node.disc_queue while QUEUED
				   * or PUSH_QUEUED */
	/* merge_primary (discovery.md §11), NULL unless an upper layer
	 * listed this peer's NID under another peer's primary: its next
	 * merge folds it into that peer. Owned; freed with the peer. */
	struct ulnet_nid *merge_prim;
	/* When it was locked (ul_core.lock_seq, the earliest wins a merge);
	 * 0 when only peer set --state locked it, as LNet's timestamp. */
	uint64_t prim_lock_seq;
	struct ulnet_nid primary_nid;
	uint32_t send_seq;	 /* lp_send_seq: sends committed to it */
	uint32_t rtr_refcount;	 /* routes through it: it is a gateway */
	uint32_t nnis;		 /* peer NIs over all its peer nets */
	uint32_t rtr_check_net;	 /* lp_disc_net_id of a router check in
				 * progress, ULNET_NET_ANY for none */
	int disc_error;		 /* the last failed round's -errno, or 0 */
	uint32_t disc_ping_size; /* the largest ping reply seen, bytes */
	uint32_t peer_seqno;	 /* lp_peer_seqno: its ping info's sequence,
				  * from its last reply or push taken */
	uint32_t node_seqno;	 /* lp_node_seqno: our sequence it ACKed in
				  * a push; 0 when it has none of ours */
	int refcount;
	enum ul_disc_state disc_state;
	enum ul_peer_rtr rtr; /* its routing, as its last reply said */
	/* The flags last, packed (a peer with 4 NIDs stays within 1 KiB). */
	bool is_mr;	       /* multi-rail (LNET_PEER_MULTI_RAIL) */
	bool is_configured;    /* added by configuration, not traffic */
	bool is_lock_prim;     /* primary NID locked (lock_prim) */
	bool is_alive;	       /* lp_alive, for gateways (routing.md §4.1) */
	bool has_no_discovery; /* NO_DISCOVERY: it or we have discovery off */
	bool is_discovered;    /* DISCOVERED: a discover completed once */
	bool is_push_forced;   /* FORCE_PUSH: owed a push whatever the
				 * sequences say; cleared when it goes */
	bool is_rtr_checking;  /* RTR_DISCOVERY: a router check is out */
	bool is_rtr_checked;   /* RTR_DISCOVERED: one check completed */
	bool is_dead;
};

/*
 * Add a configured peer (lnetctl peer add --prim_nid). If a peer with this
 * primary exists it becomes configured (and MR if asked); -EPERM when it
 * is configured and its MR flag differs from is_mr (either way, as LNet);
 * -EBUSY when it was created by a route (a gateway). -EEXIST when the NID
 * is a non-primary NID of another peer, -EINVAL for the ANY or a lo NID.
 * *out (may be NULL) is borrowed.
 */
int ul_peer_add(struct ul_core *c, const struct ulnet_nid *prim_nid, bool is_mr,
		bool is_lock_prim, struct ul_peer **out, struct ul_err *err);
/*
 * Add a NID to a peer (lnetctl peer add --nid, discovery). A NID already
 * on this peer is a no-op; a NID held alone by an unconfigured peer (one
 * created by traffic) moves over with its state, and that peer goes; if
 * that peer's primary was locked earlier than this one's (or this one is
 * not locked), it stays the primary, locked (discovery.md §11). A NID of
 * any other peer is -EEXIST; a second NID on one net of a non-MR peer is
 * -ENOTUNIQ (LNet's lnet_peer_add_nid).
 */
int ul_peer_ni_add(struct ul_core *c, struct ul_peer *peer,
		   const struct ulnet_nid *nid, struct ul_peer_ni **out,
		   struct ul_err *err);
/*
 * Delete the peer whose primary NID is prim_nid (lnetctl peer del):
 * -ENOENT unknown, -ENODEV not a primary, -EBUSY a gateway. A locked
 * primary without force keeps the peer and its primary NI and deletes the
 * other NIs (success, as lnetctl).
 */
int ul_peer_del(struct ul_core *c, const struct ulnet_nid *prim_nid, bool force,
		struct ul_err *err);
/*
 * Delete one NID of a peer; the primary NID deletes the whole peer (as
 * ul_peer_del with force). -ENOENT unknown, -EBUSY a gateway's NID.
 */
int ul_peer_ni_del(struct ul_core *c, const struct ulnet_nid *nid,
		   struct ul_err *err);
/*
 * Make nid (which must be one of the peer's NIDs, else -ENOENT) the
 * primary: its peer net moves first and it moves first in it.
 */
int ul_peer_set_primary(struct ul_core *c, struct ul_peer *peer,
			const struct ulnet_nid *nid, struct ul_err *err);
/*
 * Move nid (one of the peer's NIDs, else -ENOENT) and its peer net first,
 * the primary unchanged: what a discover reply's primary gets even when
 * the peer's primary is locked to another NID (discovery.md §8.3).
 */
int ul_peer_ni_put_first(struct ul_core *c, struct ul_peer *peer,
			 const struct ulnet_nid *nid, struct ul_err *err);
/*
 * Set or clear the multi-rail flag. Becoming MR drops every automatic
 * sticky NID (is_pref_non_mr) of its peer NIs (selection.md §4.6).
 */
void ul_peer_set_mr(struct ul_peer *peer, bool is_mr);

/*
 * A local net was created: peer NIs already on it take its peer credits
 * (LNet's lnet_peer_net_added); before, with no net, they had none.
 */
void ul_peer_on_net_added(struct ul_core *c, const struct ul_net *net);
/*
 * The local net net_id (already unlinked) could not start and goes
 * again: its peer NIs lose the credits ul_peer_on_net_added() gave them,
 * and nothing else changes (LNet counts a net's peers only once it is
 * up).
 */
void ul_peer_on_net_undo(struct ul_core *c, uint32_t net_id);
/*
 * The local net net_id (already unlinked) was deleted, by net del or
 * with its last NI: LNet's lnet_peer_tables_cleanup(). First every route
 * through a gateway with a peer NI on that net goes, all of that
 * gateway's routes (lnet_peer_table_del_rtrs_locked). Then each peer NI
 * on the net: when its peer has a peer NI on another local net, it stays
 * as a remote peer NI without credits, and if it was the primary of a
 * peer whose primary is not locked, the peer's first NI on another local
 * net becomes the primary (its NI order unchanged); otherwise it goes,
 * and a primary takes its whole peer with it, locked or not. Deleted
 * objects go in two phases as for ul_peer_del: messages holding them
 * keep them until their last put.
 */
void ul_peer_on_net_del(struct ul_core *c, uint32_t net_id);

/*
 * The peer NI for nid, creating a non-MR, unconfigured peer with that one
 * NID if none exists (LNet's lnet_peerni_by_nid_locked). rx_ni is the
 * local NI a message from the new NID arrived on, or NULL for a send: a
 * peer NI created by receipt gets rx_ni's NID as its sticky preferred
 * NID (selection.md §4.6). 0, -EINVAL for the ANY NID or a lo NID, or
 * -ENOMEM.
 */
int ul_peer_ni_find_or_create(struct ul_core *c, const struct ulnet_nid *nid,
			      const struct ul_ni *rx_ni,
			      struct ul_peer_ni **out);

struct ul_peer_ni *ul_peer_ni_find(const struct ul_core *c,
				   const struct ulnet_nid *nid);
/* The peer owning nid (any of its NIDs), or NULL. */
struct ul_peer *ul_peer_find(const struct ul_core *c,
			     const struct ulnet_nid *nid);
struct ul_peer_net *ul_peer_net_find(const struct ul_peer *peer,
				     uint32_t net_id);

static inline struct ul_peer *ul_peer_ni_peer(const struct ul_peer_ni *lpni)
{
	return lpni->peer_net->peer;
}

/*
 * Set a peer NI's health as given, as LNet's lnet_set_lpni_healthv_locked
 * does (`peer set --health 2000` stores 2000); its peer net follows.
 * Callers that compute a value keep it in range themselves.
 */
void ul_peer_ni_set_healthv(struct ul_peer_ni *lpni, int healthv);
/*
 * Raise a peer NI's health by step up to full health, as LNet's
 * lnet_inc_lpni_healthv_locked: full health stays, and any value that
 * would reach or pass it (one set above it too) becomes it.
 */
void ul_peer_ni_inc_healthv(struct ul_peer_ni *lpni, int step);
/* Recompute a peer net's health: the max over its peer NIs. */
void ul_peer_net_update_healthv(struct ul_peer_net *lpn);

/*
 * Preferred local NIDs (UDSP pair rules and the non-MR sticky NID).
 * Adding a second NID to a non-MR peer's NI is -EPERM (udsp.md §4.2);
 * is_non_mr marks the automatic sticky entry.
 */
int ul_peer_ni_add_pref_nid(struct ul_peer_ni *lpni,
			    const struct ulnet_nid *nid, bool is_non_mr);
void ul_peer_ni_clear_pref_nids(struct ul_peer_ni *lpni);
bool ul_peer_ni_is_pref_nid(const struct ul_peer_ni *lpni,
			    const struct ulnet_nid *nid);
/* Preferred gateways, keyed by gateway primary NID (udsp.md §4). */
int ul_peer_ni_add_pref_rtr(struct ul_peer_ni *lpni,
			    const struct ulnet_nid *gw_prim_nid);
void ul_peer_ni_clear_pref_rtrs(struct ul_peer_ni *lpni);
bool ul_peer_ni_is_pref_rtr(const struct ul_peer_ni *lpni,
			    const struct ulnet_nid *gw_prim_nid);

/* For ul_core_destroy(): every peer, gateways included. */
void ul_peer_del_all(struct ul_core *c);

void ul_peer_get(struct ul_peer *peer);
void ul_peer_put(struct ul_peer *peer);
void ul_peer_net_get(struct ul_peer_net *lpn);
void ul_peer_net_put(struct ul_peer_net *lpn);
void ul_peer_ni_get(struct ul_peer_ni *lpni);
void ul_peer_ni_put(struct ul_peer_ni *lpni);

#endif /* UL_CORE_PEER_H */
