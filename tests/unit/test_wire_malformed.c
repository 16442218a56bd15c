/*
 * The wire codec on broken input (reference/wire.md §10): every
 * truncation of every vector, and one changed field at a time. Each case
 * expects the error of the check it breaks, never a crash (run under
 * ASan/UBSan) and never success with wrong data.
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

/* A private, malloc'd copy, so ASan sees any read past its end. */
static uint8_t *copy_of(int index, size_t *len)
{
	const struct hv_block *b = hv_find(&hv_vectors, index);

	assert_non_null(b);
	*len = b->length;
	return hv_copy(index, b->length);
}

static int decode_stage(const char *label, const uint8_t *p, size_t len,
			struct ul_err *err)
{
	struct ul_wire_ksock_msg m;
	struct ul_wire_hello h;
	struct ul_wire_acr a;

	if (!strncmp(label, "acceptor-", 9))
		return ul_wire_acr_decode(p, len, &a, err);
	if (!strncmp(label, "hello-", 6))
		return ul_wire_hello_decode(p, len, &h, err);
	return ul_wire_ksock_msg_decode(p, len, UL_WIRE_PROTO_V3, false, &m,
					err);
}

static int frame_stage(const char *label, const uint8_t *p, size_t len,
		       size_t *size)
{
	enum ul_wire_acr_verdict v;

	if (!strncmp(label, "acceptor-", 9))
		return ul_wire_acr_classify(p, len, &v, size);
	if (!strncmp(label, "hello-", 6))
		return ul_wire_hello_frame(p, len, size, NULL);
	return ul_wire_ksock_msg_frame(p, len, UL_WIRE_PROTO_V3, false, size,
				       NULL);
}

/*
 * What a frame function must say about block b cut to len bytes. The
 * acceptor's classify answers from 4 bytes (a wrong magic) or 8 (magic
 * and version) and then names the whole request's length, which may be
 * beyond len; the hello and ksock framers never claim a cut unit: they
 * ask for more than len bytes and no more than the unit holds.
 */
static bool frame_contract_holds(const struct hv_block *b, size_t len, int rc,
				 size_t size)
{
	if (!strncmp(b->label, "acceptor-", 9)) {
		if (len < 4)
			return rc == -ENOMSG && size == 4;
		if (len < 8)
			return rc == -ENOMSG && size == 8;
		return rc == 0 && size == b->length;
	}
	return rc == -ENOMSG && size > len && size <= b->length;
}

static void truncation_at_every_offset_needs_more_bytes(void **state)
{
	size_t i;
	size_t len;

	(void)state;
	for (i = 0; i < hv_vectors.nblocks; i++) {
		const struct hv_block *b = &hv_vectors.blocks[i];

		for (len = 0; len < b->length; len++) {
			struct ul_err err = { 0 };
			uint8_t *p = malloc(len ? len : 1);
			size_t size = 0;
			int rc;

			assert_non_null(p);
			memcpy(p, b->bytes, len);
			rc = decode_stage(b->label, p, len, &err);
			if (rc != -ENOMSG)
				fail_msg("block %d cut at %zu: rc %d", b->index,
					 len, rc);
			assert_true(err.msg[0] != '\0');
			rc = frame_stage(b->label, p, len, &size);
			if (!frame_contract_holds(b, len, rc, size))
				fail_msg("block %d cut at %zu: frame rc %d "
					 "size %zu",
					 b->index, len, rc, size);
			free(p);
		}
	}
}

static void ping_info_truncated_at_every_offset_needs_more_bytes(void **state)
{
	static const int blocks[] = { 9, 10 };
	struct ul_wire_ping_info pi;
	size_t i;
	size_t len;

	(void)state;
	for (i = 0; i < 2; i++) {
		const struct hv_block *b = hv_find(&hv_vectors, blocks[i]);
		const uint8_t *info = b->bytes + 96;
		size_t n = b->length - 96;

		for (len = 0; len < n; len++) {
			uint8_t *p = malloc(len ? len : 1);
			int rc;

			assert_non_null(p);
			memcpy(p, info, len);
			rc = ul_wire_ping_info_check(p, len, &pi, NULL);
			if (rc != -ENOMSG)
				fail_msg("block %d info cut at %zu: rc %d",
					 b->index, len, rc);
			free(p);
		}
	}
}

