/*
 * The control protocol between ulnetctl and a running instance (ulnetd),
 * carried over the instance's control socket (DESIGN.md "Configuration
 * and control"). This file is its specification and its only serializer:
 * the CLI and the server both build and parse messages with the functions
 * below, so the two ends cannot disagree about the layout.
 *
 * Transport. A Unix stream socket, mode 0600, at the path given by
 * `ulnetd --ctl` or $ULNET_CTL (default UL_CTL_DEFAULT_PATH). Only a peer
 * with the daemon's uid (or root) is served. The client sends one request
 * and reads one reply, and may then send the next request on the same
 * connection; the server answers requests of one connection in order.
 *
 * Framing. Every message, request or reply, is a 12-byte header followed
 * by a payload. All integers on the wire are little-endian.
 *
 *	offset 0  u32 magic    UL_CTL_MAGIC, "ULCT" (0x554c4354)
 *	offset 4  u16 version  UL_CTL_VERSION (1)
 *	offset 6  u16 op       enum ul_ctl_op; a reply has UL_CTL_OP_REPLY set
 *	offset 8  u32 length   payload bytes, at most UL_CTL_MAX_PAYLOAD
 *	                       (1 MiB) in a request, UL_CTL_MAX_REPLY
 *	                       (256 MiB) in a reply
 *
 * The layout of these 12 bytes never changes between versions, so a peer
 * speaking another version can still skip the payload and answer.
 *
 * Payload. A sequence of attributes in the style of netlink:
 *
 *	offset 0  u16 type     enum ul_ctl_attr_id
 *	offset 2  u16 flags    UL_CTL_F_NESTED when the value is attributes
 *	offset 4  u32 length   value bytes (header and padding excluded)
 *	offset 8  value, then zero bytes up to the next multiple of 4
 *
 * Every attribute id has exactly one type (u32, s32, u64, s64, a string
 * with its terminating NUL, a 20-byte NID, raw bytes, a flag with no
 * value, or nested attributes) whatever the op or the nesting level, so
 * one table checks them all. A NID travels in LNet's 20-byte struct form
 * (reference/wire.md §3.2), whose net number and address words are in
 * network order as on LNet's wire. The payload length is a multiple of 4. A
 * truncated attribute, a length past its parent's end, non-zero padding,
 * a nested flag that disagrees with the id's type, a value of the wrong
 * size for its type or a string without its NUL is -EPROTO; so are a bad
 * magic, an oversized length and, for a request, another version.
 * Unknown attribute ids are skipped (a newer client may send more);
 * unknown ops get an -EOPNOTSUPP reply.
 *
 * Requests are plain data with presence: an absent attribute means "not
 * given", and a request is decoded into a struct (ul_ctl_req) before
 * anything is applied. Replies carry the request's op with
 * UL_CTL_OP_REPLY set, then UL_CTL_A_RC (s32: 0 or a negative errno) and,
 * on failure, UL_CTL_A_ERR_MSG (lnetctl's text for the error YAML's
 * "descr"), then the op's data. A request of another version gets an
 * error reply in version UL_CTL_VERSION with UL_CTL_A_VERSION and a
 * message naming both versions, and the connection is closed; so does any
 * malformed request, and a peer the server refuses (another uid, too many
 * clients). Such a refusal has op UL_CTL_OP_REPLY alone (op 0): it
 * answers whatever was asked, carries a negative RC and ERR_MSG, no data.
 *
 * Ops of version 1 (what lnetctl's YAML needs at every verbose level,
 * reference/lnetctl.md §6.3, §7.3, §11.1):
 *
 *	PING      request  NID (target), SRC_NID?, TIMEOUT_MS?
 *	          reply    PING_PRIMARY, PING_PID, PING_FEATURES,
 *	                   PING_NI* {NID, STATUS}, PING_MR
 *	          (PING_PRIMARY and PING_MR are the node's peer record for
 *	          the target after the ping, as lnetctl prints them; the
 *	          target itself and 0 when there is none. PING_PID,
 *	          PING_FEATURES and PING_NI are the reply's.)
 *	NET_SHOW  request  NET_NAME?, VERBOSE?
 *	PEER_SHOW request  NID?, VERBOSE?, CURSOR?
 *	          reply    one Y_MAP, as the generic ops' below: the document
 *	                   `net show` / `peer show` prints at that verbose
 *	                   level (UL_CTL_SHOW_BACKUP: what export --backup
 *	                   keeps), built by the server (runtime/ctlsrv_show.c);
 *	                   CURSOR? (PEER_SHOW)
 *	          (PEER_SHOW with CURSOR is paged, as LNet's netlink dump
 *	          is: the reply holds the peers from that index of the
 *	          peer table on, up to the first that takes the document
 *	          past UL_CTL_PAGE_BYTES, and CURSOR, where the next page
 *	          starts, when more remain; the pages' "peer" sequences
 *	          make the list. A peer added or
 *	          removed between two pages may be listed twice or missed,
 *	          as with a dump. Without CURSOR the whole table is one
 *	          reply, refused -EMSGSIZE past UL_CTL_MAX_REPLY.)
 *
 *	PERF_PUT  request  NID (target), PERF_SIZE, PERF_DURATION_MS,
 *	                   PERF_INFLIGHT, PERF_OP?, PERF_CHECK?,
 *	                   PERF_TARGET* (more targets, taken in turn)
 *	          reply    PERF_PUTS, PERF_BYTES, PERF_FAILED, PERF_ELAPSED_NS,
 *	                   PERF_STARTED, PERF_SEND_NS, PERF_SEND_BYTES,
 *	                   PERF_CHECK_ERRORS?,
 *	                   PERF_FAIL* {PERF_STATUS, PERF_COUNT},
 *	                   PERF_RAIL* {NID, PERF_PUTS, PERF_BYTES}
 *	          (a ulnet extension, not an lnetctl command: a stream of
 *	          PUTs, GETs or pings (PERF_OP, enum ul_perf_op; PUT when
 *	          absent) to the targets' perf sinks, runtime/perf.h; the
 *	          reply comes when the stream ends; PUTS are the operations
 *	          completed, STARTED = PUTS + FAILED, each FAIL the ones that
 *	          ended with one status; SEND_NS and SEND_BYTES the rate's
 *	          window and what completed within it; rails are the local
 *	          NIs and the payload messages each carried meanwhile: PUTs
 *	          sent, REPLYs received, or GETs sent for a ping)
 *
 *	SELFTEST_STAT  generic request, no arguments
 *	          reply    one Y_MAP: "selftest stat" with every local NI's
 *	                   message and byte counts by direction ("rails") and
 *	                   the perf sink's counters ("sink"); what `ulnetctl
 *	                   selftest` samples to draw rates over time
 *
 *	BATCH     request  BATCH_OP, BATCH_ITEM* {ARG_*}
 *	          reply    RC, ERR_MSG on failure, BATCH_DONE (whenever
 *	                   the batch was decoded)
 *	          (ulnet's own: up to UL_CTL_BATCH_MAX requests of one
 *	          generic op that configures (ul_ctl_op_is_batchable()),
 *	          each item the ARG_* attributes of one, applied in order
 *	          until one is refused; BATCH_DONE counts the items applied
 *	          before it, RC and ERR_MSG are that item's. The whole
 *	          batch is decoded before anything is applied, so a
 *	          malformed item applies none: the request is refused as
 *	          any malformed one is (op 0, no BATCH_DONE, closed). What
 *	          `ulnetctl import` sends instead of one round trip per
 *	          peer. A daemon that does not know BATCH, or does not
 *	          batch that op, answers -EOPNOTSUPP without BATCH_DONE,
 *	          the connection kept, and the importer goes on one
 *	          request at a time.)
 *
 *	PARAM_GET generic request, NAME? (none: every parameter)
 *	PARAM_SET generic request, NAME, VALUE
 *	          reply    one Y_MAP "param": each parameter's name and
 *	                   value (runtime/params.h); PARAM_SET answers with
 *	                   the value it set
 *
 * The generic ops (every other lnetctl command: net add/del/set, peer
 * add/del/set/list, route add/del/show, routing show, set, global show,
 * udsp add/del/show, stats show/reset, discover, fault add/del/show/
 * reset, lnet configure/unconfigure, debug recovery/peer, cpt-of-nid):
 *
 *	request  ARG_* attributes, one per field of struct ul_ctl_args
 *	         (proto_args.h), with ARG_HAS saying which were given; one
 *	         table gives each field its id, type and presence bit, so
 *	         encoding and decoding are the same loop on both ends. A
 *	         UDSP rule travels as ARG_UDSP_BLOCK, the kernel's binary
 *	         rule block (wire/udsp_block.h).
 *	reply    RC, ERR_MSG on failure, else one Y_MAP: the document the
 *	         command prints, with lnetctl's key names and order, built
 *	         by the server (as LNet's netlink key tables are built by
 *	         the kernel) and printed by ulnetctl in the output engine
 *	         the command uses (proto_doc.h). Scalars keep their type
 *	         (Y_INT, Y_UINT, Y_BOOL, Y_STR, Y_QSTR for the one quoted
 *	         value lnetctl prints, CPT).
 *
 * `import` and `export` are ulnetctl's own work over these ops, as they
 * are lnetctl's over netlink.
 *
 * A reply may be far larger than a request: `peer show -v 4` of a
 * server with tens of thousands of clients is tens of MiB, which lnetctl
 * gets from the kernel as one netlink dump. Up to UL_CTL_MAX_REPLY it is
 * one message; a table that does not fit is refused with -EMSGSIZE (a
 * later version may page it with a cursor attribute). The server never
 * reads more than UL_CTL_MAX_PAYLOAD from a client.
 */
