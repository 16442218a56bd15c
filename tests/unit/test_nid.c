/*
 * NID and net strings <-> binary (include/ulnet/nid.h): every example of
 * reference/lnetctl.md §4.1-§4.2 and wire.md §3 with LNet's answer, and
 * the departures listed at the top of src/nid/nid.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "nid/lnd.h"
#include "ulnet/nid.h"
#include "wire/wire.h"

struct good_row {
	const char *in;
	const char *canon; /* format(parse(in)) */
	unsigned int size; /* nid_size */
};

static const struct good_row good[] = {
	/* 0 */ { "198.18.0.1@tcp", "198.18.0.1@tcp", 0 },
	{ "198.18.0.1", "198.18.0.1@tcp", 0 },
	{ "198.18.0.1@tcp0", "198.18.0.1@tcp", 0 },
	{ "198.18.1.2@tcp1", "198.18.1.2@tcp1", 0 },
	{ "10.0.0.5@o2ib3", "10.0.0.5@o2ib3", 0 },
	/* 5 */ { "0@lo", "0@lo", 0 },
	{ "12@gni", "12@gni", 0 },
	{ "3@kfi", "3@kfi", 0 },
	{ "7@ptlf", "7@ptlf", 0 },
	{ "9@bxi3f", "9@bxi3f", 0 },
	/* 10 */ { "0x10@gni", "16@gni", 0 },
	{ "0X1f@kfi", "31@kfi", 0 },
	{ " 12@gni", "12@gni", 0 },
	{ "010@gni", "10@gni", 0 }, /* decimal, never octal */
	{ "4294967295@gni", "4294967295@gni", 0 },
	/* 15 */ { "1.2.3.4@gip", "1.2.3.4@gip", 0 },
	{ "1.2.3.4@efa", "1.2.3.4@efa", 0 },
	{ "2001:db8::1@efa", "2001:db8::1@efa", 12 },
	{ "2001:db8::1@tcp", "2001:db8::1@tcp", 12 },
	{ "2001:0db8:0000:0000:0000:0000:0000:0001@tcp", "2001:db8::1@tcp",
	  12 },
	/* 20 */ { "2001:db8::1", "2001:db8::1@tcp", 12 },
	{ "::ffff:1.2.3.4@tcp", "::ffff:1.2.3.4@tcp", 12 },
	{ "255.255.255.255@tcp", "255.255.255.255@tcp", 0 },
	{ "1.2.3.04@o2ib", "1.2.3.4@o2ib", 0 },
	{ " 1. 2. 3. 4@o2ib", "1.2.3.4@o2ib", 0 },
	/* 25 */ { "1.2.3.4@tcp 1", "1.2.3.4@tcp1", 0 },
	{ "127.0.0.2@tcp", "127.0.0.2@tcp", 0 },
	{ "127.0.0.1@o2ib", "127.0.0.1@o2ib", 0 },
	{ "1.2.3.4@tcp65535", "1.2.3.4@tcp65535", 0 },
	{ "0.0.0.0@tcp", "0.0.0.0@tcp", 0 },
	/* 30 */ { "1.2.3.4@tcp007", "1.2.3.4@tcp7", 0 },
	{ "2001:db8:1:2:3:4:5:6@tcp2", "2001:db8:1:2:3:4:5:6@tcp2", 12 },
};

static void nid_parse_accepts_lnet_forms(void **state)
{
	char buf[ULNET_NIDSTR_SIZE], err[128];
	struct ulnet_nid nid;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = ulnet_nid_parse(good[i].in, &nid, err, sizeof(err));

		if (rc)
			fail_msg("row %zu '%s': rc %d (%s)", i, good[i].in, rc,
				 err);
		ulnet_nid_format(&nid, buf, sizeof(buf));
		if (strcmp(buf, good[i].canon) || nid.nid_size != good[i].size)
			fail_msg("row %zu '%s': got '%s' size %u", i,
				 good[i].in, buf, nid.nid_size);
	}
}

