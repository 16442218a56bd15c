/*
 * The message layer inside a node: the node's state (struct ul_node,
 * shared by node.c, msg.c, msg_rx.c, health.c, resend.c, rspt.c,
 * fault_node.c and ping.c), one message's life cycle, credits, the send
 * and receive paths and the event queue.
 *
 * A message (struct ul_msg) moves through one explicit state, changed
 * only by ul_msg_set_state(), which refuses (and logs) a transition the
 * table in msg.c does not allow:
 *
 *   NEW -> [QUEUED_PEER -> READY] -> [QUEUED_NI -> READY] -> LND -> DONE
 *   NEW -> WAIT_DISC (its peer is being discovered) -> NEW or DONE
 *   NEW ... -> DELAYED (a delay rule holds it, credits kept) -> LND
 *   RX -> DELAYED (a delay rule holds its delivery) -> DONE or NEW
 *   LND (or a queue) -> RESEND (health.md §7) -> NEW (selected again)
 *   NEW -> RX -> DONE, or (a GET) -> the REPLY's send path above
 *   RX (forwarded: payload into a router buffer or, when none is free,
 *   received eagerly) -> [QUEUED_RTR] -> [QUEUED_RTRBUF] -> NEW, then
 *   the send path above toward its destination (forward.c)
 *
 * A queued message becomes READY when a credit comes back and is posted
 * again. Every message ends in ul_msg_finalize(): the health funnel
 * (health.c) may send it back to RESEND instead; otherwise it accounts
 * statistics, returns credits (releasing the next queued message) and
 * queues the MD's event. Events go out from ul_node_flush(), from the end
 * of an LND upcall or of the node tick, never from inside an API call.
 */
#ifndef UL_CORE_MSG_H
#define UL_CORE_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fault.h"
#include "core/md.h"
#include "core/ni.h"
#include "core/node.h"
#include "core/select.h"
#include "core/lnd.h"
#include "util/log.h"
#include "util/timer.h"

struct ul_core;
struct ul_ping_state;
struct ul_rtrbuf;
struct ul_rtrpool;

/* Most LND types a node serves at once (lo, tcp, sim, ...). */
#define UL_NODE_MAX_LNDS 8

enum ul_node_state {
	UL_NODE_STATE_NEW,	/* created, not started */
	UL_NODE_STATE_RUNNING,	/* started */
	UL_NODE_STATE_STOPPING, /* ul_node_shutdown() in progress */
	UL_NODE_STATE_STOPPED,	/* after shutdown */
};

/*
 * One NI's place in a recovery queue (health.md §5): local NIs on
 * ul_node.ni_recq, peer NIs on ul_node.lpni_recq.
 */
struct ul_recovery {
	struct ul_list link; /* on its queue while is_queued */
	bool is_queued;
	bool is_ping_pending;  /* a recovery ping is out */
	uint32_t ping_count;   /* pings sent since the last news */
	uint64_t next_ping_ns; /* when the next one is due */
};

/* When the console next lists a recovery queue (health.md §5.4). */
struct ul_rec_console {
	uint64_t next_ns; /* when it is printed next; 0: at once */
	uint32_t gap_sec; /* 0, then 60, 120, ... up to 300 */
	bool is_hinted;	  /* the debug recovery hint was printed */
};

/* A started NI: the LND's view of it and its NI credit queue. */
struct ul_node_ni {
	struct ul_list link;	/* ul_node.nis */
	struct ul_lnd_ni lni;	/* what the LND sees */
	struct ul_ni *ni;	/* holds a reference */
	struct ul_list txq;	/* struct ul_msg waiting for an NI credit */
	bool is_stopping;	/* LND shutdown in progress */
	struct ul_recovery rec; /* local NI recovery (health.md §5.1) */
};