#ifndef UL_CTL_PROTO_H
#define UL_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ulnet/nid.h"

struct ul_err;

#define UL_CTL_DEFAULT_PATH "/run/ulnet/ulnetd.ctl"
#define UL_CTL_MAGIC 0x554c4354u
#define UL_CTL_VERSION 1
#define UL_CTL_HDR_SIZE 12
#define UL_CTL_ATTR_HDR_SIZE 8
#define UL_CTL_MAX_PAYLOAD (1u << 20) /* request */
#define UL_CTL_MAX_REPLY (256u << 20) /* reply */
/* A paged reply's document stops at the first item past this. */
#define UL_CTL_PAGE_BYTES (16u << 20)
#define UL_CTL_F_NESTED 0x0001
#define UL_CTL_NID_SIZE 20
/* Nesting deeper than this is refused (version 1 needs 4). */
#define UL_CTL_NEST_MAX 8
/* Longest string value, NUL included (error messages, names). */
#define UL_CTL_STR_MAX 1024

enum ul_ctl_op {
	UL_CTL_OP_PING = 1,
	UL_CTL_OP_NET_SHOW = 2,
	UL_CTL_OP_PEER_SHOW = 3,
	/*
	 * The generic ops (proto_args.h): a request of struct ul_ctl_args,
	 * a reply that is an error or a document (proto_doc.h).
	 */
	UL_CTL_OP_NET_ADD = 4,
	UL_CTL_OP_NET_DEL = 5,
	UL_CTL_OP_NET_SET = 6,
	UL_CTL_OP_PEER_ADD = 7,
	UL_CTL_OP_PEER_DEL = 8,
	UL_CTL_OP_PEER_SET = 9,
	UL_CTL_OP_PEER_LIST = 10,
	UL_CTL_OP_ROUTE_ADD = 11,
	UL_CTL_OP_ROUTE_DEL = 12,
	UL_CTL_OP_ROUTE_SHOW = 13,
	UL_CTL_OP_SET = 14, /* `set <name> <value>`, routing and buffers too */
	UL_CTL_OP_GLOBAL_SHOW = 15,
	UL_CTL_OP_UDSP_ADD = 16,
	UL_CTL_OP_UDSP_DEL = 17,
	UL_CTL_OP_UDSP_SHOW = 18,
	UL_CTL_OP_STATS_SHOW = 19,
	UL_CTL_OP_STATS_RESET = 20,
	UL_CTL_OP_DISCOVER = 21,
	UL_CTL_OP_FAULT_ADD = 22,
	UL_CTL_OP_FAULT_DEL = 23,
	UL_CTL_OP_FAULT_SHOW = 24,
	UL_CTL_OP_FAULT_RESET = 25,
	UL_CTL_OP_ROUTING_SHOW = 26,
	UL_CTL_OP_PERF_PUT = 27, /* ulnet's own: bulk PUT stream */
	UL_CTL_OP_LNET_CONFIGURE = 28,
	UL_CTL_OP_LNET_UNCONFIGURE = 29,
	UL_CTL_OP_DEBUG_RECOVERY = 30,
	UL_CTL_OP_CPT_OF_NID = 31,
	UL_CTL_OP_DEBUG_PEER = 32,
	UL_CTL_OP_SELFTEST_STAT = 33, /* ulnet's own: counters selftest reads */
	UL_CTL_OP_PARAM_GET = 34,     /* ulnet's own: module parameters */
	UL_CTL_OP_PARAM_SET = 35,
	UL_CTL_OP_BATCH = 36, /* ulnet's own: many requests of one op */
	UL_CTL_OP__LAST = 36,
	UL_CTL_OP_REPLY = 0x8000, /* or-ed into a reply's op */
};

