/*
 * The node: one LNet instance's message layer on top of its object model
 * (struct ul_core): portals, match entries and memory descriptors, the
 * PUT/GET/ACK/REPLY life cycle, credits, the ping service on the reserved
 * portal, per-NI and per-peer-NI statistics, and the LNDs that carry the
 * messages (core/lnd.h).
 *
 * Pure logic like the rest of core: it never reads the clock (time is
 * timers->now_ns, set by whoever drives the heap), never blocks, never
 * touches a socket itself. The runtime drives it from an epoll loop with
 * the monotonic clock; tests/sim drives several nodes in one process with
 * a virtual clock over simlnd. Everything runs on the driver's thread.
 *
 * The functions mirror the public API of include/ulnet/ulnet.h, with the
 * same arguments, return codes and event contract. Events are never
 * delivered from inside a call: what finishes at once is queued and
 * delivered by ul_node_flush(), which the driver calls before it sleeps.
 */
#ifndef UL_CORE_NODE_H
#define UL_CORE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ulnet/ulnet.h"

struct ul_core;
struct ul_err;
struct ul_fault_attr;
struct ul_list;
struct ul_lnd;
struct ul_log;
struct ul_ni;
struct ul_peer_ni;
struct ul_udsp_set;
struct ul_net_tunables;
struct ul_timer_heap;

struct ul_node;

struct ul_node_opts {
	struct ul_timer_heap *timers; /* required; its now_ns is the time */
	const struct ul_log *log;     /* may be NULL */
	struct ulnet *api;	      /* passed to event callbacks */
	uint32_t pid;		      /* ULNET_PID_LUSTRE */
	uint64_t interface_cookie;    /* unique per run (wire.md §7.3) */
	/*
	 * A fresh reading of the driver's clock in ns, used only to time
	 * latency samples (net show -v put_egress_*, get_rtt_*, put_ack_*),
	 * which are shorter than one loop turn. NULL: timers->now_ns.
	 */
	uint64_t (*clock_ns)(void);
	uint64_t fault_seed; /* fault rules' random draws (0: fixed) */
	/*
	 * Optional: called when the node gets work for ul_node_flush() (an
	 * event to deliver, a message ready to post or to resend) while it
	 * had none, so that a driver of many nodes flushes only the nodes
	 * that have some (bench_fabric). NULL: not called.
	 */
	void (*wake)(void *ctx);
	void *wake_ctx;
};

/*
 * Create a node over core (the node takes ownership and destroys it).
 * Nothing starts. 0 or -ENOMEM (core is destroyed then too).
 */
int ul_node_create(struct ul_core *core, const struct ul_node_opts *opts,
		   struct ul_node **out);
/* Shut down if still up, then free the node and its core. NULL is fine. */
void ul_node_destroy(struct ul_node *n);

struct ul_core *ul_node_core(struct ul_node *n);

/*
 * Serve NIs of lnd->lnd_type with this LND (copied). Before startup.
 * 0, -EEXIST (type already served), -ENOMEM.
 */
int ul_node_register_lnd(struct ul_node *n, const struct ul_lnd *lnd);

/*
 * Set the LND-wide timeout (seconds) of the LND serving lnd_type, through
 * its optional set_timeout op. 0, or -EOPNOTSUPP when that LND has none
 * or no LND serves the type.
 */
int ul_node_lnd_set_timeout(struct ul_node *n, uint32_t lnd_type, uint32_t sec);
/* That LND's timeout in force (seconds), or -EOPNOTSUPP. */
int ul_node_lnd_timeout(struct ul_node *n, uint32_t lnd_type);

/*
 * socklnd's timeout parameter (`net set --lnd-timeout`, the module's
 * "timeout"): 0 (the default) follows LNet's lnd_timeout, which is
 * transaction_timeout / (retry_count + 1) (health.md §2, §3) and is
 * given to the LND again whenever those change; above 0 it is fixed.
 */
void ul_node_lnd_timeout_param_set(struct ul_node *n, uint32_t sec);
/* The parameter as set: 0 follows LNet. */
uint32_t ul_node_lnd_timeout_param(const struct ul_node *n);
/* What socklnd's timeout is (or will be once started), in seconds. */
uint32_t ul_node_sock_timeout(const struct ul_node *n);
/*
 * `lnetctl set NAME VALUE` as a node operation: LNet's checks
 * (ul_tunables_set), then what follows from the change (the LND timeout,
 * the ping info for discovery). 0 or -EINVAL with err filled.
 */
int ul_node_tunable_set(struct ul_node *n, int id, int64_t value,
			struct ul_err *err);

