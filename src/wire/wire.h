/*
 * Wire codec: byte-exact encode and decode of every structure that crosses
 * a socklnd TCP connection (reference/wire.md, the spec for this layer).
 *
 * A connection carries, in order (wire.md §1):
 *   1. the acceptor request, 16 or 28 bytes (connector to acceptor, once);
 *   2. the socklnd hello, each way (56 + 4 * nips bytes for V2/V3, 80 for
 *      V4, 72 + 4 * nips for V1);
 *   3. ksock messages back to back: a 24-byte ksock header, then for LNET
 *      messages a 72-byte (V2/V3) or 96-byte (V4) LNet header and
 *      payload_length bytes of payload. Ping info (§5.9) travels as payload.
 *
 * In memory every structure is a plain C struct with host-order fields;
 * NIDs are struct ulnet_nid. The functions here convert, and nothing else:
 * no I/O, no allocation, no global state; any thread may call them.
 *
 * Conventions of every function below:
 *   - Decoders take (buf, len) and read nothing outside it. They return
 *     the number of bytes the structure occupies (> 0) and fill *out, or a
 *     negative errno and leave *out untouched:
 *       -ENOMSG           buf ends before the structure does: read more;
 *       -EPROTO           the bytes are invalid (a "close" of wire.md §10);
 *       -EPROTONOSUPPORT  a known magic with an unknown version;
 *       -ENOSPC           a caller-supplied output array is too small.
 *     Every failure writes one line of detail into err (which may be NULL).
 *   - Encoders take (buf, cap) and return the number of bytes written, or
 *     -ENOSPC when cap is too small (nothing useful is written then), or
 *     -EINVAL when the struct cannot be represented (for example an IPv6
 *     NID where the 64-bit form is needed).
 *   - The "frame" functions answer "how long is the unit at the start of
 *     buf?": 0 with *size = its length, or -ENOMSG with *size = the buffer
 *     length needed before the answer can change (so *size > len), or
 *     -EPROTO/-EPROTONOSUPPORT. They are the one documented exception to
 *     "out-parameters only on success": *size is also set on -ENOMSG.
 *   - "is_swapped" means the peer wrote its host-order fields big-endian,
 *     as its magic showed (wire.md §6). Encoders honour it too, so
 *     encode(decode(bytes)) gives back the same bytes; ulnet itself always
 *     sends little-endian (is_swapped false).
 *
 * Which checks are decode errors and which are left to callers is listed
 * above each decoder. In short: everything that makes the bytes
 * unparsable or that wire.md §10 answers with "close" without needing
 * connection or node state is a decode error; everything that needs state
 * (which NIDs are ours, outstanding zero-copy cookies, races, portals and
 * match entries, handles) is the caller's.
 */
#ifndef UL_WIRE_WIRE_H
#define UL_WIRE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ulnet/nid.h"
#include "util/err.h"

/* ---- Constants (wire.md §2) ------------------------------------------ */

#define UL_WIRE_ACCEPTOR_MAGIC UINT32_C(0xacce7100)
#define UL_WIRE_ACCEPTOR_VERSION 1    /* request with a 64-bit NID */
#define UL_WIRE_ACCEPTOR_VERSION_16 2 /* request with a 20-byte NID */
#define UL_WIRE_PROTO_MAGIC UINT32_C(0x45726963) /* hello V2..V4 */
#define UL_WIRE_TCP_MAGIC UINT32_C(0xeebc0ded)	 /* hello V1 */
#define UL_WIRE_TCP_VERSION_MAJOR 1
#define UL_WIRE_TCP_VERSION_MINOR 0
#define UL_WIRE_PING_MAGIC UINT32_C(0x70696e67) /* "ping" */
/* Magics of other LNDs; never seen on socklnd. */
#define UL_WIRE_IB_MAGIC UINT32_C(0x0be91b91)
#define UL_WIRE_GNI_MAGIC UINT32_C(0xb00fbabe)
#define UL_WIRE_KFI_MAGIC UINT32_C(0xdeadbeef)
#define UL_WIRE_EFA_MAGIC UINT32_C(0x2be092be)