/* How a value is laid out; one per attribute id. */
enum ul_ctl_type {
	UL_CTL_T_UNKNOWN = 0, /* not an id of this version: skipped */
	UL_CTL_T_U32,
	UL_CTL_T_S32,
	UL_CTL_T_U64,
	UL_CTL_T_S64,
	UL_CTL_T_STR,	/* NUL-terminated, no NUL inside */
	UL_CTL_T_NID,	/* 20 bytes */
	UL_CTL_T_BYTES, /* any length */
	UL_CTL_T_FLAG,	/* no value */
	UL_CTL_T_NESTED,
};

/*
 * Attribute ids, one namespace for all ops, grouped in ranges of 0x100.
 * The comment gives the type.
 */
enum ul_ctl_attr_id {
	/* 0x00xx: reply envelope and request fields shared by ops */
	UL_CTL_A_RC = 0x0001,	      /* s32: 0 or negative errno */
	UL_CTL_A_ERR_MSG = 0x0002,    /* str: lnetctl's "descr" text */
	UL_CTL_A_VERSION = 0x0003,    /* u32: the sender's version */
	UL_CTL_A_VERBOSE = 0x0004,    /* u32: lnetctl's -v level */
	UL_CTL_A_NID = 0x0005,	      /* nid: the object, or a filter */
	UL_CTL_A_SRC_NID = 0x0006,    /* nid: local NID to send from */
	UL_CTL_A_TIMEOUT_MS = 0x0007, /* u32 */
	UL_CTL_A_NET_NAME = 0x0008,   /* str: "tcp1", parsed by the server */
	UL_CTL_A_STATUS = 0x0009,     /* u32: LNet NI status (UP/DOWN) */
	UL_CTL_A_CURSOR = 0x000a,     /* u32: a paged table's next item */

	/* 0x01xx: ping (and later discover) */
	UL_CTL_A_PING_PRIMARY = 0x0100,	 /* nid */
	UL_CTL_A_PING_PID = 0x0101,	 /* u32 */
	UL_CTL_A_PING_FEATURES = 0x0102, /* u32: pi_features */
	UL_CTL_A_PING_NI = 0x0103,	 /* nested {NID, STATUS} */
	UL_CTL_A_PING_MR = 0x0104,	 /* u32: 0 or 1, the peer record's */