/* Numbered table: one changed field of a vector, and what it gives. */
struct mutation {
	int vector;
	size_t offset;
	int width; /* 1, 4 or 8 (LE) */
	uint64_t value;
	int want_decode; /* rc of the stage decoder */
	int want_frame;	 /* rc of the stage framer; 1 = don't care */
	const char *what;
};

static const struct mutation mutations[] = {
	/* 0 */ { 4, 52, 4, 0x100001, -EPROTO, -EPROTO,
		  "PUT payload_length above LNET_MTU" },
	/* 1 */
	{ 7, 52, 4, 0xffffffff, -EPROTO, -EPROTO,
	  "REPLY payload_length 4 GiB" },
	/* 2 */ { 4, 0, 4, 0xc2, -EPROTO, -EPROTO, "ksock type 0xc2" },
	/* 3 */ { 15, 0, 4, 0, -EPROTO, -EPROTO, "ksock type 0" },
	/* 4 */ { 6, 52, 4, 1, -EPROTO, 1, "GET with payload_length 1" },
	/* 5 */ { 5, 52, 4, 1, -EPROTO, 1, "ACK with payload_length 1" },
	/* 6 */ { 15, 8, 8, 5, -EPROTO, 0, "keepalive with zc_cookies[0] = 5" },
	/* 7 */ { 6, 48, 4, 4, -EPROTO, 0, "LNet type 4 (HELLO)" },
	/* 8 */ { 6, 48, 4, 7, -EPROTO, 0, "LNet type 7" },
	/* 9 */ { 2, 52, 4, 17, -EPROTO, -EPROTO, "hello with 17 IPs" },
	/* 10 */
	{ 2, 4, 4, 5, -EPROTONOSUPPORT, -EPROTONOSUPPORT, "hello version 5" },
	/* 11 */
	{ 2, 4, 4, 0, -EPROTONOSUPPORT, -EPROTONOSUPPORT, "hello version 0" },
	/* 12 */ { 2, 0, 4, 0x12345678, -EPROTO, -EPROTO, "hello bad magic" },
	/* 13 */
	{ 2, 0, 4, 0xed0dbcee, -EPROTO, -EPROTO,
	  "hello V1 magic byte-swapped" },
	/* 14 */ { 1, 0, 4, 0x12345678, -EPROTO, 0, "acceptor bad magic" },
	/* 15 */ { 1, 4, 4, 3, -EPROTONOSUPPORT, 0, "acceptor version 3" },
	/* 16 */ { 1, 4, 4, 0, -EPROTONOSUPPORT, 0, "acceptor version 0" },
	/* 17 */
	{ 1, 15, 1, 0x01, -EPROTO, 0, "acceptor NID with a non-zero top byte" },
	/* 18 */
	{ 4, 31, 1, 0x10, -EPROTO, 0,
	  "LNet dest_nid with a non-zero top byte" },
	/* 19 */ { 15, 16, 8, 1, 24, 0, "keepalive {0, 1} is accepted" },
	/* 20 */ { 15, 8, 8, 1, 24, 0, "keepalive {1, 1} is accepted" },
	/* 21 */
	{ 4, 20, 8, 1, 128, 0, "LNET message with ACK cookie 1 is accepted" },
	/* 22 */
	{ 4, 88, 4, 64, 128, 0,
	  "portal 64 is the caller's drop, not a decode error" },
};

static void put_le(uint8_t *p, int width, uint64_t v)
{
	if (width == 1)
		*p = (uint8_t)v;
	else if (width == 4)
		ul_put_le32(p, (uint32_t)v);
	else
		ul_put_le64(p, v);
}

static void mutated_fields_give_the_section_10_answer(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		const struct mutation *mu = &mutations[i];
		const struct hv_block *b = hv_find(&hv_vectors, mu->vector);
		struct ul_err err = { 0 };
		size_t size = 0;
		size_t len;
		uint8_t *p = copy_of(mu->vector, &len);
		int rc;

		put_le(p + mu->offset, mu->width, mu->value);
		rc = decode_stage(b->label, p, len, &err);
		if (rc != mu->want_decode)
			fail_msg("case %zu (%s): decode rc %d, want %d (%s)", i,
				 mu->what, rc, mu->want_decode, err.msg);
		if (mu->want_frame != 1) {
			rc = frame_stage(b->label, p, len, &size);
			if (rc != mu->want_frame)
				fail_msg("case %zu (%s): frame rc %d, want %d",
					 i, mu->what, rc, mu->want_frame);
		}
		free(p);
	}
}

