/*
 * ksock messages (wire.md §5.5, §7.1): a 24-byte ksock header, and for
 * LNET messages an LNet header and payload_length bytes of payload. A
 * message has no length prefix, so a receiver learns its length in two
 * steps (ksock type, then payload_length); ul_wire_ksock_msg_frame() does
 * that on whatever part of the stream is buffered.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "wire/bytes.h"
#include "wire/wire.h"

static int check_version(uint32_t version, struct ul_err *err)
{
	/*
	 * V1 messages are bare LNet headers with no ksock header in front
	 * (§11); this codec does not frame them. Say so plainly: a user of
	 * "ulnetctl debug decode" sees this line.
	 */
	if (version == UL_WIRE_PROTO_V1)
		return ul_err_set(err, -EINVAL,
				  "ksock: V1 message framing is not supported "
				  "(V1 sends bare LNet headers; only the V1 "
				  "hello is decoded)");
	if (version < UL_WIRE_PROTO_V2 || version > UL_WIRE_PROTO_V4)
		return ul_err_set(err, -EINVAL,
				  "ksock: no ksock messages in version %u",
				  version);
	return 0;
}

/*
 * The checks of §10.4 that need no connection state. Decode and encode
 * both use it, so that encode refuses exactly what decode would: code is
 * -EPROTO for bytes, -EINVAL for a struct.
 */
static int check_ksh(const struct ul_wire_ksock_hdr *k, uint32_t version,
		     int code, struct ul_err *err)
{
	if (k->type != UL_WIRE_KSOCK_NOOP && k->type != UL_WIRE_KSOCK_LNET)
		return ul_err_set(err, code, "ksock header: bad type 0x%x",
				  k->type);
	/*
	 * §9.1, §10.4: on V3/V4 zc_cookies[1] == 1 is a keepalive and must
	 * stand alone. The kernel reads a NOOP's {c0, 1} as the range c0..1
	 * (an LNET message's zc_cookies[0] is a request, not part of the
	 * ACK); anything but c0 of 0 or 1 names two cookies and is refused.
	 * On V2 cookie 1 is an ordinary, never-outstanding cookie: that is
	 * the caller's cookie lookup to refuse.
	 */
	if (version >= UL_WIRE_PROTO_V3 && k->type == UL_WIRE_KSOCK_NOOP &&
	    k->zc_cookies[1] == UL_WIRE_KEEPALIVE_PING &&
	    k->zc_cookies[0] > UL_WIRE_KEEPALIVE_PING)
		return ul_err_set(err, code,
				  "ksock header: keepalive cookie with "
				  "zc_cookies[0] %" PRIu64,
				  k->zc_cookies[0]);
	return 0;
}

int ul_wire_ksock_hdr_decode(const void *buf, size_t len, uint32_t version,
			     bool is_swapped, struct ul_wire_ksock_hdr *ksh,
			     struct ul_err *err)
{
	const uint8_t *p = buf;
	struct ul_wire_ksock_hdr k;
	int rc;

	rc = check_version(version, err);
	if (rc < 0)
		return rc;
	if (len < UL_WIRE_KSOCK_HDR_SIZE)
		return ul_err_set(err, -ENOMSG, "ksock header: %zu of 24 bytes",
				  len);
	k.type = ul_get_host32(p, is_swapped);
	k.csum = ul_get_host32(p + 4, is_swapped);
	k.zc_cookies[0] = ul_get_host64(p + 8, is_swapped);
	k.zc_cookies[1] = ul_get_host64(p + 16, is_swapped);
	rc = check_ksh(&k, version, -EPROTO, err);
	if (rc < 0)
		return rc;
	*ksh = k;
	return UL_WIRE_KSOCK_HDR_SIZE;
}

int ul_wire_ksock_hdr_encode(const struct ul_wire_ksock_hdr *ksh,
			     uint32_t version, bool is_swapped, void *buf,
			     size_t cap, struct ul_err *err)
{
	uint8_t *p = buf;
	int rc;

	rc = check_version(version, err);
	if (rc < 0)
		return rc;
	rc = check_ksh(ksh, version, -EINVAL, err);
	if (rc < 0)
		return rc;
	if (cap < UL_WIRE_KSOCK_HDR_SIZE)
		return ul_err_set(err, -ENOSPC,
				  "ksock header: 24 bytes, room for %zu", cap);
	ul_put_host32(p, ksh->type, is_swapped);
	ul_put_host32(p + 4, ksh->csum, is_swapped);
	ul_put_host64(p + 8, ksh->zc_cookies[0], is_swapped);
	ul_put_host64(p + 16, ksh->zc_cookies[1], is_swapped);
	return UL_WIRE_KSOCK_HDR_SIZE;
}

