/*
 * The UDSP rule block (src/wire/udsp_block.h): the worked encoding of
 * reference/udsp.md §8.4 byte for byte, the size formula of §8.3, round
 * trips, and every malformed form the decoder refuses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/udsp.h"
#include "wire/udsp_block.h"

#define NO_PRIO (-1LL)

static struct ul_udsp_rule *rule(const char *src, const char *dst,
				 const char *rte, long long prio, int idx)
{
	struct ul_udsp_rule *r = NULL;
	struct ul_err err = { 0 };

	if (ul_udsp_rule_from_strings(src, dst, rte, prio >= 0,
				      prio >= 0 ? (uint32_t)prio : 0, idx, &r,
				      &err))
		fail_msg("rule %s %s %s: %s", src ? src : "-", dst ? dst : "-",
			 rte ? rte : "-", err.msg);
	return r;
}

/* Encode r into a new buffer of exactly its size. */
static uint8_t *encode(const struct ul_udsp_rule *r, size_t *len)
{
	uint8_t *buf;

	*len = ul_udsp_rule_block_size(r);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(ul_udsp_rule_encode(r, buf, *len, NULL), 0);
	return buf;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* §8.4: `--src 192.168.0.[2-20/2]@tcp1 --priority 3`, 156 bytes. */
static void block_matches_worked_encoding(void **state)
{
	static const uint8_t want[156] = {
		/* 0: header */
		0x9c,
		0x00,
		0x00,
		0x00,
		0x0b,
		0x00,
		0x01,
		0x00, /* len, ver */
		0xff,
		0xff,
		0xff,
		0xff,
		0x01,
		0x00,
		0x00,
		0x00, /* idx, act */
		0x7c,
		0x00,
		0x00,
		0x00,
		0x03,
		0x00,
		0x00,
		0x00, /* bulk, 3 */
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00, /* iou_bulk */
		/* 32: SRC, 4 address expressions, tcp, 1 net range */
		0x53,
		0x52,
		0x43,
		0x00,
		0x04,
		0x00,
		0x00,
		0x00,
		0x02,
		0x00,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		/* 48: net number 1..1/1 */
		0x01,
		0x00,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		/* 60: 192 */
		0x01,
		0x00,
		0x00,
		0x00,
		0xc0,
		0x00,
		0x00,
		0x00,
		0xc0,
		0x00,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		/* 76: 168 */
		0x01,
		0x00,
		0x00,
		0x00,
		0xa8,
		0x00,
		0x00,
		0x00,
		0xa8,
		0x00,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		/* 92: 0 */
		0x01,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		/* 108: 2..20/2 */
		0x01,
		0x00,
		0x00,
		0x00,
		0x02,
		0x00,
		0x00,
		0x00,
		0x14,
		0x00,
		0x00,
		0x00,
		0x02,
		0x00,
		0x00,
		0x00,
		/* 124: DST absent */
		0x44,
		0x53,
		0x54,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		/* 140: RTE absent */
		0x52,
		0x54,
		0x45,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
	};
	struct ul_udsp_rule *r =
		rule("192.168.0.[2-20/2]@tcp1", NULL, NULL, 3, -1);
	struct ul_udsp_rule *back = NULL;
	size_t len;
	uint8_t *buf = encode(r, &len);

	(void)state;
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(ul_udsp_rule_decode(want, sizeof(want), &back, NULL),
			 0);
	assert_true(ul_udsp_rule_same(r, back));
	assert_int_equal(back->idx, -1);
	ul_udsp_rule_free(back);
	ul_udsp_rule_free(r);
	free(buf);
}

/* §8.4 second example, and the size formula of §8.3 on a few shapes. */
static void block_size_follows_lnet_formula(void **state)
{
	static const struct {
		const char *src, *dst, *rte;
		long long prio;
		size_t size;
	} rows[] = {
		/* 0: 32 + 80 + 80 + 16 */
		{ "10.1.0.[1-2]@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, 208 },
		{ "tcp", NULL, NULL, NO_PRIO, 32 + 16 * 3 },
		{ "tcp1", NULL, NULL, NO_PRIO, 32 + 16 * 3 + 12 },
		/* 2 ranges in octet 3: 16 + 4*4 + 12*5 */
		{ NULL, "10.0.[1-3,7].5@o2ib", NULL, 1, 32 + 32 + 92 },
		/* gni: one expression, net range */
		{ NULL, "[1-5]@gni3", "10.1.0.100@o2ib", NO_PRIO,
		  32 + 16 + (16 + 12 + 4 + 12) + 80 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_udsp_rule *r = rule(rows[i].src, rows[i].dst,
					      rows[i].rte, rows[i].prio, -1);

		if (ul_udsp_rule_block_size(r) != rows[i].size)
			fail_msg("row %zu: size %zu, want %zu", i,
				 ul_udsp_rule_block_size(r), rows[i].size);
		ul_udsp_rule_free(r);
	}
}

/* rule -> bytes -> rule: same rule, same idx, same text, same bytes. */
static void block_round_trips_rules(void **state)
{
	static const struct {
		const char *src, *dst, *rte;
		long long prio;
		int idx;
	} rows[] = {
		/* 0 */
		{ "tcp", NULL, NULL, 1, -1 },
		{ NULL, "10.1.0.11@o2ib", NULL, NO_PRIO, 0 },
		{ "10.1.0.2@o2ib", NULL, NULL, 0, 3 },
		{ "10.1.0.[1-9/2]@o2ib", NULL, NULL, 2, 7 },
		{ NULL, "o2ib", NULL, 0, -1 },
		/* 5 */
		{ "o2ib*", NULL, NULL, 3, -1 },
		{ "10.1.0.*@o2ib", NULL, NULL, 5, -1 },
		{ "10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, NO_PRIO, -1 },
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, 2, -1 },
		{ NULL, "172.16.0.10@o2ib2", "10.1.0.101@o2ib", NO_PRIO, 1 },
		/* 10 */
		{ NULL, "o2ib2", "10.1.0.[100-101]@o2ib", NO_PRIO, -1 },
		{ NULL, NULL, "10.1.0.100@o2ib", NO_PRIO, -1 },
		{ "*.*.*.*@tcp1", NULL, NULL, 4294967295LL, 2147483647 },
		{ NULL, "10.0.[1,3].5@o2ib", NULL, 9, -1 },
		{ "0@lo", NULL, NULL, 1, -1 },
		/* 15 */
		{ NULL, "[1-5]@gni", "5@kfi", NO_PRIO, -1 },
		{ "10.1.0.[0-254/2]@o2ib[1-2]", "o2ib[1-2]", NULL, NO_PRIO,
		  -1 },
		{ NULL, "[0-100/3,200]@bxi3f7", NULL, 0, -1 },
		{ "1.2.3.4@efa", NULL, NULL, 1, -1 },
		{ NULL, "1.2.3.[4-8]@gip", NULL, 1, -1 },
		/* 20 */
		{ NULL, "7@ptlf[3-4]", NULL, 1, -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_udsp_rule *r = rule(rows[i].src, rows[i].dst,
					      rows[i].rte, rows[i].prio,
					      rows[i].idx);
		struct ul_udsp_rule *back = NULL;
		char a[512], b[512];
		size_t len, len2;
		uint8_t *buf = encode(r, &len), *buf2;

		if (ul_udsp_rule_decode(buf, len, &back, NULL))
			fail_msg("row %zu: decode failed", i);
		if (!ul_udsp_rule_same(r, back) || back->idx != r->idx)
			fail_msg("row %zu: not the same rule", i);
		ul_udsp_rule_format(r, a, sizeof(a));
		ul_udsp_rule_format(back, b, sizeof(b));
		assert_string_equal(a, b);
		buf2 = encode(back, &len2);
		assert_int_equal(len, len2);
		assert_memory_equal(buf, buf2, len);
		free(buf2);
		free(buf);
		ul_udsp_rule_free(back);
		ul_udsp_rule_free(r);
	}
}

static void block_encode_needs_room(void **state)
{
	struct ul_udsp_rule *r = rule("tcp", NULL, NULL, 1, -1);
	uint8_t buf[80];
	struct ul_err err = { 0 };

	(void)state;
	assert_int_equal(ul_udsp_rule_encode(r, buf, 79, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "80 bytes"));
	assert_int_equal(ul_udsp_rule_encode(r, buf, 80, NULL), 0);
	ul_udsp_rule_free(r);
}

/* What the kernel accepts and ulnet reads the same way. */
static void block_decode_reads_lnet_variants(void **state)
{
	struct ul_udsp_rule *r =
		rule("10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, NO_PRIO, -1);
	struct ul_udsp_rule *back = NULL;
	size_t len;
	uint8_t *buf = encode(r, &len);

	(void)state;
	/* the older version, and garbage in iou_bulk */
	put32(buf + 4, 0x0001000a);
	memset(buf + 24, 0xa5, 8);
	/* a preferred-list action's priority field is ignored */
	put32(buf + 20, 12345);
	/* every negative idx is "append" */
	put32(buf + 8, 0x80000000u);
	assert_int_equal(ul_udsp_rule_decode(buf, len, &back, NULL), 0);
	assert_true(ul_udsp_rule_same(r, back));
	assert_int_equal(back->priority, 0);
	assert_true(back->idx < 0);
	ul_udsp_rule_free(back);
	/* action NONE: stored, inert */
	put32(buf + 12, 0);
	assert_int_equal(ul_udsp_rule_decode(buf, len, &back, NULL), 0);
	assert_int_equal(back->action_type, UL_UDSP_ACTION_NONE);
	assert_false(ul_udsp_rule_is_effective(back));
	ul_udsp_rule_free(back);
	ul_udsp_rule_free(r);
	free(buf);
}

/*
 * Malformed blocks, each made from the §8.4 block (SRC at 32, its net
 * range at 48, octet expressions at 60/76/92/108, DST at 124, RTE at 140)
 * by one patch.
 */
static void block_decode_refuses_malformed(void **state)
{
	static const struct {
		size_t off;
		uint32_t v;
		int rc;
		const char *msg;
		size_t off2; /* a second patch when not 0 */
		uint32_t v2;
	} rows[] = {
		/* 0: header */
		{ 0, 155, -EPROTO, "ioc_len 155", 0, 0 },
		{ 4, 0x0001000c, -EPROTO, "version", 0, 0 },
		{ 16, 123, -EPROTO, "descriptor area of 123", 0, 0 },
		{ 12, 3, -EINVAL, "action type 3", 0, 0 },
		/* SRC head */
		{ 32, 0x00545344, -EPROTO, "expected SRC", 0, 0 },
		/* 5 */
		{ 36, 3, -EINVAL, "3 address expressions, tcp takes 4", 0, 0 },
		{ 36, 1, -EINVAL, "1 address expressions, tcp takes 4", 0, 0 },
		{ 40, 17, -EINVAL, "unknown net type 17", 0, 0 },
		{ 40, 99, -EINVAL, "unknown net type 99", 0, 0 },
		{ 40, 13, -EINVAL, "4 address expressions, gni takes 1", 0, 0 },
		/* 10 */
		{ 44, 2, -EINVAL, "2 net number ranges", 0, 0 },
		/* net range */
		{ 48, 2, -EINVAL, "bad range 2-1/1", 0, 0 },
		{ 56, 0, -EINVAL, "bad range 1-1/0", 0, 0 },
		/* octets */
		{ 60, 0, -EINVAL, "address: 0 ranges", 0, 0 },
		{ 60, 1025, -EINVAL, "address: 1025 ranges", 0, 0 },
		/* 15 */
		{ 60, 0xffffffff, -EINVAL, "ranges, must be 1..1024", 0, 0 },
		{ 60, 8, -EPROTO, "8 ranges truncated at offset 64", 0, 0 },
		{ 68, 256, -EINVAL, "bad range 192-256/1", 0, 0 },
		{ 116, 0, -EINVAL, "bad range 2-0/2", 0, 0 },
		{ 120, 0, -EINVAL, "bad range 2-20/0", 0, 0 },
		/* 20: absent descriptors */
		{ 124, 0x00435253, -EPROTO, "expected DST", 0, 0 },
		{ 128, 4, -EPROTO, "absent DST descriptor", 0, 0 },
		{ 136, 1, -EPROTO, "absent DST descriptor", 0, 0 },
		{ 140, 0, -EPROTO, "expected RTE", 0, 0 },
		/* RTE present (tcp) with 4 expressions: no room for them */
		{ 148, 2, -EPROTO, "address expression 0 truncated", 144, 4 },
		{ 148, 2, 0, "", 0, 0 },
	};
	struct ul_udsp_rule *r =
		rule("192.168.0.[2-20/2]@tcp1", NULL, NULL, 3, -1);
	size_t len, i;
	uint8_t *good = encode(r, &len);
	uint8_t *buf = malloc(len + 4);

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_udsp_rule *out = (struct ul_udsp_rule *)0x1;
		struct ul_err err = { 0 };
		int rc;

		memcpy(buf, good, len);
		put32(buf + rows[i].off, rows[i].v);
		if (rows[i].off2)
			put32(buf + rows[i].off2, rows[i].v2);
		rc = ul_udsp_rule_decode(buf, len, &out, &err);
		if (rc != rows[i].rc || !strstr(err.msg, rows[i].msg))
			fail_msg("row %zu: rc %d '%s'", i, rc, err.msg);
		if (rc == 0) {
			/* "--rte tcp": a net descriptor, valid (inert) */
			assert_string_equal(out->rte ? "tcp" : "", "tcp");
			ul_udsp_rule_free(out);
			continue;
		}
		assert_ptr_equal(out, (struct ul_udsp_rule *)0x1);
	}
	/* a byte after RTE, with both lengths saying so */
	memcpy(buf, good, len);
	buf[len] = 0;
	put32(buf, (uint32_t)len + 1);
	put32(buf + 16, (uint32_t)len + 1 - 32);
	{
		struct ul_udsp_rule *out = NULL;
		struct ul_err err = { 0 };

		assert_int_equal(ul_udsp_rule_decode(buf, len + 1, &out, &err),
				 -EPROTO);
		assert_non_null(strstr(err.msg, "1 bytes after the RTE"));
		assert_null(out);
	}
	free(buf);
	free(good);
	ul_udsp_rule_free(r);
}

/* Every prefix of a block, lengths patched or not, is refused. */
static void block_decode_refuses_every_truncation(void **state)
{
	struct ul_udsp_rule *r =
		rule(NULL, "o2ib[1-2]", "10.1.0.[100-101,7]@o2ib", NO_PRIO, 4);
	size_t len, n;
	uint8_t *good = encode(r, &len);

	(void)state;
	for (n = 0; n < len; n++) {
		uint8_t *buf = malloc(n ? n : 1);
		struct ul_udsp_rule *out = NULL;
		struct ul_err err = { 0 };

		assert_non_null(buf);
		memcpy(buf, good, n);
		if (ul_udsp_rule_decode(buf, n, &out, &err) != -EPROTO)
			fail_msg("prefix %zu: '%s'", n, err.msg);
		if (n >= 32) {
			put32(buf, (uint32_t)n);
			put32(buf + 16, (uint32_t)(n - 32));
			if (ul_udsp_rule_decode(buf, n, &out, &err) != -EPROTO)
				fail_msg("patched prefix %zu: '%s'", n,
					 err.msg);
		}
		assert_null(out);
		free(buf);
	}
	free(good);
	ul_udsp_rule_free(r);
}

static void block_decode_refuses_oversize(void **state)
{
	size_t len = UL_UDSP_BLOCK_MAX + 1;
	uint8_t *buf = calloc(1, len);
	struct ul_udsp_rule *out = NULL;
	struct ul_err err = { 0 };

	(void)state;
	assert_non_null(buf);
	put32(buf, (uint32_t)len);
	assert_int_equal(ul_udsp_rule_decode(buf, len, &out, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "at most 131072"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(block_matches_worked_encoding),
		cmocka_unit_test(block_size_follows_lnet_formula),
		cmocka_unit_test(block_round_trips_rules),
		cmocka_unit_test(block_encode_needs_room),
		cmocka_unit_test(block_decode_reads_lnet_variants),
		cmocka_unit_test(block_decode_refuses_malformed),
		cmocka_unit_test(block_decode_refuses_every_truncation),
		cmocka_unit_test(block_decode_refuses_oversize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