static void hello_v3_rejects_17_ips(void **state)
{
	struct ul_wire_hello h;
	uint8_t buf[56 + 4 * 17];
	size_t len;
	uint8_t *p = copy_of(2, &len);
	size_t i;

	(void)state;
	memcpy(buf, p, len);
	ul_put_le32(buf + 52, 17);
	for (i = 0; i < 17; i++)
		ul_put_le32(buf + 56 + 4 * i, 0xc6120001 + (uint32_t)i);
	assert_int_equal(ul_wire_hello_decode(buf, sizeof(buf), &h, NULL),
			 -EPROTO);
	free(p);
}

static void hello_v3_rejects_a_zero_ip(void **state)
{
	struct ul_wire_hello h;
	uint8_t buf[56 + 8];
	size_t len;
	uint8_t *p = copy_of(2, &len);

	(void)state;
	memcpy(buf, p, len);
	ul_put_le32(buf + 52, 2);
	ul_put_le32(buf + 56, 0xc6120001);
	ul_put_le32(buf + 60, 0);
	assert_int_equal(ul_wire_hello_decode(buf, sizeof(buf), &h, NULL),
			 -EPROTO);
	/* The same list with a non-zero second IP is fine. */
	ul_put_le32(buf + 60, 0xc6120101);
	assert_int_equal(ul_wire_hello_decode(buf, sizeof(buf), &h, NULL), 64);
	assert_int_equal(h.nips, 2);
	assert_int_equal(h.ips[1], 0xc6120101);
	free(p);
}

static void acceptor_classifies_each_kind_of_first_bytes(void **state)
{
	static const struct {
		uint8_t bytes[8];
		enum ul_wire_acr_verdict verdict;
	} cases[] = {
		/* 0 */ { { 0x00, 0x71, 0xce, 0xac, 1, 0, 0, 0 },
			  UL_WIRE_ACR_OK },
		/* 1 */ { { 0xac, 0xce, 0x71, 0x00, 0, 0, 0, 2 }, UL_WIRE_ACR_OK },
		/* 2 */
		{ { 0x63, 0x69, 0x72, 0x45, 3, 0, 0, 0 }, UL_WIRE_ACR_HELLO },
		/* 3 */
		{ { 0x45, 0x72, 0x69, 0x63, 0, 0, 0, 3 }, UL_WIRE_ACR_HELLO },
		/* 4 */
		{ { 0xed, 0x0d, 0xbc, 0xee, 1, 0, 0, 0 }, UL_WIRE_ACR_OLD_TCP },
		/* 5 */
		{ { 0xee, 0xbc, 0x0d, 0xed, 1, 0, 0, 0 }, UL_WIRE_ACR_OLD_TCP },
		/* 6 */
		{ { 0x67, 0x6e, 0x69, 0x70, 1, 0, 0, 0 },
		  UL_WIRE_ACR_BAD_MAGIC },
		/* 7 */
		{ { 0x00, 0x71, 0xce, 0xac, 3, 0, 0, 0 },
		  UL_WIRE_ACR_BAD_VERSION },
		/* 8 */
		{ { 0xac, 0xce, 0x71, 0x00, 1, 0, 0, 0 },
		  UL_WIRE_ACR_BAD_VERSION },
	};
	enum ul_wire_acr_verdict v;
	size_t size;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = ul_wire_acr_classify(cases[i].bytes, 8, &v, &size);

		if (rc != 0 || v != cases[i].verdict)
			fail_msg("case %zu: rc %d verdict %d, want %d", i, rc,
				 v, cases[i].verdict);
	}
}

static void acceptor_version_answer_is_the_16_bytes_of_5_1(void **state)
{
	static const uint8_t want[16] = { 0x00, 0x71, 0xce, 0xac, 0x01 };
	uint8_t out[16];

	(void)state;
	assert_int_equal(ul_wire_acr_encode_version_answer(out, 15), -ENOSPC);
	assert_int_equal(ul_wire_acr_encode_version_answer(out, 16), 16);
	assert_memory_equal(out, want, 16);
}