/* The message layer's part of a peer NI (peer.h, lpni->msgs). */
struct ul_peer_ni_msgs {
	struct ul_list link;	 /* ul_node.lpni_msgs */
	struct ul_peer_ni *lpni; /* owner: frees this as it is freed */
	struct ul_list txq;	 /* struct ul_msg waiting for a credit */
	struct ulnet_msg_stats stats;
	struct ul_lat lat[UL_LAT_NR];
	uint32_t hs_dropped;	     /* REMOTE_DROPPED */
	uint32_t hs_error;	     /* REMOTE_ERROR */
	uint32_t hs_timeout;	     /* REMOTE_TIMEOUT */
	uint32_t hs_network_timeout; /* NETWORK_TIMEOUT */
	uint64_t last_alive_ns;	     /* last message from it, 0: never */
	struct ul_recovery rec;	     /* peer NI recovery (health.md §5.2) */
	/* Router credits of messages it sends us to forward (§7.3) */
	bool has_rtr_credits; /* rtrcredits was set from its net */
	int rtrcredits;	      /* free; negative: messages waiting */
	int minrtrcredits;    /* lowest rtrcredits seen */
	struct ul_list rtrq;  /* struct ul_msg in QUEUED_RTR, FIFO */
};

struct ul_node {
	struct ul_core *core;
	struct ul_node_opts opts;
	enum ul_node_state state;
	struct ul_lnd lnds[UL_NODE_MAX_LNDS];
	uint32_t nlnds;
	struct ul_list nis;    /* struct ul_node_ni, started NIs */
	struct ul_node_ni *lo; /* 0@lo while started */
	struct ul_md_table mds;
	struct ul_list msgs; /* every message alive */
	/*
	 * Freed messages kept for the next ones (at most UL_MSG_POOL_MAX):
	 * the node's thread alone allocates and frees them, so a list is
	 * a pool without a lock. A singly linked stack through the first
	 * bytes of each.
	 */
	struct ul_msg *msg_pool;
	uint32_t msg_pool_len;
	struct ul_list ready;	  /* released from a credit queue */
	struct ul_list events;	  /* struct ul_md_event, FIFO */
	struct ul_list lpni_msgs; /* struct ul_peer_ni_msgs */
	struct ul_list rspt;	  /* MDs with a response tracker */
	uint64_t rspt_check_ns;	  /* next expiry pass, 0: none due */
	struct ul_list resendq;	  /* struct ul_msg in RESEND */
	struct ul_list delayq;	  /* struct ul_msg in DELAYED, by time */
	struct ul_list ni_recq;	  /* struct ul_node_ni being recovered */
	struct ul_list lpni_recq; /* struct ul_peer_ni_msgs recovered */
	/* The recovery queues' console summary (health.md §5.4) */
	struct ul_rec_console rec_console[2]; /* local, peer */
	struct ul_fault_set faults; /* drop and delay rules (fault.md) */
	struct ul_udsp_set *udsp;   /* not owned: rules kept applied */
	struct ul_timer tick_timer; /* runs ul_node_tick() when due */
	uint32_t lnd_timeout_param; /* socklnd "timeout": 0 follows LNet */
	bool is_unconfigured;	    /* `lnet unconfigure` was run */
	int api_depth; /* inside an API call: queue, don't deliver */
	bool is_dispatching;
	bool is_posting;
	struct ul_ping_state *ping; /* ping and push targets, ping clients */
	/* Discovery on the send path (discovery_send.c) */
	struct ul_list disc_queue;  /* struct ul_peer QUEUED, ref held */
	struct ul_list disc_parked; /* struct ul_msg in WAIT_DISC */
	/* forwarded messages holding their router credits, to be sent */
	struct ul_list fwd_ready;
};