/* socklnd protocol versions; V1 is the 1.0 of the TCP magic. */
enum ul_wire_proto {
	UL_WIRE_PROTO_V1 = 1,
	UL_WIRE_PROTO_V2 = 2,
	UL_WIRE_PROTO_V3 = 3,
	UL_WIRE_PROTO_V4 = 4,
};

/* ksock message types (ksh_type). */
enum ul_wire_ksock_type {
	UL_WIRE_KSOCK_NOOP = 0xc0, /* header only */
	UL_WIRE_KSOCK_LNET = 0xc1, /* LNet header and payload follow */
};

/* Connection types (kshm_ctype), from the hello sender's point of view. */
enum ul_wire_conn_type {
	UL_WIRE_CONN_ANY = 0,
	UL_WIRE_CONN_CONTROL = 1,
	UL_WIRE_CONN_BULK_IN = 2, /* the "ACK" connection */
	UL_WIRE_CONN_BULK_OUT = 3,
};
/* "Refused / retry" in a hello reply; -1 as a u32, so not an enum. */
#define UL_WIRE_CONN_NONE UINT32_C(0xffffffff)

/* LNet header type. HELLO is legal only as the V1 hello. */
enum ul_wire_msg_type {
	UL_WIRE_MSG_ACK = 0,
	UL_WIRE_MSG_PUT = 1,
	UL_WIRE_MSG_GET = 2,
	UL_WIRE_MSG_REPLY = 3,
	UL_WIRE_MSG_HELLO = 4,
};

/* Ping feature bits (pi_features). */
enum ul_wire_ping_feat {
	UL_WIRE_PING_FEAT_BASE = 0x01,
	UL_WIRE_PING_FEAT_NI_STATUS = 0x02, /* required by receivers */
	UL_WIRE_PING_FEAT_RTE_DISABLED = 0x04,
	UL_WIRE_PING_FEAT_MULTI_RAIL = 0x08,
	UL_WIRE_PING_FEAT_DISCOVERY = 0x10,
	UL_WIRE_PING_FEAT_LARGE_ADDR = 0x20,
	UL_WIRE_PING_FEAT_PRIMARY_LARGE = 0x40,
	UL_WIRE_PING_FEAT_METADATA = 0x80,
	UL_WIRE_PING_FEAT_BITS = 0xff,
};

/* ns_status values; above INT_MAX, so not an enum. */
#define UL_WIRE_NI_STATUS_UP UINT32_C(0x15aac0de)
#define UL_WIRE_NI_STATUS_DOWN UINT32_C(0xdeadface)
#define UL_WIRE_NI_STATUS_INVALID UINT32_C(0)

#define UL_WIRE_RESERVED_PORTAL 0
#define UL_WIRE_MAX_PORTALS 64
#define UL_WIRE_PING_MATCHBITS UINT64_C(0x8000000000000000)
#define UL_WIRE_PID_LUSTRE UINT32_C(12345)
#define UL_WIRE_PID_ANY UINT32_C(0xffffffff)
#define UL_WIRE_PID_USERFLAG UINT32_C(0x80000000)
#define UL_WIRE_PID_RESERVED UINT32_C(0xf0000000)
#define UL_WIRE_NID4_ANY UINT64_C(0xffffffffffffffff)
#define UL_WIRE_NID4_LO UINT64_C(0x0009000000000000) /* 0@lo */
#define UL_WIRE_HANDLE_COOKIE_NONE UINT64_C(0xffffffffffffffff)
#define UL_WIRE_KEEPALIVE_PING 1 /* zc cookie meaning "keepalive" */
#define UL_WIRE_ACCEPT_PORT 988
#define UL_WIRE_PRIV_PORT_MIN 512
#define UL_WIRE_PRIV_PORT_MAX 1023

