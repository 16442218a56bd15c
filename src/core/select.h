/*
 * Pathway selection: for one message, the local NI to send from, the peer
 * NI to send to (the gateway's NI when routed), the final destination and
 * the route, exactly as LNet's lnet_select_pathway() chooses them
 * (reference/selection.md §2-§6, §9, §12).
 *
 * ul_select() is the dry run of one send: it runs the send case, and on
 * success commits the round-robin stamps of §4.5 (and a route's lr_seq),
 * so N calls behave like N sends. It consumes no credits: credits are
 * fields (ul_ni.tx_credits, ul_peer_ni.txcredits) callers set. Discovery
 * is out of scope: every peer counts as up to date. A destination NID
 * without a peer gets a non-MR peer, as LNet creates one; that is the only
 * allocation, once per new NID.
 */
#ifndef UL_CORE_SELECT_H
#define UL_CORE_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/explain.h"
#include "ulnet/nid.h"

struct ul_core;
struct ul_ni;
struct ul_peer_ni;
struct ul_route;

/* LNet message types, numbered as on the wire. */
enum ul_msg_type {
	UL_MSG_ACK = 0,
	UL_MSG_PUT = 1,
	UL_MSG_GET = 2,
	UL_MSG_REPLY = 3,
};

struct ul_select_req {
	struct ulnet_nid src_nid;     /* pinned source NI, or ANY */
	struct ulnet_nid dst_nid;     /* target (final destination) */
	struct ulnet_nid rtr_nid;     /* previous hop to reuse, or ANY */
	struct ulnet_nid hdr_src_nid; /* forwarding: the originator */
	enum ul_msg_type type;
	int md_numa_node;	 /* buffer's NUMA node or UL_NUMA_ANY */
	bool is_reserved_portal; /* ping/push: LNET_RESERVED_PORTAL */
	bool is_forward;	 /* a router forwarding someone's message */
	bool is_resend;		 /* a resend with cached src/rtr (§2) */
	bool is_recovery;	 /* a recovery ping: always non-MR */
};

/* A PUT/GET/... to dst with every other field "any" / false. */
void ul_select_req_init(struct ul_select_req *req, const struct ulnet_nid *dst,
			enum ul_msg_type type);

/*
 * Result. Pointers are borrowed: valid until the configuration changes,
 * unless the caller takes references.
 */
struct ul_select_res {
	struct ul_ni *ni;	       /* transmit NI (0@lo for loopback) */
	struct ul_peer_ni *lpni;       /* next hop; gateway NI when routed;
					 * NULL for 0@lo */
	struct ul_peer_ni *final_lpni; /* final destination peer NI */
	struct ul_route *route;	       /* route used; NULL if direct or
					 * mode R */
	struct ulnet_nid hdr_src_nid;  /* header source NID */
	struct ulnet_nid hdr_dst_nid;  /* header destination NID */
	uint32_t send_case;	       /* enum ul_send_flags bits */
	enum ul_select_case scase;
	enum ul_route_mode route_mode;
	bool is_loopback;
	bool is_routed;
};

/*
 * Select a pathway for req and commit it. ex may be NULL (no cost) or an
 * explanation set up with ul_explain_init(), reset and refilled here.
 * Returns 0 and fills *res; or -EHOSTUNREACH (no path or route), -EINVAL
 * (the source NID is not a local NID, or a bad request), -EFAULT
 * (inconsistent state), -ENOMEM (creating the destination's peer); *res
 * is untouched on failure.
 */
int ul_select(struct ul_core *c, const struct ul_select_req *req,
	      struct ul_select_res *res, struct ul_explain *ex);

#endif /* UL_CORE_SELECT_H */