enum ul_msg_state {
	UL_MSG_STATE_NEW,	    /* built, not committed to an NI */
	UL_MSG_STATE_QUEUED_PEER,   /* waiting for a peer NI credit */
	UL_MSG_STATE_QUEUED_NI,	    /* waiting for an NI credit */
	UL_MSG_STATE_READY,	    /* released, on ul_node.ready */
	UL_MSG_STATE_DELAYED,	    /* held by a delay rule (fault.md §6) */
	UL_MSG_STATE_LND,	    /* with the LND until tx_done */
	UL_MSG_STATE_RESEND,	    /* on ul_node.resendq (health.md §7) */
	UL_MSG_STATE_RX,	    /* parsed, payload coming: until rx_done */
	UL_MSG_STATE_DONE,	    /* finalized */
	UL_MSG_STATE_WAIT_DISC,	    /* parked on ul_node.disc_parked until
				   * its peer's discovery ends */
	UL_MSG_STATE_QUEUED_RTR,    /* forwarded, payload in: waiting for a
				   * router credit of its sender */
	UL_MSG_STATE_QUEUED_RTRBUF, /* forwarded: waiting for a buffer */
};

struct ul_msg {
	struct ul_list link;	 /* credit queue or ul_node.ready */
	struct ul_list all_link; /* ul_node.msgs */
	enum ul_msg_state state;
	enum ul_msg_type type; /* on the wire */
	bool is_tx;	       /* committed for transmit (else rx) */
	bool has_ni_credit;
	bool has_peer_credit;
	bool is_committed;	 /* handed to (or taken from) an NI */
	bool want_ack;		 /* rx PUT: send an ACK when done */
	int rx_status;		 /* rx: failed once matched (-ENOMEM) */
	bool is_no_resend;	 /* health.md §7: never resent */
	bool is_answered;	 /* its ACK/REPLY came while it was held */
	bool is_recovery;	 /* a recovery ping (health.md §5.1) */
	bool is_reserved;	 /* on the reserved portal */
	bool has_self;		 /* the caller pinned the source NI */
	bool has_answer;	 /* a GET, or a PUT asking for an ACK */
	uint32_t retry_count;	 /* resends done so far */
	int numa_node;		 /* the MD's, for selection */
	struct ulnet_nid self;	 /* the pinned source NI (has_self) */
	uint64_t release_ns;	 /* DELAYED: when the rule lets it go */
	struct ul_node_ni *nni;	 /* tx or rx NI; NULL before commit */
	struct ul_ni *ni;	 /* holds a reference once committed */
	struct ul_peer_ni *lpni; /* next hop / sender; reference; NULL lo */
	struct ul_md *md;	 /* attached (nmsgs) or NULL */
	struct ul_md_event mev;	 /* its event on md, prepared early */
	uint64_t deadline_ns;
	uint64_t t_start_ns;   /* tx PUT: committed to its NI (latency) */
	uint64_t rtt_start_ns; /* rx ACK/REPLY: its tracked request sent */
	bool is_rtt_timed;     /* rtt_start_ns is set */
	struct ul_lnd_tx tx;
	struct ul_lnd_rx rx;
	struct ul_wire_lnet_hdr rx_hdr; /* the request, for ACK/REPLY */
	struct ulnet_nid from_nid;	/* rx: previous hop */
	struct iovec iov_one;
	struct iovec *iov_alloc;
	/*
	 * Forwarding (forward.c): a message for another node that this
	 * router received and sends on. rx_hdr is its header, kept as it
	 * came (source and destination stay end to end).
	 */
	bool is_forward;
	bool has_rtr_credit;	     /* one of rtr_lpni's router credits */
	bool has_rtrbuf_credit;	     /* one of rtrpool's buffer credits */
	struct ul_peer_ni *rtr_lpni; /* the sender; reference */
	struct ul_rtrpool *rtrpool;  /* the pool of its payload size */
	struct ul_rtrbuf *rtrbuf;    /* its buffer, once it has one */
	unsigned char *eager;	     /* the payload, received eagerly */
};

/*
 * Append item to one of n's work lists (events, ready, fwd_ready,
 * resendq); the first item on an empty list tells the driver
 * (opts.wake).
 */
