/*
 * socklnd hello (wire.md §5.2-§5.4). Read the way the kernel reads it:
 * the 8-byte magic and version first (they give the layout), then the
 * rest of the fixed part, then the IP list of V1-V3.
 *
 * Layouts, by version:
 *   V1     a bare little-endian nid4 LNet header of type HELLO (72 bytes)
 *          whose first 8 bytes are the TCP magic and version 1.0, then
 *          payload_length / 4 IPs;
 *   V2/V3  ksock_hello_msg_nid4, 56 bytes in sender host order, then
 *          nips IPs;
 *   V4     ksock_hello_msg, 80 bytes, 20-byte NIDs; nips must be 0.
 */
#include <errno.h>
#include <string.h>

#include "wire/bytes.h"
#include "wire/wire.h"

/* Offsets of the V1 hello: an LNet header with magic/version at 0. */
#define V1_SRC_NID 8
#define V1_DEST_PID 16
#define V1_SRC_PID 20
#define V1_TYPE 24
#define V1_PAYLOAD_LENGTH 28
#define V1_INCARNATION 32
#define V1_CTYPE 40

static size_t fixed_size(uint32_t version)
{
	switch (version) {
	case UL_WIRE_PROTO_V1:
		return UL_WIRE_HELLO_V1_SIZE;
	case UL_WIRE_PROTO_V4:
		return UL_WIRE_HELLO_V4_SIZE;
	default:
		return UL_WIRE_HELLO_NID4_SIZE;
	}
}

int ul_wire_hello_start_decode(const void *buf, size_t len,
			       struct ul_wire_hello_start *hs,
			       struct ul_err *err)
{
	const uint8_t *p = buf;
	struct ul_wire_hello_start s;
	uint32_t magic;

	if (len < 4)
		return ul_err_set(err, -ENOMSG, "hello: %zu of 8 bytes", len);
	magic = ul_get_le32(p);
	memset(&s, 0, sizeof(s));
	if (magic == UL_WIRE_PROTO_MAGIC) {
		s.is_swapped = false;
	} else if (magic == __builtin_bswap32(UL_WIRE_PROTO_MAGIC)) {
		s.is_swapped = true;
	} else if (magic != UL_WIRE_TCP_MAGIC) {
		/*
		 * The kernel accepts the V1 magic only little-endian (V1 is
		 * LE throughout), so a swapped one is an unknown magic.
		 */
		return ul_err_set(err, -EPROTO, "hello: bad magic 0x%08x",
				  magic);
	}
	if (len < UL_WIRE_MAGICVERSION_SIZE)
		return ul_err_set(err, -ENOMSG, "hello: %zu of 8 bytes", len);

	if (magic == UL_WIRE_TCP_MAGIC) {
		if (ul_get_le16(p + 4) != UL_WIRE_TCP_VERSION_MAJOR ||
		    ul_get_le16(p + 6) != UL_WIRE_TCP_VERSION_MINOR)
			return ul_err_set(err, -EPROTONOSUPPORT,
					  "hello: V1 magic with version %u.%u",
					  ul_get_le16(p + 4),
					  ul_get_le16(p + 6));
		s.version = UL_WIRE_PROTO_V1;
	} else {
		s.version = ul_get_host32(p + 4, s.is_swapped);
		if (s.version < UL_WIRE_PROTO_V2 ||
		    s.version > UL_WIRE_PROTO_V4)
			return ul_err_set(err, -EPROTONOSUPPORT,
					  "hello: unknown version %u",
					  s.version);
	}
	s.fixed_size = fixed_size(s.version);
	*hs = s;
	return UL_WIRE_MAGICVERSION_SIZE;
}

/*
 * The checks decode and encode share, so that encode refuses exactly what
 * decode would; code is -EPROTO for bytes, -EINVAL for a struct.
 */
static int check_nips(uint32_t version, uint32_t nips, int code,
		      struct ul_err *err)
{
	/*
	 * §5.3: a V4 receiver reads no IPs, so any it was sent would be
	 * taken for the next message; the kernel does not check, we do.
	 */
	if (version == UL_WIRE_PROTO_V4 && nips != 0)
		return ul_err_set(err, code, "hello: V4 with nips %u", nips);
	if (nips > UL_WIRE_INTERFACES_NUM)
		return ul_err_set(err, code, "hello: nips %u > %u", nips,
				  UL_WIRE_INTERFACES_NUM);
	return 0;
}

static int check_ip(uint32_t i, uint32_t ip, int code, struct ul_err *err)
{
	if (ip == 0)
		return ul_err_set(err, code, "hello: IP[%u] is 0", i);
	return 0;
}

