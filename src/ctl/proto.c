/*
 * The control protocol's serializer (see proto.h for the protocol): the
 * message builder, the bounds-checked attribute iterator with its one
 * table of attribute types, and the request and reply codecs used by both
 * ulnetctl and the instance's control server.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_int.h"
#include "ctl/ytree.h"
#include "util/err.h"
#include "wire/bytes.h"
#include "wire/wire.h"

#define PAD4(n) (((n) + 3u) & ~(size_t)3u)

/* ---- Attribute types ------------------------------------------------- */

static const uint8_t attr_types[UL_CTL_A__MAX] = {
	[UL_CTL_A_RC] = UL_CTL_T_S32,
	[UL_CTL_A_ERR_MSG] = UL_CTL_T_STR,
	[UL_CTL_A_VERSION] = UL_CTL_T_U32,
	[UL_CTL_A_VERBOSE] = UL_CTL_T_U32,
	[UL_CTL_A_NID] = UL_CTL_T_NID,
	[UL_CTL_A_SRC_NID] = UL_CTL_T_NID,
	[UL_CTL_A_TIMEOUT_MS] = UL_CTL_T_U32,
	[UL_CTL_A_NET_NAME] = UL_CTL_T_STR,
	[UL_CTL_A_STATUS] = UL_CTL_T_U32,
	[UL_CTL_A_NET_PRIO] = UL_CTL_T_S32,
	[UL_CTL_A_NID_PRIO] = UL_CTL_T_S32,

	[UL_CTL_A_PING_PRIMARY] = UL_CTL_T_NID,
	[UL_CTL_A_PING_PID] = UL_CTL_T_U32,
	[UL_CTL_A_PING_FEATURES] = UL_CTL_T_U32,
	[UL_CTL_A_PING_NI] = UL_CTL_T_NESTED,

	[UL_CTL_A_NET] = UL_CTL_T_NESTED,
	[UL_CTL_A_NET_ID] = UL_CTL_T_U32,
	[UL_CTL_A_NI] = UL_CTL_T_NESTED,
	[UL_CTL_A_IFNAME] = UL_CTL_T_STR,
	[UL_CTL_A_TUNABLES] = UL_CTL_T_NESTED,
	[UL_CTL_A_PEER_TIMEOUT] = UL_CTL_T_S32,
	[UL_CTL_A_PEER_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_PEER_BUFFER_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_LND_TUNABLES] = UL_CTL_T_NESTED,
	[UL_CTL_A_CONNS_PER_PEER] = UL_CTL_T_S32,
	[UL_CTL_A_LND_TIMEOUT] = UL_CTL_T_S32,
	[UL_CTL_A_TOS] = UL_CTL_T_S32,
	[UL_CTL_A_DEV_CPT] = UL_CTL_T_S32,
	[UL_CTL_A_CPT] = UL_CTL_T_STR,

	[UL_CTL_A_PEER] = UL_CTL_T_NESTED,
	[UL_CTL_A_PEER_PRIMARY] = UL_CTL_T_NID,
	[UL_CTL_A_PEER_MR] = UL_CTL_T_U32,
	[UL_CTL_A_PEER_STATE] = UL_CTL_T_U32,
	[UL_CTL_A_PEER_NI] = UL_CTL_T_NESTED,
	[UL_CTL_A_PNI_STATE] = UL_CTL_T_U32,
	[UL_CTL_A_MAX_TX_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_TX_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_MIN_TX_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_TX_Q_NOB] = UL_CTL_T_U32,
	[UL_CTL_A_RTR_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_MIN_RTR_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_REFCOUNT] = UL_CTL_T_S32,

	[UL_CTL_A_STATS] = UL_CTL_T_NESTED,
	[UL_CTL_A_SENT_STATS] = UL_CTL_T_NESTED,
	[UL_CTL_A_RECV_STATS] = UL_CTL_T_NESTED,
	[UL_CTL_A_DROP_STATS] = UL_CTL_T_NESTED,
	[UL_CTL_A_HEALTH] = UL_CTL_T_NESTED,
	[UL_CTL_A_SEND_COUNT] = UL_CTL_T_U64,
	[UL_CTL_A_RECV_COUNT] = UL_CTL_T_U64,
	[UL_CTL_A_DROP_COUNT] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_EGRESS_SAMPLES] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_EGRESS_MIN] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_EGRESS_MAX] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_EGRESS_AVG] = UL_CTL_T_U64,
	[UL_CTL_A_GET_RTT_SAMPLES] = UL_CTL_T_U64,
	[UL_CTL_A_GET_RTT_MIN] = UL_CTL_T_U64,
	[UL_CTL_A_GET_RTT_MAX] = UL_CTL_T_U64,
	[UL_CTL_A_GET_RTT_AVG] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_ACK_SAMPLES] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_ACK_MIN] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_ACK_MAX] = UL_CTL_T_U64,
	[UL_CTL_A_PUT_ACK_AVG] = UL_CTL_T_U64,
	[UL_CTL_A_MSG_PUT] = UL_CTL_T_U64,
	[UL_CTL_A_MSG_GET] = UL_CTL_T_U64,
	[UL_CTL_A_MSG_REPLY] = UL_CTL_T_U64,
	[UL_CTL_A_MSG_ACK] = UL_CTL_T_U64,
	[UL_CTL_A_MSG_HELLO] = UL_CTL_T_U64,
	[UL_CTL_A_FATAL_ERROR] = UL_CTL_T_U32,
	[UL_CTL_A_HEALTH_VALUE] = UL_CTL_T_S32,
	[UL_CTL_A_H_INTERRUPTS] = UL_CTL_T_U64,
	[UL_CTL_A_H_DROPPED] = UL_CTL_T_U64,
	[UL_CTL_A_H_ABORTED] = UL_CTL_T_U64,
	[UL_CTL_A_H_NO_ROUTE] = UL_CTL_T_U64,
	[UL_CTL_A_H_TIMEOUTS] = UL_CTL_T_U64,
	[UL_CTL_A_H_ERROR] = UL_CTL_T_U64,
	[UL_CTL_A_H_NETWORK_TIMEOUT] = UL_CTL_T_U64,
	[UL_CTL_A_PING_COUNT] = UL_CTL_T_U64,
	[UL_CTL_A_NEXT_PING] = UL_CTL_T_S64,
	[UL_CTL_A_ARG_HAS] = UL_CTL_T_U64,
	[UL_CTL_A_ARG_FLAGS] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_VERBOSE] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_NID] = UL_CTL_T_NID,
	[UL_CTL_A_ARG_NID2] = UL_CTL_T_NID,
	[UL_CTL_A_ARG_LOCAL_NID] = UL_CTL_T_NID,
	[UL_CTL_A_ARG_NET] = UL_CTL_T_STR,
	[UL_CTL_A_ARG_NAME] = UL_CTL_T_STR,
	[UL_CTL_A_ARG_CPT] = UL_CTL_T_STR,
	[UL_CTL_A_ARG_VALUE] = UL_CTL_T_S64,
	[UL_CTL_A_ARG_PEER_TIMEOUT] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_PEER_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_PEER_BUF_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_CREDITS] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_CONNS_PER_PEER] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_TOS] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_LND_TIMEOUT] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_HEALTH] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_HOP] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_PRIORITY] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_IDX] = UL_CTL_T_S32,
	[UL_CTL_A_ARG_STATE] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_RATE] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_INTERVAL] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_LATENCY] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_MSG_MASK] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_HEALTH_MASK] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_PTL_MASK] = UL_CTL_T_U64,
	[UL_CTL_A_ARG_TIMEOUT_MS] = UL_CTL_T_U32,
	[UL_CTL_A_ARG_NIDS] = UL_CTL_T_NID,
	[UL_CTL_A_ARG_IFS] = UL_CTL_T_STR,
	[UL_CTL_A_ARG_UDSP_BLOCK] = UL_CTL_T_BYTES,
	[UL_CTL_A_Y_MAP] = UL_CTL_T_NESTED,
	[UL_CTL_A_Y_SEQ] = UL_CTL_T_NESTED,
	[UL_CTL_A_Y_KEY] = UL_CTL_T_STR,
	[UL_CTL_A_Y_STR] = UL_CTL_T_STR,
	[UL_CTL_A_Y_QSTR] = UL_CTL_T_STR,
	[UL_CTL_A_Y_INT] = UL_CTL_T_S64,
	[UL_CTL_A_Y_UINT] = UL_CTL_T_U64,
	[UL_CTL_A_Y_BOOL] = UL_CTL_T_U32,
	[UL_CTL_A_PERF_SIZE] = UL_CTL_T_U32,
	[UL_CTL_A_PERF_DURATION_MS] = UL_CTL_T_U32,
	[UL_CTL_A_PERF_INFLIGHT] = UL_CTL_T_U32,
	[UL_CTL_A_PERF_PUTS] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_BYTES] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_FAILED] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_ELAPSED_NS] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_RAIL] = UL_CTL_T_NESTED,
};