/* Limits. */
#define UL_WIRE_LNET_MTU 0x100000 /* max payload_length */
#define UL_WIRE_INTERFACES_NUM 16 /* max IPs in a V1..V3 hello */
#define UL_WIRE_INTERFACES_MIN 16
/* Max ping info entries in all, 64-bit and large (lnet_interfaces_max). */
#define UL_WIRE_INTERFACES_MAX 4096
#define UL_WIRE_PING_INFO_MIN_SIZE 272 /* 16 + 16 * 16 */

/* Sizes of the on-wire structures (wire.md §5.10). */
#define UL_WIRE_NID4_SIZE 8
#define UL_WIRE_NID_SIZE 20
#define UL_WIRE_MAGICVERSION_SIZE 8
#define UL_WIRE_ACR_SIZE 16
#define UL_WIRE_ACR_V2_SIZE 28
#define UL_WIRE_HELLO_NID4_SIZE 56 /* V2/V3, before the IPs */
#define UL_WIRE_HELLO_V4_SIZE 80
#define UL_WIRE_HELLO_V1_SIZE 72 /* before the IPs */
#define UL_WIRE_KSOCK_HDR_SIZE 24
#define UL_WIRE_LNET_HDR_NID4_SIZE 72
#define UL_WIRE_LNET_HDR_NID16_SIZE 96
#define UL_WIRE_MSG_UNION_SIZE 40
#define UL_WIRE_HANDLE_SIZE 16
#define UL_WIRE_PROCESS_ID_PACKED_SIZE 12
#define UL_WIRE_PING_HDR_SIZE 16
#define UL_WIRE_PING_NI_SIZE 16
#define UL_WIRE_PING_LARGE_NI_MAX_SIZE 24 /* declared; wire size varies */
#define UL_WIRE_PING_META_ENTRY_SIZE 40
/*
 * Largest ping info the codec accepts: the header, UL_WIRE_INTERFACES_MAX
 * entries in all, each at most a 24-byte large entry, and a full metadata
 * block (a count and UL_WIRE_INTERFACES_MAX entries). 262164 bytes.
 */
#define UL_WIRE_PING_INFO_MAX_SIZE                                             \
	(UL_WIRE_PING_HDR_SIZE +                                               \
	 UL_WIRE_INTERFACES_MAX * UL_WIRE_PING_LARGE_NI_MAX_SIZE + 4 +         \
	 UL_WIRE_INTERFACES_MAX * UL_WIRE_PING_META_ENTRY_SIZE)
/* Largest V1..V4 hello, IPs included (V1/V2/V3 with 16 IPs). */
#define UL_WIRE_HELLO_MAX_SIZE (UL_WIRE_HELLO_V1_SIZE + 4 * 16)

/* ---- What starts a buffer (wire.md §1, §2) --------------------------- */

/* The kind of unit a buffer starts with, by its first four bytes. */
enum ul_wire_unit {
	UL_WIRE_UNIT_ACR,	/* acceptor magic, either byte order */
	UL_WIRE_UNIT_HELLO,	/* hello magic, or the V1 TCP magic; either
				 * order (the hello decoder then says why a
				 * swapped V1 magic is refused) */
	UL_WIRE_UNIT_KSOCK,	/* ksock type NOOP or LNET, either order */
	UL_WIRE_UNIT_PING_INFO, /* ping magic, either order: a payload,
				 * never a unit of the stream itself */
	UL_WIRE_UNIT_UNKNOWN,	/* none of these: not a unit start */
};

/*
 * Classify the unit at the start of buf: 0 and *unit, or -ENOMSG (and
 * *unit untouched) when len < 4. Nothing else is checked: decode the
 * unit with its own decoder (ksock messages also need the version and
 * byte order their connection's hello gave).
 */
int ul_wire_unit_classify(const void *buf, size_t len, enum ul_wire_unit *unit);
/* Whether buf starts with the ping magic, in either byte order. */
bool ul_wire_is_ping_info(const void *buf, size_t len);

