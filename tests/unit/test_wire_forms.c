/*
 * The wire forms the vectors do not show (reference/wire.md §5, §6, §11):
 * byte-swapped peers, V1 and V4 hellos, nid16 headers, large-address and
 * metadata ping info, the NID forms and the §9.4 checksum.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper_vectors.h"
#include "wire/bytes.h"
#include "wire/wire.h"

static const uint8_t *vec(int index, size_t *len)
{
	const struct hv_block *b = hv_find(&hv_vectors, index);

	assert_non_null(b);
	*len = b->length;
	return b->bytes;
}

/* Reverse the bytes of each listed field: what a big-endian peer sends. */
static void swap_fields(uint8_t *p, const size_t (*fields)[2], size_t n)
{
	size_t i;
	size_t j;

	for (i = 0; i < n; i++) {
		uint8_t *f = p + fields[i][0];
		size_t w = fields[i][1];

		for (j = 0; j < w / 2; j++) {
			uint8_t t = f[j];

			f[j] = f[w - 1 - j];
			f[w - 1 - j] = t;
		}
	}
}

static void hello_from_big_endian_peer_decodes_to_same_values(void **state)
{
	/* §5.2: every field of a V2/V3 hello is in sender host order. */
	static const size_t fields[][2] = {
		{ 0, 4 },  { 4, 4 },  { 8, 8 },	 { 16, 8 }, { 24, 4 },
		{ 28, 4 }, { 32, 8 }, { 40, 8 }, { 48, 4 }, { 52, 4 },
	};
	struct ul_wire_hello le;
	struct ul_wire_hello be;
	uint8_t buf[56];
	uint8_t out[56];
	size_t len;

	(void)state;
	memset(&le, 0, sizeof(le));
	memset(&be, 0, sizeof(be));
	memcpy(buf, vec(2, &len), sizeof(buf));
	assert_int_equal(ul_wire_hello_decode(buf, 56, &le, NULL), 56);
	swap_fields(buf, fields, sizeof(fields) / sizeof(fields[0]));
	assert_int_equal(ul_wire_hello_decode(buf, 56, &be, NULL), 56);
	assert_true(be.is_swapped);
	assert_false(le.is_swapped);
	/* The NIDs too, unlike the kernel (§6). */
	be.is_swapped = false;
	assert_memory_equal(&be, &le, sizeof(le));
	be.is_swapped = true;
	assert_int_equal(ul_wire_hello_encode(&be, out, sizeof(out), NULL), 56);
	assert_memory_equal(out, buf, 56);
}

static void acceptor_from_big_endian_peer_decodes_to_same_nid(void **state)
{
	static const size_t fields[][2] = { { 0, 4 }, { 4, 4 }, { 8, 8 } };
	struct ul_wire_acr le;
	struct ul_wire_acr be;
	uint8_t buf[16];
	size_t len;

	(void)state;
	memcpy(buf, vec(1, &len), sizeof(buf));
	assert_int_equal(ul_wire_acr_decode(buf, 16, &le, NULL), 16);
	swap_fields(buf, fields, 3);
	assert_int_equal(ul_wire_acr_decode(buf, 16, &be, NULL), 16);
	assert_true(be.is_swapped);
	assert_memory_equal(&be.nid, &le.nid, sizeof(le.nid));
}

static void ping_info_from_big_endian_peer_decodes_to_same_values(void **state)
{
	static const size_t fields[][2] = {
		{ 0, 4 },  { 4, 4 },  { 8, 4 },	 { 12, 4 }, { 16, 8 },
		{ 24, 4 }, { 28, 4 }, { 32, 8 }, { 40, 4 }, { 44, 4 },
		{ 48, 8 }, { 56, 4 }, { 60, 4 },
	};
	struct ul_wire_ping_info pl;
	struct ul_wire_ping_info pb;
	struct ul_wire_ping_ni nl[3];
	struct ul_wire_ping_ni nb[3];
	uint8_t buf[64];
	uint8_t out[64];
	size_t len;

	(void)state;
	memset(nl, 0, sizeof(nl));
	memset(nb, 0, sizeof(nb));
	memcpy(buf, vec(9, &len) + 96, sizeof(buf));
	assert_int_equal(ul_wire_ping_info_decode(buf, 64, &pl, nl, 3, NULL),
			 64);
	swap_fields(buf, fields, sizeof(fields) / sizeof(fields[0]));
	assert_int_equal(ul_wire_ping_info_decode(buf, 64, &pb, nb, 3, NULL),
			 64);
	assert_true(pb.is_swapped);
	assert_int_equal(pb.features, pl.features);
	assert_int_equal(pb.pid, pl.pid);
	assert_int_equal(pb.nnis, 3);
	assert_memory_equal(nb, nl, sizeof(nl));
	assert_int_equal(ul_wire_ping_info_encode(&pb, nb, 3, out, 64, NULL),
			 64);
	assert_memory_equal(out, buf, 64);
}