enum ul_ctl_type ul_ctl_attr_type(uint16_t type)
{
	if (type >= UL_CTL_A__MAX)
		return UL_CTL_T_UNKNOWN;
	return (enum ul_ctl_type)attr_types[type];
}

/* ---- Building -------------------------------------------------------- */

static uint8_t *reserve(struct ul_ctl_msg *m, size_t n)
{
	uint8_t *p;

	if (m->err)
		return NULL;
	if (n > UL_CTL_HDR_SIZE + m->max - m->len) {
		m->err = -EMSGSIZE;
		return NULL;
	}
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? m->cap : 256;
		uint8_t *nb;

		while (cap < m->len + n)
			cap *= 2;
		nb = realloc(m->buf, cap);
		if (!nb) {
			m->err = -ENOMEM;
			return NULL;
		}
		m->buf = nb;
		m->cap = cap;
	}
	p = m->buf + m->len;
	m->len += n;
	return p;
}

void ul_ctl_msg_init(struct ul_ctl_msg *m, uint16_t op)
{
	uint8_t *p;

	memset(m, 0, sizeof(*m));
	m->max = op & UL_CTL_OP_REPLY ? UL_CTL_MAX_REPLY : UL_CTL_MAX_PAYLOAD;
	p = reserve(m, UL_CTL_HDR_SIZE);
	if (!p)
		return;
	ul_put_le32(p, UL_CTL_MAGIC);
	ul_put_le16(p + 4, UL_CTL_VERSION);
	ul_put_le16(p + 6, op);
	ul_put_le32(p + 8, 0);
}

void ul_ctl_msg_fini(struct ul_ctl_msg *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = 0;
	m->cap = 0;
}

int ul_ctl_msg_finish(struct ul_ctl_msg *m)
{
	if (!m->err && m->depth)
		m->err = -EINVAL;
	if (m->err)
		return m->err;
	ul_put_le32(m->buf + 8, (uint32_t)(m->len - UL_CTL_HDR_SIZE));
	return 0;
}

/* Header, value and zero padding of one attribute. */
static void put_attr(struct ul_ctl_msg *m, uint16_t type, uint16_t flags,
		     const void *val, size_t len)
{
	uint8_t *p;

	if (len > m->max) {
		if (!m->err)
			m->err = -EMSGSIZE;
		return;
	}
	p = reserve(m, UL_CTL_ATTR_HDR_SIZE + PAD4(len));
	if (!p)
		return;
	ul_put_le16(p, type);
	ul_put_le16(p + 2, flags);
	ul_put_le32(p + 4, (uint32_t)len);
	if (len)
		memcpy(p + UL_CTL_ATTR_HDR_SIZE, val, len);
	memset(p + UL_CTL_ATTR_HDR_SIZE + len, 0, PAD4(len) - len);
}

void ul_ctl_put_u32(struct ul_ctl_msg *m, uint16_t type, uint32_t v)
{
	uint8_t b[4];

	ul_put_le32(b, v);
	put_attr(m, type, 0, b, sizeof(b));
}

void ul_ctl_put_s32(struct ul_ctl_msg *m, uint16_t type, int32_t v)
{
	ul_ctl_put_u32(m, type, (uint32_t)v);
}

void ul_ctl_put_u64(struct ul_ctl_msg *m, uint16_t type, uint64_t v)
{
	uint8_t b[8];

	ul_put_le64(b, v);
	put_attr(m, type, 0, b, sizeof(b));
}

void ul_ctl_put_s64(struct ul_ctl_msg *m, uint16_t type, int64_t v)
{
	ul_ctl_put_u64(m, type, (uint64_t)v);
}

void ul_ctl_put_str(struct ul_ctl_msg *m, uint16_t type, const char *s)
{
	/* Our own strings, always terminated (strnlen trips gcc -O3). */
	size_t n = strlen(s);

	if (n >= UL_CTL_STR_MAX) {
		if (!m->err)
			m->err = -EINVAL;
		return;
	}
	put_attr(m, type, 0, s, n + 1);
}

void ul_ctl_put_nid(struct ul_ctl_msg *m, uint16_t type,
		    const struct ulnet_nid *nid)
{
	uint8_t b[UL_CTL_NID_SIZE];

	ul_wire_nid_put(b, nid);
	put_attr(m, type, 0, b, sizeof(b));
}

void ul_ctl_put_bytes(struct ul_ctl_msg *m, uint16_t type, const void *p,
		      size_t len)
{
	put_attr(m, type, 0, p, len);
}

void ul_ctl_put_raw(struct ul_ctl_msg *m, const void *p, size_t n)
{
	uint8_t *dst = reserve(m, n);

	if (dst && n)
		memcpy(dst, p, n);
}