/* ---- NIDs ------------------------------------------------------------ */

/*
 * 64-bit NID <-> struct ulnet_nid (wire.md §3): ulnet_nid_from_nid4() and
 * ulnet_nid_to_nid4() (ulnet/nid.h) with the codec's error codes and the
 * detail in err. A 64-bit value with a non-zero top byte that is not
 * LNET_NID_ANY has no struct form: -EPROTO. Encoding a NID that has no
 * 64-bit form (nid_size != 0, or address words 1..3 set) gives -EINVAL.
 * ANY maps to ANY both ways; as in LNet, any NID of type 0xff is ANY.
 */
int ul_wire_nid4_to_nid(uint64_t nid4, struct ulnet_nid *nid,
			struct ul_err *err);
int ul_wire_nid_to_nid4(const struct ulnet_nid *nid, uint64_t *nid4,
			struct ul_err *err);
/* The 20-byte form (§3.2); any 20 bytes decode, so no error is possible. */
void ul_wire_nid_get(const uint8_t *p, struct ulnet_nid *nid);
void ul_wire_nid_put(uint8_t *p, const struct ulnet_nid *nid);

/* ---- Acceptor request (wire.md §5.1, §10.1) -------------------------- */

/* What an acceptor does with the first bytes of a connection (§10.1). */
enum ul_wire_acr_verdict {
	UL_WIRE_ACR_OK,		 /* version 1 or 2: read the NID */
	UL_WIRE_ACR_HELLO,	 /* LNET_PROTO_MAGIC: version answer, close */
	UL_WIRE_ACR_OLD_TCP,	 /* V1 TCP magic: log "old socknal", close */
	UL_WIRE_ACR_BAD_MAGIC,	 /* anything else: close */
	UL_WIRE_ACR_BAD_VERSION, /* version answer, close */
};

struct ul_wire_acr {
	uint32_t version;     /* UL_WIRE_ACCEPTOR_VERSION or _VERSION_16 */
	bool is_swapped;      /* magic arrived byte-swapped */
	struct ulnet_nid nid; /* the NID the connector wants to reach */
};

/*
 * Classify the start of a connection: 0 and *verdict once enough bytes are
 * there (4 for a wrong magic, 8 otherwise), and *size = the request's full
 * length for UL_WIRE_ACR_OK (16 or 28), else the bytes looked at. -ENOMSG
 * with *size = bytes needed. Never fails otherwise.
 */
int ul_wire_acr_classify(const void *buf, size_t len,
			 enum ul_wire_acr_verdict *verdict, size_t *size);
/*
 * Decode a request. Errors: -ENOMSG; -EPROTO for any magic but the
 * acceptor's; -EPROTONOSUPPORT for a version other than 1 and 2; -EPROTO
 * for a v1 NID with no struct form. Left to the caller: whether the NID is
 * one of ours and its LND accepts connections.
 */
int ul_wire_acr_decode(const void *buf, size_t len, struct ul_wire_acr *acr,
		       struct ul_err *err);
int ul_wire_acr_encode(const struct ul_wire_acr *acr, void *buf, size_t cap,
		       struct ul_err *err);
/* The 16-byte "version answer" (magic, version 1, NID 0) of §5.1. */
int ul_wire_acr_encode_version_answer(void *buf, size_t cap);

/* ---- socklnd hello (wire.md §5.2-§5.4, §10.2, §10.3) ------------------ */

struct ul_wire_hello {
	uint32_t version; /* enum ul_wire_proto */
	bool is_swapped;  /* V2..V4: magic arrived byte-swapped */
	struct ulnet_nid src_nid;
	struct ulnet_nid dst_nid; /* V1: not on the wire, all zero */
	uint32_t src_pid;
	uint32_t dst_pid;
	uint64_t src_incarnation;
	uint64_t dst_incarnation; /* V1: not on the wire, 0 */
	uint32_t ctype;		  /* enum ul_wire_conn_type or _NONE */
	uint32_t nips;		  /* V1..V3: 0..16; V4: always 0 */
	uint32_t ips[UL_WIRE_INTERFACES_NUM]; /* host-order IPv4, non-zero */
};