static void keepalive_cookie_on_v2_is_left_to_the_cookie_lookup(void **state)
{
	struct ul_wire_ksock_hdr k;
	size_t len;
	uint8_t *p = copy_of(15, &len);

	(void)state;
	ul_put_le64(p + 8, 5);
	assert_int_equal(ul_wire_ksock_hdr_decode(p, len, UL_WIRE_PROTO_V3,
						  false, &k, NULL),
			 -EPROTO);
	assert_int_equal(ul_wire_ksock_hdr_decode(p, len, UL_WIRE_PROTO_V2,
						  false, &k, NULL),
			 24);
	assert_int_equal(ul_wire_ksock_hdr_decode(p, len, UL_WIRE_PROTO_V1,
						  false, &k, NULL),
			 -EINVAL);
	free(p);
}

/* Ping info of vector 9 as a standalone, writable buffer. */
static uint8_t *ping_copy(size_t *len)
{
	size_t n;
	uint8_t *msg = copy_of(9, &n);
	uint8_t *p = malloc(n - 96);

	assert_non_null(p);
	memcpy(p, msg + 96, n - 96);
	*len = n - 96;
	free(msg);
	return p;
}

static const struct {
	size_t offset;
	uint32_t value;
	int want;
	const char *what;
} ping_cases[] = {
	/* 0 */ { 0, 0x70696e68, -EPROTO, "bad magic" },
	/* 1 */ { 4, 0x1c, -EPROTO, "features without NI_STATUS" },
	/* 2 */ { 12, 0, -EPROTO, "pi_nnis 0" },
	/* 3 */ { 12, 4097, -EPROTO, "pi_nnis 4097" },
	/* 4 */ { 12, 0xffffffff, -EPROTO, "pi_nnis huge" },
	/* 5 */ { 12, 4, -ENOMSG, "pi_nnis beyond the bytes" },
	/* 6 */ { 22, 0x0002, -EPROTO, "entry 0 is not 0@lo" },
	/* 7 */ { 4, 0x3e, -EPROTO, "LARGE_ADDR with ns_msg_size 0" },
	/* 8 */ { 4, 0x9e, -ENOMSG, "METADATA with no count" },
	/* 9 */ { 12, 2, 48, "fewer entries than bytes is fine" },
};

static void ping_info_checks_give_precise_errors(void **state)
{
	struct ul_wire_ping_info pi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ping_cases) / sizeof(ping_cases[0]); i++) {
		struct ul_err err = { 0 };
		size_t len;
		uint8_t *p = ping_copy(&len);
		int rc;

		if (ping_cases[i].offset == 22)
			ul_put_le16(p + 22, (uint16_t)ping_cases[i].value);
		else
			ul_put_le32(p + ping_cases[i].offset,
				    ping_cases[i].value);
		rc = ul_wire_ping_info_check(p, len, &pi, &err);
		if (rc != ping_cases[i].want)
			fail_msg("case %zu (%s): rc %d, want %d (%s)", i,
				 ping_cases[i].what, rc, ping_cases[i].want,
				 err.msg);
		if (rc < 0)
			assert_true(err.msg[0] != '\0');
		free(p);
	}
}

static void ping_info_decode_refuses_a_small_array(void **state)
{
	struct ul_wire_ping_info pi;
	struct ul_wire_ping_ni nis[3];
	size_t len;
	uint8_t *p = ping_copy(&len);

	(void)state;
	assert_int_equal(ul_wire_ping_info_decode(p, len, &pi, nis, 2, NULL),
			 -ENOSPC);
	assert_int_equal(ul_wire_ping_info_decode(p, len, &pi, nis, 3, NULL),
			 64);
	free(p);
}

/*
 * nis[0] is 0@lo; then n4 - 1 more 64-bit NIDs (10.0.x.y@tcp) and n16
 * IPv6 ones (2001:db8::x@tcp). Freed by the caller.
 */
static struct ul_wire_ping_ni *many_nis(size_t n4, size_t n16)
{
	struct ul_wire_ping_ni *nis = calloc(n4 + n16, sizeof(*nis));
	size_t i;

	assert_non_null(nis);
	assert_int_equal(
		ul_wire_nid4_to_nid(UL_WIRE_NID4_LO, &nis[0].nid, NULL), 0);
	for (i = 1; i < n4; i++) {
		assert_int_equal(
			ul_wire_nid4_to_nid(UINT64_C(0x000200000a000000) | i,
					    &nis[i].nid, NULL),
			0);
		nis[i].status = UL_WIRE_NI_STATUS_UP;
	}
	for (i = n4; i < n4 + n16; i++) {
		struct ulnet_nid v6 = { 12, 2, 0, { 0x20010db8, 0, 0, 0 } };

		v6.nid_addr[3] = (uint32_t)i;
		nis[i].nid = v6;
		nis[i].status = UL_WIRE_NI_STATUS_UP;
	}
	return nis;
}