	/*
	 * 0x02xx-0x04xx: the typed net show and peer show replies, now
	 * documents (proto_doc.h); not to be used again.
	 */

	/*
	 * 0x05xx: arguments of the generic ops (struct ul_ctl_args in
	 * proto_args.h, which says what each is for)
	 */
	UL_CTL_A_ARG_HAS = 0x0500,		/* u64: UL_CTL_ARG_* presence */
	UL_CTL_A_ARG_FLAGS = 0x0501,		/* u32: UL_CTL_ARGF_* */
	UL_CTL_A_ARG_VERBOSE = 0x0502,		/* u32 */
	UL_CTL_A_ARG_NID = 0x0503,		/* nid */
	UL_CTL_A_ARG_NID2 = 0x0504,		/* nid */
	UL_CTL_A_ARG_LOCAL_NID = 0x0505,	/* nid */
	UL_CTL_A_ARG_NET = 0x0506,		/* str */
	UL_CTL_A_ARG_NAME = 0x0507,		/* str */
	UL_CTL_A_ARG_CPT = 0x0508,		/* str */
	UL_CTL_A_ARG_VALUE = 0x0509,		/* s64 */
	UL_CTL_A_ARG_PEER_TIMEOUT = 0x050a,	/* s32 */
	UL_CTL_A_ARG_PEER_CREDITS = 0x050b,	/* s32 */
	UL_CTL_A_ARG_PEER_BUF_CREDITS = 0x050c, /* s32 */
	UL_CTL_A_ARG_CREDITS = 0x050d,		/* s32 */
	UL_CTL_A_ARG_CONNS_PER_PEER = 0x050e,	/* s32 */
	UL_CTL_A_ARG_TOS = 0x050f,		/* s32 */
	UL_CTL_A_ARG_LND_TIMEOUT = 0x0510,	/* s32 */
	UL_CTL_A_ARG_HEALTH = 0x0511,		/* s32 */
	UL_CTL_A_ARG_HOP = 0x0512,		/* s32 */
	UL_CTL_A_ARG_PRIORITY = 0x0513,		/* s32 */
	UL_CTL_A_ARG_IDX = 0x0514,		/* s32 */
	UL_CTL_A_ARG_STATE = 0x0515,		/* u32 */
	UL_CTL_A_ARG_RATE = 0x0516,		/* u32 */
	UL_CTL_A_ARG_INTERVAL = 0x0517,		/* u32 */
	UL_CTL_A_ARG_LATENCY = 0x0518,		/* u32 */
	UL_CTL_A_ARG_MSG_MASK = 0x0519,		/* u32 */
	UL_CTL_A_ARG_HEALTH_MASK = 0x051a,	/* u32 */
	UL_CTL_A_ARG_PTL_MASK = 0x051b,		/* u64 */
	UL_CTL_A_ARG_TIMEOUT_MS = 0x051c,	/* u32 */
	UL_CTL_A_ARG_NUMA = 0x051d,		/* s32 */
	UL_CTL_A_ARG_NIDS = 0x0520,		/* nid, repeated: a list */
	UL_CTL_A_ARG_IFS = 0x0521,		/* str, repeated: a list */
	UL_CTL_A_ARG_UDSP_BLOCK = 0x0522,	/* bytes: wire/udsp_block.h */

	/*
	 * 0x06xx: the reply document of the generic ops (proto_doc.h): a
	 * tree of mappings, sequences and scalars with lnetctl's key names
	 */
	UL_CTL_A_Y_MAP = 0x0600,  /* nested: KEY, value, KEY, value... */
	UL_CTL_A_Y_SEQ = 0x0601,  /* nested: values */
	UL_CTL_A_Y_KEY = 0x0602,  /* str: the next value's key */
	UL_CTL_A_Y_STR = 0x0603,  /* str: a plain scalar */
	UL_CTL_A_Y_QSTR = 0x0604, /* str: a double-quoted scalar (CPT) */
	UL_CTL_A_Y_INT = 0x0605,  /* s64 */
	UL_CTL_A_Y_UINT = 0x0606, /* u64 */
	UL_CTL_A_Y_BOOL = 0x0607, /* u32: 0 or 1, printed false / true */