void ul_ctl_put_flag(struct ul_ctl_msg *m, uint16_t type)
{
	put_attr(m, type, 0, NULL, 0);
}

void ul_ctl_nest_start(struct ul_ctl_msg *m, uint16_t type)
{
	size_t off = m->len;

	if (!m->err && m->depth == UL_CTL_NEST_MAX)
		m->err = -EINVAL;
	put_attr(m, type, UL_CTL_F_NESTED, NULL, 0);
	if (m->err)
		return;
	m->nest[m->depth++] = off;
}

void ul_ctl_nest_end(struct ul_ctl_msg *m)
{
	size_t off;

	if (m->err)
		return;
	if (!m->depth) {
		m->err = -EINVAL;
		return;
	}
	off = m->nest[--m->depth];
	/* Children are padded, so a nest's length is a multiple of 4. */
	ul_put_le32(m->buf + off + 4,
		    (uint32_t)(m->len - off - UL_CTL_ATTR_HDR_SIZE));
}

/* ---- Parsing --------------------------------------------------------- */

int ul_ctl_hdr_decode(const void *buf, size_t len, struct ul_ctl_hdr *h,
		      struct ul_err *err)
{
	const uint8_t *p = buf;
	struct ul_ctl_hdr x;
	uint32_t max;

	if (len < UL_CTL_HDR_SIZE)
		return ul_err_set(err, -EPROTO,
				  "control message: %zu bytes, header needs %d",
				  len, UL_CTL_HDR_SIZE);
	x.magic = ul_get_le32(p);
	x.version = ul_get_le16(p + 4);
	x.op = ul_get_le16(p + 6);
	x.len = ul_get_le32(p + 8);
	if (x.magic != UL_CTL_MAGIC)
		return ul_err_set(err, -EPROTO,
				  "control message: bad magic 0x%08x", x.magic);
	max = x.op & UL_CTL_OP_REPLY ? UL_CTL_MAX_REPLY : UL_CTL_MAX_PAYLOAD;
	if (x.len > max)
		return ul_err_set(err, -EPROTO,
				  "control message: payload of %u bytes, "
				  "limit %u",
				  x.len, max);
	*h = x;
	return 0;
}

void ul_ctl_iter_init(struct ul_ctl_iter *it, const void *payload, size_t len)
{
	it->p = payload;
	it->left = len;
}

void ul_ctl_iter_nested(struct ul_ctl_iter *it, const struct ul_ctl_attr *a)
{
	ul_ctl_iter_init(it, a->val, a->len);
}

static int check_value(const struct ul_ctl_attr *a, struct ul_err *err)
{
	enum ul_ctl_type t = ul_ctl_attr_type(a->type);
	bool is_nested = a->flags & UL_CTL_F_NESTED;
	size_t want;

	if (t == UL_CTL_T_UNKNOWN)
		return 0;
	if (is_nested != (t == UL_CTL_T_NESTED))
		return ul_err_set(err, -EPROTO,
				  "control attribute 0x%04x: nested flag %s",
				  a->type, is_nested ? "set" : "missing");
	switch (t) {
	case UL_CTL_T_U32:
	case UL_CTL_T_S32:
		want = 4;
		break;
	case UL_CTL_T_U64:
	case UL_CTL_T_S64:
		want = 8;
		break;
	case UL_CTL_T_NID:
		want = UL_CTL_NID_SIZE;
		break;
	case UL_CTL_T_FLAG:
		want = 0;
		break;
	case UL_CTL_T_STR:
		if (a->len == 0 || a->len > UL_CTL_STR_MAX ||
		    memchr(a->val, '\0', a->len) != a->val + a->len - 1)
			return ul_err_set(err, -EPROTO,
					  "control attribute 0x%04x: not a "
					  "string",
					  a->type);
		return 0;
	default: /* bytes, nested */
		return 0;
	}
	if (a->len != want)
		return ul_err_set(
			err, -EPROTO,
			"control attribute 0x%04x: %u bytes, want %zu", a->type,
			a->len, want);
	return 0;
}

int ul_ctl_iter_next(struct ul_ctl_iter *it, struct ul_ctl_attr *a,
		     struct ul_err *err)
{
	struct ul_ctl_attr x;
	size_t i, padded;

	if (it->left == 0)
		return 0;
	if (it->left < UL_CTL_ATTR_HDR_SIZE)
		return ul_err_set(err, -EPROTO,
				  "control attribute: %zu bytes left, header "
				  "needs %d",
				  it->left, UL_CTL_ATTR_HDR_SIZE);
	x.type = ul_get_le16(it->p);
	x.flags = ul_get_le16(it->p + 2);
	x.len = ul_get_le32(it->p + 4);
	x.val = it->p + UL_CTL_ATTR_HDR_SIZE;
	padded = PAD4((size_t)x.len);
	if (padded > it->left - UL_CTL_ATTR_HDR_SIZE)
		return ul_err_set(err, -EPROTO,
				  "control attribute 0x%04x: length %u past "
				  "the end (%zu bytes left)",
				  x.type, x.len,
				  it->left - UL_CTL_ATTR_HDR_SIZE);
	if (x.flags & ~UL_CTL_F_NESTED)
		return ul_err_set(err, -EPROTO,
				  "control attribute 0x%04x: unknown flags "
				  "0x%04x",
				  x.type, x.flags);
	for (i = x.len; i < padded; i++)
		if (x.val[i])
			return ul_err_set(err, -EPROTO,
					  "control attribute 0x%04x: non-zero "
					  "padding",
					  x.type);
	if (check_value(&x, err))
		return -EPROTO;
	it->p += UL_CTL_ATTR_HDR_SIZE + padded;
	it->left -= UL_CTL_ATTR_HDR_SIZE + padded;
	*a = x;
	return 1;
}

uint32_t ul_ctl_attr_u32(const struct ul_ctl_attr *a)
{
	return ul_get_le32(a->val);
}

int32_t ul_ctl_attr_s32(const struct ul_ctl_attr *a)
{
	return (int32_t)ul_get_le32(a->val);
}

uint64_t ul_ctl_attr_u64(const struct ul_ctl_attr *a)
{
	return ul_get_le64(a->val);
}

int64_t ul_ctl_attr_s64(const struct ul_ctl_attr *a)
{
	return (int64_t)ul_get_le64(a->val);
}

const char *ul_ctl_attr_str(const struct ul_ctl_attr *a)
{
	return (const char *)a->val;
}

void ul_ctl_attr_nid(const struct ul_ctl_attr *a, struct ulnet_nid *nid)
{
	ul_wire_nid_get(a->val, nid);
}

/*
 * Walk every attribute at every depth, so that a message is rejected as a
 * whole, even in parts a decoder skips (an unknown id's nest, a nest an
 * op does not read). Depth is bounded by UL_CTL_NEST_MAX.
 */