/*
 * Start every NI already in core (configuration), post the ping target
 * and push target on the reserved portal. An NI whose LND is missing or
 * fails to start fails the call: everything started is stopped again.
 */
int ul_node_startup(struct ul_node *n, struct ul_err *err);
/*
 * Stop: every message in flight or queued ends with its final event
 * (-ESHUTDOWN), every MD gets its last event, every NI stops. The events
 * are delivered before this returns. Idempotent.
 */
void ul_node_shutdown(struct ul_node *n);

/* Run-time NI and net changes: core plus LND start/stop. */
int ul_node_ni_add(struct ul_node *n, const struct ulnet_nid *nid,
		   const char *ifname, int numa_node,
		   const struct ul_net_tunables *tun, struct ul_err *err);
int ul_node_ni_del(struct ul_node *n, const struct ulnet_nid *nid,
		   struct ul_err *err);
int ul_node_net_del(struct ul_node *n, uint32_t net_id, struct ul_err *err);

/*
 * The link monitor says interface ifname went down or came up: every NI
 * on it changes status at once (down: status down and LND told; up: back
 * up).
 */
void ul_node_link_change(struct ul_node *n, const char *ifname, bool is_up);

/* As ulnet_md_bind() and friends. */
int ul_node_md_bind(struct ul_node *n, const struct ulnet_md *md,
		    enum ulnet_unlink unlink, struct ulnet_handle *out);
int ul_node_md_attach(struct ul_node *n, uint32_t portal,
		      const struct ulnet_process_id *match_id,
		      uint64_t match_bits, uint64_t ignore_bits,
		      enum ulnet_ins_pos pos, const struct ulnet_md *md,
		      enum ulnet_unlink unlink, struct ulnet_handle *out);
int ul_node_md_unlink(struct ul_node *n, struct ulnet_handle md);
int ul_node_put(struct ul_node *n, const struct ulnet_nid *self,
		struct ulnet_handle md, enum ulnet_ack_req ack,
		const struct ulnet_process_id *target, uint32_t portal,
		uint64_t match_bits, uint32_t offset, uint64_t hdr_data);
int ul_node_get(struct ul_node *n, const struct ulnet_nid *self,
		struct ulnet_handle md, const struct ulnet_process_id *target,
		uint32_t portal, uint64_t match_bits, uint32_t offset);

/*
 * Asynchronous ping: a GET on the reserved portal; cb runs exactly once
 * (on the node's thread, never inside this call) with 0 and the decoded
 * reply, or -ETIMEDOUT after timeout_ms, -EHOSTUNREACH, -EPROTO,
 * -ESHUTDOWN. 0 or -errno (no callback).
 */
typedef void (*ul_node_ping_cb)(void *arg, int status,
				const struct ulnet_ping_result *res);
int ul_node_ping(struct ul_node *n, const struct ulnet_nid *self,
		 const struct ulnet_process_id *target, uint32_t timeout_ms,
		 ul_node_ping_cb cb, void *arg);

/* As ulnet_ni_info(). */
int ul_node_ni_info(struct ul_node *n, struct ulnet_ni_info *out, size_t cap,
		    size_t *count);

/*
 * LNet's monitor thread as one call (DESIGN.md "Ownership and timers"):
 * queued resends, delayed sends that are due, response deadlines, and
 * recovery pings. The node arms its own timer on its heap for the next
 * time anything is due, so the driver's clock (real time in ulnetd,
 * virtual time in tests/sim) runs it; calling it early does no harm.
 */
void ul_node_tick(struct ul_node *n, uint64_t now_ns);

/*
 * Fault rules (reference/fault.md), owned by the node and applied to its
 * traffic. Add: 0, -EINVAL (*why set when why is not NULL), -ENOMEM. Del:
 * the number deleted or -ENOENT; deleting delay rules releases every
 * delayed send at once. Reset zeroes the counters. Rules: the list of
 * struct ul_fault_rule of that kind, newest first, for show.
 */
int ul_node_fault_add(struct ul_node *n, const struct ul_fault_attr *a,
		      const char **why);
int ul_node_fault_del(struct ul_node *n, bool is_delay,
		      const struct ulnet_nid *src, const struct ulnet_nid *dst);
void ul_node_fault_reset(struct ul_node *n, bool is_delay);
const struct ul_list *ul_node_fault_rules(const struct ul_node *n,
					  bool is_delay);
/* Drop every rule (lnet unconfigure). */
void ul_node_fault_clear(struct ul_node *n);

/*
 * `net set --health` / `peer set --health`: the value as given; below
 * full health the NI goes on its recovery queue (health.md §1, §5).
 */