/* What the first 8 bytes (lnet_magicversion) of a hello say. */
struct ul_wire_hello_start {
	uint32_t version; /* enum ul_wire_proto */
	bool is_swapped;
	size_t fixed_size; /* 72 (V1), 56 (V2/V3), 80 (V4): IPs excluded */
};

/*
 * Step 1 of reading a hello as the kernel does: magic and version.
 * Returns 8. Errors: -ENOMSG (fewer than 4 bytes, or a good magic and
 * fewer than 8); -EPROTO for an unknown magic (close, §10.2);
 * -EPROTONOSUPPORT for a known magic with an unknown version (reply with
 * our own hello, ctype NONE, then close: §4.6). The V1 magic is accepted
 * little-endian only, as the kernel does.
 */
int ul_wire_hello_start_decode(const void *buf, size_t len,
			       struct ul_wire_hello_start *hs,
			       struct ul_err *err);
/*
 * Step 2: the bytes after the first 8, IPs included. Returns how many of
 * them it used. Decode errors: -ENOMSG; -EPROTO for nips > 16, a zero IP,
 * V4 nips != 0, V1 type != HELLO or payload_length not a multiple of 4,
 * a 64-bit NID with no struct form. Left to the caller (§10.2, §10.3):
 * src_nid not ANY, ctype range or NONE, pids, incarnation, races.
 */
int ul_wire_hello_rest_decode(const struct ul_wire_hello_start *hs,
			      const void *buf, size_t len,
			      struct ul_wire_hello *hello, struct ul_err *err);
/* Both steps on one buffer; returns the whole hello's length. */
int ul_wire_hello_decode(const void *buf, size_t len,
			 struct ul_wire_hello *hello, struct ul_err *err);
/* Length of the hello at the start of buf (see "frame" above). */
int ul_wire_hello_frame(const void *buf, size_t len, size_t *size,
			struct ul_err *err);
/*
 * Encode in hello->version; is_swapped is ignored for V1 (always LE), as
 * are dst_nid and dst_incarnation (not on the V1 wire). -EINVAL for a
 * version outside 1..4 and for what decode refuses: nips above 16 (V4:
 * not 0), a zero IP, a NID with no 64-bit form in V1..V3.
 */
int ul_wire_hello_encode(const struct ul_wire_hello *hello, void *buf,
			 size_t cap, struct ul_err *err);
/* The type a receiver records for a hello's ctype (§4.2 step 6). */
uint32_t ul_wire_conn_type_inverse(uint32_t ctype);

/* ---- ksock message header (wire.md §5.5, §9.1, §10.4) ---------------- */

struct ul_wire_ksock_hdr {
	uint32_t type;		/* enum ul_wire_ksock_type */
	uint32_t csum;		/* 0 = none (§9.4) */
	uint64_t zc_cookies[2]; /* [0] ZC request / ACK range start,
				 * [1] ZC ACK / range end / 1 = keepalive */
};

/*
 * Decode errors (-EPROTO): a type other than NOOP/LNET; on V3/V4 a
 * keepalive cookie that does not stand alone (zc_cookies[1] == 1 with
 * zc_cookies[0] other than 0 or 1 on a NOOP, which the kernel counts as
 * two ACKs). Left to the caller: whether the cookies name outstanding
 * zero-copy requests, and the checksum. version is 2, 3 or 4.
 *
 * Every ul_wire_ksock_* function given version 1 returns -EINVAL with
 * "V1 message framing is not supported": V1 messages are bare LNet
 * headers (§11), which this codec does not frame; only the V1 hello is
 * decoded. Other versions outside 2..4 are -EINVAL too.
 */