/*
 * A kernel runs at most lnet_interfaces_max (4096) NIs, 0@lo included,
 * whatever their NID form, so no ping info it sends has more entries in
 * all. Decode and encode both allow exactly 4096 and refuse 4097, for
 * 64-bit entries, large entries and a mix.
 */
static void ping_info_allows_4096_entries_in_all(void **state)
{
	static const struct {
		size_t n4;
		size_t n16;
	} cases[] = {
		/* 0 */ { 4096, 0 },
		/* 1 */ { 1, 4095 },
		/* 2 */ { 2048, 2048 },
	};
	struct ul_wire_ping_info pi = { .features = 0x1e, .pid = 12345 };
	size_t cap = UL_WIRE_PING_INFO_MAX_SIZE;
	uint8_t *buf = malloc(cap);
	size_t i;

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n4 = cases[i].n4;
		size_t n16 = cases[i].n16;
		struct ul_wire_ping_ni *nis = many_nis(n4, n16 + 1);
		struct ul_wire_ping_info d;
		struct ul_err err = { 0 };
		size_t esize = n16 ? 24 : 16;
		int n;

		/* Exactly 4096: both ways. */
		n = ul_wire_ping_info_encode(&pi, nis, n4 + n16, buf, cap,
					     &err);
		if (n < 0)
			fail_msg("case %zu: encode %d (%s)", i, n, err.msg);
		assert_int_equal(
			ul_wire_ping_info_check(buf, (size_t)n, &d, &err), n);
		assert_int_equal(d.nnis, n4);
		assert_int_equal(d.nlarge, n16);

		/* 4097: encode refuses the array... */
		assert_int_equal(ul_wire_ping_info_encode(&pi, nis,
							  n4 + n16 + 1, buf,
							  cap, NULL),
				 -EINVAL);
		/* ...and check refuses the bytes with one more entry. */
		if (n16) {
			uint8_t raw[UL_WIRE_NID_SIZE];

			ul_put_le32(buf + n, UL_WIRE_NI_STATUS_UP);
			ul_wire_nid_put(raw, &nis[n4 + n16].nid);
			memcpy(buf + n + 4, raw, sizeof(raw));
			ul_put_le32(buf + 16 + 12, (uint32_t)(n + esize));
		} else {
			ul_put_le64(buf + n, UINT64_C(0x000200000a00ffff));
			ul_put_le32(buf + n + 8, UL_WIRE_NI_STATUS_UP);
			ul_put_le32(buf + n + 12, 0);
			ul_put_le32(buf + 12, (uint32_t)(n4 + 1));
		}
		memset(&err, 0, sizeof(err));
		n = ul_wire_ping_info_check(buf, (size_t)n + esize, &d, &err);
		if (n != -EPROTO)
			fail_msg("case %zu + 1: check %d, want -EPROTO (%s)", i,
				 n, err.msg);
		free(nis);
	}
	free(buf);
}

/* Ping info of vector 9 as a standalone, writable buffer. */
static uint8_t *ping_copy(size_t *len);

/*
 * A LARGE_ADDR ns_msg_size above what 4096 entries can take is refused
 * at once, not answered with "read more": no caller should buffer up to
 * 4 GiB, and no size may reach int range however long the buffer is.
 */
static void ping_info_refuses_a_size_no_info_can_have(void **state)
{
	static const struct {
		uint32_t msg_size;
		int want;
	} cases[] = {
		/* 0 */ { 0x80000010, -EPROTO },
		/* 1 */ { 0xfffffffc, -EPROTO },
		/* 2 */ { 16 + 4096 * 24 + 4, -EPROTO },
		/* 3 */ { 16 + 4096 * 24, -ENOMSG },
		/* 4 */ { 48, 48 },
	};
	struct ul_wire_ping_info pi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		uint8_t *p = ping_copy(&len);
		int rc;

		ul_put_le32(p + 4, 0x1e | UL_WIRE_PING_FEAT_LARGE_ADDR);
		ul_put_le32(p + 12, 2); /* 0@lo and one: 48 bytes */
		ul_put_le32(p + 16 + 12, cases[i].msg_size);
		rc = ul_wire_ping_info_check(p, len, &pi, NULL);
		if (rc != cases[i].want)
			fail_msg("case %zu: rc %d, want %d", i, rc,
				 cases[i].want);
		/* Bytes after the info are not read, however many. */
		if (rc > 0)
			assert_int_equal(ul_wire_ping_info_check(p, SIZE_MAX,
								 &pi, NULL),
					 rc);
		free(p);
	}
}