static int validate(struct ul_ctl_iter *it, unsigned int depth,
		    struct ul_err *err)
{
	struct ul_ctl_iter sub;
	struct ul_ctl_attr a;
	int rc;

	while ((rc = ul_ctl_iter_next(it, &a, err)) > 0) {
		if (!(a.flags & UL_CTL_F_NESTED))
			continue;
		if (depth + 1 > UL_CTL_NEST_MAX)
			return ul_err_set(err, -EPROTO,
					  "control attribute 0x%04x: nested "
					  "deeper than %d",
					  a.type, UL_CTL_NEST_MAX);
		ul_ctl_iter_nested(&sub, &a);
		rc = validate(&sub, depth + 1, err);
		if (rc)
			return rc;
	}
	return rc;
}

/*
 * Checks shared by requests and replies: the frame is exactly one message
 * of this version, and its attributes are well formed at every depth.
 */
static int frame_open(const void *frame, size_t len, struct ul_ctl_hdr *h,
		      struct ul_err *err)
{
	struct ul_ctl_iter it;
	int rc = ul_ctl_hdr_decode(frame, len, h, err);

	if (rc)
		return rc;
	if (h->version != UL_CTL_VERSION)
		return ul_err_set(err, -EPROTO,
				  "control protocol version %u not supported "
				  "(this side speaks version %d)",
				  h->version, UL_CTL_VERSION);
	if ((size_t)h->len != len - UL_CTL_HDR_SIZE)
		return ul_err_set(err, -EPROTO,
				  "control message: header says %u payload "
				  "bytes, frame has %zu",
				  h->len, len - UL_CTL_HDR_SIZE);
	ul_ctl_iter_init(&it, (const uint8_t *)frame + UL_CTL_HDR_SIZE, h->len);
	return validate(&it, 0, err);
}

/* Copy a string attribute into a fixed buffer; too long is -EPROTO. */
static int copy_str(const struct ul_ctl_attr *a, char *dst, size_t cap,
		    struct ul_err *err)
{
	if (a->len > cap)
		return ul_err_set(err, -EPROTO,
				  "control attribute 0x%04x: string of %u "
				  "bytes, limit %zu",
				  a->type, a->len - 1, cap - 1);
	memcpy(dst, a->val, a->len);
	return 0;
}

/* ---- Requests -------------------------------------------------------- */

int ul_ctl_req_encode(const struct ul_ctl_req *req, struct ul_ctl_msg *m)
{
	ul_ctl_msg_init(m, req->op);
	switch (req->op) {
	case UL_CTL_OP_PING:
		ul_ctl_put_nid(m, UL_CTL_A_NID, &req->ping.target);
		if (req->ping.has_src)
			ul_ctl_put_nid(m, UL_CTL_A_SRC_NID, &req->ping.src);
		if (req->ping.has_timeout)
			ul_ctl_put_u32(m, UL_CTL_A_TIMEOUT_MS,
				       req->ping.timeout_ms);
		break;
	case UL_CTL_OP_NET_SHOW:
		if (req->net_show.has_net)
			ul_ctl_put_str(m, UL_CTL_A_NET_NAME, req->net_show.net);
		ul_ctl_put_u32(m, UL_CTL_A_VERBOSE, req->net_show.verbose);
		break;
	case UL_CTL_OP_PEER_SHOW:
		if (req->peer_show.has_nid)
			ul_ctl_put_nid(m, UL_CTL_A_NID, &req->peer_show.nid);
		ul_ctl_put_u32(m, UL_CTL_A_VERBOSE, req->peer_show.verbose);
		break;
	case UL_CTL_OP_PERF_PUT:
		ul_ctl_put_nid(m, UL_CTL_A_NID, &req->perf.target);
		ul_ctl_put_u32(m, UL_CTL_A_PERF_SIZE, req->perf.size);
		ul_ctl_put_u32(m, UL_CTL_A_PERF_DURATION_MS,
			       req->perf.duration_ms);
		ul_ctl_put_u32(m, UL_CTL_A_PERF_INFLIGHT, req->perf.inflight);
		break;
	default:
		if (ul_ctl_op_is_generic(req->op))
			ul_ctl_args_encode(&req->args, m);
		else if (!m->err)
			m->err = -EINVAL;
		break;
	}
	return ul_ctl_msg_finish(m);
}

static int ping_req_attr(struct ul_ctl_req *r, bool *has_target,
			 const struct ul_ctl_attr *a)
{
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &r->ping.target);
		*has_target = true;
		break;
	case UL_CTL_A_SRC_NID:
		ul_ctl_attr_nid(a, &r->ping.src);
		r->ping.has_src = true;
		break;
	case UL_CTL_A_TIMEOUT_MS:
		r->ping.timeout_ms = ul_ctl_attr_u32(a);
		r->ping.has_timeout = true;
		break;
	default:
		break;
	}
	return 0;
}

static int net_show_req_attr(struct ul_ctl_req *r, const struct ul_ctl_attr *a,
			     struct ul_err *err)
{
	switch (a->type) {
	case UL_CTL_A_NET_NAME:
		r->net_show.has_net = true;
		return copy_str(a, r->net_show.net, sizeof(r->net_show.net),
				err);
	case UL_CTL_A_VERBOSE:
		r->net_show.verbose = ul_ctl_attr_u32(a);
		break;
	default:
		break;
	}
	return 0;
}

static int peer_show_req_attr(struct ul_ctl_req *r, const struct ul_ctl_attr *a)
{
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &r->peer_show.nid);
		r->peer_show.has_nid = true;
		break;
	case UL_CTL_A_VERBOSE:
		r->peer_show.verbose = ul_ctl_attr_u32(a);
		break;
	default:
		break;
	}
	return 0;
}

/* Every field of a perf request is mandatory: bit i for field i. */
static int perf_req_attr(struct ul_ctl_req *r, unsigned int *seen,
			 const struct ul_ctl_attr *a)
{
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &r->perf.target);
		*seen |= 1u;
		break;
	case UL_CTL_A_PERF_SIZE:
		r->perf.size = ul_ctl_attr_u32(a);
		*seen |= 2u;
		break;
	case UL_CTL_A_PERF_DURATION_MS:
		r->perf.duration_ms = ul_ctl_attr_u32(a);
		*seen |= 4u;
		break;
	case UL_CTL_A_PERF_INFLIGHT:
		r->perf.inflight = ul_ctl_attr_u32(a);
		*seen |= 8u;
		break;
	default:
		break;
	}
	return 0;
}

static bool is_known_op(uint16_t op)
{
	return (op >= UL_CTL_OP_PING && op <= UL_CTL_OP_PEER_SHOW) ||
	       op == UL_CTL_OP_PERF_PUT || ul_ctl_op_is_generic(op);
}

int ul_ctl_req_decode(const void *frame, size_t len, struct ul_ctl_req *out,
		      struct ul_err *err)
{
	unsigned int perf_seen = 0;
	bool has_target = false;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	struct ul_ctl_hdr h;
	struct ul_ctl_req r;
	int rc;

