/*
 * ulnet — LNet in user space: the public API.
 *
 * Include this header (it includes nid.h and common.h) and link libulnet.
 * Every function returns 0 or a negative errno (ulnet_strerror() names
 * it) unless it says otherwise.
 *
 * THE INSTANCE
 *
 * A struct ulnet is one LNet node: its nets and NIs, its peers, routes and
 * tunables, its portals, memory descriptors and messages, and one loop
 * thread that owns all of them. ulnet_create() builds it from an lnet.conf
 * (the YAML lnetctl imports) or from nothing; ulnet_start() starts the
 * loop thread and brings the NIs up; ulnet_stop() fails every message in
 * flight with -ESHUTDOWN (each with its one event), stops the NIs and joins
 * the thread; ulnet_destroy() frees what is left.
 *
 * THREADS
 *
 * Any thread may call any function below. A call made on the loop thread
 * (inside an event callback or a function run by ulnet_call()) runs at
 * once. A call from another thread is carried to the loop thread through
 * the instance's command queue and the caller waits for its result: it
 * returns the same codes, just later. Event callbacks run on the loop
 * thread and must not block; they may call the API. The fast path for an
 * application that sends a lot is to send from its callbacks, or from a
 * function posted with ulnet_call(), not one call per round trip from
 * another thread.
 *
 * THE CALLBACK CONTRACT
 *
 * A call that returns an error produces no event. ulnet_put() and
 * ulnet_get() that return 0 produce their events later, from the loop,
 * never from inside the call, and each such operation ends in exactly one
 * final event:
 *   - PUT without ACK: SEND (status 0 or a negative errno);
 *   - PUT with ACK, GET: SEND with an error status is final; after a SEND
 *     with status 0 the final event is ACK (PUT) or REPLY (GET), or, if the
 *     target does not answer within transaction_timeout, UNLINK with
 *     unlinked = 1 and -ETIMEDOUT (the MD is unlinked, as LNet does; see
 *     reference/health.md §6). When the LND reports the target gone (its
 *     connections reset, docs/health.md), the wait ends within one LND
 *     timeout (-ETIMEDOUT); when it restarted, at once (-ECONNRESET).
 * A SEND with status 0 means the message left this node (socklnd: and
 * the target's TCP acknowledged it), not that the target took it: only
 * ACK and REPLY say that. As in LNet, SEND and the
 * ACK or REPLY each count against the MD's threshold: an MD used for one
 * PUT with ACK or one GET needs a threshold of at least 2, or the answer
 * would find the MD used up and be dropped. ulnet_put() with
 * ULNET_ACK_REQ and ulnet_get() therefore refuse, with -EINVAL, an MD
 * whose threshold left is below 2 (ULNET_MD_THRESH_INF never runs out).
 * The check sees the threshold left at call time, not the answers that
 * earlier operations on the same MD still wait for: an MD shared by
 * several operations in flight needs a threshold of two per operation
 * with an answer (one for a PUT without ACK), or ULNET_MD_THRESH_INF.
 *
 * PORTALS, MATCH ENTRIES AND MEMORY DESCRIPTORS
 *
 * Incoming PUTs and GETs name a portal (0..63) and 64 match bits. On each
 * portal the application attaches match entries (ME): each accepts
 * messages from one sender (or any), whose match bits agree with its own
 * outside its ignore bits. An ME carries one memory descriptor (MD): the
 * application's buffer plus options (accept PUT, GET; truncate; manage the
 * offset remotely), a threshold (operations before the MD is used up) and
 * the event callback. The first ME in list order that matches and whose MD
 * accepts the operation takes the message; an unmatched message is dropped
 * and the sender learns it only by timeout (reference/wire.md §7.4).
 *
 * An MD the application sends from (PUT source, GET sink) is bound with
 * ulnet_md_bind() and not attached to any portal.
 *
 * The application owns every buffer an MD describes. ulnet reads and writes
 * it only between the bind/attach call and the MD's last event (the one
 * with unlinked = 1), and never frees it.
 */