	/* 0x0cxx: perf streams (ulnet's own) */
	UL_CTL_A_PERF_SIZE = 0x0c00,	     /* u32: bytes per PUT */
	UL_CTL_A_PERF_DURATION_MS = 0x0c01,  /* u32 */
	UL_CTL_A_PERF_INFLIGHT = 0x0c02,     /* u32 */
	UL_CTL_A_PERF_PUTS = 0x0c03,	     /* u64 */
	UL_CTL_A_PERF_BYTES = 0x0c04,	     /* u64 */
	UL_CTL_A_PERF_FAILED = 0x0c05,	     /* u64 */
	UL_CTL_A_PERF_ELAPSED_NS = 0x0c06,   /* u64 */
	UL_CTL_A_PERF_RAIL = 0x0c07,	     /* nested {NID, PUTS, BYTES} */
	UL_CTL_A_PERF_STARTED = 0x0c08,	     /* u64 */
	UL_CTL_A_PERF_SEND_NS = 0x0c09,	     /* u64 */
	UL_CTL_A_PERF_SEND_BYTES = 0x0c0a,   /* u64 */
	UL_CTL_A_PERF_FAIL = 0x0c0b,	     /* nested {STATUS, COUNT} */
	UL_CTL_A_PERF_STATUS = 0x0c0c,	     /* s32: a negative errno */
	UL_CTL_A_PERF_COUNT = 0x0c0d,	     /* u64 */
	UL_CTL_A_PERF_OP = 0x0c0e,	     /* u32: enum ul_perf_op */
	UL_CTL_A_PERF_CHECK = 0x0c0f,	     /* u32: enum ul_perf_check */
	UL_CTL_A_PERF_TARGET = 0x0c10,	     /* NID: one more target */
	UL_CTL_A_PERF_CHECK_ERRORS = 0x0c11, /* u64 */

	/* 0x0dxx: batches (ulnet's own) */
	UL_CTL_A_BATCH_OP = 0x0d00,   /* u32: the items' op */
	UL_CTL_A_BATCH_ITEM = 0x0d01, /* nested: one request's ARG_* */
	UL_CTL_A_BATCH_DONE = 0x0d02, /* u32: items applied */

	UL_CTL_A__MAX = 0x0e00,
};

/* LNet's NI status words (ping info, UL_CTL_A_STATUS). */
#define UL_CTL_NI_STATUS_UP 0x15aac0deu
#define UL_CTL_NI_STATUS_DOWN 0xdeadfaceu

/* ---- Building a message --------------------------------------------- */

/*
 * A message under construction. The first failure (-ENOMEM, -EMSGSIZE
 * past the limit of its kind, -EINVAL for unbalanced nests or a string too
 * long) sticks and turns later puts into no-ops, so builders are
 * straight-line code checked once by ul_ctl_msg_finish().
 */
struct ul_ctl_msg {
	uint8_t *buf; /* header + payload, owned */
	size_t len;
	size_t cap;
	size_t nest[UL_CTL_NEST_MAX]; /* offsets of open nested attributes */
	unsigned int depth;
	int err;
	size_t max; /* payload limit: request or reply, from the op */
};

/* Start a message with this op (reply bit included if it is a reply). */
void ul_ctl_msg_init(struct ul_ctl_msg *m, uint16_t op);
/* Free the buffer (safe on an initialised message, also twice). */
void ul_ctl_msg_fini(struct ul_ctl_msg *m);
/*
 * Close the message: write the payload length. 0 and the frame in
 * m->buf / m->len, or the sticky error.
 */
int ul_ctl_msg_finish(struct ul_ctl_msg *m);

void ul_ctl_put_u32(struct ul_ctl_msg *m, uint16_t type, uint32_t v);
void ul_ctl_put_s32(struct ul_ctl_msg *m, uint16_t type, int32_t v);
void ul_ctl_put_u64(struct ul_ctl_msg *m, uint16_t type, uint64_t v);
void ul_ctl_put_s64(struct ul_ctl_msg *m, uint16_t type, int64_t v);
void ul_ctl_put_str(struct ul_ctl_msg *m, uint16_t type, const char *s);
void ul_ctl_put_nid(struct ul_ctl_msg *m, uint16_t type,
		    const struct ulnet_nid *nid);
void ul_ctl_put_bytes(struct ul_ctl_msg *m, uint16_t type, const void *p,
		      size_t len);
void ul_ctl_put_flag(struct ul_ctl_msg *m, uint16_t type);
void ul_ctl_nest_start(struct ul_ctl_msg *m, uint16_t type);
void ul_ctl_nest_end(struct ul_ctl_msg *m);

/* ---- Parsing --------------------------------------------------------- */

struct ul_ctl_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t op;
	uint32_t len; /* payload bytes */
};

/*
 * Decode the 12-byte header at buf (len >= UL_CTL_HDR_SIZE, else
 * -EPROTO). -EPROTO for a bad magic or a length over the limit (of a
 * reply if the op has UL_CTL_OP_REPLY, else of a request); any version
 * decodes (the caller answers a mismatch).
 */
int ul_ctl_hdr_decode(const void *buf, size_t len, struct ul_ctl_hdr *h,
		      struct ul_err *err);

/* One attribute, its value borrowed from the message buffer. */
struct ul_ctl_attr {
	uint16_t type;
	uint16_t flags;
	uint32_t len;
	const uint8_t *val;
};

struct ul_ctl_iter {
	const uint8_t *p;
	size_t left;
};

void ul_ctl_iter_init(struct ul_ctl_iter *it, const void *payload, size_t len);
/* Iterate the attributes nested in a (which must be nested). */
void ul_ctl_iter_nested(struct ul_ctl_iter *it, const struct ul_ctl_attr *a);
/*
 * Next attribute, checked against its id's type: 1 and *a, 0 at the end,
 * -EPROTO (with the reason in err) for anything malformed.
 */
int ul_ctl_iter_next(struct ul_ctl_iter *it, struct ul_ctl_attr *a,
		     struct ul_err *err);
