/*
 * UDSP match descriptors (src/nid/nid_descr.h): every row of
 * reference/udsp.md §2.4, net matching (§2.2), address matching (§2.3),
 * and a randomized check against a naive reference.
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

#include "nid/nid_descr.h"

struct row {
	const char *in;
	const char *shown; /* what `udsp show` prints (fixed); NULL: refused */
};

static const struct row rows[] = {
	/* 0: udsp.md §2.4 */
	{ "tcp", "tcp" },
	{ "tcp1", "tcp1" },
	{ "tcp*", "tcp[0-4294967295]" },
	{ "o2ib[1-3]", "o2ib[1-3]" },
	{ "192.168.0.[2-20/2]@tcp", "192.168.0.[2-20/2]@tcp" },
	/* 5 */ { "10.0.0.*@o2ib", "10.0.0.[0-255]@o2ib" },
	{ "*.*.*.*@tcp1", "[0-255].[0-255].[0-255].[0-255]@tcp1" },
	{ "10.1.0.[0-254/2]@o2ib[1-2]", "10.1.0.[0-254/2]@o2ib[1-2]" },
	{ "10.0.[1-3,7].5@o2ib", "10.0.[1-3,7].5@o2ib" },
	/* LNet shows "10.0.1.3.5@o2ib" (display defect, fixed) */
	{ "10.0.[1,3].5@o2ib", "10.0.[1,3].5@o2ib" },
	/* 10 */ { "0@lo", "0@lo" },
	{ "[1-5]@gni", "[1-5]@gni" },
	{ "5@kfi", "5@kfi" },
	{ "foo", NULL },
	{ "1.2.3@tcp", NULL },
	/* 15 */ { "*@tcp", NULL },
	{ "10.0.0.[1-5/0]@tcp", NULL },
	{ "10.0.0.[1-5/x]@tcp", NULL },
	/* §2.2: multi-range net numbers parse; adding the rule fails */
	{ "o2ib[1,3]", "o2ib[1,3]" },
	/* more syntax */
	{ "tcp0", "tcp0" },
	/* 20 */ { "tcp 1", "tcp1" },
	{ " tcp", NULL },
	{ "tcp[1-3]", "tcp[1-3]" },
	{ "tcp [1-3]", "tcp[1-3]" },
	{ "tcp5[1-3]", NULL },
	/* 25 */ { "tcpx[1]", NULL },
	{ "tcp*[1]", NULL },
	{ "tcp[1-3]*", NULL },
	{ "tcpx", NULL },
	{ "tcp ", NULL },
	/* 30 */ { "", NULL },
	{ "@tcp", NULL },
	{ " 1.2.3.4 @tcp", "1.2.3.4@tcp" },
	{ "1.2.3.4@ tcp", NULL },
	{ "[7,1-3].0.0.1@tcp", "[7,1-3].0.0.1@tcp" },
	/* 35 */ { "0x10@gni", "16@gni" },
	{ "[1-5/2]@ptlf", "[1-5/2]@ptlf" },
	{ "*@gni", "[0-4294967295]@gni" },
	{ "1.2.3.4@tcp0x2", "1.2.3.4@tcp2" },
	{ "2001:db8::1@tcp", NULL },
	/* 40 */ { "1.2.3.4@foo", NULL },
	{ "bxi3f[0-2]", "bxi3f[0-2]" },
	{ "efa", "efa" },
	{ "1.2.3.4.5@tcp", NULL },
	{ "1.2.3.4@tcp@tcp", NULL },
};

