/*
 * The decoders' promise in wire.h: on failure *out is left untouched.
 * Each failing case fills *out with 0xa5 first and finds every byte still
 * 0xa5 afterwards. The frame functions' *size is the one documented
 * exception, and only on -ENOMSG: on any other failure it is untouched
 * too.
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

static bool all_a5(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0xa5)
			return false;
	return true;
}

/* Fill out with 0xa5, run call, want rc want and out still all 0xa5. */
#define UNTOUCHED(what, want, out, call)                                       \
	do {                                                                   \
		int rc_;                                                       \
		memset(&(out), 0xa5, sizeof(out));                             \
		rc_ = (call);                                                  \
		if (rc_ != (want))                                             \
			fail_msg("%s: rc %d, want %d", (what), rc_, (want));   \
		if (!all_a5(&(out), sizeof(out)))                              \
			fail_msg("%s: *out changed on failure", (what));       \
	} while (0)

/* Vector index, cut to len, with one LE u32 (or u8) changed at off. */
static uint8_t *broken(int index, size_t len, size_t off, int width,
		       uint32_t value)
{
	uint8_t *p = hv_copy(index, len);

	if (width == 1)
		p[off] = (uint8_t)value;
	else if (width == 4)
		ul_put_le32(p + off, value);
	return p;
}

static void acceptor_decode_leaves_out_untouched(void **state)
{
	enum ul_wire_acr_verdict v;
	struct ul_wire_acr a;
	size_t size;
	uint8_t *p;

	(void)state;
	p = broken(1, 8, 0, 0, 0);
	UNTOUCHED("short", -ENOMSG, a, ul_wire_acr_decode(p, 8, &a, NULL));
	UNTOUCHED("classify short", -ENOMSG, v,
		  ul_wire_acr_classify(p, 3, &v, &size));
	free(p);
	p = broken(1, 16, 0, 4, 0x12345678);
	UNTOUCHED("bad magic", -EPROTO, a, ul_wire_acr_decode(p, 16, &a, NULL));
	free(p);
	p = broken(1, 16, 4, 4, 3);
	UNTOUCHED("version 3", -EPROTONOSUPPORT, a,
		  ul_wire_acr_decode(p, 16, &a, NULL));
	free(p);
	p = broken(1, 16, 15, 1, 1);
	UNTOUCHED("NID top byte", -EPROTO, a,
		  ul_wire_acr_decode(p, 16, &a, NULL));
	free(p);
}

static void hello_decoders_leave_out_untouched(void **state)
{
	struct ul_wire_hello_start hs;
	struct ul_wire_hello_start good;
	struct ul_wire_hello h;
	uint8_t buf[56 + 8];
	size_t size;
	uint8_t *p;

	(void)state;
	p = broken(2, 56, 0, 0, 0);
	assert_int_equal(ul_wire_hello_start_decode(p, 8, &good, NULL), 8);
	UNTOUCHED("start short", -ENOMSG, hs,
		  ul_wire_hello_start_decode(p, 7, &hs, NULL));
	UNTOUCHED("short", -ENOMSG, h, ul_wire_hello_decode(p, 55, &h, NULL));
	UNTOUCHED("rest short", -ENOMSG, h,
		  ul_wire_hello_rest_decode(&good, p + 8, 47, &h, NULL));
	hs = good;
	hs.version = 9;
	UNTOUCHED("rest bad start", -EINVAL, h,
		  ul_wire_hello_rest_decode(&hs, p + 8, 48, &h, NULL));
	free(p);
	p = broken(2, 56, 0, 4, 0x12345678);
	UNTOUCHED("start bad magic", -EPROTO, hs,
		  ul_wire_hello_start_decode(p, 56, &hs, NULL));
	UNTOUCHED("bad magic", -EPROTO, h,
		  ul_wire_hello_decode(p, 56, &h, NULL));
	free(p);
	p = broken(2, 56, 4, 4, 5);
	UNTOUCHED("version 5", -EPROTONOSUPPORT, h,
		  ul_wire_hello_decode(p, 56, &h, NULL));
	free(p);
	p = broken(2, 56, 52, 4, 17);
	UNTOUCHED("17 IPs", -EPROTO, h, ul_wire_hello_decode(p, 56, &h, NULL));
	UNTOUCHED("frame 17 IPs", -EPROTO, size,
		  ul_wire_hello_frame(p, 56, &size, NULL));
	free(p);
	p = broken(2, 56, 15, 1, 1);
	UNTOUCHED("src_nid top byte", -EPROTO, h,
		  ul_wire_hello_decode(p, 56, &h, NULL));
	free(p);
	/* The IPs are read into the struct: a later zero IP must not leak. */
	p = hv_copy(2, 56);
	memcpy(buf, p, 56);
	ul_put_le32(buf + 52, 2);
	ul_put_le32(buf + 56, 0xc6120001);
	ul_put_le32(buf + 60, 0);
	UNTOUCHED("zero IP", -EPROTO, h,
		  ul_wire_hello_decode(buf, sizeof(buf), &h, NULL));
	free(p);
}