static void ksock_header_from_big_endian_peer_is_swapped(void **state)
{
	static const size_t fields[][2] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }
	};
	struct ul_wire_ksock_hdr k;
	uint8_t buf[24];
	size_t len;
	size_t size;

	(void)state;
	memcpy(buf, vec(15, &len), sizeof(buf));
	swap_fields(buf, fields, 4);
	assert_int_equal(ul_wire_ksock_msg_frame(buf, 24, UL_WIRE_PROTO_V3,
						 true, &size, NULL),
			 0);
	assert_int_equal(size, 24);
	assert_int_equal(ul_wire_ksock_hdr_decode(buf, 24, UL_WIRE_PROTO_V3,
						  true, &k, NULL),
			 24);
	assert_int_equal(k.type, UL_WIRE_KSOCK_NOOP);
	assert_int_equal(k.zc_cookies[1], 1);
}

static void hello_decodes_in_two_steps_like_the_kernel(void **state)
{
	struct ul_wire_hello_start hs;
	struct ul_wire_hello one;
	struct ul_wire_hello two;
	const uint8_t *p;
	size_t len;

	(void)state;
	memset(&one, 0, sizeof(one));
	memset(&two, 0, sizeof(two));
	p = vec(3, &len);
	assert_int_equal(ul_wire_hello_start_decode(p, 8, &hs, NULL), 8);
	assert_int_equal(hs.version, 3);
	assert_int_equal(hs.fixed_size, 56);
	/* The rest may sit in another buffer. */
	assert_int_equal(ul_wire_hello_rest_decode(&hs, p + 8, 47, &two, NULL),
			 -ENOMSG);
	assert_int_equal(ul_wire_hello_rest_decode(&hs, p + 8, 48, &two, NULL),
			 48);
	assert_int_equal(ul_wire_hello_decode(p, len, &one, NULL), 56);
	assert_memory_equal(&one, &two, sizeof(one));
}

static void hello_v1_round_trips_with_ips(void **state)
{
	struct ul_wire_hello h;
	struct ul_wire_hello d;
	uint8_t out[UL_WIRE_HELLO_MAX_SIZE];
	size_t size;
	int n;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.version = UL_WIRE_PROTO_V1;
	assert_int_equal(ul_wire_nid4_to_nid(UINT64_C(0x00020000c6120001),
					     &h.src_nid, NULL),
			 0);
	h.src_pid = 12345;
	h.src_incarnation = UINT64_C(0x1811223344556677);
	h.ctype = UL_WIRE_CONN_BULK_IN;
	h.nips = 2;
	h.ips[0] = 0xc6120001;
	h.ips[1] = 0xc6120101;
	memset(&d, 0, sizeof(d));
	n = ul_wire_hello_encode(&h, out, sizeof(out), NULL);
	assert_int_equal(n, 80);
	/* §5.4: LE magic, 1.0, type HELLO, payload_length = 4 * nips. */
	assert_int_equal(ul_get_le32(out), UL_WIRE_TCP_MAGIC);
	assert_int_equal(ul_get_le16(out + 4), 1);
	assert_int_equal(ul_get_le16(out + 6), 0);
	assert_int_equal(ul_get_le32(out + 24), UL_WIRE_MSG_HELLO);
	assert_int_equal(ul_get_le32(out + 28), 8);
	assert_int_equal(ul_get_le32(out + 72), 0xc6120001);
	/* The fixed part alone: the IPs are still to come. */
	assert_int_equal(ul_wire_hello_frame(out, 72, &size, NULL), -ENOMSG);
	assert_int_equal(size, 80);
	assert_int_equal(ul_wire_hello_frame(out, 80, &size, NULL), 0);
	assert_int_equal(size, 80);
	assert_int_equal(ul_wire_hello_decode(out, (size_t)n, &d, NULL), 80);
	assert_memory_equal(&d, &h, sizeof(h));

	/* A V1 header that is not a HELLO is refused. */
	ul_put_le32(out + 24, UL_WIRE_MSG_PUT);
	assert_int_equal(ul_wire_hello_decode(out, (size_t)n, &d, NULL),
			 -EPROTO);
	/* So is a V1 version other than 1.0. */
	ul_put_le32(out + 24, UL_WIRE_MSG_HELLO);
	ul_put_le16(out + 6, 1);
	assert_int_equal(ul_wire_hello_decode(out, (size_t)n, &d, NULL),
			 -EPROTONOSUPPORT);
}