static void nid_format_is_a_fixed_point(void **state)
{
	char buf[ULNET_NIDSTR_SIZE], again[ULNET_NIDSTR_SIZE];
	struct ulnet_nid nid, nid2;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(ulnet_nid_parse(good[i].in, &nid, NULL, 0), 0);
		ulnet_nid_format(&nid, buf, sizeof(buf));
		if (ulnet_nid_parse(buf, &nid2, NULL, 0) ||
		    !ulnet_nid_same(&nid, &nid2))
			fail_msg("row %zu: '%s' does not reparse", i, buf);
		ulnet_nid_format(&nid2, again, sizeof(again));
		assert_string_equal(buf, again);
	}
}

struct bad_row {
	const char *in;
	const char *reason; /* substring of the error text */
};

static const struct bad_row bad[] = {
	/* 0: lnetctl.md §4.2 invalid examples */
	{ "1@tcp", "invalid address '1' for net type tcp" },
	{ "1@o2ib", "invalid address '1' for net type o2ib" },
	{ "1.1.1.1@gni", "invalid address '1.1.1.1' for net type gni" },
	{ "256.256.256.256@tcp",
	  "invalid address '256.256.256.256' for net type tcp" },
	{ "1@foo", "unknown net type 'foo' in '1@foo'" },
	/* 5 */ { "foobar", "invalid address 'foobar' for net type tcp" },
	{ "x@foo", "unknown net type 'foo' in 'x@foo'" },
	{ "", "invalid address '' for net type tcp" },
	{ "@tcp", "invalid address '' for net type tcp" },
	{ "1.2.3.4@", "unknown net type '' in '1.2.3.4@'" },
	/* 10 */ { "1.2.3.4@tcp65536", "invalid net number '65536'" },
	{ "1.2.3.4@tcp-1", "invalid net number '-1'" },
	{ "1.2.3.4@tcp1 ", "invalid net number '1 '" },
	{ "1.2.3.4@tcpx", "invalid net number 'x'" },
	{ "1.2.3.4@TCP", "unknown net type 'TCP'" },
	/* 15 */ { "1.2.3.4@ tcp", "unknown net type ' tcp'" },
	{ "1.2.3.4@tcp@tcp", "invalid net number '@tcp'" },
	{ "0@lo1", "net lo takes no net number" },
	{ "1@lo", "invalid address '1' for net type lo" },
	{ "foo@lo", "invalid address 'foo' for net type lo" },
	/* 20 */ { "@lo", "invalid address '' for net type lo" },
	{ "1.2.3.04@tcp", "invalid address '1.2.3.04'" },
	{ "1.2.3.4 @tcp", "invalid address '1.2.3.4 '" },
	{ "127.0.0.1@tcp", "invalid address '127.0.0.1'" },
	{ "::1@tcp", "invalid address '::1'" },
	/* 25 */ { "fe80::1@tcp", "invalid address 'fe80::1'" },
	{ "2001:db8::1@o2ib",
	  "invalid address '2001:db8::1' for net type o2ib" },
	{ "4294967296@gni", "invalid address '4294967296'" },
	{ "-1@gni", "invalid address '-1'" },
	{ "1.2.3.256@o2ib", "invalid address '1.2.3.256'" },
	/* 30 */ { "4294967297.0.0.1@o2ib", "invalid address" },
	{ "1.2.3@o2ib", "invalid address '1.2.3'" },
	{ "1.2.3.4.5@o2ib", "invalid address '1.2.3.4.5'" },
	{ "0x@gni", "invalid address '0x'" },
	{ "1.2.3.-4@o2ib", "invalid address" },
	/* 35 */ { " 0x10@gni", "invalid address" },
	{ "12x@gni", "invalid address '12x'" },
	{ "1.2.3.4@o2ib 1 x", "invalid net number" },
	{ "myhost@tcp", "invalid address 'myhost' for net type tcp" },
	{ "<?>", "invalid address '<?>'" },
	/* 40 */ { "1.2.3.4@tofu", "unknown net type 'tofu'" },
	{ "1.2.3.4@elan", "unknown net type 'elan'" },
	{ "2001:db8::1/64@tcp", "invalid address" },
	{ "1.2.3.4@lo", "invalid address '1.2.3.4' for net type lo" },
	{ "0@lo0", "net lo takes no net number" },
};