static void ksock_decoders_leave_out_untouched(void **state)
{
	struct ul_wire_lnet_hdr hdr;
	struct ul_wire_ksock_hdr k;
	struct ul_wire_ksock_msg m;
	size_t size;
	uint8_t *p;

	(void)state;
	p = broken(4, 127, 0, 0, 0);
	UNTOUCHED("msg short payload", -ENOMSG, m,
		  ul_wire_ksock_msg_decode(p, 127, 3, false, &m, NULL));
	UNTOUCHED("msg V1", -EINVAL, m,
		  ul_wire_ksock_msg_decode(p, 127, 1, false, &m, NULL));
	UNTOUCHED("hdr short", -ENOMSG, k,
		  ul_wire_ksock_hdr_decode(p, 23, 3, false, &k, NULL));
	UNTOUCHED("lnet hdr short", -ENOMSG, hdr,
		  ul_wire_lnet_hdr_decode(p + 24, 71, false, &hdr, NULL));
	UNTOUCHED("frame V1", -EINVAL, size,
		  ul_wire_ksock_msg_frame(p, 127, 1, false, &size, NULL));
	free(p);
	p = broken(4, 128, 0, 4, 0xc2);
	UNTOUCHED("hdr bad type", -EPROTO, k,
		  ul_wire_ksock_hdr_decode(p, 128, 3, false, &k, NULL));
	UNTOUCHED("msg bad type", -EPROTO, m,
		  ul_wire_ksock_msg_decode(p, 128, 3, false, &m, NULL));
	UNTOUCHED("frame bad type", -EPROTO, size,
		  ul_wire_ksock_msg_frame(p, 128, 3, false, &size, NULL));
	free(p);
	p = broken(4, 128, 24 + 28, 4, UL_WIRE_LNET_MTU + 1);
	UNTOUCHED("frame above MTU", -EPROTO, size,
		  ul_wire_ksock_msg_frame(p, 128, 3, false, &size, NULL));
	free(p);
	p = broken(4, 128, 24 + 24, 4, 4);
	UNTOUCHED("lnet type HELLO", -EPROTO, hdr,
		  ul_wire_lnet_hdr_decode(p + 24, 104, false, &hdr, NULL));
	UNTOUCHED("msg lnet type HELLO", -EPROTO, m,
		  ul_wire_ksock_msg_decode(p, 128, 3, false, &m, NULL));
	free(p);
	p = broken(4, 128, 24 + 15, 1, 1);
	UNTOUCHED("src_nid top byte", -EPROTO, hdr,
		  ul_wire_lnet_hdr_decode(p + 24, 104, false, &hdr, NULL));
	free(p);
	p = broken(15, 24, 8, 4, 5);
	UNTOUCHED("keepalive {5, 1}", -EPROTO, k,
		  ul_wire_ksock_hdr_decode(p, 24, 3, false, &k, NULL));
	free(p);
}

static void ping_decoders_leave_out_untouched(void **state)
{
	static const struct {
		size_t offset;
		uint32_t value;
		size_t len;
		int want;
	} cases[] = {
		/* 0 */ { 0, 0x70696e67, 15, -ENOMSG },
		/* 1 */ { 0, 0x70696e68, 64, -EPROTO },
		/* 2 */ { 4, 0x1c, 64, -EPROTO },
		/* 3 */ { 12, 4097, 64, -EPROTO },
		/* 4 */ { 12, 4, 64, -ENOMSG },
		/* 5 */ { 4, 0x3e, 64, -EPROTO },
		/* 6 */ { 4, 0x9e, 64, -ENOMSG },
		/* 7 */ { 36, 0x01020000, 64, -EPROTO }, /* NID top byte */
	};
	struct ul_wire_ping_info pi;
	struct ul_wire_ping_ni nis[3];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hv_block *b = hv_find(&hv_vectors, 9);
		uint8_t *p = malloc(64);

		assert_non_null(b);
		assert_non_null(p);
		memcpy(p, b->bytes + 96, 64);
		ul_put_le32(p + cases[i].offset, cases[i].value);
		UNTOUCHED("check", cases[i].want, pi,
			  ul_wire_ping_info_check(p, cases[i].len, &pi, NULL));
		UNTOUCHED("decode pi", cases[i].want, pi,
			  ul_wire_ping_info_decode(p, cases[i].len, &pi, nis, 3,
						   NULL));
		memset(&pi, 0, sizeof(pi));
		UNTOUCHED("decode nis", cases[i].want, nis,
			  ul_wire_ping_info_decode(p, cases[i].len, &pi, nis, 3,
						   NULL));
		free(p);
	}
	/* -ENOSPC: an array one entry short is not written either. */
	memset(&pi, 0xa5, sizeof(pi));
	UNTOUCHED("decode small array", -ENOSPC, nis,
		  ul_wire_ping_info_decode(hv_find(&hv_vectors, 9)->bytes + 96,
					   64, &pi, nis, 2, NULL));
	assert_true(all_a5(&pi, sizeof(pi)));
}

static void nid_and_unit_helpers_leave_out_untouched(void **state)
{
	static const struct ulnet_nid v6 = { 12, 2, 0, { 0x20010db8, 0, 0, 1 } };
	enum ul_wire_unit unit;
	struct ulnet_nid nid;
	uint64_t nid4;

	(void)state;
	UNTOUCHED("nid4 top byte", -EPROTO, nid,
		  ul_wire_nid4_to_nid(UINT64_C(0x0102000000000001), &nid,
				      NULL));
	UNTOUCHED("IPv6 to nid4", -EINVAL, nid4,
		  ul_wire_nid_to_nid4(&v6, &nid4, NULL));
	UNTOUCHED("classify 3 bytes", -ENOMSG, unit,
		  ul_wire_unit_classify("\x00\x71\xce", 3, &unit));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(acceptor_decode_leaves_out_untouched),
		cmocka_unit_test(hello_decoders_leave_out_untouched),
		cmocka_unit_test(ksock_decoders_leave_out_untouched),
		cmocka_unit_test(ping_decoders_leave_out_untouched),
		cmocka_unit_test(nid_and_unit_helpers_leave_out_untouched),
	};

	return cmocka_run_group_tests(tests, hv_setup, hv_teardown);
}