#ifndef ULNET_ULNET_H
#define ULNET_ULNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ulnet/common.h"
#include "ulnet/nid.h"
#include "ulnet/version.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ulnet;

/* LNet's pid for kernel and Lustre traffic (LNET_PID_LUSTRE). */
#define ULNET_PID_LUSTRE 12345u
/* Any pid, in match entries and ping targets (LNET_PID_ANY). */
#define ULNET_PID_ANY 0xffffffffu
/*
 * Portals are 0..ULNET_PORTALS-1. Portal 0 is LNet's reserved portal
 * (LNET_RESERVED_PORTAL: the node's ping and push buffers live there); an
 * application cannot attach to it.
 */
#define ULNET_PORTALS 64u
#define ULNET_RESERVED_PORTAL 0u
/* Largest PUT or REPLY payload (LNET_MTU, 1 MiB). */
#define ULNET_MTU (1u << 20)
/* Most fragments an MD may have (LNET_MAX_IOV). */
#define ULNET_MAX_IOV 256u
/* Default acceptor port (LNet's accept_port). */
#define ULNET_ACCEPT_PORT 988u

/* A node and pid: who sends, who is targeted (struct lnet_processid). */
struct ulnet_process_id {
	struct ulnet_nid nid; /* ANY NID in a match entry: any sender */
	uint32_t pid;	      /* ULNET_PID_LUSTRE, or ULNET_PID_ANY */
};

/*
 * A handle names an MD or ME of one instance. Cookies are never reused
 * while the instance lives, so a stale handle is refused, not misread.
 * The all-zero handle is invalid.
 */
struct ulnet_handle {
	uint64_t cookie;
};

/* ---------------------------------------------------------------------
 * Creating, starting and stopping an instance
 */

/* Who may connect to our acceptor (LNet's "accept" module parameter). */
enum ulnet_accept {
	ULNET_ACCEPT_SECURE, /* only from source ports 0..1023 */
	ULNET_ACCEPT_ALL,    /* any source port */
	ULNET_ACCEPT_NONE,   /* no listener: connect out only */
};

/* Source port policy for outgoing connections. */
enum ulnet_src_port {
	ULNET_SRC_PORT_AUTO,	   /* privileged when we may bind one */
	ULNET_SRC_PORT_PRIVILEGED, /* 1023 down to 512, as the kernel */
	ULNET_SRC_PORT_ANY,	   /* any port the system gives */
};

/* Log line sink: one line per event, no trailing newline. */
typedef void (*ulnet_log_cb)(void *ctx, const char *line);

/*
 * What a log line is about: LNet's debug mask names, which start each
 * line ("neterror: ..."). ulnet_opts.log_mask selects them.
 */
enum ulnet_log_mask {
	ULNET_LOG_NET = 1u << 0, /* one line per message: a debugging aid */
	ULNET_LOG_NETERROR = 1u << 1,
	ULNET_LOG_CONSOLE = 1u << 2,
	ULNET_LOG_WARNING = 1u << 3,
	ULNET_LOG_ERROR = 1u << 4,
	ULNET_LOG_INFO = 1u << 5,
};

struct ulnet_opts {
	/*
	 * lnet.conf text (YAML, as lnetctl import reads it) or a path to
	 * one; at most one of the two. It is applied exactly as `ulnetd
	 * --config` applies a file: in document order, stopping at the
	 * first item LNet refuses (ulnet_create() then fails with its
	 * line and LNet's words). Neither: no nets but 0@lo, unless
	 * is_default_net is set.
	 */
	const char *conf_text;
	const char *conf_path;
	/* With no conf: bring up tcp on the first non-loopback interface. */
	bool is_default_net;
	uint16_t accept_port;	      /* 0: ULNET_ACCEPT_PORT */
	enum ulnet_accept accept;     /* default SECURE */
	enum ulnet_src_port src_port; /* default AUTO */
	ulnet_log_cb log;	      /* NULL: no log */
	void *log_ctx;
	bool is_link_monitor_off; /* do not watch interfaces (rtnetlink) */
	/* ULNET_LOG_* bits; 0: every one but ULNET_LOG_NET */
	uint32_t log_mask;
};

