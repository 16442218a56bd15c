/*
 * Fuzz target: every socklnd decoder on untrusted bytes, and real round
 * trips. For every unit that decodes to v1:
 *   b1 = encode(v1)   must succeed (the codec may not accept what it
 *                     cannot represent);
 *   v2 = decode(b1)   must take all of b1 and equal v1, field by field
 *                     (struct padding is not a value);
 *   b2 = encode(v2)   must be b1 byte for byte.
 * Any breach abort()s, which libFuzzer reports as a crash. The frame
 * functions must agree with the decoders on every unit's length.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/wire.h"

#define BUF_MAX (2 * UL_WIRE_LNET_MTU)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out1[BUF_MAX];
static uint8_t out2[BUF_MAX];

static void require(bool ok)
{
	if (!ok)
		abort();
}

/* b2 (n2 bytes or an error) is exactly b1's n1 bytes. */
static void require_same_bytes(int n1, int n2)
{
	require(n1 > 0 && n2 == n1 && memcmp(out1, out2, (size_t)n1) == 0);
}

/* Field by field: every NID that decodes encodes back to itself. */
static bool nid_same(const struct ulnet_nid *a, const struct ulnet_nid *b)
{
	return a->nid_size == b->nid_size && a->nid_type == b->nid_type &&
	       a->nid_num == b->nid_num &&
	       memcmp(a->nid_addr, b->nid_addr, sizeof(a->nid_addr)) == 0;
}

static bool acr_same(const struct ul_wire_acr *a, const struct ul_wire_acr *b)
{
	return a->version == b->version && a->is_swapped == b->is_swapped &&
	       nid_same(&a->nid, &b->nid);
}

static bool hello_same(const struct ul_wire_hello *a,
		       const struct ul_wire_hello *b)
{
	uint32_t i;

	if (a->version != b->version || a->is_swapped != b->is_swapped ||
	    !nid_same(&a->src_nid, &b->src_nid) ||
	    !nid_same(&a->dst_nid, &b->dst_nid) || a->src_pid != b->src_pid ||
	    a->dst_pid != b->dst_pid ||
	    a->src_incarnation != b->src_incarnation ||
	    a->dst_incarnation != b->dst_incarnation || a->ctype != b->ctype ||
	    a->nips != b->nips || a->nips > UL_WIRE_INTERFACES_NUM)
		return false;
	for (i = 0; i < a->nips; i++)
		if (a->ips[i] != b->ips[i])
			return false;
	return true;
}

static bool handle_same(const struct ul_wire_handle *a,
			const struct ul_wire_handle *b)
{
	return a->wh_interface_cookie == b->wh_interface_cookie &&
	       a->wh_object_cookie == b->wh_object_cookie;
}

static bool lnet_hdr_same(const struct ul_wire_lnet_hdr *a,
			  const struct ul_wire_lnet_hdr *b)
{
	if (!nid_same(&a->dest_nid, &b->dest_nid) ||
	    !nid_same(&a->src_nid, &b->src_nid) || a->dest_pid != b->dest_pid ||
	    a->src_pid != b->src_pid || a->type != b->type ||
	    a->payload_length != b->payload_length)
		return false;
	switch (a->type) {
	case UL_WIRE_MSG_PUT:
		return handle_same(&a->msg.put.ack_wmd, &b->msg.put.ack_wmd) &&
		       a->msg.put.match_bits == b->msg.put.match_bits &&
		       a->msg.put.hdr_data == b->msg.put.hdr_data &&
		       a->msg.put.ptl_index == b->msg.put.ptl_index &&
		       a->msg.put.offset == b->msg.put.offset;
	case UL_WIRE_MSG_GET:
		return handle_same(&a->msg.get.return_wmd,
				   &b->msg.get.return_wmd) &&
		       a->msg.get.match_bits == b->msg.get.match_bits &&
		       a->msg.get.ptl_index == b->msg.get.ptl_index &&
		       a->msg.get.src_offset == b->msg.get.src_offset &&
		       a->msg.get.sink_length == b->msg.get.sink_length;
	case UL_WIRE_MSG_ACK:
		return handle_same(&a->msg.ack.dst_wmd, &b->msg.ack.dst_wmd) &&
		       a->msg.ack.match_bits == b->msg.ack.match_bits &&
		       a->msg.ack.mlength == b->msg.ack.mlength;
	case UL_WIRE_MSG_REPLY:
		return handle_same(&a->msg.reply.dst_wmd,
				   &b->msg.reply.dst_wmd);
	default:
		return false; /* decode lets no other type through */
	}
}