static const struct ulnet_nid nid_a6 = { 12, 2, 0, { 0x20010db8, 0, 0, 1 } };
static const struct ulnet_nid nid_b6 = { 12, 2, 0, { 0x20010db8, 0, 0, 2 } };

static void hello_v4_round_trips_and_refuses_ips(void **state)
{
	/* §3.2's example: 2001:db8::1@tcp. */
	static const uint8_t a6[20] = { 0x0c, 0x02, 0x00, 0x00, 0x20,
					0x01, 0x0d, 0xb8, 0,	0,
					0,    0,    0,	  0,	0,
					0,    0,    0,	  0,	1 };
	struct ul_wire_hello h;
	struct ul_wire_hello d;
	uint8_t out[80];

	(void)state;
	memset(&h, 0, sizeof(h));
	memset(&d, 0, sizeof(d));
	h.version = UL_WIRE_PROTO_V4;
	h.src_nid = nid_a6;
	h.dst_nid = nid_b6;
	h.src_pid = 12345;
	h.src_incarnation = 7;
	h.ctype = UL_WIRE_CONN_CONTROL;
	assert_int_equal(ul_wire_hello_encode(&h, out, sizeof(out), NULL), 80);
	assert_memory_equal(out + 8, a6, 20);
	assert_int_equal(ul_wire_hello_decode(out, 80, &d, NULL), 80);
	assert_memory_equal(&d, &h, sizeof(h));
	ul_put_le32(out + 76, 1);
	assert_int_equal(ul_wire_hello_decode(out, 80, &d, NULL), -EPROTO);
}

static void v4_message_uses_96_byte_header(void **state)
{
	static const uint8_t payload[5] = "hello";
	struct ul_wire_ksock_msg m;
	struct ul_wire_ksock_msg d;
	uint8_t out[256];
	size_t size;
	int n;

	(void)state;
	memset(&m, 0, sizeof(m));
	memset(&d, 0, sizeof(d));
	m.ksh.type = UL_WIRE_KSOCK_LNET;
	m.hdr.type = UL_WIRE_MSG_PUT;
	m.hdr.dest_nid = nid_b6;
	m.hdr.src_nid = nid_a6;
	m.hdr.dest_pid = m.hdr.src_pid = 12345;
	m.hdr.payload_length = sizeof(payload);
	m.hdr.msg.put.ack_wmd.wh_interface_cookie = UL_WIRE_HANDLE_COOKIE_NONE;
	m.hdr.msg.put.ack_wmd.wh_object_cookie = UL_WIRE_HANDLE_COOKIE_NONE;
	m.hdr.msg.put.match_bits = 0x1234;
	m.hdr.msg.put.ptl_index = 8;
	m.payload = payload;
	n = ul_wire_ksock_msg_encode(&m, UL_WIRE_PROTO_V4, false, out,
				     sizeof(out), NULL);
	assert_int_equal(n, 24 + 96 + 5);
	/* §5.7: type at 48 and payload_length at 52 of the header. */
	assert_int_equal(ul_get_le32(out + 24 + 48), UL_WIRE_MSG_PUT);
	assert_int_equal(ul_get_le32(out + 24 + 52), 5);
	assert_int_equal(ul_wire_ksock_msg_frame(out, 24 + 96, UL_WIRE_PROTO_V4,
						 false, &size, NULL),
			 -ENOMSG);
	assert_int_equal(size, (size_t)n);
	assert_int_equal(ul_wire_ksock_msg_decode(out, (size_t)n,
						  UL_WIRE_PROTO_V4, false, &d,
						  NULL),
			 n);
	assert_memory_equal(&d.hdr, &m.hdr, sizeof(m.hdr));
	assert_memory_equal(d.payload, payload, sizeof(payload));
}