/*
 * The library's version, "MAJOR.MINOR.PATCH" (ulnet/version.h has the
 * header's, which may be older or newer in a program built elsewhere).
 */
ULNET_EXTERN const char *ulnet_version(void);
/* The same as one number, ULNET_VERSION_HEX's form. */
ULNET_EXTERN unsigned int ulnet_version_number(void);

/* Zero opts and set every default. */
ULNET_EXTERN void ulnet_opts_init(struct ulnet_opts *opts);

/*
 * Build an instance from opts (copied; the strings too) without starting
 * it: the configuration is parsed and applied, nothing is bound or sent.
 * On failure err (may be NULL) gets a message naming the offending line or
 * token and *out is untouched. -EINVAL (bad configuration), -ENOENT (no
 * such file or interface), -ENOMEM.
 */
ULNET_EXTERN int ulnet_create(const struct ulnet_opts *opts, struct ulnet **out,
			      char *err, size_t err_size);
/*
 * Start the loop thread and every NI (listeners, LNDs). 0, or -errno with
 * the instance stopped again (for example -EADDRINUSE for the acceptor
 * port). Call once.
 */
ULNET_EXTERN int ulnet_start(struct ulnet *u);
/*
 * Stop: every PUT or GET in flight ends with its one final event (status
 * -ESHUTDOWN unless it completes first: a failed SEND, or an UNLINK with
 * unlinked = 1 for one still waiting for its ACK or REPLY), every MD gets
 * its last event, connections close and the loop thread is joined. All
 * of these events have been delivered when it returns 0, so the
 * application may free its buffers then. Idempotent: a second call, also
 * from another thread while the first runs, returns 0 once the instance
 * is stopped.
 *
 * -EDEADLK, and nothing changes, when called on the loop thread (from an
 * event callback, also one that a stop in progress delivers, or from a
 * function run by ulnet_call()): the loop cannot join itself. Stop from
 * another thread.
 */
ULNET_EXTERN int ulnet_stop(struct ulnet *u);
/*
 * Stop if needed, then free the instance. NULL is fine. On the loop
 * thread it does nothing (ulnet_stop() refuses there): call it from
 * another thread.
 */
ULNET_EXTERN void ulnet_destroy(struct ulnet *u);

/* Run fn(arg) on the loop thread. 0 or -ESHUTDOWN (fn will not run). */
typedef void (*ulnet_call_fn)(struct ulnet *u, void *arg);
ULNET_EXTERN int ulnet_call(struct ulnet *u, ulnet_call_fn fn, void *arg);

/* ---------------------------------------------------------------------
 * Nets, NIs and peers at run time
 *
 * The same operations as lnetctl net add/del and peer add; the control
 * socket of ulnetd uses them. An NI is named by its interface (its NID
 * takes the interface's first IPv4 address) or by its NID alone, which
 * lets several NIs live on loopback addresses such as 127.0.1.1@tcp and
 * 127.0.2.1@tcp.
 */

struct ulnet_ni_spec {
	const char *net;	     /* "tcp", "tcp1", ... */
	const char *ifname;	     /* interface, or NULL */
	const struct ulnet_nid *nid; /* NID, or NULL; one of the two */
	int numa_node;		     /* -1: unknown */
};

/*
 * Add one NI (and its net if new) and start it. err as in ulnet_create.
 * -EEXIST, -ENOENT (no such interface or no IPv4 address on it), -EINVAL,
 * -EADDRINUSE (the acceptor could not bind), -ENOMEM.
 */
ULNET_EXTERN int ulnet_ni_add(struct ulnet *u, const struct ulnet_ni_spec *spec,
			      char *err, size_t err_size);
/*
 * Stop and remove one NI; messages queued on it fail (-ESHUTDOWN) with
 * their events. -ENOENT if no such NI.
 */