static void nid_parse_rejects_bad_forms(void **state)
{
	struct ulnet_nid nid, untouched;
	char err[128];
	size_t i;

	(void)state;
	memset(&untouched, 0x5a, sizeof(untouched));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nid = untouched;
		err[0] = '\0';
		if (ulnet_nid_parse(bad[i].in, &nid, err, sizeof(err)) !=
		    -EINVAL)
			fail_msg("row %zu '%s' accepted", i, bad[i].in);
		if (!strstr(err, bad[i].reason))
			fail_msg("row %zu '%s': reason '%s'", i, bad[i].in,
				 err);
		if (memcmp(&nid, &untouched, sizeof(nid)))
			fail_msg("row %zu: *nid written on failure", i);
	}
}

static void nid_parse_truncates_reason_to_errbuf(void **state)
{
	struct ulnet_nid nid;
	char err[8];

	(void)state;
	memset(err, 'z', sizeof(err));
	assert_int_equal(ulnet_nid_parse("1@foo", &nid, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_int_equal(ulnet_nid_parse("1@foo", &nid, NULL, 0), -EINVAL);
	assert_int_equal(ulnet_nid_parse(NULL, &nid, NULL, 0), -EINVAL);
}

/*
 * A string lnetctl hands to LNet's kernel unparsed: "<?>" is ANY and
 * 127.0.0.1 an address on tcp/efa; everything else as ulnet_nid_parse().
 */
static void nid_parse_lnet_takes_what_the_kernel_takes(void **state)
{
	static const char *const lnet_good[] = {
		"127.0.0.1@tcp", "127.0.0.1",	   "127.0.0.1@tcp3",
		"127.0.0.1@efa", "127.0.0.1@o2ib", "10.0.0.1@tcp",
		"0@lo",		 "::1@tcp",	   "fe80::1@tcp1",
	};
	static const char *const lnet_bad[] = {
		"localhost@tcp", "<?>@tcp",	   " <?>",
		"::1@o2ib",	 "fe80::1@o2ib",   "1@tcp",
		"127.0.0.1@foo", "127.0.0.01@tcp", NULL,
	};
	struct ulnet_nid nid, untouched, want;
	size_t i;

	(void)state;
	assert_int_equal(ul_nid_parse_lnet("<?>", &nid), 0);
	assert_true(ulnet_nid_is_any(&nid));
	for (i = 0; i < sizeof(lnet_good) / sizeof(lnet_good[0]); i++) {
		if (ul_nid_parse_lnet(lnet_good[i], &nid))
			fail_msg("row %zu '%s' refused", i, lnet_good[i]);
		/*
		 * The same NID as ulnet_nid_parse() gives, or, for the
		 * loopback address it refuses on tcp/efa, that address.
		 */
		if (ulnet_nid_parse(lnet_good[i], &want, NULL, 0) == 0) {
			assert_true(ulnet_nid_same(&nid, &want));
		} else if (strchr(lnet_good[i], ':')) {
			/* ::1 and link-local: an IPv6 NID of 16 bytes */
			assert_int_equal(nid.nid_size, 12);
		} else {
			assert_int_equal(strncmp(lnet_good[i], "127.0.0.1", 9),
					 0);
			assert_int_equal(nid.nid_addr[0], 0x7f000001);
			assert_int_equal(nid.nid_size, 0);
		}
	}
	memset(&untouched, 0x5a, sizeof(untouched));
	for (i = 0; i < sizeof(lnet_bad) / sizeof(lnet_bad[0]); i++) {
		nid = untouched;
		if (ul_nid_parse_lnet(lnet_bad[i], &nid) != -EINVAL)
			fail_msg("row %zu '%s' accepted", i,
				 lnet_bad[i] ? lnet_bad[i] : "(null)");
		if (memcmp(&nid, &untouched, sizeof(nid)))
			fail_msg("row %zu: *nid written on failure", i);
	}
}

static void nid_any_prints_as_question_mark(void **state)
{
	char buf[ULNET_NIDSTR_SIZE];
	struct ulnet_nid nid;
	uint64_t nid4 = 0;

	(void)state;
	ulnet_nid_set_any(&nid);
	assert_true(ulnet_nid_is_any(&nid));
	assert_string_equal(ulnet_nid_format(&nid, buf, sizeof(buf)), "<?>");
	assert_int_equal(ulnet_nid_to_nid4(&nid, &nid4), 0);
	assert_true(nid4 == ULNET_NID4_ANY);
	memset(&nid, 0, sizeof(nid));
	assert_int_equal(ulnet_nid_from_nid4(ULNET_NID4_ANY, &nid), 0);
	assert_true(ulnet_nid_is_any(&nid));
	assert_int_equal(nid.nid_size, 0xff);
	assert_int_equal(nid.nid_num, 0xffff);
	assert_true(nid.nid_addr[0] == 0xffffffff &&
		    nid.nid_addr[3] == 0xffffffff);
	assert_int_equal(ulnet_nid_parse("198.18.0.1@tcp", &nid, NULL, 0), 0);
	assert_false(ulnet_nid_is_any(&nid));
}

static void nid_format_unknown_lnd_as_hex(void **state)
{
	char buf[ULNET_NIDSTR_SIZE];
	struct ulnet_nid nid = { 0 };

	(void)state;
	nid.nid_type = ULNET_LND_TOFU; /* no name in LNet's table */
	nid.nid_addr[0] = 0x1234abcd;
	assert_string_equal(ulnet_nid_format(&nid, buf, sizeof(buf)),
			    "1234abcd@<17:0>");
	nid.nid_type = 1; /* elan, removed */
	nid.nid_num = 3;
	assert_string_equal(ulnet_nid_format(&nid, buf, sizeof(buf)),
			    "1234abcd@<1:3>");
	nid.nid_size = 12;
	nid.nid_addr[3] = 7;
	assert_string_equal(ulnet_nid_format(&nid, buf, sizeof(buf)),
			    "1234abcd:0:0:7@<1:3>");
	/* An IPv4-only LND cannot print a 16-byte address as IP. */
	nid.nid_type = ULNET_LND_O2IB;
	assert_string_equal(ulnet_nid_format(&nid, buf, sizeof(buf)),
			    "1234abcd:0:0:7@<5:3>");
	/* Truncation keeps the buffer terminated. */
	assert_string_equal(ulnet_nid_format(&nid, buf, 5), "1234");
}

static void nid4_matches_wire_table(void **state)
{
	static const struct {
		const char *str;
		uint64_t nid4;
	} rows[] = {
		{ "198.18.0.1@tcp", UINT64_C(0x00020000c6120001) },
		{ "198.18.0.2@tcp", UINT64_C(0x00020000c6120002) },
		{ "198.18.1.2@tcp1", UINT64_C(0x00020001c6120102) },
		{ "10.0.0.5@o2ib3", UINT64_C(0x000500030a000005) },
		{ "0@lo", UINT64_C(0x0009000000000000) },
		{ "255.255.255.255@tcp", UINT64_C(0x00020000ffffffff) },
	};
	char buf[ULNET_NIDSTR_SIZE];
	struct ulnet_nid nid, back;
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(ulnet_nid_parse(rows[i].str, &nid, NULL, 0),
				 0);
		assert_int_equal(ulnet_nid_to_nid4(&nid, &v), 0);
		if (v != rows[i].nid4)
			fail_msg("row %zu: %#llx", i, (unsigned long long)v);
		assert_int_equal(ulnet_nid_from_nid4(v, &back), 0);
		assert_true(ulnet_nid_same(&nid, &back));
		assert_string_equal(ulnet_nid_format(&back, buf, sizeof(buf)),
				    rows[i].str);
	}
}

static void nid4_refuses_ipv6(void **state)
{
	struct ulnet_nid nid;
	uint64_t v = 42;

	(void)state;
	assert_int_equal(ulnet_nid_parse("2001:db8::1@tcp", &nid, NULL, 0), 0);
	assert_int_equal(nid.nid_addr[0], 0x20010db8);
	assert_int_equal(nid.nid_addr[3], 1);
	assert_int_equal(ulnet_nid_to_nid4(&nid, &v), -EOVERFLOW);
	assert_true(v == 42);
}

static void nid4_refuses_address_words_beyond_the_first(void **state)
{
	struct ulnet_nid nid;
	uint64_t v = 42;
	int i;

	(void)state;
	for (i = 1; i < 4; i++) {
		assert_int_equal(ulnet_nid_parse("1.2.3.4@tcp", &nid, NULL, 0),
				 0);
		nid.nid_addr[i] = 1;
		assert_int_equal(ulnet_nid_to_nid4(&nid, &v), -EOVERFLOW);
		assert_true(v == 42);
	}
}

static void nid4_with_top_byte_has_no_struct_form(void **state)
{
	static const uint64_t top_set[] = {
		UINT64_C(0x0102000000000005),
		UINT64_C(0x8000000000000000),
		UINT64_C(0xff00000000000000),
		UINT64_C(0xfffffffffffffffe),
	};
	struct ulnet_nid nid, keep;
	size_t i;

	(void)state;
	memset(&keep, 0x5a, sizeof(keep));
	for (i = 0; i < sizeof(top_set) / sizeof(top_set[0]); i++) {
		nid = keep;
		if (ulnet_nid_from_nid4(top_set[i], &nid) != -EINVAL)
			fail_msg("row %zu accepted", i);
		if (memcmp(&nid, &keep, sizeof(nid)))
			fail_msg("row %zu wrote *nid", i);
	}
	/*
	 * Type 0xff is LNet's ANY type (see is_any), whose only 64-bit form
	 * is all ones: any other value of that type would not come back.
	 */
	nid = keep;
	assert_int_equal(ulnet_nid_from_nid4(UINT64_C(0x00ff000000000005),
					     &nid),
			 -EINVAL);
	assert_memory_equal(&nid, &keep, sizeof(nid));
}

/*
 * LNET_NID_IS_ANY (lnet-types.h) compares nid_type alone, and
 * libcfs_nidstr_r() and lnet_nid_to_nid4() go by it; so do we.
 */
static void nid_is_any_looks_at_type_like_lnet(void **state)
{
	char buf[ULNET_NIDSTR_SIZE];
	struct ulnet_nid nid;
	uint64_t v = 0;

	(void)state;
	memset(&nid, 0, sizeof(nid));
	nid.nid_type = ULNET_LND_ANY;
	nid.nid_addr[0] = 5;
	assert_true(ulnet_nid_is_any(&nid));
	assert_false(ulnet_nid_same(
		&nid, &(struct ulnet_nid){
			      0xff, 0xff, 0xffff, { ~0u, ~0u, ~0u, ~0u } }));
	assert_string_equal(ulnet_nid_format(&nid, buf, sizeof(buf)), "<?>");
	assert_int_equal(ulnet_nid_to_nid4(&nid, &v), 0);
	assert_true(v == ULNET_NID4_ANY);
	/* Every other field 0xff is not ANY: the type decides. */
	ulnet_nid_set_any(&nid);
	nid.nid_type = ULNET_LND_SOCK;
	assert_false(ulnet_nid_is_any(&nid));
}

/* The wire codec's NID forms are thin wrappers of these: same answers. */
static void wire_nid4_conversion_agrees_with_public_api(void **state)
{
	static const uint64_t v4[] = {
		UINT64_C(0x00020000c6120001), UINT64_C(0x0009000000000000),
		UINT64_C(0x00ff000000000005), UINT64_C(0x0102000000000005),
		UINT64_C(0xffffffffffffffff), UINT64_C(0x00000000ffffffff),
	};
	struct ulnet_nid nids[6], a, b;
	uint64_t x, y;
	int ra, rb;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ra = ulnet_nid_from_nid4(v4[i], &a);
		rb = ul_wire_nid4_to_nid(v4[i], &b, NULL);
		if (ra != (rb == -EPROTO ? -EINVAL : rb) ||
		    memcmp(&a, &b, sizeof(a)))
			fail_msg("nid4 row %zu: %d vs %d", i, ra, rb);
	}
	memset(nids, 0, sizeof(nids));
	nids[0].nid_type = ULNET_LND_SOCK;
	nids[0].nid_addr[0] = 0xc6120001;
	nids[1] = nids[0];
	nids[1].nid_addr[2] = 1;
	nids[2] = nids[0];
	nids[2].nid_size = 12;
	nids[3].nid_type = ULNET_LND_ANY;
	nids[3].nid_addr[0] = 5;
	ulnet_nid_set_any(&nids[4]);
	nids[5] = nids[4];
	nids[5].nid_type = ULNET_LND_O2IB;
	for (i = 0; i < 6; i++) {
		x = y = 42;
		ra = ulnet_nid_to_nid4(&nids[i], &x);
		rb = ul_wire_nid_to_nid4(&nids[i], &y, NULL);
		if (ra != (rb == -EINVAL ? -EOVERFLOW : rb) || x != y)
			fail_msg("nid row %zu: %d vs %d", i, ra, rb);
	}
}