	rc = frame_open(frame, len, &h, err);
	if (rc)
		return rc;
	if (h.op & UL_CTL_OP_REPLY)
		return ul_err_set(err, -EPROTO,
				  "control request: op 0x%04x is a reply",
				  h.op);
	if (!is_known_op(h.op))
		return ul_err_set(err, -EOPNOTSUPP,
				  "control request: unknown op %u", h.op);
	if (ul_ctl_op_is_generic(h.op)) {
		out->op = h.op;
		return ul_ctl_args_decode((const uint8_t *)frame +
						  UL_CTL_HDR_SIZE,
					  h.len, &out->args, err);
	}
	memset(&r, 0, sizeof(r));
	r.op = h.op;
	ul_ctl_iter_init(&it, (const uint8_t *)frame + UL_CTL_HDR_SIZE, h.len);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (r.op == UL_CTL_OP_PING)
			rc = ping_req_attr(&r, &has_target, &a);
		else if (r.op == UL_CTL_OP_NET_SHOW)
			rc = net_show_req_attr(&r, &a, err);
		else if (r.op == UL_CTL_OP_PEER_SHOW)
			rc = peer_show_req_attr(&r, &a);
		else
			rc = perf_req_attr(&r, &perf_seen, &a);
		if (rc)
			return rc;
	}
	if (rc < 0)
		return rc;
	if (r.op == UL_CTL_OP_PING && !has_target)
		return ul_err_set(err, -EPROTO,
				  "control request: ping without a target NID");
	if (r.op == UL_CTL_OP_PERF_PUT && perf_seen != 0xfu)
		return ul_err_set(err, -EPROTO,
				  "control request: perf without target, size, "
				  "duration and inflight");
	*out = r;
	return 0;
}

/* ---- Replies: encoding ----------------------------------------------- */

static void put_lat(struct ul_ctl_msg *m, uint16_t first,
		    const struct ul_ctl_lat *l)
{
	ul_ctl_put_u64(m, first, l->samples);
	ul_ctl_put_u64(m, first + 1, l->min_nsec);
	ul_ctl_put_u64(m, first + 2, l->max_nsec);
	ul_ctl_put_u64(m, first + 3, l->avg_nsec);
}

static void put_counts(struct ul_ctl_msg *m, uint16_t type,
		       const struct ul_ctl_msg_counts *c)
{
	ul_ctl_nest_start(m, type);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_PUT, c->put);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_GET, c->get);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_REPLY, c->reply);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_ACK, c->ack);
	ul_ctl_put_u64(m, UL_CTL_A_MSG_HELLO, c->hello);
	ul_ctl_nest_end(m);
}

static void put_health(struct ul_ctl_msg *m, const struct ul_ctl_health *h)
{
	ul_ctl_nest_start(m, UL_CTL_A_HEALTH);
	ul_ctl_put_u32(m, UL_CTL_A_FATAL_ERROR, h->fatal_error);
	ul_ctl_put_s32(m, UL_CTL_A_HEALTH_VALUE, h->healthv);
	ul_ctl_put_u64(m, UL_CTL_A_H_INTERRUPTS, h->interrupts);
	ul_ctl_put_u64(m, UL_CTL_A_H_DROPPED, h->dropped);
	ul_ctl_put_u64(m, UL_CTL_A_H_ABORTED, h->aborted);
	ul_ctl_put_u64(m, UL_CTL_A_H_NO_ROUTE, h->no_route);
	ul_ctl_put_u64(m, UL_CTL_A_H_TIMEOUTS, h->timeouts);
	ul_ctl_put_u64(m, UL_CTL_A_H_ERROR, h->error);
	ul_ctl_put_u64(m, UL_CTL_A_H_NETWORK_TIMEOUT, h->network_timeout);
	ul_ctl_put_u64(m, UL_CTL_A_PING_COUNT, h->ping_count);
	ul_ctl_put_s64(m, UL_CTL_A_NEXT_PING, h->next_ping);
	ul_ctl_nest_end(m);
}

static void put_blocks(struct ul_ctl_msg *m, const struct ul_ctl_ni_blocks *b)
{
	if (b->has_stats) {
		ul_ctl_nest_start(m, UL_CTL_A_STATS);
		ul_ctl_put_u64(m, UL_CTL_A_SEND_COUNT, b->stats.send_count);
		ul_ctl_put_u64(m, UL_CTL_A_RECV_COUNT, b->stats.recv_count);
		ul_ctl_put_u64(m, UL_CTL_A_DROP_COUNT, b->stats.drop_count);
		put_lat(m, UL_CTL_A_PUT_EGRESS_SAMPLES, &b->stats.put_egress);
		put_lat(m, UL_CTL_A_GET_RTT_SAMPLES, &b->stats.get_rtt);
		put_lat(m, UL_CTL_A_PUT_ACK_SAMPLES, &b->stats.put_ack);
		ul_ctl_nest_end(m);
	}
	if (b->has_udsp) {
		ul_ctl_put_s32(m, UL_CTL_A_NET_PRIO, b->net_prio);
		ul_ctl_put_s32(m, UL_CTL_A_NID_PRIO, b->nid_prio);
	}
	if (b->has_msg_stats) {
		put_counts(m, UL_CTL_A_SENT_STATS, &b->sent);
		put_counts(m, UL_CTL_A_RECV_STATS, &b->received);
		put_counts(m, UL_CTL_A_DROP_STATS, &b->dropped);
	}
	if (b->has_health)
		put_health(m, &b->health);
}

static void put_ni(struct ul_ctl_msg *m, const struct ul_ctl_ni *ni)
{
	ul_ctl_nest_start(m, UL_CTL_A_NI);
	ul_ctl_put_nid(m, UL_CTL_A_NID, &ni->nid);
	ul_ctl_put_u32(m, UL_CTL_A_STATUS, ni->status);
	if (ni->ifname[0])
		ul_ctl_put_str(m, UL_CTL_A_IFNAME, ni->ifname);
	put_blocks(m, &ni->b);
	if (ni->has_tunables) {
		ul_ctl_nest_start(m, UL_CTL_A_TUNABLES);
		ul_ctl_put_s32(m, UL_CTL_A_PEER_TIMEOUT, ni->peer_timeout);
		ul_ctl_put_s32(m, UL_CTL_A_PEER_CREDITS, ni->peer_credits);
		ul_ctl_put_s32(m, UL_CTL_A_PEER_BUFFER_CREDITS,
			       ni->peer_buffer_credits);
		ul_ctl_put_s32(m, UL_CTL_A_CREDITS, ni->credits);
		ul_ctl_nest_end(m);
	}
	if (ni->has_lnd_tunables) {
		ul_ctl_nest_start(m, UL_CTL_A_LND_TUNABLES);
		ul_ctl_put_s32(m, UL_CTL_A_CONNS_PER_PEER, ni->conns_per_peer);
		ul_ctl_put_s32(m, UL_CTL_A_LND_TIMEOUT, ni->lnd_timeout);
		ul_ctl_put_s32(m, UL_CTL_A_TOS, ni->tos);
		ul_ctl_nest_end(m);
	}
	if (ni->has_cpt) {
		ul_ctl_put_s32(m, UL_CTL_A_DEV_CPT, ni->dev_cpt);
		ul_ctl_put_str(m, UL_CTL_A_CPT, ni->cpt);
	}
	ul_ctl_nest_end(m);
}