ULNET_EXTERN int ulnet_ni_del(struct ulnet *u, const struct ulnet_nid *nid);
/* Remove a whole net (every NI). -ENOENT, -ENODEV for lo. */
ULNET_EXTERN int ulnet_net_del(struct ulnet *u, uint32_t net_id);
/*
 * Add a peer with primary NID prim and nnids more NIDs (lnetctl peer add).
 * is_mr false makes it a non-multi-rail peer.
 */
ULNET_EXTERN int ulnet_peer_add(struct ulnet *u, const struct ulnet_nid *prim,
				const struct ulnet_nid *nids, size_t nnids,
				bool is_mr, char *err, size_t err_size);

/*
 * What Lustre's LNetAddPeer does: nids (count of them) are the NIDs the
 * caller knows for one node, its primary first (from a configuration
 * log, say). With discovery on, the first NID's peer is created, its
 * primary locked (the lock_prim_nid parameter, 1 by default) and
 * discovered in the background; every further NID that a peer made by
 * traffic holds is pinged again and folds into that peer, so messages
 * to any of them share one peer. With discovery off, each NID on a local
 * net becomes a non-Multi-Rail peer of its own. Returns at once: 0,
 * -EALREADY (the first NID is another peer's non-primary NID; use that
 * peer's primary), -EINVAL, -ENOMEM.
 */
ULNET_EXTERN int ulnet_peer_learn(struct ulnet *u, const struct ulnet_nid *nids,
				  size_t count, char *err, size_t err_size);

/* ---------------------------------------------------------------------
 * Events
 */

enum ulnet_event_type {
	ULNET_EVENT_GET = 1,	/* target: a GET matched this MD */
	ULNET_EVENT_PUT = 2,	/* target: a PUT landed in this MD */
	ULNET_EVENT_REPLY = 3,	/* initiator: a GET's REPLY arrived */
	ULNET_EVENT_ACK = 4,	/* initiator: a PUT's ACK arrived */
	ULNET_EVENT_SEND = 5,	/* initiator: the PUT/GET left (or failed) */
	ULNET_EVENT_UNLINK = 6, /* the MD was unlinked with nothing pending */
};

struct ulnet_event {
	enum ulnet_event_type type;
	int status;    /* 0 or a negative errno */
	bool unlinked; /* the MD's last event: its memory is free */
	struct ulnet_handle md_handle;
	void *md_start;	   /* the MD's start (first fragment's base) */
	void *md_user_ptr; /* as given in struct ulnet_md */
	struct ulnet_process_id initiator; /* who sent the request */
	struct ulnet_process_id target;	   /* whom it was sent to */
	struct ulnet_nid sender;	   /* peer NI it came from (rx) */
	struct ulnet_nid source;	   /* our NI that sent or got it */
	uint32_t pt_index;		   /* portal */
	uint64_t match_bits;
	uint32_t rlength; /* bytes requested */
	uint32_t mlength; /* bytes delivered or accepted */
	uint32_t offset;  /* where in the MD */
	uint64_t hdr_data;
};

/* Called on the loop thread; ev is valid for the call only. */
typedef void (*ulnet_event_cb)(struct ulnet *u, const struct ulnet_event *ev);

/* ---------------------------------------------------------------------
 * Memory descriptors and match entries
 */

/* MD options (LNet's LNET_MD_* values). */
#define ULNET_MD_OP_PUT (1u << 0)	      /* accepts PUTs (target) */
#define ULNET_MD_OP_GET (1u << 1)	      /* accepts GETs (target) */
#define ULNET_MD_MANAGE_REMOTE (1u << 2)      /* offset from the request */
#define ULNET_MD_TRUNCATE (1u << 4)	      /* cut what does not fit */
#define ULNET_MD_ACK_DISABLE (1u << 5)	      /* never send ACKs for PUTs */
#define ULNET_MD_IOVEC (1u << 6)	      /* start/length are iov/niov */
#define ULNET_MD_MAX_SIZE (1u << 7)	      /* honour max_size */
#define ULNET_MD_TRACK_RESPONSE (1u << 10)    /* always track (health §6) */
#define ULNET_MD_NO_TRACK_RESPONSE (1u << 11) /* never track */

