/*
 * LNet header (wire.md §5.6-§5.8): 72 bytes with 64-bit NIDs (V1-V3) or
 * 96 bytes with 20-byte NIDs (V4), common fields then a 40-byte union
 * chosen by type. The common fields and most union fields are LE on the
 * wire whatever the sender (§6). hdr_data and the ACK's match_bits are
 * sent in the sender's host order, which is LE on every platform Lustre
 * runs on; like the wire handles (opaque), they are held as LE so that
 * their bytes round-trip unchanged.
 */
#include <errno.h>
#include <string.h>

#include "wire/bytes.h"
#include "wire/wire.h"

/* Union offsets, counted from the start of the union (§5.6). */
#define U_WMD 0
#define U_MATCH_BITS 16
#define U_PUT_HDR_DATA 24
#define U_PUT_PTL_INDEX 32
#define U_PUT_OFFSET 36
#define U_GET_PTL_INDEX 24
#define U_GET_SRC_OFFSET 28
#define U_GET_SINK_LENGTH 32
#define U_ACK_MLENGTH 24

size_t ul_wire_lnet_hdr_size(bool is_nid16)
{
	return is_nid16 ? UL_WIRE_LNET_HDR_NID16_SIZE
			: UL_WIRE_LNET_HDR_NID4_SIZE;
}

static void get_handle(const uint8_t *p, struct ul_wire_handle *wh)
{
	wh->wh_interface_cookie = ul_get_le64(p);
	wh->wh_object_cookie = ul_get_le64(p + 8);
}

static void put_handle(uint8_t *p, const struct ul_wire_handle *wh)
{
	ul_put_le64(p, wh->wh_interface_cookie);
	ul_put_le64(p + 8, wh->wh_object_cookie);
}

/*
 * The syntactic checks of §10.5; the rest needs node state. Decode and
 * encode both use it, so that encode refuses exactly what decode would:
 * code is -EPROTO for bytes, -EINVAL for a struct.
 */
static int check_hdr(const struct ul_wire_lnet_hdr *h, int code,
		     struct ul_err *err)
{
	switch (h->type) {
	case UL_WIRE_MSG_ACK:
	case UL_WIRE_MSG_GET:
		if (h->payload_length != 0)
			return ul_err_set(err, code,
					  "LNet header: %s with payload_length "
					  "%u",
					  ul_wire_msg_type_name(h->type),
					  h->payload_length);
		return 0;
	case UL_WIRE_MSG_PUT:
	case UL_WIRE_MSG_REPLY:
		if (h->payload_length > UL_WIRE_LNET_MTU)
			return ul_err_set(err, code,
					  "LNet header: %s payload_length %u "
					  "> LNET_MTU",
					  ul_wire_msg_type_name(h->type),
					  h->payload_length);
		return 0;
	default:
		/* HELLO is only the V1 hello, never a connected message. */
		return ul_err_set(err, code, "LNet header: bad type %u",
				  h->type);
	}
}

int ul_wire_lnet_hdr_decode(const void *buf, size_t len, bool is_nid16,
			    struct ul_wire_lnet_hdr *hdr, struct ul_err *err)
{
	const uint8_t *p = buf;
	size_t size = ul_wire_lnet_hdr_size(is_nid16);
	struct ul_wire_lnet_hdr h;
	const uint8_t *u;
	int rc;

	if (len < size)
		return ul_err_set(err, -ENOMSG, "LNet header: %zu of %zu bytes",
				  len, size);
	memset(&h, 0, sizeof(h));
	if (is_nid16) {
		ul_wire_nid_get(p, &h.dest_nid);
		ul_wire_nid_get(p + 20, &h.src_nid);
		p += 40;
	} else {
		rc = ul_wire_nid4_to_nid(ul_get_le64(p), &h.dest_nid, err);
		if (rc < 0)
			return rc;
		rc = ul_wire_nid4_to_nid(ul_get_le64(p + 8), &h.src_nid, err);
		if (rc < 0)
			return rc;
		p += 16;
	}
	h.dest_pid = ul_get_le32(p);
	h.src_pid = ul_get_le32(p + 4);
	h.type = ul_get_le32(p + 8);
	h.payload_length = ul_get_le32(p + 12);
	rc = check_hdr(&h, -EPROTO, err);
	if (rc < 0)
		return rc;