static inline void ul_node_add_work(struct ul_node *n, struct ul_list *list,
				    struct ul_list *item)
{
	bool was_empty = ul_list_empty(list);

	ul_list_add_tail(list, item);
	if (was_empty && n->opts.wake)
		n->opts.wake(n->opts.wake_ctx);
}

/* Messages a node keeps for reuse (about 190 KB at most). */
#define UL_MSG_POOL_MAX 256u
/* Empty n's message pool (ul_node_destroy). */
void ul_msg_pool_drain(struct ul_node *n);

/* Queue e (for e->md, which it references) for ul_node_dispatch(). */
void ul_node_queue_event(struct ul_node *n, struct ul_md_event *e);
/* Deliver queued events unless inside an API call or a dispatch. */
void ul_node_dispatch(struct ul_node *n);

/*
 * Unlink md as the API does (aborted; an UNLINK event with status if
 * idle: 0 for an unlink asked for, -ETIMEDOUT for a response timeout).
 */
void ul_node_md_unlink_internal(struct ul_node *n, struct ul_md *md,
				int status);

/*
 * Send a PUT or GET from md: the body of ul_node_put()/ul_node_get(),
 * also used by the ping client. is_tracked forces a response tracker.
 */
struct ul_msg_send_args {
	const struct ulnet_nid *self;
	enum ul_msg_type type;
	bool want_ack;
	const struct ulnet_process_id *target;
	uint32_t portal;
	uint64_t match_bits;
	uint32_t offset;
	uint64_t hdr_data;
	bool is_recovery; /* a recovery ping: non-MR, never resent */
};
int ul_msg_send_md(struct ul_node *n, struct ul_md *md,
		   const struct ul_msg_send_args *a);
/*
 * The second half of ul_msg_send_md() for a request m (md attached, its
 * SEND event prepared) that ul_msg_route() just committed: track its
 * answer if asked, and post it. Also used when m leaves WAIT_DISC.
 */
void ul_msg_send_committed(struct ul_node *n, struct ul_msg *m);

/* Shared by msg.c (send, finalize) and msg_rx.c (receive). */
struct ul_msg *ul_msg_alloc(struct ul_node *n);
/*
 * A message for what the LND is receiving: hdr's type and header, its
 * sender, the NI it came in on and the sender's peer NI (may be NULL),
 * each with a reference; committed, with the NI's deadline. NULL when
 * out of memory. Shared by msg_rx.c and forward.c.
 */
struct ul_msg *ul_msg_alloc_rx(struct ul_node *n,
			       const struct ul_wire_lnet_hdr *hdr,
			       const struct ulnet_nid *from_nid,
			       struct ul_node_ni *nni, struct ul_peer_ni *lpni);
/* Free a message that queued no event (or whose event went out). */
void ul_msg_free(struct ul_node *n, struct ul_msg *m);
/*
 * Choose the path of m (type and hdr set) and commit it to an NI: src
 * pins the local NI (NULL: any), rtr the previous hop (NULL: any).
 * Fills the header NIDs, the next hop and the deadline. 0 or -errno
 * (nothing taken then).
 */
int ul_msg_route(struct ul_node *n, struct ul_msg *m,
		 const struct ulnet_nid *src, const struct ulnet_nid *dst,
		 const struct ulnet_nid *rtr, int numa_node, bool is_reserved);
/* Take credits and hand m to its LND, or queue it; may finalize it. */
void ul_msg_post(struct ul_node *n, struct ul_msg *m);
/* Post the messages released from credit queues. */
void ul_msg_drain_ready(struct ul_node *n);
/* The end of every message (module comment). */
void ul_msg_finalize(struct ul_node *n, struct ul_msg *m, int status,
		     enum ul_hstatus hs);
/* The peer NI's message state, created on first use; NULL on ENOMEM. */
struct ul_peer_ni_msgs *ul_msg_lpni_msgs(struct ul_node *n,
					 struct ul_peer_ni *lpni);