/* Threshold that never runs out (LNET_MD_THRESH_INF). */
#define ULNET_MD_THRESH_INF (-1)

struct ulnet_md {
	/*
	 * The buffer: start and length bytes; with ULNET_MD_IOVEC, start
	 * points to length struct iovec (at most ULNET_MAX_IOV), copied at
	 * bind/attach time (the memory they describe is not).
	 */
	void *start;
	size_t length;
	int threshold;		/* operations before it is used up, or INF */
	uint32_t max_size;	/* with ULNET_MD_MAX_SIZE: most bytes per op */
	uint32_t options;	/* ULNET_MD_* */
	void *user_ptr;		/* returned in every event */
	ulnet_event_cb handler; /* may be NULL: no events */
	int numa_node;		/* where the buffer lives, -1 unknown */
};

/* Whether an MD goes away by itself when its threshold reaches 0. */
enum ulnet_unlink {
	ULNET_RETAIN = 0,
	ULNET_UNLINK = 1,
};

/* Where a new ME goes on its portal's list. */
enum ulnet_ins_pos {
	ULNET_INS_BEFORE, /* first */
	ULNET_INS_AFTER,  /* last */
};

/*
 * Bind a free-floating MD (a PUT source or a GET sink). 0 and *out, or
 * -EINVAL (bad options, length, fragments), -ENOMEM.
 */
ULNET_EXTERN int ulnet_md_bind(struct ulnet *u, const struct ulnet_md *md,
			       enum ulnet_unlink unlink,
			       struct ulnet_handle *out);
/*
 * Attach a match entry with an MD to a portal in one step (LNetMEAttach
 * followed by LNetMDAttach). match_id names the senders it accepts
 * (ANY NID / ULNET_PID_ANY for all). The ME goes away with its MD.
 * 0 and *out (the MD's handle), or -EINVAL (portal >= 64, the reserved
 * portal 0, bad MD), -ENOMEM.
 */
ULNET_EXTERN int ulnet_md_attach(struct ulnet *u, uint32_t portal,
				 const struct ulnet_process_id *match_id,
				 uint64_t match_bits, uint64_t ignore_bits,
				 enum ulnet_ins_pos pos,
				 const struct ulnet_md *md,
				 enum ulnet_unlink unlink,
				 struct ulnet_handle *out);
/*
 * Unlink an MD (and its ME): no new operation starts on it. Its last
 * event (unlinked = 1) follows: an UNLINK event if nothing is in flight,
 * else the in-flight operation's event. 0 or -ENOENT (unknown or already
 * unlinked).
 */
ULNET_EXTERN int ulnet_md_unlink(struct ulnet *u, struct ulnet_handle md);

/* ---------------------------------------------------------------------
 * PUT and GET
 */

enum ulnet_ack_req {
	ULNET_NOACK_REQ = 0,
	ULNET_ACK_REQ = 1,
};

/*
 * Send the MD's bytes (from offset 0, length bytes or its whole length)
 * to target's portal with match_bits; offset is the remote offset and
 * hdr_data 64 bits the target sees in its PUT event. self pins the local
 * NI (NULL: selection chooses). Events as the contract above. -ENOENT
 * (MD unknown or used up), -EINVAL (portal, self not ours, or
 * ULNET_ACK_REQ on an MD with a threshold left below 2: no room for the
 * ACK), -ESHUTDOWN.
 */
ULNET_EXTERN int ulnet_put(struct ulnet *u, const struct ulnet_nid *self,
			   struct ulnet_handle md, enum ulnet_ack_req ack,
			   const struct ulnet_process_id *target,
			   uint32_t portal, uint64_t match_bits,
			   uint32_t offset, uint64_t hdr_data);