/* The type of an attribute id in this version. */
enum ul_ctl_type ul_ctl_attr_type(uint16_t type);

/* Values of checked attributes (the iterator verified their sizes). */
uint32_t ul_ctl_attr_u32(const struct ul_ctl_attr *a);
int32_t ul_ctl_attr_s32(const struct ul_ctl_attr *a);
uint64_t ul_ctl_attr_u64(const struct ul_ctl_attr *a);
int64_t ul_ctl_attr_s64(const struct ul_ctl_attr *a);
const char *ul_ctl_attr_str(const struct ul_ctl_attr *a);
void ul_ctl_attr_nid(const struct ul_ctl_attr *a, struct ulnet_nid *nid);

/* ---- Requests -------------------------------------------------------- */

#define UL_CTL_NET_NAME_MAX 32

struct ul_ctl_ping_req {
	struct ulnet_nid target;
	bool has_src;
	struct ulnet_nid src;
	bool has_timeout;
	uint32_t timeout_ms;
};

/*
 * The verbose level of a NET_SHOW or PEER_SHOW that asks for what
 * `export --backup` keeps (lnetctl.md §15): for an NI its interfaces (or,
 * given by NID alone, its "nid:", which ulnet's import reads), tunables,
 * LND tunables without the read-only timeout, and CPT, the lo net left
 * out; for a peer its primary NID, Multi-Rail and its peer NIs' NIDs. A
 * user's -v N never reaches it (lnetctl keeps the low byte).
 */
#define UL_CTL_SHOW_BACKUP UINT32_MAX

struct ul_ctl_net_show_req {
	bool has_net;
	char net[UL_CTL_NET_NAME_MAX]; /* as typed; the server parses it */
	uint32_t verbose;	       /* 0 when not given */
};

struct ul_ctl_peer_show_req {
	bool has_nid;
	struct ulnet_nid nid;
	uint32_t verbose;
	bool has_cursor; /* paged: the page from item cursor on */
	uint32_t cursor;
};

/* Most targets one perf request names (runtime/perf.h's limit). */
#define UL_CTL_PERF_TARGETS_MAX 64

struct ul_ctl_perf_req {
	uint32_t ntargets; /* 1.., the first is the NID attribute */
	struct ulnet_nid targets[UL_CTL_PERF_TARGETS_MAX];
	uint32_t size; /* bytes per PUT or GET */
	uint32_t duration_ms;
	uint32_t inflight;
	uint32_t op;	/* enum ul_perf_op */
	uint32_t check; /* enum ul_perf_check */
};

/*
 * The request of every generic op: what lnetctl's options give, each field
 * present only when its UL_CTL_ARG_* bit is set in has (flags are present
 * when set). Which fields an op reads is the server handler's business;
 * ulnetctl fills what the command line gave, already parsed (NIDs and NID
 * ranges expanded; net names and CPT expressions as typed, the server
 * parses them and answers lnetctl's errors).
 */
#define UL_CTL_ARGS_NIDS_MAX 1024 /* a NID list; peer add allows 128 */
#define UL_CTL_ARGS_IFS_MAX 32
#define UL_CTL_IFNAME_MAX 128 /* "eth0[0,1]" as typed */
#define UL_CTL_NAME_MAX 64

enum {
	UL_CTL_ARG_VERBOSE = 1ULL << 0,
	UL_CTL_ARG_NID = 1ULL << 1,	  /* the object (primary, local NI) */
	UL_CTL_ARG_NID2 = 1ULL << 2,	  /* a second one (fault dst) */
	UL_CTL_ARG_LOCAL_NID = 1ULL << 3, /* ping/fault --source, -o */
	UL_CTL_ARG_NET = 1ULL << 4,
	UL_CTL_ARG_NAME = 1ULL << 5, /* a tunable's name (set) */
	UL_CTL_ARG_CPT = 1ULL << 6,
	UL_CTL_ARG_VALUE = 1ULL << 7,
	UL_CTL_ARG_PEER_TIMEOUT = 1ULL << 8,
	UL_CTL_ARG_PEER_CREDITS = 1ULL << 9,
	UL_CTL_ARG_PEER_BUF_CREDITS = 1ULL << 10,
	UL_CTL_ARG_CREDITS = 1ULL << 11,
	UL_CTL_ARG_CONNS_PER_PEER = 1ULL << 12,
	UL_CTL_ARG_TOS = 1ULL << 13,
	UL_CTL_ARG_LND_TIMEOUT = 1ULL << 14,
	UL_CTL_ARG_HEALTH = 1ULL << 15,
	UL_CTL_ARG_HOP = 1ULL << 16,
	UL_CTL_ARG_PRIORITY = 1ULL << 17,
	UL_CTL_ARG_IDX = 1ULL << 18,
	UL_CTL_ARG_STATE = 1ULL << 19,
	UL_CTL_ARG_RATE = 1ULL << 20,
	UL_CTL_ARG_INTERVAL = 1ULL << 21,
	UL_CTL_ARG_LATENCY = 1ULL << 22,
	UL_CTL_ARG_MSG_MASK = 1ULL << 23,
	UL_CTL_ARG_HEALTH_MASK = 1ULL << 24,
	UL_CTL_ARG_PTL_MASK = 1ULL << 25,
	UL_CTL_ARG_TIMEOUT_MS = 1ULL << 26,
	UL_CTL_ARG_UDSP_BLOCK = 1ULL << 27,
	UL_CTL_ARG_NIDS = 1ULL << 28, /* nids[] given (may be empty) */
	UL_CTL_ARG_IFS = 1ULL << 29,
	UL_CTL_ARG_NUMA = 1ULL << 30, /* net add: the NIs' NUMA node */
};