static void nid_cmp_orders_like_wire_bytes(void **state)
{
	/* Ascending by (size, type, num, address). */
	static const char *const order[] = {
		"0.0.0.1@tcp",	    "255.0.0.0@tcp", "0.0.0.0@tcp1",
		"1.0.0.0@o2ib",	    "0@lo",	     "5@gni",
		"0.0.0.0@efa",	    "::2@tcp",	     "2001:db8::1@tcp",
		"2001:db8::1@tcp1",
	};
	struct ulnet_nid a, b;
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		for (j = 0; j < sizeof(order) / sizeof(order[0]); j++) {
			int want = i < j ? -1 : i > j ? 1 : 0, got;

			assert_int_equal(ulnet_nid_parse(order[i], &a, NULL, 0),
					 0);
			assert_int_equal(ulnet_nid_parse(order[j], &b, NULL, 0),
					 0);
			got = ulnet_nid_cmp(&a, &b);
			got = got < 0 ? -1 : got > 0;
			if (got != want)
				fail_msg("%s vs %s: %d", order[i], order[j],
					 got);
			assert_true(ulnet_nid_same(&a, &b) == (i == j));
		}
	}
}

static void net_parse_and_format(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint32_t net;
		const char *canon;
	} rows[] = {
		/* 0 */ { "tcp", 0, 0x20000, "tcp" },
		{ "tcp0", 0, 0x20000, "tcp" },
		{ "tcp1", 0, 0x20001, "tcp1" },
		{ "o2ib3", 0, 0x50003, "o2ib3" },
		{ "lo", 0, 0x90000, "lo" },
		/* 5 */ { "gni", 0, 0xd0000, "gni" },
		{ "gip2", 0, 0xe0002, "gip2" },
		{ "ptlf", 0, 0xf0000, "ptlf" },
		{ "kfi9", 0, 0x100009, "kfi9" },
		{ "efa", 0, 0x120000, "efa" },
		/* 10 */ { "bxi3f1", 0, 0x130001, "bxi3f1" },
		{ "tcp 1", 0, 0x20001, "tcp1" },
		{ "tcp65535", 0, 0x2ffff, "tcp65535" },
		{ "lo0", -EINVAL, 0, NULL },
		{ "tcp65536", -EINVAL, 0, NULL },
		/* 15 */ { "foo", -EINVAL, 0, NULL },
		{ "", -EINVAL, 0, NULL },
		{ " tcp", -EINVAL, 0, NULL },
		{ "tcp ", -EINVAL, 0, NULL },
		{ "tcp-1", -EINVAL, 0, NULL },
		/* 20 */ { "tcp0x1", -EINVAL, 0, NULL },
		{ "tofu", -EINVAL, 0, NULL },
	};
	char buf[ULNET_NIDSTR_SIZE], err[128];
	uint32_t net;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		net = 0xdeadbeef;
		rc = ulnet_net_parse(rows[i].in, &net, err, sizeof(err));
		if (rc != rows[i].rc)
			fail_msg("row %zu '%s': rc %d", i, rows[i].in, rc);
		if (rc) {
			assert_true(net == 0xdeadbeef);
			assert_true(strstr(err, rows[i].in) != NULL);
			continue;
		}
		if (net != rows[i].net)
			fail_msg("row %zu '%s': %#x", i, rows[i].in, net);
		assert_string_equal(ulnet_net_format(net, buf, sizeof(buf)),
				    rows[i].canon);
	}
	assert_string_equal(ulnet_net_format(ULNET_NET_ANY, buf, sizeof(buf)),
			    "<65535:65535>");
	assert_string_equal(ulnet_net_format(0x110002, buf, sizeof(buf)),
			    "<17:2>");
}