static void descr_matches_udsp_show_table(void **state)
{
	struct ul_nid_descr *d, *d2;
	char buf[128], again[128];
	struct ul_err err;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		d = (struct ul_nid_descr *)0x1;
		ul_err_clear(&err);
		rc = ul_nid_descr_parse(rows[i].in, &d, &err);
		if (!rows[i].shown) {
			if (rc != -EINVAL || !err.msg[0])
				fail_msg("row %zu '%s' accepted", i,
					 rows[i].in);
			assert_ptr_equal(d, (struct ul_nid_descr *)0x1);
			continue;
		}
		if (rc)
			fail_msg("row %zu '%s': %s", i, rows[i].in, err.msg);
		assert_int_equal(ul_nid_descr_format(d, buf, sizeof(buf)),
				 strlen(rows[i].shown));
		if (strcmp(buf, rows[i].shown))
			fail_msg("row %zu '%s': '%s'", i, rows[i].in, buf);
		assert_int_equal(ul_nid_descr_parse(buf, &d2, NULL), 0);
		ul_nid_descr_format(d2, again, sizeof(again));
		assert_string_equal(buf, again);
		assert_true(ul_nid_descr_same(d, d2));
		ul_nid_descr_free(d);
		ul_nid_descr_free(d2);
	}
}

static void descr_rejects_zero_stride(void **state)
{
	struct ul_nid_descr *d = NULL;
	struct ul_err err;

	(void)state;
	assert_int_equal(ul_nid_descr_parse("10.0.0.[1-5/0]@tcp", &d, &err),
			 -EINVAL);
	assert_null(d);
	assert_non_null(strstr(err.msg, "stride 0"));
}

static void descr_net_match_follows_cfs_match_net(void **state)
{
	static const struct {
		const char *d, *net;
		bool match;
	} m[] = {
		/* 0: udsp.md §2.2 */
		{ "tcp", "tcp", true },
		{ "tcp", "tcp1", false },
		{ "tcp0", "tcp", true },
		{ "tcp0", "tcp1", false },
		{ "tcp1", "tcp1", true },
		/* 5 */ { "tcp1", "tcp", false },
		{ "tcp*", "tcp", true },
		{ "tcp*", "tcp65535", true },
		{ "tcp*", "o2ib", false },
		{ "o2ib[1-3]", "o2ib2", true },
		/* 10 */ { "o2ib[1-3]", "o2ib4", false },
		{ "o2ib[1-3]", "o2ib", false },
		{ "o2ib[0-4/2]", "o2ib", true },
		{ "o2ib[0-4/2]", "o2ib3", false },
		{ "1.2.3.4@tcp1", "tcp1", true },
	};
	struct ul_nid_descr *d;
	uint32_t net;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_int_equal(ul_nid_descr_parse(m[i].d, &d, NULL), 0);
		assert_int_equal(ulnet_net_parse(m[i].net, &net, NULL, 0), 0);
		if (ul_nid_descr_match_net(d, net) != m[i].match)
			fail_msg("row %zu: %s ~ %s", i, m[i].net, m[i].d);
		ul_nid_descr_free(d);
	}
}