static void put_msg(struct ul_wire_ksock_msg *m, uint32_t type,
		    uint32_t payload_length, const uint8_t *payload)
{
	memset(m, 0, sizeof(*m));
	m->ksh.type = UL_WIRE_KSOCK_LNET;
	m->hdr.type = type;
	m->hdr.payload_length = payload_length;
	m->payload = payload;
}

/* Encoders refuse (-EINVAL) every value their decoders refuse. */
static void encoders_refuse_what_decoders_refuse(void **state)
{
	static const struct {
		uint32_t type;
		uint32_t payload_length;
		int want;
	} hdrs[] = {
		/* 0 */ { UL_WIRE_MSG_ACK, 1, -EINVAL },
		/* 1 */ { UL_WIRE_MSG_GET, 1, -EINVAL },
		/* 2 */ { UL_WIRE_MSG_PUT, UL_WIRE_LNET_MTU + 1, -EINVAL },
		/* 3 */ { UL_WIRE_MSG_REPLY, UL_WIRE_LNET_MTU + 1, -EINVAL },
		/* 4 */ { UL_WIRE_MSG_HELLO, 0, -EINVAL },
		/* 5 */ { 7, 0, -EINVAL },
		/* 6 */ { UL_WIRE_MSG_PUT, UL_WIRE_LNET_MTU, 0 },
		/* 7 */ { UL_WIRE_MSG_ACK, 0, 0 },
	};
	static const struct {
		uint32_t version;
		uint32_t type;
		uint64_t c0;
		uint64_t c1;
		int want;
	} kshs[] = {
		/* 0 */ { 3, 0xc2, 0, 0, -EINVAL },
		/* 1 */ { 3, UL_WIRE_KSOCK_NOOP, 5, 1, -EINVAL },
		/* 2 */ { 4, UL_WIRE_KSOCK_NOOP, 5, 1, -EINVAL },
		/* 3 */ { 2, UL_WIRE_KSOCK_NOOP, 5, 1, 24 },
		/* 4 */ { 3, UL_WIRE_KSOCK_NOOP, 1, 1, 24 },
		/* 5 */ { 3, UL_WIRE_KSOCK_LNET, 5, 1, 24 },
	};
	uint8_t *payload = calloc(1, UL_WIRE_LNET_MTU + 1);
	size_t cap = 24 + 96 + UL_WIRE_LNET_MTU + 1;
	uint8_t *out = malloc(cap);
	struct ul_wire_ksock_msg m;
	struct ul_wire_hello h;
	size_t i;
	int rc;

	(void)state;
	assert_non_null(payload);
	assert_non_null(out);
	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		put_msg(&m, hdrs[i].type, hdrs[i].payload_length, payload);
		rc = ul_wire_lnet_hdr_encode(&m.hdr, false, out, cap, NULL);
		if (rc != (hdrs[i].want ? hdrs[i].want : 72))
			fail_msg("hdr case %zu: nid4 rc %d", i, rc);
		rc = ul_wire_lnet_hdr_encode(&m.hdr, true, out, cap, NULL);
		if (rc != (hdrs[i].want ? hdrs[i].want : 96))
			fail_msg("hdr case %zu: nid16 rc %d", i, rc);
		rc = ul_wire_ksock_msg_encode(&m, UL_WIRE_PROTO_V3, false, out,
					      cap, NULL);
		if (hdrs[i].want ? rc != hdrs[i].want : rc <= 0)
			fail_msg("hdr case %zu: ksock msg rc %d", i, rc);
		/* Invalid is -EINVAL even with no room at all. */
		rc = ul_wire_ksock_msg_encode(&m, UL_WIRE_PROTO_V3, false, out,
					      0, NULL);
		if (rc != (hdrs[i].want ? hdrs[i].want : -ENOSPC))
			fail_msg("hdr case %zu: ksock msg, cap 0, rc %d", i,
				 rc);
	}
	for (i = 0; i < sizeof(kshs) / sizeof(kshs[0]); i++) {
		struct ul_wire_ksock_hdr k = { kshs[i].type,
					       0,
					       { kshs[i].c0, kshs[i].c1 } };

		rc = ul_wire_ksock_hdr_encode(&k, kshs[i].version, false, out,
					      cap, NULL);
		if (rc != kshs[i].want)
			fail_msg("ksh case %zu: rc %d", i, rc);
		if (rc > 0)
			assert_int_equal(ul_wire_ksock_hdr_decode(
						 out, 24, kshs[i].version,
						 false, &k, NULL),
					 24);
		if (kshs[i].type == UL_WIRE_KSOCK_LNET)
			continue;
		memset(&m, 0, sizeof(m));
		m.ksh = k;
		rc = ul_wire_ksock_msg_encode(&m, kshs[i].version, false, out,
					      cap, NULL);
		if (rc != kshs[i].want)
			fail_msg("ksh case %zu: ksock msg rc %d", i, rc);
	}
	/* A hello IP of 0. */
	memset(&h, 0, sizeof(h));
	h.version = UL_WIRE_PROTO_V3;
	h.nips = 2;
	h.ips[0] = 0xc6120001;
	assert_int_equal(ul_wire_hello_encode(&h, out, cap, NULL), -EINVAL);
	h.version = UL_WIRE_PROTO_V1;
	assert_int_equal(ul_wire_hello_encode(&h, out, cap, NULL), -EINVAL);
	h.ips[1] = 0xc6120101;
	assert_int_equal(ul_wire_hello_encode(&h, out, cap, NULL), 80);
	free(payload);
	free(out);
}