int ul_wire_ksock_hdr_decode(const void *buf, size_t len, uint32_t version,
			     bool is_swapped, struct ul_wire_ksock_hdr *ksh,
			     struct ul_err *err);
/*
 * -EINVAL for a version other than 2..4 and for what decode refuses in
 * that version (type, a keepalive cookie that does not stand alone).
 */
int ul_wire_ksock_hdr_encode(const struct ul_wire_ksock_hdr *ksh,
			     uint32_t version, bool is_swapped, void *buf,
			     size_t cap, struct ul_err *err);

/* ---- LNet header (wire.md §5.6-§5.8, §7.3, §10.5) --------------------- */

/*
 * A wire handle is opaque (§5.8): only its creator reads it. It is held
 * as two u64 loaded little-endian, which makes the bytes round-trip
 * exactly and shows an x86 creator's values as that creator meant them.
 */
struct ul_wire_handle {
	uint64_t wh_interface_cookie;
	uint64_t wh_object_cookie;
};

struct ul_wire_put {
	struct ul_wire_handle ack_wmd; /* both cookies NONE: no ACK wanted */
	uint64_t match_bits;
	uint64_t hdr_data; /* sender host order; held as LE */
	uint32_t ptl_index;
	uint32_t offset;
};

struct ul_wire_get {
	struct ul_wire_handle return_wmd;
	uint64_t match_bits;
	uint32_t ptl_index;
	uint32_t src_offset;
	uint32_t sink_length; /* bytes the requester can take */
};

struct ul_wire_ack {
	struct ul_wire_handle dst_wmd; /* the PUT's ack_wmd */
	uint64_t match_bits;	       /* sender host order; held as LE */
	uint32_t mlength;	       /* bytes of the PUT accepted */
};

struct ul_wire_reply {
	struct ul_wire_handle dst_wmd; /* the GET's return_wmd */
};

struct ul_wire_lnet_hdr {
	struct ulnet_nid dest_nid;
	struct ulnet_nid src_nid;
	uint32_t dest_pid;
	uint32_t src_pid;
	uint32_t type;		 /* enum ul_wire_msg_type, 0..3 */
	uint32_t payload_length; /* bytes after the header */
	union {
		struct ul_wire_put put;
		struct ul_wire_get get;
		struct ul_wire_ack ack;
		struct ul_wire_reply reply;
	} msg;
};

/* 72 for a nid4 header (V1..V3), 96 for a nid16 header (V4). */
size_t ul_wire_lnet_hdr_size(bool is_nid16);
/*
 * Decode errors (-EPROTO): type not 0..3 (HELLO and above); ACK or GET
 * with payload_length != 0; PUT or REPLY with payload_length > LNET_MTU;
 * a 64-bit NID with no struct form. Unused union bytes are ignored.
 * Left to the caller (§10.5): dest_nid ours / same net / routing, the
 * peer, portal < 64 (a drop, not a close), handles, REPLY vs sink_length.
 */
int ul_wire_lnet_hdr_decode(const void *buf, size_t len, bool is_nid16,
			    struct ul_wire_lnet_hdr *hdr, struct ul_err *err);
/*
 * Writes zeros in the unused union bytes (§7.2). -EINVAL for anything
 * decode refuses (type, payload_length) and for a NID with no 64-bit
 * form in a nid4 header.
 */
int ul_wire_lnet_hdr_encode(const struct ul_wire_lnet_hdr *hdr, bool is_nid16,
			    void *buf, size_t cap, struct ul_err *err);

/*
 * Header builders (§7.2, §7.3, §8). Each fills the whole *hdr, so unused
 * fields are zero. Responses copy handles and match bits unchanged from
 * the request and are addressed to its (src_nid, src_pid), from its
 * dest_nid; src_pid is the responder's own pid.
 */
void ul_wire_ping_get_init(struct ul_wire_lnet_hdr *hdr,
			   const struct ulnet_nid *dest_nid,
			   const struct ulnet_nid *src_nid, uint32_t src_pid,
			   const struct ul_wire_handle *return_wmd,
			   uint32_t sink_length);