static void descr_nid_match_needs_address_and_net(void **state)
{
	static const struct {
		const char *d, *nid;
		bool match;
	} m[] = {
		/* 0 */ { "192.168.0.[2-20/2]@tcp", "192.168.0.4@tcp", true },
		{ "192.168.0.[2-20/2]@tcp", "192.168.0.5@tcp", false },
		{ "192.168.0.[2-20/2]@tcp", "192.168.0.4@tcp1", false },
		{ "192.168.0.[2-20/2]@tcp", "192.168.0.4@o2ib", false },
		{ "10.1.0.[0-254/2]@o2ib[1-2]", "10.1.0.8@o2ib2", true },
		/* 5 */ { "10.1.0.[0-254/2]@o2ib[1-2]", "10.1.0.8@o2ib", false },
		{ "10.0.[1,3].5@o2ib", "10.0.3.5@o2ib", true },
		{ "10.0.[1,3].5@o2ib", "10.0.2.5@o2ib", false },
		{ "*.*.*.*@tcp1", "1.2.3.4@tcp1", true },
		{ "*.*.*.*@tcp1", "1.2.3.4@tcp", false },
		/* 10: a net descriptor never matches a NID */
		{ "tcp", "1.2.3.4@tcp", false },
		{ "tcp*", "1.2.3.4@tcp", false },
		{ "[1-5]@gni", "3@gni", true },
		{ "[1-5]@gni", "6@gni", false },
		{ "0@lo", "0@lo", true },
		/* 15: 16-byte NIDs never match (departure) */
		{ "*.*.*.*@tcp", "2001:db8::1@tcp", false },
		{ "255.255.255.255@tcp", "2001:db8::1@tcp", false },
		{ "*.*.*.*@tcp*", "1.2.3.4@tcp9", true },
	};
	struct ul_nid_descr *d;
	struct ulnet_nid nid;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_int_equal(ul_nid_descr_parse(m[i].d, &d, NULL), 0);
		assert_int_equal(ulnet_nid_parse(m[i].nid, &nid, NULL, 0), 0);
		if (ul_nid_descr_match_nid(d, &nid) != m[i].match)
			fail_msg("row %zu: %s ~ %s", i, m[i].nid, m[i].d);
		ul_nid_descr_free(d);
	}
}

static void descr_same_compares_range_by_range(void **state)
{
	static const struct {
		const char *a, *b;
		bool same;
	} s[] = {
		{ "tcp", "tcp", true },
		{ "tcp", "tcp0", false }, /* udsp.md §3: two distinct rules */
		{ "tcp*", "tcp[0-4294967295]", true },
		{ "1.2.3.*@tcp", "1.2.3.[0-255]@tcp", true },
		{ "1.2.3.[1,2]@tcp", "1.2.3.[1-2]@tcp", false },
		{ "1.2.3.4@tcp", "1.2.3.4@o2ib", false },
		{ "1.2.3.4@tcp", "tcp", false },
	};
	struct ul_nid_descr *a, *b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		assert_int_equal(ul_nid_descr_parse(s[i].a, &a, NULL), 0);
		assert_int_equal(ul_nid_descr_parse(s[i].b, &b, NULL), 0);
		if (ul_nid_descr_same(a, b) != s[i].same)
			fail_msg("row %zu: %s vs %s", i, s[i].a, s[i].b);
		ul_nid_descr_free(a);
		ul_nid_descr_free(b);
	}
	ul_nid_descr_free(NULL);
}

static void descr_refuses_malformed_input_without_crashing(void **state)
{
	static const char *const junk[] = {
		"[",
		"]",
		"@",
		"@@",
		"*",
		"[1-2]",
		"tcp[",
		"tcp]",
		"tcp[]",
		"tcp[1-",
		"tcp[1-2",
		"tcp[[1]]",
		"tcp[5-1]",
		"tcp[-1]",
		"tcp[4294967296]",
		"o2ib[1-3/0]",
		"1.2.3.4@",
		"1.2.3.[@tcp",
		"1.2.3.]@tcp",
		"1.2.3.[1,,2]@tcp",
		"\t",
		"tcp\x01",
	};
	struct ul_nid_descr *d;
	size_t i, n = UL_NID_DESCR_MAX_LEN + 1;
	char *big;

	(void)state;
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		if (ul_nid_descr_parse(junk[i], &d, NULL) != -EINVAL)
			fail_msg("row %zu '%s' accepted", i, junk[i]);
	assert_int_equal(ul_nid_descr_parse(NULL, &d, NULL), -EINVAL);
	big = malloc(n + 1);
	assert_non_null(big);
	memset(big, '1', n);
	memcpy(big, "tcp", 3);
	big[n] = '\0';
	assert_int_equal(ul_nid_descr_parse(big, &d, NULL), -EINVAL);
	free(big);
}

/* Naive reference: explicit membership over small values. */
#define VALS 12

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)(rand() % (int)n);
}