/* 0@lo, 198.18.0.2@tcp and 2001:db8::1@tcp: one large entry. */
static void make_large_nis(struct ul_wire_ping_ni *nis)
{
	memset(nis, 0, 3 * sizeof(*nis));
	assert_int_equal(
		ul_wire_nid4_to_nid(UL_WIRE_NID4_LO, &nis[0].nid, NULL), 0);
	nis[0].status = 9;
	assert_int_equal(ul_wire_nid4_to_nid(UINT64_C(0x00020000c6120002),
					     &nis[1].nid, NULL),
			 0);
	nis[1].status = UL_WIRE_NI_STATUS_UP;
	nis[2].nid = nid_a6;
	nis[2].status = UL_WIRE_NI_STATUS_DOWN;
	nis[2].is_large = true;
}

static void ping_info_with_large_addr_round_trips(void **state)
{
	struct ul_wire_ping_info pi = { .features = 0x1e, .pid = 12345 };
	struct ul_wire_ping_info d;
	struct ul_wire_ping_ni nis[3];
	struct ul_wire_ping_ni out_nis[3];
	uint8_t out[128];
	int n;

	(void)state;
	make_large_nis(nis);
	memset(out_nis, 0, sizeof(out_nis));
	n = ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out), NULL);
	/* 16 + 2 * 16 + (4 + 20) */
	assert_int_equal(n, 72);
	assert_int_equal(ul_wire_ping_info_size(nis, 3), 72);
	assert_int_equal(ul_get_le32(out + 4), 0x3e);
	assert_int_equal(ul_get_le32(out + 12), 2);
	assert_int_equal(ul_get_le32(out + 16 + 12), 72);
	assert_int_equal(ul_wire_ping_info_decode(out, (size_t)n, &d, out_nis,
						  3, NULL),
			 72);
	assert_int_equal(d.nnis, 2);
	assert_int_equal(d.nlarge, 1);
	nis[0].msg_size = 72;
	assert_memory_equal(out_nis, nis, sizeof(nis));
}

/*
 * A ping info cut short (a REPLY to a GET that asked for too little)
 * says how long it is: its entries, or its ns_msg_size once readable.
 */
static void cut_ping_info_tells_its_length(void **state)
{
	struct ul_wire_ping_info pi = { .features = 0x1e, .pid = 12345 };
	struct ul_wire_ping_ni nis[3];
	uint8_t out[128];

	(void)state;
	make_large_nis(nis);
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out),
						  NULL),
			 72);
	assert_int_equal(ul_wire_ping_info_check(out, 40, &pi, NULL), -ENOMSG);
	assert_int_equal(ul_wire_ping_info_needed(out, 72), 72);
	assert_int_equal(ul_wire_ping_info_needed(out, 40), 72);
	/* ns_msg_size not there yet: the two 64-bit entries */
	assert_int_equal(ul_wire_ping_info_needed(out, 20), 48);
	assert_int_equal(ul_wire_ping_info_needed(out, 10), 0);
	out[0] ^= 0xff;
	assert_int_equal(ul_wire_ping_info_needed(out, 72), 0);
}

static void ping_info_large_addr_with_inconsistent_msg_size_fails(void **state)
{
	static const struct {
		uint32_t msg_size;
		size_t len;
		int want;
	} cases[] = {
		/* 0 */ { 70, 72, -EPROTO }, /* not a multiple of 4 */
		/* 1 */ { 44, 72, -EPROTO }, /* inside the nid4 entries */
		/* 2 */ { 68, 72, -EPROTO }, /* cuts the large entry */
		/* 3 */ { 76, 76, -EPROTO }, /* 4 stray bytes after it */
		/* 4 */ { 80, 72, -ENOMSG }, /* beyond the bytes */
		/* 5 */ { 48, 72, 48 },	     /* no large entries at all */
		/* 6 */ { 72, 72, 72 },
	};
	struct ul_wire_ping_info pi = { .features = 0x1e, .pid = 12345 };
	struct ul_wire_ping_ni nis[3];
	uint8_t out[128];
	size_t i;

	(void)state;
	make_large_nis(nis);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ul_wire_ping_info d;
		int rc;

		memset(out, 0, sizeof(out));
		assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out,
							  sizeof(out), NULL),
				 72);
		ul_put_le32(out + 16 + 12, cases[i].msg_size);
		rc = ul_wire_ping_info_check(out, cases[i].len, &d, NULL);
		if (rc != cases[i].want)
			fail_msg("case %zu: rc %d, want %d", i, rc,
				 cases[i].want);
	}
}