/*
 * Count one drop on LNet's explicit drop paths (a receive nobody takes,
 * a send past its deadline); a failed message is not a drop.
 */
void ul_msg_count_drop(struct ul_node *n, struct ul_ni *ni,
		       struct ul_peer_ni *lpni, uint32_t type, uint32_t bytes);
/* A PUT was received into its MD: send the ACK it asked for. */
void ul_msg_send_ack(struct ul_node *n, struct ul_msg *put);
/* The MD received its answer: forget its response tracker. */
void ul_msg_rspt_detach(struct ul_node *n, struct ul_md *md);
/* The clock latency samples are timed with (ul_node_opts.clock_ns). */
uint64_t ul_msg_clock_ns(const struct ul_node *n);
/* Deadline of a message committed to ni now (health.md §3). */
uint64_t ul_msg_deadline(struct ul_node *n, const struct ul_ni *ni);

/* Fail every message queued on nni (its NI is stopping). */
void ul_msg_fail_ni_queue(struct ul_node *n, struct ul_node_ni *nni,
			  int status);
/* Fail every queued message of the node (shutdown). */
void ul_msg_fail_all_queued(struct ul_node *n, int status);
/* Free the node's peer NI extensions (destroy). */
void ul_msg_free_lpni_msgs(struct ul_node *n);

/*
 * Move m to state to if the life cycle allows it (module comment); a
 * refused transition is logged and leaves m as it was. Returns whether
 * it moved.
 */
bool ul_msg_set_state(struct ul_node *n, struct ul_msg *m,
		      enum ul_msg_state to);
/*
 * Take m's peer NI and NI credits (credits.c); false when m now waits on
 * a credit queue.
 */
bool ul_msg_take_credits(struct ul_node *n, struct ul_msg *m);
/* Count m in the statistics and latency samples (msg_stats.c). */
void ul_msg_stats(struct ul_node *n, struct ul_msg *m, int status);
/* Give back m's credits (the state it was in says which it held). */
void ul_msg_return_credits(struct ul_node *n, struct ul_msg *m,
			   enum ul_msg_state was);
/* Hand m (credits held) to its LND now; failures finalize it. */
void ul_msg_lnd_send(struct ul_node *n, struct ul_msg *m);

/* Response tracking (rspt.c, health.md §6). */
bool ul_rspt_is_tracked(const struct ul_node *n, enum ul_msg_type type,
			uint32_t options);
/*
 * Track the answer to m, the request md just sent (its next hop and
 * final destination set), or refresh md's tracker.
 */
void ul_rspt_attach(struct ul_node *n, struct ul_md *md,
		    const struct ul_msg *m);
/* The next hop of a tracked request m changed (a resend). */
void ul_rspt_update(struct ul_md *md, const struct ul_msg *m);
/*
 * The LND lost every connection to the peer NI nid (is_restarted false)
 * or met a new incarnation of it (true), at now_ns. The trackers whose
 * request reached nid and wait only for its answer end: at once with
 * -ECONNRESET when nid restarted and was their destination (the old
 * process will never answer); otherwise their deadline comes in to
 * now_ns + lnd_timeout_sec, so that a peer that comes back in time still
 * answers (lnd.h, peer_down).
 */
void ul_rspt_on_peer_down(struct ul_node *n, const struct ulnet_nid *nid,
			  bool is_restarted, uint32_t lnd_timeout_sec,
			  uint64_t now_ns);
/* Expire trackers due at now; the earliest deadline left, or MAX. */
uint64_t ul_rspt_tick(struct ul_node *n, uint64_t now_ns);
/* Drop every response tracker (shutdown). */
void ul_msg_rspt_clear(struct ul_node *n);

/*
 * Resend (resend.c, health.md §7): queue m, whose attempt failed with a
 * resendable status, for another selection. False (m untouched) when
 * its budget or its kind forbids it; the caller finalizes it then.
 */