static int check_ips(struct ul_wire_hello *h, const uint8_t *p, bool is_le,
		     bool is_swapped, struct ul_err *err)
{
	uint32_t i;
	int rc;

	for (i = 0; i < h->nips; i++) {
		h->ips[i] = is_le ? ul_get_le32(p + 4 * i)
				  : ul_get_host32(p + 4 * i, is_swapped);
		rc = check_ip(i, h->ips[i], -EPROTO, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The rest functions get p at offset 8 of the hello and len counted from
 * there; F() turns an offset in the whole hello into a pointer.
 */
#define F(off) (p + (off)-UL_WIRE_MAGICVERSION_SIZE)

static int rest_v1(const uint8_t *p, size_t len, struct ul_wire_hello *h,
		   struct ul_err *err)
{
	uint32_t type;
	uint32_t plen;
	size_t need;
	int rc;

	type = ul_get_le32(F(V1_TYPE));
	if (type != UL_WIRE_MSG_HELLO)
		return ul_err_set(err, -EPROTO,
				  "hello: V1 header type %u, expected HELLO",
				  type);
	plen = ul_get_le32(F(V1_PAYLOAD_LENGTH));
	/*
	 * The kernel divides by 4 and so tolerates a remainder, but then
	 * the stream is out of step; refuse it.
	 */
	if (plen % 4 || plen / 4 > UL_WIRE_INTERFACES_NUM)
		return ul_err_set(err, -EPROTO,
				  "hello: V1 payload_length %u is not 4 * "
				  "0..16 IPs",
				  plen);
	need = UL_WIRE_HELLO_V1_SIZE + plen - UL_WIRE_MAGICVERSION_SIZE;
	if (len < need)
		return ul_err_set(err, -ENOMSG, "hello: %zu of %zu bytes",
				  len + UL_WIRE_MAGICVERSION_SIZE,
				  need + UL_WIRE_MAGICVERSION_SIZE);
	rc = ul_wire_nid4_to_nid(ul_get_le64(F(V1_SRC_NID)), &h->src_nid, err);
	if (rc < 0)
		return rc;
	h->dst_pid = ul_get_le32(F(V1_DEST_PID));
	h->src_pid = ul_get_le32(F(V1_SRC_PID));
	h->src_incarnation = ul_get_le64(F(V1_INCARNATION));
	h->ctype = ul_get_le32(F(V1_CTYPE));
	h->nips = plen / 4;
	/* Bytes 44..71 are the unused rest of the header: ignored. */
	rc = check_ips(h, F(UL_WIRE_HELLO_V1_SIZE), true, false, err);
	if (rc < 0)
		return rc;
	return (int)need;
}

static int rest_nid4(const uint8_t *p, size_t len, struct ul_wire_hello *h,
		     struct ul_err *err)
{
	bool sw = h->is_swapped;
	size_t need;
	int rc;

	/*
	 * With a swapped magic every field is swapped, NIDs included. The
	 * kernel forgets to swap the two NIDs on that path (§6), so mixed-
	 * endian kernel pairs see wrong NIDs; we do it right.
	 */
	rc = ul_wire_nid4_to_nid(ul_get_host64(F(8), sw), &h->src_nid, err);
	if (rc < 0)
		return rc;
	rc = ul_wire_nid4_to_nid(ul_get_host64(F(16), sw), &h->dst_nid, err);
	if (rc < 0)
		return rc;
	h->src_pid = ul_get_host32(F(24), sw);
	h->dst_pid = ul_get_host32(F(28), sw);
	h->src_incarnation = ul_get_host64(F(32), sw);
	h->dst_incarnation = ul_get_host64(F(40), sw);
	h->ctype = ul_get_host32(F(48), sw);
	h->nips = ul_get_host32(F(52), sw);
	rc = check_nips(h->version, h->nips, -EPROTO, err);
	if (rc < 0)
		return rc;
	need = UL_WIRE_HELLO_NID4_SIZE + 4 * (size_t)h->nips -
	       UL_WIRE_MAGICVERSION_SIZE;
	if (len < need)
		return ul_err_set(err, -ENOMSG, "hello: %zu of %zu bytes",
				  len + UL_WIRE_MAGICVERSION_SIZE,
				  need + UL_WIRE_MAGICVERSION_SIZE);
	rc = check_ips(h, F(UL_WIRE_HELLO_NID4_SIZE), false, sw, err);
	if (rc < 0)
		return rc;
	return (int)need;
}

static int rest_v4(const uint8_t *p, struct ul_wire_hello *h,
		   struct ul_err *err)
{
	bool sw = h->is_swapped;
	int rc;

	/* §6: V4 swaps pids, incarnations and ctype, never the NIDs. */
	ul_wire_nid_get(F(8), &h->src_nid);
	ul_wire_nid_get(F(28), &h->dst_nid);
	h->src_pid = ul_get_host32(F(48), sw);
	h->dst_pid = ul_get_host32(F(52), sw);
	h->src_incarnation = ul_get_host64(F(56), sw);
	h->dst_incarnation = ul_get_host64(F(64), sw);
	h->ctype = ul_get_host32(F(72), sw);
	h->nips = ul_get_host32(F(76), sw);
	rc = check_nips(h->version, h->nips, -EPROTO, err);
	if (rc < 0)
		return rc;
	return UL_WIRE_HELLO_V4_SIZE - UL_WIRE_MAGICVERSION_SIZE;
}

#undef F

int ul_wire_hello_rest_decode(const struct ul_wire_hello_start *hs,
			      const void *buf, size_t len,
			      struct ul_wire_hello *hello, struct ul_err *err)
{
	const uint8_t *p = buf;
	struct ul_wire_hello h;
	size_t fixed = fixed_size(hs->version) - UL_WIRE_MAGICVERSION_SIZE;
	int rc;

	if (hs->version < UL_WIRE_PROTO_V1 || hs->version > UL_WIRE_PROTO_V4)
		return ul_err_set(err, -EINVAL, "hello: bad start version %u",
				  hs->version);
	if (len < fixed)
		return ul_err_set(err, -ENOMSG,
				  "hello: %zu of at least %zu bytes",
				  len + UL_WIRE_MAGICVERSION_SIZE,
				  fixed + UL_WIRE_MAGICVERSION_SIZE);
	memset(&h, 0, sizeof(h));
	h.version = hs->version;
	h.is_swapped = hs->version != UL_WIRE_PROTO_V1 && hs->is_swapped;
	if (h.version == UL_WIRE_PROTO_V1)
		rc = rest_v1(p, len, &h, err);
	else if (h.version == UL_WIRE_PROTO_V4)
		rc = rest_v4(p, &h, err);
	else
		rc = rest_nid4(p, len, &h, err);
	if (rc < 0)
		return rc;
	*hello = h;
	return rc;
}

int ul_wire_hello_decode(const void *buf, size_t len,
			 struct ul_wire_hello *hello, struct ul_err *err)
{
	struct ul_wire_hello_start hs;
	int rc;

	rc = ul_wire_hello_start_decode(buf, len, &hs, err);
	if (rc < 0)
		return rc;
	rc = ul_wire_hello_rest_decode(&hs, (const uint8_t *)buf + rc,
				       len - (size_t)rc, hello, err);
	if (rc < 0)
		return rc;
	return rc + UL_WIRE_MAGICVERSION_SIZE;
}

int ul_wire_hello_frame(const void *buf, size_t len, size_t *size,
			struct ul_err *err)
{
	const uint8_t *p = buf;
	struct ul_wire_hello_start hs;
	uint32_t n;
	int rc;

	rc = ul_wire_hello_start_decode(buf, len, &hs, err);
	if (rc == -ENOMSG) {
		*size = len < 4 ? 4 : UL_WIRE_MAGICVERSION_SIZE;
		return rc;
	}
	if (rc < 0)
		return rc;
	if (len < hs.fixed_size) {
		*size = hs.fixed_size;
		return -ENOMSG;
	}
	switch (hs.version) {
	case UL_WIRE_PROTO_V1:
		n = ul_get_le32(p + V1_PAYLOAD_LENGTH);
		if (n % 4 || n / 4 > UL_WIRE_INTERFACES_NUM)
			return ul_err_set(err, -EPROTO,
					  "hello: V1 payload_length %u", n);
		*size = UL_WIRE_HELLO_V1_SIZE + n;
		break;
	case UL_WIRE_PROTO_V4:
		*size = UL_WIRE_HELLO_V4_SIZE;
		break;
	default:
		n = ul_get_host32(p + 52, hs.is_swapped);
		rc = check_nips(hs.version, n, -EPROTO, err);
		if (rc < 0)
			return rc;
		*size = UL_WIRE_HELLO_NID4_SIZE + 4 * (size_t)n;
		break;
	}
	/* The IPs may still be on their way: never claim a cut unit. */
	return len < *size ? -ENOMSG : 0;
}

static int put_nid4(uint8_t *p, const struct ulnet_nid *nid, bool is_swapped,
		    struct ul_err *err)
{
	uint64_t nid4;
	int rc;

	rc = ul_wire_nid_to_nid4(nid, &nid4, err);
	if (rc < 0)
		return rc;
	ul_put_host64(p, nid4, is_swapped);
	return 0;
}

int ul_wire_hello_encode(const struct ul_wire_hello *hello, void *buf,
			 size_t cap, struct ul_err *err)
{
	const struct ul_wire_hello *h = hello;
	bool sw = h->is_swapped;
	uint8_t *p = buf;
	size_t size;
	uint32_t i;
	int rc;

	if (h->version < UL_WIRE_PROTO_V1 || h->version > UL_WIRE_PROTO_V4)
		return ul_err_set(err, -EINVAL,
				  "hello: cannot encode version %u",
				  h->version);
	rc = check_nips(h->version, h->nips, -EINVAL, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < h->nips; i++) {
		rc = check_ip(i, h->ips[i], -EINVAL, err);
		if (rc < 0)
			return rc;
	}
	size = fixed_size(h->version) + 4 * (size_t)h->nips;
	if (cap < size)
		return ul_err_set(err, -ENOSPC,
				  "hello: %zu bytes, room for %zu", size, cap);
	memset(p, 0, size);

	switch (h->version) {
	case UL_WIRE_PROTO_V1:
		ul_put_le32(p, UL_WIRE_TCP_MAGIC);
		ul_put_le16(p + 4, UL_WIRE_TCP_VERSION_MAJOR);
		ul_put_le16(p + 6, UL_WIRE_TCP_VERSION_MINOR);
		rc = put_nid4(p + V1_SRC_NID, &h->src_nid, false, err);
		if (rc < 0)
			return rc;
		ul_put_le32(p + V1_DEST_PID, h->dst_pid);
		ul_put_le32(p + V1_SRC_PID, h->src_pid);
		ul_put_le32(p + V1_TYPE, UL_WIRE_MSG_HELLO);
		ul_put_le32(p + V1_PAYLOAD_LENGTH, 4 * h->nips);
		ul_put_le64(p + V1_INCARNATION, h->src_incarnation);
		ul_put_le32(p + V1_CTYPE, h->ctype);
		for (i = 0; i < h->nips; i++)
			ul_put_le32(p + UL_WIRE_HELLO_V1_SIZE + 4 * i,
				    h->ips[i]);
		break;
	case UL_WIRE_PROTO_V4:
		ul_put_host32(p, UL_WIRE_PROTO_MAGIC, sw);
		ul_put_host32(p + 4, h->version, sw);
		ul_wire_nid_put(p + 8, &h->src_nid);
		ul_wire_nid_put(p + 28, &h->dst_nid);
		ul_put_host32(p + 48, h->src_pid, sw);
		ul_put_host32(p + 52, h->dst_pid, sw);
		ul_put_host64(p + 56, h->src_incarnation, sw);
		ul_put_host64(p + 64, h->dst_incarnation, sw);
		ul_put_host32(p + 72, h->ctype, sw);
		ul_put_host32(p + 76, 0, sw);
		break;
	default:
		ul_put_host32(p, UL_WIRE_PROTO_MAGIC, sw);
		ul_put_host32(p + 4, h->version, sw);
		rc = put_nid4(p + 8, &h->src_nid, sw, err);
		if (rc < 0)
			return rc;
		rc = put_nid4(p + 16, &h->dst_nid, sw, err);
		if (rc < 0)
			return rc;
		ul_put_host32(p + 24, h->src_pid, sw);
		ul_put_host32(p + 28, h->dst_pid, sw);
		ul_put_host64(p + 32, h->src_incarnation, sw);
		ul_put_host64(p + 40, h->dst_incarnation, sw);
		ul_put_host32(p + 48, h->ctype, sw);
		ul_put_host32(p + 52, h->nips, sw);
		for (i = 0; i < h->nips; i++)
			ul_put_host32(p + UL_WIRE_HELLO_NID4_SIZE + 4 * i,
				      h->ips[i], sw);
		break;
	}
	return (int)size;
}

uint32_t ul_wire_conn_type_inverse(uint32_t ctype)
{
	/* §4.2 step 6: only the two bulk types change places. */
	switch (ctype) {
	case UL_WIRE_CONN_BULK_IN:
		return UL_WIRE_CONN_BULK_OUT;
	case UL_WIRE_CONN_BULK_OUT:
		return UL_WIRE_CONN_BULK_IN;
	default:
		return ctype;
	}
}