static void ping_info_refuses_large_entry_with_a_4_byte_address(void **state)
{
	struct ul_wire_ping_info pi = { .features = 0x1e, .pid = 12345 };
	struct ul_wire_ping_info d;
	struct ul_wire_ping_ni nis[3];
	uint8_t out[128];

	(void)state;
	make_large_nis(nis);
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out),
						  NULL),
			 72);
	out[48 + 4] = 0; /* nid_size of the large entry */
	assert_int_equal(ul_wire_ping_info_check(out, 72, &d, NULL), -EPROTO);
	out[48 + 4] = 13;
	assert_int_equal(ul_wire_ping_info_check(out, 72, &d, NULL), -EPROTO);
}

static void ping_info_metadata_block_is_skipped(void **state)
{
	struct ul_wire_ping_info d;
	uint8_t buf[64 + 4 + 40];
	size_t len;

	(void)state;
	memset(buf, 0x5a, sizeof(buf));
	memcpy(buf, vec(9, &len) + 96, 64);
	ul_put_le32(buf + 4, 0x1e | UL_WIRE_PING_FEAT_METADATA);
	ul_put_le32(buf + 64, 1);
	assert_int_equal(ul_wire_ping_info_check(buf, sizeof(buf), &d, NULL),
			 108);
	assert_int_equal(d.nmeta, 1);
	assert_int_equal(ul_wire_ping_info_check(buf, sizeof(buf) - 1, &d,
						 NULL),
			 -ENOMSG);
	ul_put_le32(buf + 64, 4097);
	assert_int_equal(ul_wire_ping_info_check(buf, sizeof(buf), &d, NULL),
			 -EPROTO);
}

static void nid4_forms_convert_both_ways(void **state)
{
	static const uint64_t ok[] = {
		/* 0 */ UINT64_C(0x00020000c6120001),
		/* 1 */ UINT64_C(0x00020001c6120102),
		/* 2 */ UINT64_C(0x000500030a000005),
		/* 3 */ UL_WIRE_NID4_LO,
		/* 4 */ UL_WIRE_NID4_ANY,
	};
	struct ulnet_nid nid;
	uint64_t back;
	uint8_t b[20];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (ul_wire_nid4_to_nid(ok[i], &nid, NULL) ||
		    ul_wire_nid_to_nid4(&nid, &back, NULL) || back != ok[i])
			fail_msg("case %zu: 0x%llx", i,
				 (unsigned long long)ok[i]);
	}
	/* §3.2: for a 4-byte address, the first 8 bytes are the BE u64. */
	assert_int_equal(ul_wire_nid4_to_nid(ok[0], &nid, NULL), 0);
	ul_wire_nid_put(b, &nid);
	assert_int_equal(ul_get_be64(b), ok[0]);
	assert_int_equal(ul_wire_nid4_to_nid(UINT64_C(0x0102000000000000), &nid,
					     NULL),
			 -EPROTO);
	assert_int_equal(ul_wire_nid_to_nid4(&nid_a6, &back, NULL), -EINVAL);
}

static void csum_is_crc32_without_final_inversion(void **state)
{
	(void)state;
	/* zlib.crc32(b"123456789") == 0xcbf43926; XOR 0xffffffff. */
	assert_int_equal(ul_wire_csum(UL_WIRE_CSUM_INIT, "123456789", 9),
			 0x340bc6d9);
	/* §9.4: with no payload the V3 value is 0xffffffff. */
	assert_int_equal(ul_wire_csum(UL_WIRE_CSUM_INIT, "", 0), 0xffffffff);
	/* Feeding in pieces gives the same answer. */
	assert_int_equal(
		ul_wire_csum(ul_wire_csum(UL_WIRE_CSUM_INIT, "1234", 4),
			     "56789", 5),
		0x340bc6d9);
}