bool ul_resend_queue(struct ul_node *n, struct ul_msg *m,
		     enum ul_msg_state was);
/* Send the queued resends again (from flush and the tick). */
void ul_resend_run(struct ul_node *n);
/* Fail every queued resend (shutdown, NI stop). */
void ul_resend_fail_all(struct ul_node *n, int status);

/*
 * Fault rules on the message paths (fault_node.c, fault.md §4, §6).
 * Send side, credits held, right before the LND: true when a rule took
 * m (dropped with a simulated status, or delayed). Receive side: true
 * when the message must be dropped silently.
 */
bool ul_fault_on_tx(struct ul_node *n, struct ul_msg *m);
bool ul_fault_on_rx(struct ul_node *n, struct ul_ni *ni,
		    const struct ul_wire_lnet_hdr *hdr,
		    const struct ulnet_nid *from_nid);
/*
 * Receive side (fault.md §6): a received message whose payload is in
 * place, before it is delivered: true when a delay rule holds it (it is
 * delivered by ul_msg_rx_deliver() on release).
 */
bool ul_fault_rx_delay(struct ul_node *n, struct ul_msg *m);
/* Deliver a received message (its event, or a GET's REPLY). */
void ul_msg_rx_deliver(struct ul_node *n, struct ul_msg *m);
/* Release delayed messages that are due; the next release time or MAX. */
uint64_t ul_fault_tick(struct ul_node *n, uint64_t now_ns);
/* Release (or, at shutdown, fail) every delayed message. */
void ul_fault_release_all(struct ul_node *n, bool is_shutdown);

/*
 * Forwarding (forward.c, routing.md §7.4). ul_fwd_parse: a header for
 * another node arrived (the LND's parse upcall, after the header
 * checks): drop it or start receiving it. ul_fwd_rx_done: its payload is
 * in. ul_fwd_finalize: the end of a forwarded message, from
 * ul_msg_finalize (credits, buffer, counters). ul_fwd_run: send what got
 * its router credits (from ul_msg_drain_ready). ul_fwd_drop_waiting:
 * drop every message waiting for router credits, -ECANCELED (routing
 * disabled, routing.md §7.1) or the shutdown's status.
 */
int ul_fwd_parse(struct ul_node *n, struct ul_node_ni *nni,
		 const struct ul_wire_lnet_hdr *hdr,
		 const struct ulnet_nid *from_nid, struct ul_lnd_rx *rx);
void ul_fwd_rx_done(struct ul_node *n, struct ul_msg *m);
void ul_fwd_finalize(struct ul_node *n, struct ul_msg *m, enum ul_msg_state was,
		     int status);
void ul_fwd_run(struct ul_node *n);
void ul_fwd_drop_waiting(struct ul_node *n, int status);
/*
 * The peer aliveness check of a router (routing.md §7.4 step 10): false
 * when m must not be sent to its next hop, which is not alive.
 */
bool ul_fwd_next_hop_is_alive(struct ul_node *n, const struct ul_msg *m);
/* drop_asym_route (routing.md §8): a routed message for us to drop. */
bool ul_fwd_is_asym(struct ul_node *n, const struct ul_wire_lnet_hdr *hdr,
		    const struct ulnet_nid *from_nid);

/* Make sure the node tick runs by when_ns (node.c). */
void ul_node_tick_arm(struct ul_node *n, uint64_t when_ns);

/* Log through the node's sink (opts.log, may be NULL). */
#define ul_node_log(n, mask, ...) ul_log((n)->opts.log, (mask), __VA_ARGS__)
/* A line a remote host can trigger: rate limited (util/log.h). */
#define ul_node_log_limit(n, mask, ...)                                        \
	ul_log_limit((n)->opts.log, (mask), __VA_ARGS__)

#endif /* UL_CORE_MSG_H */