void ul_wire_push_put_init(struct ul_wire_lnet_hdr *hdr,
			   const struct ulnet_nid *dest_nid,
			   const struct ulnet_nid *src_nid, uint32_t src_pid,
			   const struct ul_wire_handle *ack_wmd,
			   uint32_t payload_length);
void ul_wire_ack_init(struct ul_wire_lnet_hdr *ack,
		      const struct ul_wire_lnet_hdr *put, uint32_t src_pid,
		      uint32_t mlength);
void ul_wire_reply_init(struct ul_wire_lnet_hdr *reply,
			const struct ul_wire_lnet_hdr *get, uint32_t src_pid,
			uint32_t payload_length);

/* ---- ksock messages and stream framing (wire.md §1, §7.1) ------------ */

struct ul_wire_ksock_msg {
	struct ul_wire_ksock_hdr ksh;
	struct ul_wire_lnet_hdr hdr; /* LNET only */
	const uint8_t *payload;	     /* LNET only: points into the decoded
					 * buffer; hdr.payload_length bytes */
};

/*
 * Length of the ksock message at the start of a V2..V4 byte stream (see
 * "frame" above): 24 for a NOOP, 24 + 72 (96 on V4) + payload_length for
 * an LNET message. -EPROTO for a bad ksock type or payload_length above
 * LNET_MTU. Only what the length needs is checked here: decode the
 * message for the rest.
 */
int ul_wire_ksock_msg_frame(const void *buf, size_t len, uint32_t version,
			    bool is_swapped, size_t *size, struct ul_err *err);
/* The ksock header and LNet header checks above, together. */
int ul_wire_ksock_msg_decode(const void *buf, size_t len, uint32_t version,
			     bool is_swapped, struct ul_wire_ksock_msg *msg,
			     struct ul_err *err);
/*
 * Writes the headers and copies msg->payload (may be NULL if length 0).
 * -EINVAL for anything the two header encoders refuse.
 */
int ul_wire_ksock_msg_encode(const struct ul_wire_ksock_msg *msg,
			     uint32_t version, bool is_swapped, void *buf,
			     size_t cap, struct ul_err *err);

/* ---- Ping info (wire.md §5.9, §8) ------------------------------------ */

/* One NI of a ping info: a 64-bit entry, or a large one (LARGE_ADDR). */
struct ul_wire_ping_ni {
	struct ulnet_nid nid;
	uint32_t status;   /* UL_WIRE_NI_STATUS_*; entry 0: sequence */
	uint32_t msg_size; /* 64-bit entry 0 with LARGE_ADDR: total
			    * size; else 0, whatever the bytes held (the
			    * kernel ignores them). Encode ignores it. */
	bool is_large;	   /* a lnet_ni_large_status entry; encode
			    * ignores it: the NID's form decides */
};

struct ul_wire_ping_info {
	bool is_swapped;   /* pi_magic arrived byte-swapped */
	uint32_t features; /* enum ul_wire_ping_feat bits */
	uint32_t pid;
	uint32_t nnis;	 /* pi_nnis: 64-bit entries */
	uint32_t nlarge; /* large entries after them */
	uint32_t nmeta;	 /* METADATA entries, validated and skipped */
	uint32_t size;	 /* bytes used: header, entries, metadata */
};

