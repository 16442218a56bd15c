/*
 * The control protocol's serializer (see proto.h for the protocol): the
 * message builder and the bounds-checked attribute iterator with its one
 * table of attribute types. The codecs built on them are proto_req.c
 * (the typed requests), proto_reply.c (the typed replies), proto_args.c
 * and proto_doc.c (the generic ops).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_int.h"
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
	[UL_CTL_A_CURSOR] = UL_CTL_T_U32,

	[UL_CTL_A_PING_PRIMARY] = UL_CTL_T_NID,
	[UL_CTL_A_PING_PID] = UL_CTL_T_U32,
	[UL_CTL_A_PING_FEATURES] = UL_CTL_T_U32,
	[UL_CTL_A_PING_NI] = UL_CTL_T_NESTED,
	[UL_CTL_A_PING_MR] = UL_CTL_T_U32,

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
	[UL_CTL_A_ARG_NUMA] = UL_CTL_T_S32,
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
	[UL_CTL_A_PERF_STARTED] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_SEND_NS] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_SEND_BYTES] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_FAIL] = UL_CTL_T_NESTED,
	[UL_CTL_A_PERF_STATUS] = UL_CTL_T_S32,
	[UL_CTL_A_PERF_COUNT] = UL_CTL_T_U64,
	[UL_CTL_A_PERF_OP] = UL_CTL_T_U32,
	[UL_CTL_A_PERF_CHECK] = UL_CTL_T_U32,
	[UL_CTL_A_PERF_TARGET] = UL_CTL_T_NID,
	[UL_CTL_A_PERF_CHECK_ERRORS] = UL_CTL_T_U64,
	[UL_CTL_A_BATCH_OP] = UL_CTL_T_U32,
	[UL_CTL_A_BATCH_ITEM] = UL_CTL_T_NESTED,
	[UL_CTL_A_BATCH_DONE] = UL_CTL_T_U32,
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

/*
 * The iterator checked the length of every typed attribute; these read
 * 0 from a shorter one too, so that an id left out of attr_types (whose
 * length nothing checks) can never be read past its end.
 */
uint32_t ul_ctl_attr_u32(const struct ul_ctl_attr *a)
{
	return a->len >= 4 ? ul_get_le32(a->val) : 0;
}

int32_t ul_ctl_attr_s32(const struct ul_ctl_attr *a)
{
	return (int32_t)ul_ctl_attr_u32(a);
}

uint64_t ul_ctl_attr_u64(const struct ul_ctl_attr *a)
{
	return a->len >= 8 ? ul_get_le64(a->val) : 0;
}

int64_t ul_ctl_attr_s64(const struct ul_ctl_attr *a)
{
	return (int64_t)ul_ctl_attr_u64(a);
}

const char *ul_ctl_attr_str(const struct ul_ctl_attr *a)
{
	return (const char *)a->val;
}

void ul_ctl_attr_nid(const struct ul_ctl_attr *a, struct ulnet_nid *nid)
{
	if (a->len >= UL_WIRE_NID_SIZE)
		ul_wire_nid_get(a->val, nid);
	else
		memset(nid, 0, sizeof(*nid));
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

int ul_ctl_frame_open(const void *frame, size_t len, struct ul_ctl_hdr *h,
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

int ul_ctl_copy_str(const struct ul_ctl_attr *a, char *dst, size_t cap,
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