static void put_peer_ni(struct ul_ctl_msg *m, const struct ul_ctl_peer_ni *p)
{
	ul_ctl_nest_start(m, UL_CTL_A_PEER_NI);
	ul_ctl_put_nid(m, UL_CTL_A_NID, &p->nid);
	ul_ctl_put_u32(m, UL_CTL_A_PNI_STATE, p->state);
	if (p->has_credits) {
		ul_ctl_put_s32(m, UL_CTL_A_MAX_TX_CREDITS, p->max_tx_credits);
		ul_ctl_put_s32(m, UL_CTL_A_TX_CREDITS, p->tx_credits);
		ul_ctl_put_s32(m, UL_CTL_A_MIN_TX_CREDITS, p->min_tx_credits);
		ul_ctl_put_u32(m, UL_CTL_A_TX_Q_NOB, p->tx_q_nob);
		ul_ctl_put_s32(m, UL_CTL_A_RTR_CREDITS, p->rtr_credits);
		ul_ctl_put_s32(m, UL_CTL_A_MIN_RTR_CREDITS, p->min_rtr_credits);
		ul_ctl_put_s32(m, UL_CTL_A_REFCOUNT, p->refcount);
	}
	put_blocks(m, &p->b);
	ul_ctl_nest_end(m);
}

int ul_ctl_reply_encode(const struct ul_ctl_reply *r, struct ul_ctl_msg *m)
{
	size_t i, j;

	ul_ctl_msg_init(m, (uint16_t)(r->op | UL_CTL_OP_REPLY));
	ul_ctl_put_s32(m, UL_CTL_A_RC, r->rc);
	if (r->err_msg[0])
		ul_ctl_put_str(m, UL_CTL_A_ERR_MSG, r->err_msg);
	if (r->version)
		ul_ctl_put_u32(m, UL_CTL_A_VERSION, r->version);
	if (r->rc)
		return ul_ctl_msg_finish(m);
	switch (r->op) {
	case UL_CTL_OP_PING:
		ul_ctl_put_nid(m, UL_CTL_A_PING_PRIMARY, &r->ping.primary);
		ul_ctl_put_u32(m, UL_CTL_A_PING_PID, r->ping.pid);
		ul_ctl_put_u32(m, UL_CTL_A_PING_FEATURES, r->ping.features);
		for (i = 0; i < r->ping.nnis; i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PING_NI);
			ul_ctl_put_nid(m, UL_CTL_A_NID, &r->ping.nis[i].nid);
			ul_ctl_put_u32(m, UL_CTL_A_STATUS,
				       r->ping.nis[i].status);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_NET_SHOW:
		for (i = 0; i < r->net_show.nnets; i++) {
			const struct ul_ctl_net *net = &r->net_show.nets[i];

			ul_ctl_nest_start(m, UL_CTL_A_NET);
			ul_ctl_put_u32(m, UL_CTL_A_NET_ID, net->net_id);
			for (j = 0; j < net->nnis; j++)
				put_ni(m, &net->nis[j]);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_PEER_SHOW:
		for (i = 0; i < r->peer_show.npeers; i++) {
			const struct ul_ctl_peer *p = &r->peer_show.peers[i];

			ul_ctl_nest_start(m, UL_CTL_A_PEER);
			ul_ctl_put_nid(m, UL_CTL_A_PEER_PRIMARY, &p->primary);
			ul_ctl_put_u32(m, UL_CTL_A_PEER_MR, p->is_mr);
			if (p->has_state)
				ul_ctl_put_u32(m, UL_CTL_A_PEER_STATE,
					       p->state);
			for (j = 0; j < p->npnis; j++)
				put_peer_ni(m, &p->pnis[j]);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_PERF_PUT:
		ul_ctl_put_u64(m, UL_CTL_A_PERF_PUTS, r->perf.puts);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_BYTES, r->perf.bytes);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_FAILED, r->perf.failed);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_ELAPSED_NS, r->perf.elapsed_ns);
		for (i = 0; i < r->perf.nrails; i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PERF_RAIL);
			ul_ctl_put_nid(m, UL_CTL_A_NID, &r->perf.rails[i].nid);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_PUTS,
				       r->perf.rails[i].puts);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_BYTES,
				       r->perf.rails[i].bytes);
			ul_ctl_nest_end(m);
		}
		break;
	default:
		break;
	}
	return ul_ctl_msg_finish(m);
}

void ul_ctl_reply_error(struct ul_ctl_reply *r, uint16_t op, int rc,
			const char *msg)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->rc = rc;
	if (msg)
		snprintf(r->err_msg, sizeof(r->err_msg), "%s", msg);
}

/* ---- Replies: decoding ----------------------------------------------- */

/*
 * Room for element n of an array whose capacity is the next power of two
 * at or above n: the array (moved if it grew), or NULL.
 */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	return realloc(arr, (n ? n * 2 : 1) * size);
}

/* Append a zeroed element to arr[n]: a pointer to it, or NULL. */
#define APPEND(arr, n)                                                         \
	({                                                                     \
		__typeof__(arr) g_ = grow((arr), (n), sizeof(*(arr)));         \
		if (g_) {                                                      \
			(arr) = g_;                                            \
			g_ += (n)++;                                           \
			memset(g_, 0, sizeof(*g_));                            \
		}                                                              \
		g_;                                                            \
	})

static int lat_attr(struct ul_ctl_stats *s, const struct ul_ctl_attr *a)
{
	struct ul_ctl_lat *l;
	unsigned int k;

	if (a->type < UL_CTL_A_PUT_EGRESS_SAMPLES ||
	    a->type > UL_CTL_A_PUT_ACK_AVG)
		return 0;
	k = a->type - UL_CTL_A_PUT_EGRESS_SAMPLES;
	l = k < 4 ? &s->put_egress : k < 8 ? &s->get_rtt : &s->put_ack;
	switch (k % 4) {
	case 0:
		l->samples = ul_ctl_attr_u64(a);
		break;
	case 1:
		l->min_nsec = ul_ctl_attr_u64(a);
		break;
	case 2:
		l->max_nsec = ul_ctl_attr_u64(a);
		break;
	default:
		l->avg_nsec = ul_ctl_attr_u64(a);
		break;
	}
	return 0;
}