static void gen_expr(char *s, bool set[VALS], bool one_range)
{
	unsigned int nr, i, lo, hi, stride, v;
	char *p = s + strlen(s);

	memset(set, 0, VALS * sizeof(set[0]));
	if (rnd(4) == 0) {
		v = rnd(VALS);
		sprintf(p, "%u", v);
		set[v] = true;
		return;
	}
	if (rnd(5) == 0) {
		strcpy(p, "*");
		memset(set, 1, VALS * sizeof(set[0]));
		return;
	}
	nr = one_range ? 1 : 1 + rnd(3);
	p += sprintf(p, "[");
	for (i = 0; i < nr; i++) {
		lo = rnd(VALS);
		hi = lo + rnd(VALS - lo);
		stride = 1 + rnd(3);
		p += sprintf(p, "%s%u-%u/%u", i ? "," : "", lo, hi, stride);
		for (v = lo; v <= hi; v += stride)
			set[v] = true;
	}
	sprintf(p, "]");
}

static void descr_match_agrees_with_naive_reference(void **state)
{
	static const char *const types[] = { "tcp", "o2ib", "gni" };
	static const unsigned int type_nr[] = { 2, 5, 13 };
	bool netset[VALS], addr[4][VALS], has_num, has_addr, ip, want;
	struct ul_nid_descr *d;
	struct ulnet_nid nid;
	unsigned int t, nt, num, v[4];
	char s[256];
	int iter, j, k;

	(void)state;
	srand(4242);
	for (iter = 0; iter < 20000; iter++) {
		t = rnd(3);
		ip = t != 2;
		has_addr = rnd(3) != 0;
		has_num = rnd(2) != 0;
		s[0] = '\0';
		if (has_addr) {
			for (k = 0; k < (ip ? 4 : 1); k++) {
				if (k)
					strcat(s, ".");
				gen_expr(s, addr[k], false);
			}
			strcat(s, "@");
		}
		strcat(s, types[t]);
		if (has_num)
			gen_expr(s, netset, true);
		if (ul_nid_descr_parse(s, &d, NULL))
			fail_msg("iter %d: '%s' refused", iter, s);
		for (j = 0; j < 8; j++) {
			nt = rnd(3);
			num = rnd(VALS);
			memset(&nid, 0, sizeof(nid));
			nid.nid_type = (uint8_t)type_nr[nt];
			nid.nid_num = (uint16_t)num;
			for (k = 0; k < 4; k++)
				v[k] = nt != 2 || k == 0 ? rnd(VALS) : 0;
			nid.nid_addr[0] = nt != 2 ? v[0] << 24 | v[1] << 16 |
							    v[2] << 8 | v[3]
						  : v[0];
			/* net: type equal; no list means net 0 only */
			want = nt == t && (has_num ? netset[num] : num == 0);
			if (ul_nid_descr_match_net(
				    d, ulnet_net_make(type_nr[nt], num)) !=
			    want)
				fail_msg("iter %d: net %u/%u ~ '%s'", iter, nt,
					 num, s);
			for (k = 0; want && has_addr && k < (ip ? 4 : 1); k++)
				want = addr[k][v[k]];
			want = want && has_addr;
			if (ul_nid_descr_match_nid(d, &nid) != want)
				fail_msg(
					"iter %d: nid %u/%u %u.%u.%u.%u ~ '%s'",
					iter, nt, num, v[0], v[1], v[2], v[3],
					s);
		}
		ul_nid_descr_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(descr_matches_udsp_show_table),
		cmocka_unit_test(descr_rejects_zero_stride),
		cmocka_unit_test(descr_net_match_follows_cfs_match_net),
		cmocka_unit_test(descr_nid_match_needs_address_and_net),
		cmocka_unit_test(descr_same_compares_range_by_range),
		cmocka_unit_test(
			descr_refuses_malformed_input_without_crashing),
		cmocka_unit_test(descr_match_agrees_with_naive_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