/*
 * Check a ping info against the receiver requirements of §8.1 and its
 * own structure, and fill *pi (counts included) without reading entries
 * out. Returns pi->size. Errors: -ENOMSG when the bytes stop before the
 * header, the entries, ns_msg_size or the metadata do (a receiver that
 * has the whole payload treats it as -EPROTO); -EPROTO for a bad magic,
 * no NI_STATUS feature, pi_nnis outside 1..4096, more than 4096 entries
 * in all (pi_nnis plus large entries: a kernel runs at most
 * lnet_interfaces_max NIs, so it never sends more), entry 0 not 0@lo, a
 * LARGE_ADDR ns_msg_size that is not a multiple of 4, is smaller than the
 * 64-bit entries, is larger than 4096 large entries can be, or is not
 * tiled exactly by large entries, a large entry with a 4-byte or
 * oversized address or of type 0xff (the ANY NID to LNet, which has a
 * 64-bit form), a 64-bit NID with no struct form, or
 * a metadata count above 4096. Bytes after pi->size (a larger buffer,
 * any len up to SIZE_MAX) are not looked at; pi->size is at most
 * UL_WIRE_PING_INFO_MAX_SIZE.
 */
int ul_wire_ping_info_check(const void *buf, size_t len,
			    struct ul_wire_ping_info *pi, struct ul_err *err);
/*
 * How many bytes the ping info that buf[0..len) begins says it has: its
 * 64-bit entries, or its large ones' ns_msg_size when that is readable
 * (discovery.md §7.4: a truncated REPLY is asked for again with room for
 * this). 0 when the header cannot be read (short, bad magic). A larger
 * answer than len means the info was cut; it is never above
 * UL_WIRE_PING_INFO_MAX_SIZE.
 */
size_t ul_wire_ping_info_needed(const void *buf, size_t len);
/*
 * ul_wire_ping_info_check(), then the entries into nis[]: the 64-bit
 * entries first, then the large ones. -ENOSPC if nnis + nlarge > cap.
 * Count first with check() to size the array; nothing is allocated.
 */
int ul_wire_ping_info_decode(const void *buf, size_t len,
			     struct ul_wire_ping_info *pi,
			     struct ul_wire_ping_ni *nis, size_t cap,
			     struct ul_err *err);
/*
 * Encode pi->features, pi->pid and is_swapped with the n entries of nis
 * (nis[0] must be 0@lo). NIDs with a 64-bit form become 64-bit entries,
 * the others large entries after them, in order; with any large entry
 * LARGE_ADDR is set and entry 0's ns_msg_size is the total size. No
 * metadata is written (METADATA is cleared). pi's counts are ignored.
 * -EINVAL for what check() would refuse: features without NI_STATUS,
 * n outside 1..4096, nis[0] not 0@lo, a large NID with nid_size outside
 * 1..12 or address bytes beyond its nid_size.
 */
int ul_wire_ping_info_encode(const struct ul_wire_ping_info *pi,
			     const struct ul_wire_ping_ni *nis, size_t n,
			     void *buf, size_t cap, struct ul_err *err);
/* Bytes ul_wire_ping_info_encode() writes for these entries. */
size_t ul_wire_ping_info_size(const struct ul_wire_ping_ni *nis, size_t n);

/* ---- Checksum (wire.md §9.4) ----------------------------------------- */

#define UL_WIRE_CSUM_INIT UINT32_C(0xffffffff)
/*
 * CRC-32, reflected polynomial 0xedb88320, no final inversion: start
 * with UL_WIRE_CSUM_INIT and feed the covered bytes in order.
 */
uint32_t ul_wire_csum(uint32_t crc, const void *buf, size_t len);

/* ---- Names for printing ---------------------------------------------- */

/* "PUT", "NOOP", "CONTROL", ...; NULL for a value with no name. */
const char *ul_wire_msg_type_name(uint32_t type);
/*
 * The object cookie of the MD handle a header carries: the requester's
 * (a PUT's ack_wmd, a GET's return_wmd) or the one answered (an ACK's
 * or REPLY's dst_wmd), so a request and its answer log the same value;
 * 0 for other types. For debug lines.
 */
uint64_t ul_wire_hdr_md_cookie(const struct ul_wire_lnet_hdr *hdr);
const char *ul_wire_ksock_type_name(uint32_t type);
const char *ul_wire_conn_type_name(uint32_t ctype);
const char *ul_wire_ni_status_name(uint32_t status);

#endif /* UL_WIRE_WIRE_H */