/* Switches (lnetctl's options without a value). */
enum {
	UL_CTL_ARGF_ALL = 1U << 0,	 /* --all */
	UL_CTL_ARGF_FORCE = 1U << 1,	 /* --force */
	UL_CTL_ARGF_LOCK_PRIM = 1U << 2, /* --lock_prim */
	UL_CTL_ARGF_NON_MR = 1U << 3,	 /* --non_mr */
	UL_CTL_ARGF_LOCAL = 1U << 4,	 /* debug recovery --local */
	UL_CTL_ARGF_PEER = 1U << 5,	 /* debug recovery --peer */
	UL_CTL_ARGF_RANDOM = 1U << 6,	 /* fault --random */
	UL_CTL_ARGF_DROP_ALL = 1U << 7,	 /* fault --drop_all */
	UL_CTL_ARGF_DELAY = 1U << 8,	 /* fault: a delay rule, not drop */
	UL_CTL_ARGF_LARGE = 1U << 9,	 /* lnet configure --large */
	UL_CTL_ARGF_BACKUP = 1U << 10,	 /* a show for export --backup */
	UL_CTL_ARGF_IP2NET = 1U << 11,	 /* net add: one net of --ip2net */
	UL_CTL_ARGF_IMPORT = 1U << 12,	 /* a peer add sent by import */
};

struct ul_ctl_args {
	uint64_t has;	/* UL_CTL_ARG_* */
	uint32_t flags; /* UL_CTL_ARGF_* */
	uint32_t verbose;
	struct ulnet_nid nid;
	struct ulnet_nid nid2;
	struct ulnet_nid local_nid;
	char net[UL_CTL_NET_NAME_MAX];
	char name[UL_CTL_NAME_MAX];
	char cpt[UL_CTL_NAME_MAX];
	int64_t value;
	int32_t peer_timeout;
	int32_t peer_credits;
	int32_t peer_buffer_credits;
	int32_t credits;
	int32_t conns_per_peer;
	int32_t tos;
	int32_t lnd_timeout;
	int32_t health;
	int32_t hop;
	int32_t priority;
	int32_t idx;
	uint32_t state;
	uint32_t rate;
	uint32_t interval;
	uint32_t latency;
	uint32_t msg_mask;
	uint32_t health_mask;
	uint64_t ptl_mask;
	uint32_t timeout_ms;
	int32_t numa; /* a dry run's "dev cpt" (ctl/node_req.h) */
	/* Borrowed: the caller's buffer when encoding, the request frame's
	 * bytes when decoded (valid while the frame is). */
	const uint8_t *udsp_block;
	size_t udsp_len;
	size_t nnids;
	struct ulnet_nid nids[UL_CTL_ARGS_NIDS_MAX];
	size_t nifs;
	char ifs[UL_CTL_ARGS_IFS_MAX][UL_CTL_IFNAME_MAX];
};

/* True for the ops whose request is struct ul_ctl_args. */
bool ul_ctl_op_is_generic(uint16_t op);

/*
 * A batch (UL_CTL_OP_BATCH): items of one op. The sender builds the items
 * in a message of their own (ul_ctl_batch_init(), ul_ctl_batch_add()) and
 * points the request at them; the decoder points them into the frame,
 * every item checked, so ul_ctl_batch_next() cannot fail on a decoded
 * request.
 */
#define UL_CTL_BATCH_MAX 1024
/*
 * Room a sender leaves in the request for the next item: more than the
 * largest struct ul_ctl_args encodes to (1024 NIDs and 32 interfaces,
 * about 34 KiB, and a UDSP block of at most 128 KiB, wire/udsp_block.h).
 */
#define UL_CTL_BATCH_ITEM_ROOM (256u << 10)

struct ul_ctl_batch_req {
	uint16_t op;	      /* a batchable generic op */
	uint32_t n;	      /* items */
	const uint8_t *items; /* BATCH_ITEM attributes, len bytes */
	size_t len;
};

/* Net, peer and route add/del/set, set, udsp add/del. */
bool ul_ctl_op_is_batchable(uint16_t op);
/* Start the items of a batch in items (a message of their own). */
void ul_ctl_batch_init(struct ul_ctl_msg *items);
/* Append one item; the message's sticky error says if it did not fit. */
void ul_ctl_batch_add(struct ul_ctl_msg *items, const struct ul_ctl_args *a);
/* Point b at the items built in items (borrowed until encoded). */
void ul_ctl_batch_items(const struct ul_ctl_msg *items, uint32_t n,
			struct ul_ctl_batch_req *b);
/*
 * The items of a decoded batch one by one: ul_ctl_batch_iter() starts,
 * ul_ctl_batch_next() decodes the next into *a (1), or says there is none
 * (0) or that it is malformed (-EPROTO, err says why).
 */