void ul_node_ni_set_healthv(struct ul_node *n, struct ul_ni *ni, int healthv);
void ul_node_lpni_set_healthv(struct ul_node *n, struct ul_peer_ni *lpni,
			      int healthv);

/*
 * The UDSP rule set attached to the node's core (core/udsp.h), which the
 * configuration operations below keep applied; NULL: none.
 */
void ul_node_set_udsp(struct ul_node *n, struct ul_udsp_set *udsp);

/*
 * `peer add` / `peer del` as LNet's kernel takes them (node_config.c):
 * prim the primary NID, nids the peer NIs to add or delete (none: the
 * whole peer, for del), is_lock the primary locked (add) or a forced
 * delete (del), is_import an import's request (a gateway listed as a
 * peer as it is, by export --backup, is accepted). 0 or -errno with
 * LNet's text in err.
 */
struct ul_node_peer_req {
	struct ulnet_nid prim;
	const struct ulnet_nid *nids;
	size_t nnids;
	bool is_mr;
	bool is_lock;
	bool is_import;
};
int ul_node_peer_add(struct ul_node *n, const struct ul_node_peer_req *r,
		     struct ul_err *err);
int ul_node_peer_del(struct ul_node *n, const struct ul_node_peer_req *r,
		     struct ul_err *err);
/*
 * `route add` / `route del` of net through each of gws: hops (or
 * UL_HOPS_UNDEFINED) and priority for add. 0 or -errno with LNet's text.
 */
int ul_node_route_add(struct ul_node *n, uint32_t net,
		      const struct ulnet_nid *gws, size_t ngws, uint32_t hops,
		      uint32_t prio, struct ul_err *err);
int ul_node_route_del(struct ul_node *n, uint32_t net,
		      const struct ulnet_nid *gws, size_t ngws,
		      struct ul_err *err);

/*
 * `peer set --state` (lnetctl.md §7.3): LNet's state bits
 * (UL_PEER_STATE_*, core/discovery_sm.h); the ones a peer keeps here
 * change, the rest is ignored. -ENOENT for no such peer.
 */
int ul_node_peer_set_state(struct ul_node *n, const struct ulnet_nid *nid,
			   uint32_t state, struct ul_err *err);

/*
 * `udsp add` / `udsp del` (idx -1: every rule) on the node's rule set;
 * -EOPNOTSUPP when the node has none.
 */
struct ul_udsp_rule;
int ul_node_udsp_add(struct ul_node *n, const struct ul_udsp_rule *rule,
		     struct ul_err *err);
int ul_node_udsp_del(struct ul_node *n, int idx, struct ul_err *err);

/* `net set` on every NI, or on the one NID only. */
struct ul_node_net_set {
	const struct ulnet_nid *only;
	bool has_health;
	int health;
	bool has_conns_per_peer; /* the LND tunables of the request */
	int conns_per_peer;
};
void ul_node_net_set(struct ul_node *n, const struct ul_node_net_set *s);

/*
 * `set routing 0|1` and `set tiny|small|large_buffers N` (routing.md
 * §7.1, §7.2): -ENETDOWN while LNet is unconfigured; the pools are
 * made for ncpt CPTs.
 */
int ul_node_routing_set(struct ul_node *n, const char *name, int64_t value,
			unsigned int ncpt, struct ul_err *err);

/*
 * `lnet unconfigure`: every route, every net but lo, every peer, every
 * fault rule and routing's state go, and the node is unconfigured: the
 * commands that need LNet fail with -ENETDOWN until `lnet configure`
 * (which only sets the flag back; what to bring up is the caller's).
 * UDSP rules are not the node's: the caller deletes them first.
 */
void ul_node_lnet_unconfigure(struct ul_node *n);
void ul_node_lnet_configure(struct ul_node *n);
bool ul_node_lnet_is_configured(const struct ul_node *n);

/*
 * Routing's state changed (core/routing.h, routing.md §7.1): the routing
 * tunable and the ping info follow it, and the node tick ends a
 * STARTING or STOPPING wait when it is due, logging LNet's "Message
 * forwarding enabled/disabled". Reset: routing off, no wait (lnet
 * unconfigure).
 */
void ul_node_routing_changed(struct ul_node *n);
void ul_node_routing_reset(struct ul_node *n);

/* The upcalls every LND of a node makes (core/lnd.h). */
extern const struct ul_lnd_upcalls ul_node_lnd_upcalls;

/*
 * Deliver the events queued since the last call. Returns true if more
 * work is queued (the driver should not sleep).
 */
bool ul_node_flush(struct ul_node *n);

#endif /* UL_CORE_NODE_H */