static void lnd_names_follow_lnet_table(void **state)
{
	static const struct {
		unsigned int type;
		const char *name;
	} rows[] = {
		{ 2, "tcp" },  { 5, "o2ib" }, { 9, "lo" },
		{ 13, "gni" }, { 14, "gip" }, { 15, "ptlf" },
		{ 16, "kfi" }, { 18, "efa" }, { 19, "bxi3f" },
	};
	static const unsigned int unnamed[] = { 0,  1,	3,  4,	6,  7,	8,
						10, 11, 12, 17, 20, 255 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_string_equal(ulnet_lnd_name(rows[i].type), rows[i].name);
		assert_int_equal(ulnet_lnd_from_name(rows[i].name),
				 rows[i].type);
	}
	for (i = 0; i < sizeof(unnamed) / sizeof(unnamed[0]); i++)
		assert_null(ulnet_lnd_name(unnamed[i]));
	assert_int_equal(ulnet_lnd_from_name("tofu"), -EINVAL);
	assert_int_equal(ulnet_lnd_from_name("TCP"), -EINVAL);
	assert_int_equal(ulnet_lnd_from_name("tcp1"), -EINVAL);
	assert_int_equal(ulnet_lnd_from_name(NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nid_parse_accepts_lnet_forms),
		cmocka_unit_test(nid_format_is_a_fixed_point),
		cmocka_unit_test(nid_parse_rejects_bad_forms),
		cmocka_unit_test(nid_parse_truncates_reason_to_errbuf),
		cmocka_unit_test(nid_parse_lnet_takes_what_the_kernel_takes),
		cmocka_unit_test(nid_any_prints_as_question_mark),
		cmocka_unit_test(nid_format_unknown_lnd_as_hex),
		cmocka_unit_test(nid4_matches_wire_table),
		cmocka_unit_test(nid4_refuses_ipv6),
		cmocka_unit_test(nid4_refuses_address_words_beyond_the_first),
		cmocka_unit_test(nid4_with_top_byte_has_no_struct_form),
		cmocka_unit_test(nid_is_any_looks_at_type_like_lnet),
		cmocka_unit_test(wire_nid4_conversion_agrees_with_public_api),
		cmocka_unit_test(nid_cmp_orders_like_wire_bytes),
		cmocka_unit_test(net_parse_and_format),
		cmocka_unit_test(lnd_names_follow_lnet_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