static void ping_info_encode_refuses_what_check_refuses(void **state)
{
	struct ul_wire_ping_info pi = { .features = 0x1e, .pid = 12345 };
	struct ul_wire_ping_ni *nis = many_nis(2, 1);
	uint8_t out[128];

	(void)state;
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out),
						  NULL),
			 72);
	pi.features = 0x1c; /* no NI_STATUS */
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out),
						  NULL),
			 -EINVAL);
	pi.features = 0x1e;
	nis[2].nid.nid_size = 13;
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out),
						  NULL),
			 -EINVAL);
	/* nid_size 4 with a 16-byte address: bytes would be lost. */
	nis[2].nid.nid_size = 4;
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis, 3, out, sizeof(out),
						  NULL),
			 -EINVAL);
	nis[2].nid.nid_size = 12;
	assert_int_equal(ul_wire_ping_info_encode(&pi, nis + 1, 2, out,
						  sizeof(out), NULL),
			 -EINVAL); /* entry 0 is not 0@lo */
	free(nis);
}

/* ulnetctl debug decode shows this message for a V1 stream. */
static void v1_message_framing_is_refused_by_name(void **state)
{
	static const char want[] = "V1 message framing is not supported";
	struct ul_wire_ksock_msg m;
	struct ul_wire_ksock_hdr k;
	uint8_t out[256];
	size_t size = 0;
	size_t len;
	uint8_t *p = copy_of(4, &len);
	struct ul_err err;

	(void)state;
	memset(&m, 0, sizeof(m));
	memset(&err, 0, sizeof(err));
	assert_int_equal(ul_wire_ksock_msg_frame(p, len, UL_WIRE_PROTO_V1,
						 false, &size, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, want));
	memset(&err, 0, sizeof(err));
	assert_int_equal(ul_wire_ksock_msg_decode(p, len, UL_WIRE_PROTO_V1,
						  false, &m, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, want));
	memset(&err, 0, sizeof(err));
	assert_int_equal(ul_wire_ksock_hdr_decode(p, len, UL_WIRE_PROTO_V1,
						  false, &k, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, want));
	memset(&err, 0, sizeof(err));
	m.ksh.type = UL_WIRE_KSOCK_NOOP;
	assert_int_equal(ul_wire_ksock_msg_encode(&m, UL_WIRE_PROTO_V1, false,
						  out, sizeof(out), &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, want));
	memset(&err, 0, sizeof(err));
	assert_int_equal(ul_wire_ksock_hdr_encode(&m.ksh, UL_WIRE_PROTO_V1,
						  false, out, sizeof(out),
						  &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, want));
	/* Other versions outside 2..4 get their own message. */
	memset(&err, 0, sizeof(err));
	assert_int_equal(ul_wire_ksock_msg_decode(p, len, 5, false, &m, &err),
			 -EINVAL);
	assert_null(strstr(err.msg, want));
	free(p);
}