/*
 * Fetch up to the MD's length from target's portal/match_bits at remote
 * offset into the MD. Events: SEND then REPLY (mlength = bytes written),
 * as the contract above. Errors as ulnet_put(); -EINVAL also for an MD
 * with a threshold left below 2 (no room for the REPLY).
 */
ULNET_EXTERN int ulnet_get(struct ulnet *u, const struct ulnet_nid *self,
			   struct ulnet_handle md,
			   const struct ulnet_process_id *target,
			   uint32_t portal, uint64_t match_bits,
			   uint32_t offset);

/* ---------------------------------------------------------------------
 * Ping (for tools)
 */

/* One NI of a ping reply. */
struct ulnet_ping_ni {
	struct ulnet_nid nid;
	uint32_t status; /* 0x15aac0de up, 0xdeadface down (LNet's values) */
};

struct ulnet_ping_result {
	struct ulnet_process_id primary; /* entry 1 of the reply */
	uint32_t features;		 /* pi_features */
	size_t nnis;			 /* entries filled, 0@lo excluded */
	struct ulnet_ping_ni nis[64];
	size_t nnis_total; /* entries the reply held, 0@lo excluded */
	uint32_t seqno;	   /* the info's sequence number (entry 0) */
};

/*
 * Ping target (LNet's ping: a GET on the reserved portal) and wait up to
 * timeout_ms for the REPLY. Blocks: never call it on the loop thread
 * (-EDEADLK). self as in ulnet_put. 0 and *res, -ETIMEDOUT,
 * -EHOSTUNREACH, -EPROTO (a reply that is not valid ping info).
 */
ULNET_EXTERN int ulnet_ping_sync(struct ulnet *u, const struct ulnet_nid *self,
				 const struct ulnet_process_id *target,
				 int timeout_ms, struct ulnet_ping_result *res);

/* ---------------------------------------------------------------------
 * Statistics (what `lnetctl net show -v` prints per NI)
 */

/* Counts per LNet message type, indexed ACK 0, PUT 1, GET 2, REPLY 3. */
struct ulnet_msg_stats {
	uint64_t send_count[4];
	uint64_t recv_count[4];
	uint64_t drop_count[4];
	uint64_t send_bytes[4]; /* payload bytes */
	uint64_t recv_bytes[4];
	uint64_t drop_bytes[4];
};

struct ulnet_ni_info {
	struct ulnet_nid nid;
	char ifname[16];
	bool is_up;	/* status "up" */
	int healthv;	/* 0..1000 */
	int tx_credits; /* current; may be negative (queued) */
	int peer_tx_credits;
	struct ulnet_msg_stats stats;
};

/*
 * Snapshot of every NI but 0@lo, in configuration order: at most cap
 * entries in out, *n = how many NIs there are. 0 or -ESHUTDOWN.
 */
ULNET_EXTERN int ulnet_ni_info(struct ulnet *u, struct ulnet_ni_info *out,
			       size_t cap, size_t *n);

/*
 * Module parameters by name, the names `ulnetd --param` and `ulnetctl
 * param` take ("lnet.lnet_retry_count", "ksocklnd.nagle",
 * "ulnet.busy_poll"; ulnetd(8) lists them all). Before ulnet_start()
 * any may be set, as modprobe options; once started only those the
 * kernel lets an operator write at run time (mode 0644; -EPERM for the
 * others). 0, -ENOENT (no such parameter), -EINVAL (out of range or
 * refused by LNet's own checks), -EPERM, -ESHUTDOWN; err (may be NULL)
 * says why.
 */
ULNET_EXTERN int ulnet_param_set(struct ulnet *u, const char *name,
				 int64_t value, char *err, size_t err_size);
/* The current value: 0, -ENOENT, -ESHUTDOWN. */
ULNET_EXTERN int ulnet_param_get(struct ulnet *u, const char *name,
				 int64_t *value);

#ifdef __cplusplus
}
#endif
#endif /* ULNET_ULNET_H */