void ul_ctl_batch_iter(const struct ul_ctl_batch_req *b,
		       struct ul_ctl_iter *it);
int ul_ctl_batch_next(struct ul_ctl_iter *it, struct ul_ctl_args *a,
		      struct ul_err *err);

struct ul_ctl_req {
	uint16_t op; /* enum ul_ctl_op */
	union {
		struct ul_ctl_perf_req perf;
		struct ul_ctl_ping_req ping;
		struct ul_ctl_net_show_req net_show;
		struct ul_ctl_peer_show_req peer_show;
		struct ul_ctl_batch_req batch;
		struct ul_ctl_args args; /* the generic ops */
	};
};

/* Build the request's frame in m (initialised here). 0 or -errno. */
int ul_ctl_req_encode(const struct ul_ctl_req *req, struct ul_ctl_msg *m);
/*
 * Decode a whole request frame (header + payload, len bytes exactly).
 * 0 and *out; -EPROTO (malformed, another version, a missing mandatory
 * attribute), -EOPNOTSUPP (an op this version does not know). err says
 * why. *out is set only on success.
 */
int ul_ctl_req_decode(const void *frame, size_t len, struct ul_ctl_req *out,
		      struct ul_err *err);

/* ---- Replies --------------------------------------------------------- */

struct ul_ctl_ping_ni {
	struct ulnet_nid nid;
	uint32_t status;
};

/* What one local NI sent during a perf stream. */
struct ul_ctl_perf_rail {
	struct ulnet_nid nid;
	uint64_t puts;
	uint64_t bytes;
};

/* Distinct failure statuses a perf reply carries (more are dropped). */
#define UL_CTL_PERF_FAILS_MAX 16

/* The PUTs of a perf stream that failed with one status. */
struct ul_ctl_perf_fail {
	int32_t status; /* negative errno */
	uint64_t count;
};

struct ul_ynode;

struct ul_ctl_reply {
	uint16_t op; /* the request's op, without UL_CTL_OP_REPLY */
	/*
	 * A generic op's document (proto_doc.h) when rc is 0 and the
	 * server sent one, else NULL; owned, freed by ul_ctl_reply_fini().
	 */
	struct ul_ynode *doc;
	/*
	 * Instead, with UL_CTL_REPLY_RAW_DOC: the document checked but not
	 * decoded, its Y_MAP attribute (header included) copied here, for
	 * ul_ctl_doc_walk(); owned, freed by ul_ctl_reply_fini().
	 */
	uint8_t *doc_raw;
	size_t doc_raw_len;
	int32_t rc;
	char err_msg[UL_CTL_STR_MAX]; /* "" when none */
	uint32_t version;	      /* UL_CTL_A_VERSION if sent, else 0 */
	/*
	 * BATCH: items applied (sent whatever RC is); has_batch_done false
	 * when the reply had none (a daemon without batches).
	 */
	uint32_t batch_done;
	bool has_batch_done;
	/* A paged reply (PEER_SHOW): where the next page starts, if any. */
	uint32_t cursor;
	bool has_cursor;
	union {
		struct {
			struct ulnet_nid primary; /* the peer record's */
			bool is_mr;		  /* the peer record's */
			uint32_t pid;		  /* the reply's, as features */
			uint32_t features;
			size_t nnis;
			struct ul_ctl_ping_ni *nis;
		} ping;
		struct {
			uint64_t puts; /* ACKed */
			uint64_t bytes;
			uint64_t failed;
			uint64_t elapsed_ns;
			uint64_t started;
			uint64_t send_ns; /* the rate's window */
			uint64_t send_bytes;
			uint64_t check_errors;
			size_t nfails;
			struct ul_ctl_perf_fail fails[UL_CTL_PERF_FAILS_MAX];
			size_t nrails;
			struct ul_ctl_perf_rail *rails;
		} perf;
	};
};

/*
 * Build a reply frame in m (initialised here): the envelope always, the
 * op's data only when rc is 0. 0 or -errno (-EMSGSIZE: too large).
 */
int ul_ctl_reply_encode(const struct ul_ctl_reply *r, struct ul_ctl_msg *m);
/*
 * Decode a whole reply frame into *out (zeroed first; arrays allocated).
 * The frame must answer op. 0, -EPROTO (malformed, wrong op), -ENOMEM.
 * On failure *out holds nothing to free.
 */
int ul_ctl_reply_decode(const void *frame, size_t len, uint16_t op,
			struct ul_ctl_reply *out, struct ul_err *err);
/* The same, with flags: */
#define UL_CTL_REPLY_RAW_DOC 0x1u /* doc_raw instead of doc */
int ul_ctl_reply_decode_flags(const void *frame, size_t len, uint16_t op,
			      unsigned int flags, struct ul_ctl_reply *out,
			      struct ul_err *err);
/* Free what ul_ctl_reply_decode() (or a builder) allocated in r. */
void ul_ctl_reply_fini(struct ul_ctl_reply *r);

/* Build a reply that is an error only. */
void ul_ctl_reply_error(struct ul_ctl_reply *r, uint16_t op, int rc,
			const char *msg);

#endif /* UL_CTL_PROTO_H */