static void encoders_refuse_every_short_buffer(void **state)
{
	struct ul_wire_ksock_msg m;
	struct ul_wire_hello h;
	struct ul_wire_acr a;
	uint8_t out[256];
	size_t len;
	size_t cap;
	uint8_t *p4 = copy_of(4, &len);
	uint8_t *p1;
	uint8_t *p2;

	(void)state;
	p1 = copy_of(1, &len);
	p2 = copy_of(2, &len);
	assert_int_equal(ul_wire_acr_decode(p1, 16, &a, NULL), 16);
	assert_int_equal(ul_wire_hello_decode(p2, 56, &h, NULL), 56);
	assert_int_equal(ul_wire_ksock_msg_decode(p4, 128, UL_WIRE_PROTO_V3,
						  false, &m, NULL),
			 128);
	for (cap = 0; cap < 128; cap++) {
		if (cap < 16)
			assert_int_equal(ul_wire_acr_encode(&a, out, cap, NULL),
					 -ENOSPC);
		if (cap < 56)
			assert_int_equal(ul_wire_hello_encode(&h, out, cap,
							      NULL),
					 -ENOSPC);
		assert_int_equal(ul_wire_ksock_msg_encode(&m, UL_WIRE_PROTO_V3,
							  false, out, cap,
							  NULL),
				 -ENOSPC);
	}
	free(p1);
	free(p2);
	free(p4);
}

static void encoders_refuse_unrepresentable_values(void **state)
{
	struct ul_wire_lnet_hdr hdr;
	struct ul_wire_hello h;
	struct ulnet_nid v6 = { 12, 2, 0, { 0x20010db8, 0, 0, 1 } };
	uint8_t out[256];

	(void)state;
	memset(&hdr, 0, sizeof(hdr));
	hdr.type = UL_WIRE_MSG_PUT;
	hdr.dest_nid = v6;
	/* An IPv6 NID has no 64-bit form: only a nid16 header holds it. */
	assert_int_equal(ul_wire_lnet_hdr_encode(&hdr, false, out, 72, NULL),
			 -EINVAL);
	assert_int_equal(ul_wire_lnet_hdr_encode(&hdr, true, out, 96, NULL),
			 96);
	hdr.type = UL_WIRE_MSG_HELLO;
	assert_int_equal(ul_wire_lnet_hdr_encode(&hdr, true, out, 96, NULL),
			 -EINVAL);
	memset(&h, 0, sizeof(h));
	h.version = UL_WIRE_PROTO_V4;
	h.nips = 1;
	assert_int_equal(ul_wire_hello_encode(&h, out, sizeof(out), NULL),
			 -EINVAL);
	h.version = UL_WIRE_PROTO_V3;
	h.nips = 17;
	assert_int_equal(ul_wire_hello_encode(&h, out, sizeof(out), NULL),
			 -EINVAL);
	h.version = 5;
	h.nips = 0;
	assert_int_equal(ul_wire_hello_encode(&h, out, sizeof(out), NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(truncation_at_every_offset_needs_more_bytes),
		cmocka_unit_test(
			ping_info_truncated_at_every_offset_needs_more_bytes),
		cmocka_unit_test(mutated_fields_give_the_section_10_answer),
		cmocka_unit_test(hello_v3_rejects_17_ips),
		cmocka_unit_test(hello_v3_rejects_a_zero_ip),
		cmocka_unit_test(acceptor_classifies_each_kind_of_first_bytes),
		cmocka_unit_test(
			acceptor_version_answer_is_the_16_bytes_of_5_1),
		cmocka_unit_test(
			keepalive_cookie_on_v2_is_left_to_the_cookie_lookup),
		cmocka_unit_test(ping_info_checks_give_precise_errors),
		cmocka_unit_test(ping_info_decode_refuses_a_small_array),
		cmocka_unit_test(encoders_refuse_every_short_buffer),
		cmocka_unit_test(encoders_refuse_unrepresentable_values),
		cmocka_unit_test(ping_info_allows_4096_entries_in_all),
		cmocka_unit_test(ping_info_refuses_a_size_no_info_can_have),
		cmocka_unit_test(encoders_refuse_what_decoders_refuse),
		cmocka_unit_test(ping_info_encode_refuses_what_check_refuses),
		cmocka_unit_test(v1_message_framing_is_refused_by_name),
	};

	return cmocka_run_group_tests(tests, hv_setup, hv_teardown);
}