	u = p + 16;
	switch (h.type) {
	case UL_WIRE_MSG_PUT:
		get_handle(u + U_WMD, &h.msg.put.ack_wmd);
		h.msg.put.match_bits = ul_get_le64(u + U_MATCH_BITS);
		h.msg.put.hdr_data = ul_get_le64(u + U_PUT_HDR_DATA);
		h.msg.put.ptl_index = ul_get_le32(u + U_PUT_PTL_INDEX);
		h.msg.put.offset = ul_get_le32(u + U_PUT_OFFSET);
		break;
	case UL_WIRE_MSG_GET:
		get_handle(u + U_WMD, &h.msg.get.return_wmd);
		h.msg.get.match_bits = ul_get_le64(u + U_MATCH_BITS);
		h.msg.get.ptl_index = ul_get_le32(u + U_GET_PTL_INDEX);
		h.msg.get.src_offset = ul_get_le32(u + U_GET_SRC_OFFSET);
		h.msg.get.sink_length = ul_get_le32(u + U_GET_SINK_LENGTH);
		break;
	case UL_WIRE_MSG_ACK:
		get_handle(u + U_WMD, &h.msg.ack.dst_wmd);
		h.msg.ack.match_bits = ul_get_le64(u + U_MATCH_BITS);
		h.msg.ack.mlength = ul_get_le32(u + U_ACK_MLENGTH);
		break;
	default: /* REPLY; check_hdr() let nothing else through */
		get_handle(u + U_WMD, &h.msg.reply.dst_wmd);
		break;
	}
	*hdr = h;
	return (int)size;
}

int ul_wire_lnet_hdr_encode(const struct ul_wire_lnet_hdr *hdr, bool is_nid16,
			    void *buf, size_t cap, struct ul_err *err)
{
	const struct ul_wire_lnet_hdr *h = hdr;
	size_t size = ul_wire_lnet_hdr_size(is_nid16);
	uint8_t *p = buf;
	uint64_t dest4 = 0;
	uint64_t src4 = 0;
	uint8_t *u;
	int rc;

	rc = check_hdr(h, -EINVAL, err);
	if (rc < 0)
		return rc;
	if (cap < size)
		return ul_err_set(err, -ENOSPC,
				  "LNet header: %zu bytes, room for %zu", size,
				  cap);
	if (!is_nid16) {
		rc = ul_wire_nid_to_nid4(&h->dest_nid, &dest4, err);
		if (rc < 0)
			return rc;
		rc = ul_wire_nid_to_nid4(&h->src_nid, &src4, err);
		if (rc < 0)
			return rc;
	}
	/* §7.2: the header starts as zeros, so unused union bytes are 0. */
	memset(p, 0, size);
	if (is_nid16) {
		ul_wire_nid_put(p, &h->dest_nid);
		ul_wire_nid_put(p + 20, &h->src_nid);
		p += 40;
	} else {
		ul_put_le64(p, dest4);
		ul_put_le64(p + 8, src4);
		p += 16;
	}
	ul_put_le32(p, h->dest_pid);
	ul_put_le32(p + 4, h->src_pid);
	ul_put_le32(p + 8, h->type);
	ul_put_le32(p + 12, h->payload_length);

	u = p + 16;
	switch (h->type) {
	case UL_WIRE_MSG_PUT:
		put_handle(u + U_WMD, &h->msg.put.ack_wmd);
		ul_put_le64(u + U_MATCH_BITS, h->msg.put.match_bits);
		ul_put_le64(u + U_PUT_HDR_DATA, h->msg.put.hdr_data);
		ul_put_le32(u + U_PUT_PTL_INDEX, h->msg.put.ptl_index);
		ul_put_le32(u + U_PUT_OFFSET, h->msg.put.offset);
		break;
	case UL_WIRE_MSG_GET:
		put_handle(u + U_WMD, &h->msg.get.return_wmd);
		ul_put_le64(u + U_MATCH_BITS, h->msg.get.match_bits);
		ul_put_le32(u + U_GET_PTL_INDEX, h->msg.get.ptl_index);
		ul_put_le32(u + U_GET_SRC_OFFSET, h->msg.get.src_offset);
		ul_put_le32(u + U_GET_SINK_LENGTH, h->msg.get.sink_length);
		break;
	case UL_WIRE_MSG_ACK:
		put_handle(u + U_WMD, &h->msg.ack.dst_wmd);
		ul_put_le64(u + U_MATCH_BITS, h->msg.ack.match_bits);
		ul_put_le32(u + U_ACK_MLENGTH, h->msg.ack.mlength);
		break;
	default:
		put_handle(u + U_WMD, &h->msg.reply.dst_wmd);
		break;
	}
	return (int)size;
}