static int dec_stats(const struct ul_ctl_attr *parent, struct ul_ctl_stats *s,
		     struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_SEND_COUNT)
			s->send_count = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_RECV_COUNT)
			s->recv_count = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_DROP_COUNT)
			s->drop_count = ul_ctl_attr_u64(&a);
		else
			lat_attr(s, &a);
	}
	return rc;
}

static int dec_counts(const struct ul_ctl_attr *parent,
		      struct ul_ctl_msg_counts *c, struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		switch (a.type) {
		case UL_CTL_A_MSG_PUT:
			c->put = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_GET:
			c->get = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_REPLY:
			c->reply = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_ACK:
			c->ack = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_MSG_HELLO:
			c->hello = ul_ctl_attr_u64(&a);
			break;
		default:
			break;
		}
	}
	return rc;
}

static int dec_health(const struct ul_ctl_attr *parent, struct ul_ctl_health *h,
		      struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		switch (a.type) {
		case UL_CTL_A_FATAL_ERROR:
			h->fatal_error = ul_ctl_attr_u32(&a);
			break;
		case UL_CTL_A_HEALTH_VALUE:
			h->healthv = ul_ctl_attr_s32(&a);
			break;
		case UL_CTL_A_H_INTERRUPTS:
			h->interrupts = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_DROPPED:
			h->dropped = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_ABORTED:
			h->aborted = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_NO_ROUTE:
			h->no_route = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_TIMEOUTS:
			h->timeouts = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_ERROR:
			h->error = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_H_NETWORK_TIMEOUT:
			h->network_timeout = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_PING_COUNT:
			h->ping_count = ul_ctl_attr_u64(&a);
			break;
		case UL_CTL_A_NEXT_PING:
			h->next_ping = ul_ctl_attr_s64(&a);
			break;
		default:
			break;
		}
	}
	return rc;
}

/* An attribute of the blocks an NI and a peer NI share: 1 taken, 0 not. */
static int dec_block_attr(const struct ul_ctl_attr *a,
			  struct ul_ctl_ni_blocks *b, struct ul_err *err)
{
	switch (a->type) {
	case UL_CTL_A_STATS:
		b->has_stats = true;
		return dec_stats(a, &b->stats, err) ?: 1;
	case UL_CTL_A_NET_PRIO:
		b->has_udsp = true;
		b->net_prio = ul_ctl_attr_s32(a);
		return 1;
	case UL_CTL_A_NID_PRIO:
		b->has_udsp = true;
		b->nid_prio = ul_ctl_attr_s32(a);
		return 1;
	case UL_CTL_A_SENT_STATS:
		b->has_msg_stats = true;
		return dec_counts(a, &b->sent, err) ?: 1;
	case UL_CTL_A_RECV_STATS:
		b->has_msg_stats = true;
		return dec_counts(a, &b->received, err) ?: 1;
	case UL_CTL_A_DROP_STATS:
		b->has_msg_stats = true;
		return dec_counts(a, &b->dropped, err) ?: 1;
	case UL_CTL_A_HEALTH:
		b->has_health = true;
		return dec_health(a, &b->health, err) ?: 1;
	default:
		return 0;
	}
}

static int dec_tunables(const struct ul_ctl_attr *parent, struct ul_ctl_ni *ni,
			struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni->has_tunables = true;
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_PEER_TIMEOUT)
			ni->peer_timeout = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_PEER_CREDITS)
			ni->peer_credits = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_PEER_BUFFER_CREDITS)
			ni->peer_buffer_credits = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_CREDITS)
			ni->credits = ul_ctl_attr_s32(&a);
	}
	return rc;
}

static int dec_lnd_tunables(const struct ul_ctl_attr *parent,
			    struct ul_ctl_ni *ni, struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni->has_lnd_tunables = true;
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_CONNS_PER_PEER)
			ni->conns_per_peer = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_LND_TIMEOUT)
			ni->lnd_timeout = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_TOS)
			ni->tos = ul_ctl_attr_s32(&a);
	}
	return rc;
}

static int dec_ni_attr(const struct ul_ctl_attr *a, struct ul_ctl_ni *ni,
		       struct ul_err *err)
{
	int rc = dec_block_attr(a, &ni->b, err);

	if (rc)
		return rc < 0 ? rc : 0;
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &ni->nid);
		return 0;
	case UL_CTL_A_STATUS:
		ni->status = ul_ctl_attr_u32(a);
		return 0;
	case UL_CTL_A_IFNAME:
		return copy_str(a, ni->ifname, sizeof(ni->ifname), err);
	case UL_CTL_A_TUNABLES:
		return dec_tunables(a, ni, err);
	case UL_CTL_A_LND_TUNABLES:
		return dec_lnd_tunables(a, ni, err);
	case UL_CTL_A_DEV_CPT:
		ni->has_cpt = true;
		ni->dev_cpt = ul_ctl_attr_s32(a);
		return 0;
	case UL_CTL_A_CPT:
		ni->has_cpt = true;
		return copy_str(a, ni->cpt, sizeof(ni->cpt), err);
	default:
		return 0;
	}
}

static int dec_net(const struct ul_ctl_attr *parent, struct ul_ctl_net *net,
		   struct ul_err *err)
{
	struct ul_ctl_iter it, nit;
	struct ul_ctl_attr a, na;
	struct ul_ctl_ni *ni;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NET_ID) {
			net->net_id = ul_ctl_attr_u32(&a);
			continue;
		}
		if (a.type != UL_CTL_A_NI)
			continue;
		ni = APPEND(net->nis, net->nnis);
		if (!ni)
			return ul_err_set(err, -ENOMEM, "out of memory");
		ul_ctl_iter_nested(&nit, &a);
		while ((rc = ul_ctl_iter_next(&nit, &na, err)) > 0) {
			rc = dec_ni_attr(&na, ni, err);
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int dec_peer_ni_attr(const struct ul_ctl_attr *a,
			    struct ul_ctl_peer_ni *p, struct ul_err *err)
{
	int rc = dec_block_attr(a, &p->b, err);

	if (rc)
		return rc < 0 ? rc : 0;
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &p->nid);
		break;
	case UL_CTL_A_PNI_STATE:
		p->state = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_MAX_TX_CREDITS:
		p->has_credits = true;
		p->max_tx_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_TX_CREDITS:
		p->tx_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_MIN_TX_CREDITS:
		p->min_tx_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_TX_Q_NOB:
		p->tx_q_nob = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_RTR_CREDITS:
		p->rtr_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_MIN_RTR_CREDITS:
		p->min_rtr_credits = ul_ctl_attr_s32(a);
		break;
	case UL_CTL_A_REFCOUNT:
		p->refcount = ul_ctl_attr_s32(a);
		break;
	default:
		break;
	}
	return 0;
}