/* What ulnetctl debug decode needs to pick a decoder (wire.md §1, §2). */
static void unit_classify_tells_each_start_apart(void **state)
{
	static const struct {
		uint8_t bytes[4];
		enum ul_wire_unit unit;
	} cases[] = {
		/* 0 */ { { 0x00, 0x71, 0xce, 0xac }, UL_WIRE_UNIT_ACR },
		/* 1 */ { { 0xac, 0xce, 0x71, 0x00 }, UL_WIRE_UNIT_ACR },
		/* 2 */ { { 0x63, 0x69, 0x72, 0x45 }, UL_WIRE_UNIT_HELLO },
		/* 3 */ { { 0x45, 0x72, 0x69, 0x63 }, UL_WIRE_UNIT_HELLO },
		/* 4 */ { { 0xed, 0x0d, 0xbc, 0xee }, UL_WIRE_UNIT_HELLO },
		/* 5 */ { { 0xee, 0xbc, 0x0d, 0xed }, UL_WIRE_UNIT_HELLO },
		/* 6 */ { { 0xc0, 0, 0, 0 }, UL_WIRE_UNIT_KSOCK },
		/* 7 */ { { 0, 0, 0, 0xc1 }, UL_WIRE_UNIT_KSOCK },
		/* 8 */ { { 0x67, 0x6e, 0x69, 0x70 }, UL_WIRE_UNIT_PING_INFO },
		/* 9 */ { { 0x70, 0x69, 0x6e, 0x67 }, UL_WIRE_UNIT_PING_INFO },
		/* 10 */ { { 0xc2, 0, 0, 0 }, UL_WIRE_UNIT_UNKNOWN },
		/* 11 */ { { 0, 0, 0, 0 }, UL_WIRE_UNIT_UNKNOWN },
		/* 12 */ { { 0x91, 0x1b, 0xe9, 0x0b }, UL_WIRE_UNIT_UNKNOWN },
	};
	enum ul_wire_unit unit;
	size_t i;
	size_t n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = ul_wire_unit_classify(cases[i].bytes, 4, &unit);

		if (rc != 0 || unit != cases[i].unit)
			fail_msg("case %zu: rc %d unit %d, want %d", i, rc,
				 unit, cases[i].unit);
		assert_int_equal(ul_wire_is_ping_info(cases[i].bytes, 4),
				 cases[i].unit == UL_WIRE_UNIT_PING_INFO);
		assert_false(ul_wire_is_ping_info(cases[i].bytes, 3));
	}
	/* Every vector starts with the unit its label names. */
	for (i = 0; i < hv_vectors.nblocks; i++) {
		const struct hv_block *b = &hv_vectors.blocks[i];
		enum ul_wire_unit want = UL_WIRE_UNIT_KSOCK;

		if (!strncmp(b->label, "acceptor-", 9))
			want = UL_WIRE_UNIT_ACR;
		else if (!strncmp(b->label, "hello-", 6))
			want = UL_WIRE_UNIT_HELLO;
		assert_int_equal(
			ul_wire_unit_classify(b->bytes, b->length, &unit), 0);
		assert_int_equal(unit, want);
	}
	/* Ping info inside a payload. */
	assert_true(ul_wire_is_ping_info(vec(9, &n) + 96, 64));
	assert_false(ul_wire_is_ping_info(vec(9, &n), n));
	unit = UL_WIRE_UNIT_ACR;
	assert_int_equal(ul_wire_unit_classify(cases[2].bytes, 3, &unit),
			 -ENOMSG);
	assert_int_equal(unit, UL_WIRE_UNIT_ACR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			hello_from_big_endian_peer_decodes_to_same_values),
		cmocka_unit_test(
			acceptor_from_big_endian_peer_decodes_to_same_nid),
		cmocka_unit_test(
			ping_info_from_big_endian_peer_decodes_to_same_values),
		cmocka_unit_test(ksock_header_from_big_endian_peer_is_swapped),
		cmocka_unit_test(hello_decodes_in_two_steps_like_the_kernel),
		cmocka_unit_test(hello_v1_round_trips_with_ips),
		cmocka_unit_test(hello_v4_round_trips_and_refuses_ips),
		cmocka_unit_test(v4_message_uses_96_byte_header),
		cmocka_unit_test(ping_info_with_large_addr_round_trips),
		cmocka_unit_test(cut_ping_info_tells_its_length),
		cmocka_unit_test(
			ping_info_large_addr_with_inconsistent_msg_size_fails),
		cmocka_unit_test(
			ping_info_refuses_large_entry_with_a_4_byte_address),
		cmocka_unit_test(ping_info_metadata_block_is_skipped),
		cmocka_unit_test(nid4_forms_convert_both_ways),
		cmocka_unit_test(csum_is_crc32_without_final_inversion),
		cmocka_unit_test(unit_classify_tells_each_start_apart),
	};

	return cmocka_run_group_tests(tests, hv_setup, hv_teardown);
}