static void init_common(struct ul_wire_lnet_hdr *hdr, uint32_t type,
			const struct ulnet_nid *dest_nid, uint32_t dest_pid,
			const struct ulnet_nid *src_nid, uint32_t src_pid,
			uint32_t payload_length)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->dest_nid = *dest_nid;
	hdr->src_nid = *src_nid;
	hdr->dest_pid = dest_pid;
	hdr->src_pid = src_pid;
	hdr->type = type;
	hdr->payload_length = payload_length;
}

void ul_wire_ping_get_init(struct ul_wire_lnet_hdr *hdr,
			   const struct ulnet_nid *dest_nid,
			   const struct ulnet_nid *src_nid, uint32_t src_pid,
			   const struct ul_wire_handle *return_wmd,
			   uint32_t sink_length)
{
	/* §8.1: to pid 12345, portal 0, the ping match bits, offset 0. */
	init_common(hdr, UL_WIRE_MSG_GET, dest_nid, UL_WIRE_PID_LUSTRE, src_nid,
		    src_pid, 0);
	hdr->msg.get.return_wmd = *return_wmd;
	hdr->msg.get.match_bits = UL_WIRE_PING_MATCHBITS;
	hdr->msg.get.ptl_index = UL_WIRE_RESERVED_PORTAL;
	hdr->msg.get.sink_length = sink_length;
}

void ul_wire_push_put_init(struct ul_wire_lnet_hdr *hdr,
			   const struct ulnet_nid *dest_nid,
			   const struct ulnet_nid *src_nid, uint32_t src_pid,
			   const struct ul_wire_handle *ack_wmd,
			   uint32_t payload_length)
{
	/* §8.2: portal 0, ping match bits, offset 0, hdr_data 0, ACKed. */
	init_common(hdr, UL_WIRE_MSG_PUT, dest_nid, UL_WIRE_PID_LUSTRE, src_nid,
		    src_pid, payload_length);
	hdr->msg.put.ack_wmd = *ack_wmd;
	hdr->msg.put.match_bits = UL_WIRE_PING_MATCHBITS;
	hdr->msg.put.ptl_index = UL_WIRE_RESERVED_PORTAL;
}

void ul_wire_ack_init(struct ul_wire_lnet_hdr *ack,
		      const struct ul_wire_lnet_hdr *put, uint32_t src_pid,
		      uint32_t mlength)
{
	struct ul_wire_lnet_hdr a;

	/*
	 * §7.3: back to the PUT's sender, from the NI that owns its
	 * dest_nid; handle and match bits copied as they came. A local
	 * copy lets ack and put be the same struct.
	 */
	init_common(&a, UL_WIRE_MSG_ACK, &put->src_nid, put->src_pid,
		    &put->dest_nid, src_pid, 0);
	a.msg.ack.dst_wmd = put->msg.put.ack_wmd;
	a.msg.ack.match_bits = put->msg.put.match_bits;
	a.msg.ack.mlength = mlength;
	*ack = a;
}

void ul_wire_reply_init(struct ul_wire_lnet_hdr *reply,
			const struct ul_wire_lnet_hdr *get, uint32_t src_pid,
			uint32_t payload_length)
{
	struct ul_wire_lnet_hdr r;

	init_common(&r, UL_WIRE_MSG_REPLY, &get->src_nid, get->src_pid,
		    &get->dest_nid, src_pid, payload_length);
	r.msg.reply.dst_wmd = get->msg.get.return_wmd;
	*reply = r;
}