int ul_wire_ksock_msg_frame(const void *buf, size_t len, uint32_t version,
			    bool is_swapped, size_t *size, struct ul_err *err)
{
	const uint8_t *p = buf;
	bool is_nid16 = version == UL_WIRE_PROTO_V4;
	size_t hdr_size = ul_wire_lnet_hdr_size(is_nid16);
	uint32_t type;
	uint32_t plen;
	int rc;

	rc = check_version(version, err);
	if (rc < 0)
		return rc;
	if (len < 4) {
		*size = UL_WIRE_KSOCK_HDR_SIZE;
		return -ENOMSG;
	}
	/* Refuse garbage as soon as its first word shows. */
	type = ul_get_host32(p, is_swapped);
	if (type != UL_WIRE_KSOCK_NOOP && type != UL_WIRE_KSOCK_LNET)
		return ul_err_set(err, -EPROTO, "ksock header: bad type 0x%x",
				  type);
	if (type == UL_WIRE_KSOCK_NOOP ||
	    len < UL_WIRE_KSOCK_HDR_SIZE + hdr_size) {
		*size = UL_WIRE_KSOCK_HDR_SIZE +
			(type == UL_WIRE_KSOCK_NOOP ? 0 : hdr_size);
		return len < *size ? -ENOMSG : 0;
	}
	/* payload_length sits 12 bytes before the union, always LE. */
	plen = ul_get_le32(p + UL_WIRE_KSOCK_HDR_SIZE + hdr_size -
			   UL_WIRE_MSG_UNION_SIZE - 4);
	if (plen > UL_WIRE_LNET_MTU)
		return ul_err_set(err, -EPROTO,
				  "LNet header: payload_length %u > LNET_MTU",
				  plen);
	*size = UL_WIRE_KSOCK_HDR_SIZE + hdr_size + plen;
	return len < *size ? -ENOMSG : 0;
}

int ul_wire_ksock_msg_decode(const void *buf, size_t len, uint32_t version,
			     bool is_swapped, struct ul_wire_ksock_msg *msg,
			     struct ul_err *err)
{
	const uint8_t *p = buf;
	bool is_nid16 = version == UL_WIRE_PROTO_V4;
	struct ul_wire_ksock_msg m;
	size_t size;
	int rc;

	memset(&m, 0, sizeof(m));
	rc = ul_wire_ksock_hdr_decode(p, len, version, is_swapped, &m.ksh, err);
	if (rc < 0)
		return rc;
	size = UL_WIRE_KSOCK_HDR_SIZE;
	if (m.ksh.type == UL_WIRE_KSOCK_LNET) {
		rc = ul_wire_lnet_hdr_decode(p + size, len - size, is_nid16,
					     &m.hdr, err);
		if (rc < 0)
			return rc;
		size += (size_t)rc;
		if (len - size < m.hdr.payload_length)
			return ul_err_set(err, -ENOMSG,
					  "ksock message: %zu of %zu bytes",
					  len, size + m.hdr.payload_length);
		m.payload = p + size;
		size += m.hdr.payload_length;
	}
	*msg = m;
	return (int)size;
}

int ul_wire_ksock_msg_encode(const struct ul_wire_ksock_msg *msg,
			     uint32_t version, bool is_swapped, void *buf,
			     size_t cap, struct ul_err *err)
{
	uint8_t ksh[UL_WIRE_KSOCK_HDR_SIZE];
	uint8_t hdr[UL_WIRE_LNET_HDR_NID16_SIZE];
	uint8_t *p = buf;
	size_t hdr_size = 0;
	size_t size;
	int rc;

	/*
	 * Both headers go to scratch first: the encoders run every check
	 * their decoders run, so an invalid message is -EINVAL whatever
	 * cap is, and nothing reaches buf before the whole fits.
	 */
	rc = ul_wire_ksock_hdr_encode(&msg->ksh, version, is_swapped, ksh,
				      sizeof(ksh), err);
	if (rc < 0)
		return rc;
	size = UL_WIRE_KSOCK_HDR_SIZE;
	if (msg->ksh.type == UL_WIRE_KSOCK_LNET) {
		rc = ul_wire_lnet_hdr_encode(&msg->hdr,
					     version == UL_WIRE_PROTO_V4, hdr,
					     sizeof(hdr), err);
		if (rc < 0)
			return rc;
		if (msg->hdr.payload_length && !msg->payload)
			return ul_err_set(err, -EINVAL,
					  "ksock message: payload_length %u "
					  "without payload",
					  msg->hdr.payload_length);
		hdr_size = (size_t)rc;
		size += hdr_size + msg->hdr.payload_length;
	}
	if (cap < size)
		return ul_err_set(err, -ENOSPC,
				  "ksock message: %zu bytes, room for %zu",
				  size, cap);
	memcpy(p, ksh, sizeof(ksh));
	if (hdr_size)
		memcpy(p + UL_WIRE_KSOCK_HDR_SIZE, hdr, hdr_size);
	if (hdr_size && msg->hdr.payload_length)
		memcpy(p + UL_WIRE_KSOCK_HDR_SIZE + hdr_size, msg->payload,
		       msg->hdr.payload_length);
	return (int)size;
}