static bool msg_same(const struct ul_wire_ksock_msg *a,
		     const struct ul_wire_ksock_msg *b)
{
	if (a->ksh.type != b->ksh.type || a->ksh.csum != b->ksh.csum ||
	    a->ksh.zc_cookies[0] != b->ksh.zc_cookies[0] ||
	    a->ksh.zc_cookies[1] != b->ksh.zc_cookies[1])
		return false;
	if (a->ksh.type != UL_WIRE_KSOCK_LNET)
		return true;
	return lnet_hdr_same(&a->hdr, &b->hdr) &&
	       (a->hdr.payload_length == 0 ||
		memcmp(a->payload, b->payload, a->hdr.payload_length) == 0);
}

static bool ping_ni_same(const struct ul_wire_ping_ni *a,
			 const struct ul_wire_ping_ni *b)
{
	return nid_same(&a->nid, &b->nid) && a->status == b->status &&
	       a->msg_size == b->msg_size && a->is_large == b->is_large;
}

static void check_acr(const uint8_t *d, size_t n)
{
	enum ul_wire_acr_verdict v;
	struct ul_wire_acr a, b;
	size_t sz;
	int rc;
	int n1;

	rc = ul_wire_acr_classify(d, n, &v, &sz);
	if (ul_wire_acr_decode(d, n, &a, NULL) < 0)
		return;
	require(rc == 0 && v == UL_WIRE_ACR_OK);
	n1 = ul_wire_acr_encode(&a, out1, sizeof(out1), NULL);
	require(n1 > 0 && (size_t)n1 == sz);
	require(ul_wire_acr_decode(out1, (size_t)n1, &b, NULL) == n1);
	require(acr_same(&a, &b));
	require_same_bytes(n1,
			   ul_wire_acr_encode(&b, out2, sizeof(out2), NULL));
}

static void check_hello(const uint8_t *d, size_t n)
{
	struct ul_wire_hello a, b;
	size_t sz = 0;
	int frc;
	int rc;
	int n1;

	frc = ul_wire_hello_frame(d, n, &sz, NULL);
	require(frc != 0 || sz <= n);
	rc = ul_wire_hello_decode(d, n, &a, NULL);
	if (rc < 0)
		return;
	require(frc == 0 && sz == (size_t)rc);
	n1 = ul_wire_hello_encode(&a, out1, sizeof(out1), NULL);
	require(n1 == rc);
	require(ul_wire_hello_decode(out1, (size_t)n1, &b, NULL) == n1);
	require(hello_same(&a, &b));
	require_same_bytes(n1,
			   ul_wire_hello_encode(&b, out2, sizeof(out2), NULL));
}