static int dec_peer(const struct ul_ctl_attr *parent, struct ul_ctl_peer *peer,
		    struct ul_err *err)
{
	struct ul_ctl_iter it, nit;
	struct ul_ctl_attr a, na;
	struct ul_ctl_peer_ni *p;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		switch (a.type) {
		case UL_CTL_A_PEER_PRIMARY:
			ul_ctl_attr_nid(&a, &peer->primary);
			continue;
		case UL_CTL_A_PEER_MR:
			peer->is_mr = ul_ctl_attr_u32(&a) != 0;
			continue;
		case UL_CTL_A_PEER_STATE:
			peer->has_state = true;
			peer->state = ul_ctl_attr_u32(&a);
			continue;
		case UL_CTL_A_PEER_NI:
			break;
		default:
			continue;
		}
		p = APPEND(peer->pnis, peer->npnis);
		if (!p)
			return ul_err_set(err, -ENOMEM, "out of memory");
		ul_ctl_iter_nested(&nit, &a);
		while ((rc = ul_ctl_iter_next(&nit, &na, err)) > 0) {
			rc = dec_peer_ni_attr(&na, p, err);
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int dec_ping_ni(const struct ul_ctl_attr *parent, struct ul_ctl_reply *r,
		       struct ul_err *err)
{
	struct ul_ctl_ping_ni *ni;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni = APPEND(r->ping.nis, r->ping.nnis);
	if (!ni)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NID)
			ul_ctl_attr_nid(&a, &ni->nid);
		else if (a.type == UL_CTL_A_STATUS)
			ni->status = ul_ctl_attr_u32(&a);
	}
	return rc;
}

static int dec_perf_rail(const struct ul_ctl_attr *parent,
			 struct ul_ctl_reply *r, struct ul_err *err)
{
	struct ul_ctl_perf_rail *rail;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	rail = APPEND(r->perf.rails, r->perf.nrails);
	if (!rail)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NID)
			ul_ctl_attr_nid(&a, &rail->nid);
		else if (a.type == UL_CTL_A_PERF_PUTS)
			rail->puts = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_PERF_BYTES)
			rail->bytes = ul_ctl_attr_u64(&a);
	}
	return rc;
}

/* One top-level attribute of a reply's data. */
static int dec_reply_attr(const struct ul_ctl_attr *a, struct ul_ctl_reply *r,
			  struct ul_err *err)
{
	struct ul_ctl_peer *peer;
	struct ul_ctl_net *net;

	switch (a->type) {
	case UL_CTL_A_RC:
		r->rc = ul_ctl_attr_s32(a);
		return 0;
	case UL_CTL_A_ERR_MSG:
		return copy_str(a, r->err_msg, sizeof(r->err_msg), err);
	case UL_CTL_A_VERSION:
		r->version = ul_ctl_attr_u32(a);
		return 0;
	default:
		break;
	}
	if (ul_ctl_op_is_generic(r->op)) {
		if (a->type != UL_CTL_A_Y_MAP)
			return 0;
		if (r->doc)
			return ul_err_set(err, -EPROTO,
					  "control reply: two documents");
		return ul_ctl_doc_decode(a, &r->doc, err);
	}
	switch (r->op) {
	case UL_CTL_OP_PING:
		if (a->type == UL_CTL_A_PING_PRIMARY)
			ul_ctl_attr_nid(a, &r->ping.primary);
		else if (a->type == UL_CTL_A_PING_PID)
			r->ping.pid = ul_ctl_attr_u32(a);
		else if (a->type == UL_CTL_A_PING_FEATURES)
			r->ping.features = ul_ctl_attr_u32(a);
		else if (a->type == UL_CTL_A_PING_NI)
			return dec_ping_ni(a, r, err);
		return 0;
	case UL_CTL_OP_NET_SHOW:
		if (a->type != UL_CTL_A_NET)
			return 0;
		net = APPEND(r->net_show.nets, r->net_show.nnets);
		if (!net)
			return ul_err_set(err, -ENOMEM, "out of memory");
		return dec_net(a, net, err);
	case UL_CTL_OP_PEER_SHOW:
		if (a->type != UL_CTL_A_PEER)
			return 0;
		peer = APPEND(r->peer_show.peers, r->peer_show.npeers);
		if (!peer)
			return ul_err_set(err, -ENOMEM, "out of memory");
		return dec_peer(a, peer, err);
	case UL_CTL_OP_PERF_PUT:
		if (a->type == UL_CTL_A_PERF_PUTS)
			r->perf.puts = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_BYTES)
			r->perf.bytes = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_FAILED)
			r->perf.failed = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_ELAPSED_NS)
			r->perf.elapsed_ns = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_RAIL)
			return dec_perf_rail(a, r, err);
		return 0;
	default:
		return 0;
	}
}

int ul_ctl_reply_decode(const void *frame, size_t len, uint16_t op,
			struct ul_ctl_reply *out, struct ul_err *err)
{
	bool has_rc = false, is_refusal;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	struct ul_ctl_hdr h;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = frame_open(frame, len, &h, err);
	if (rc)
		return rc;
	is_refusal = h.op == UL_CTL_OP_REPLY;
	if (h.op != (op | UL_CTL_OP_REPLY) && !is_refusal)
		return ul_err_set(err, -EPROTO,
				  "control reply: op 0x%04x does not answer "
				  "op %u",
				  h.op, op);
	/* A refusal (op 0) carries an error only; read it as op's reply. */
	out->op = is_refusal ? 0 : op;
	ul_ctl_iter_init(&it, (const uint8_t *)frame + UL_CTL_HDR_SIZE, h.len);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_RC)
			has_rc = true;
		rc = dec_reply_attr(&a, out, err);
		if (rc)
			break;
	}
	if (!rc && !has_rc)
		rc = ul_err_set(err, -EPROTO, "control reply: no return code");
	if (!rc && (out->rc > 0 || (is_refusal && out->rc == 0)))
		rc = ul_err_set(err, -EPROTO,
				"control reply: return code %d in a%s reply",
				out->rc, is_refusal ? " refusal" : "n op's");
	out->op = op;
	if (rc) {
		ul_ctl_reply_fini(out);
		return rc;
	}
	return 0;
}

void ul_ctl_reply_fini(struct ul_ctl_reply *r)
{
	size_t i;

	ul_ytree_free(r->doc);
	switch (r->op) {
	case UL_CTL_OP_PING:
		free(r->ping.nis);
		break;
	case UL_CTL_OP_NET_SHOW:
		for (i = 0; i < r->net_show.nnets; i++)
			free(r->net_show.nets[i].nis);
		free(r->net_show.nets);
		break;
	case UL_CTL_OP_PEER_SHOW:
		for (i = 0; i < r->peer_show.npeers; i++)
			free(r->peer_show.peers[i].pnis);
		free(r->peer_show.peers);
		break;
	case UL_CTL_OP_PERF_PUT:
		free(r->perf.rails);
		break;
	default:
		break;
	}
	memset(r, 0, sizeof(*r));
}