static void check_ping(const uint8_t *d, size_t n)
{
	struct ul_wire_ping_ni *nis1, *nis2;
	struct ul_wire_ping_info p1, p2;
	size_t count;
	size_t i;
	int n1;

	if (ul_wire_ping_info_check(d, n, &p1, NULL) < 0)
		return;
	count = (size_t)p1.nnis + p1.nlarge;
	require(count <= UL_WIRE_INTERFACES_MAX &&
		p1.size <= UL_WIRE_PING_INFO_MAX_SIZE);
	nis1 = calloc(count, sizeof(*nis1));
	nis2 = calloc(count, sizeof(*nis2));
	require(nis1 && nis2);
	require(ul_wire_ping_info_decode(d, n, &p1, nis1, count, NULL) ==
		(int)p1.size);
	n1 = ul_wire_ping_info_encode(&p1, nis1, count, out1, sizeof(out1),
				      NULL);
	require(n1 > 0);
	require(ul_wire_ping_info_decode(out1, (size_t)n1, &p2, nis2, count,
					 NULL) == n1);
	/* Encode writes no metadata: the one difference it may make. */
	require(p2.is_swapped == p1.is_swapped &&
		p2.features ==
			(p1.features & ~(uint32_t)UL_WIRE_PING_FEAT_METADATA) &&
		p2.pid == p1.pid && p2.nnis == p1.nnis &&
		p2.nlarge == p1.nlarge && p2.nmeta == 0 &&
		p2.size == (uint32_t)n1);
	for (i = 0; i < count; i++)
		require(ping_ni_same(&nis1[i], &nis2[i]));
	require_same_bytes(n1, ul_wire_ping_info_encode(&p2, nis2, count, out2,
							sizeof(out2), NULL));
	free(nis1);
	free(nis2);
}

static void check_msgs(const uint8_t *d, size_t n, uint32_t version,
		       bool swapped)
{
	size_t off = 0;

	/* Walk the stream as a receiver would, message by message. */
	while (off < n) {
		struct ul_wire_ksock_msg m, m2;
		size_t sz;
		int rc;
		int n1;

		if (ul_wire_ksock_msg_frame(d + off, n - off, version, swapped,
					    &sz, NULL) < 0)
			return;
		require(sz <= n - off);
		rc = ul_wire_ksock_msg_decode(d + off, sz, version, swapped, &m,
					      NULL);
		if (rc < 0)
			return;
		require((size_t)rc == sz);
		if (m.ksh.type == UL_WIRE_KSOCK_LNET &&
		    ul_wire_is_ping_info(m.payload, m.hdr.payload_length))
			check_ping(m.payload, m.hdr.payload_length);
		n1 = ul_wire_ksock_msg_encode(&m, version, swapped, out1,
					      sizeof(out1), NULL);
		require(n1 == rc);
		require(ul_wire_ksock_msg_decode(out1, (size_t)n1, version,
						 swapped, &m2, NULL) == n1);
		require(msg_same(&m, &m2));
		require_same_bytes(
			n1, ul_wire_ksock_msg_encode(&m2, version, swapped,
						     out2, sizeof(out2), NULL));
		off += sz;
	}
}

/* A connection's bytes as an acceptor reads them: request, hello, stream. */
static void check_connection(const uint8_t *d, size_t n)
{
	struct ul_wire_acr acr;
	struct ul_wire_hello h;
	int rc;

	rc = ul_wire_acr_decode(d, n, &acr, NULL);
	if (rc > 0) {
		d += rc;
		n -= (size_t)rc;
	}
	rc = ul_wire_hello_decode(d, n, &h, NULL);
	if (rc < 0 || h.version == UL_WIRE_PROTO_V1)
		return;
	check_msgs(d + rc, n - (size_t)rc, h.version, h.is_swapped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum ul_wire_unit unit;

	if (ul_wire_unit_classify(data, size, &unit) == 0)
		require(ul_wire_is_ping_info(data, size) ==
			(unit == UL_WIRE_UNIT_PING_INFO));
	check_acr(data, size);
	check_hello(data, size);
	check_msgs(data, size, UL_WIRE_PROTO_V3, false);
	check_msgs(data, size, UL_WIRE_PROTO_V4, false);
	check_msgs(data, size, UL_WIRE_PROTO_V2, true);
	check_msgs(data, size, UL_WIRE_PROTO_V4, true);
	check_ping(data, size);
	check_connection(data, size);
	return 0;
}
