/*
 * Client-side NID range expansion (src/nid/nidrange.h): every example of
 * reference/lnetctl.md §4.3 with lnetctl's expansion order, its exact
 * error descr strings and errnos, and the departures.
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

#include "nid/nidlist.h"
#include "nid/nidrange.h"

struct row {
	const char *in;
	const char *out; /* expanded NIDs joined by ' ' */
};

static const struct row good[] = {
	/* 0: lnetctl.md §4.3 (sanity-lnet expectations) */
	{ "4.4.4.[1-3]@tcp", "4.4.4.1@tcp 4.4.4.2@tcp 4.4.4.3@tcp" },
	{ "6.6.[6-7].[0-4/2]@tcp", "6.6.6.0@tcp 6.6.6.2@tcp 6.6.6.4@tcp "
				   "6.6.7.0@tcp 6.6.7.2@tcp 6.6.7.4@tcp" },
	{ "6.6.[1-4/2].[0-6/3]@o2ib",
	  "6.6.1.0@o2ib 6.6.1.3@o2ib 6.6.1.6@o2ib 6.6.3.0@o2ib 6.6.3.3@o2ib "
	  "6.6.3.6@o2ib" },
	{ "[6-12/4]@gni", "6@gni 10@gni" },
	{ "[15-16/3].[17-19/4].[1].[5-20/5]@tcp",
	  "15.17.1.5@tcp 15.17.1.10@tcp 15.17.1.15@tcp 15.17.1.20@tcp" },
	/* 5 */
	{ "5.5.5.[1,2,3-4]@o2ib",
	  "5.5.5.1@o2ib 5.5.5.2@o2ib 5.5.5.3@o2ib 5.5.5.4@o2ib" },
	{ "1.1.1.1@tcp", "1.1.1.1@tcp" },
	{ "1.1.1.1@tcp,2.2.2.2@o2ib1", "1.1.1.1@tcp 2.2.2.2@o2ib1" },
	{ "1.1.1.[1,2]@tcp,3@gni", "1.1.1.1@tcp 1.1.1.2@tcp 3@gni" },
	{ "0@lo", "0@lo" },
	/* 10 */
	{ "1.1.1.1@tcp,1.1.1.1@tcp", "1.1.1.1@tcp 1.1.1.1@tcp" },
	{ "10.0.0.1@tcp0", "10.0.0.1@tcp" },
	{ "[1-2].[3-4].0.1@tcp",
	  "1.3.0.1@tcp 1.4.0.1@tcp 2.3.0.1@tcp 2.4.0.1@tcp" },
	{ "2001:db8::[a-c]@tcp",
	  "2001:db8::a@tcp 2001:db8::b@tcp 2001:db8::c@tcp" },
	{ "1.1.1.[3-300/499]@o2ib", "1.1.1.3@o2ib" },
	/* 15: departure, lnetctl expands "[0]" to nothing */
	{ "1.1.1.[0]@tcp", "1.1.1.0@tcp" },
	{ "1.1.1.[1,0]@tcp", "1.1.1.1@tcp 1.1.1.0@tcp" },
	{ "[7]@kfi", "7@kfi" },
};

static void nidrange_expands_leftmost_outermost(void **state)
{
	struct ulnet_nid out[UL_NIDRANGE_MAX_PER_PEER];
	char got[4096], one[ULNET_NIDSTR_SIZE];
	struct ul_err err;
	size_t i, j, n;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		n = 999;
		rc = ul_nidrange_expand(good[i].in, out,
					UL_NIDRANGE_MAX_PER_PEER, &n, &err);
		if (rc)
			fail_msg("row %zu '%s': %d %s", i, good[i].in, rc,
				 err.msg);
		got[0] = '\0';
		for (j = 0; j < n; j++) {
			strcat(got, j ? " " : "");
			strcat(got,
			       ulnet_nid_format(&out[j], one, sizeof(one)));
		}
		if (strcmp(got, good[i].out))
			fail_msg("row %zu '%s': '%s'", i, good[i].in, got);
	}
}

struct bad_row {
	const char *in;
	int rc;
	const char *descr; /* lnetctl's exact descr */
};

#define Q(text) "\"Unable to parse nidlist: " text "\""

static const struct bad_row bad[] = {
	/* 0: lnetctl.md §4.3 */
	{ "*@tcp", -EINVAL, "asterisk not allowed in nidstring" },
	{ "1.1.1.*@tcp", -EINVAL, "asterisk not allowed in nidstring" },
	{ "<?>", -EINVAL, Q("LNET_ANY_NID is unsupported") },
	{ "1.1.1.1", -EINVAL, Q("no valid NIDs in string") },
	{ "1.1.1.[1-2@tcp", -EINVAL, Q("incomplete bracket set") },
	/* 5 */ { "1.1.1.1-2]@tcp", -EINVAL, Q("incomplete bracket set") },
	{ "1.1.1.[2-1]@tcp", -EINVAL, Q("range is wrong order") },
	{ "1.1.1.[a-f/x]@tcp", -EINVAL, Q("range needs number after /") },
	{ "1.1.1.[1-x]@tcp", -EINVAL, Q("range needs number after -") },
	{ "1.1.1.[1,]@tcp", -EINVAL, Q("range needs number after ,") },
	/* 10 */ { "1.1.1.[1;2]@tcp", -EINVAL, Q("invalid character in range") },
	{ "1.1.1.[a-f]@tcp", -EINVAL, Q("invalid character in range") },
	{ "1.1.1.]1[@tcp", -EINVAL, Q("improper bracket ordering") },
	{ "1.1.1@tcp", -EINVAL, Q("invalid NID in nidstr") },
	{ "1@tcp", -EINVAL, Q("invalid NID in nidstr") },
	/* 15 */ { "1.1.1.1@foo", -EINVAL, Q("invalid NID in nidstr") },
	{ "1.1.1.1@tcp,", -EINVAL, Q("invalid NID in nidstr") },
	{ ",1.1.1.1@tcp", -EINVAL, Q("invalid NID in nidstr") },
	{ "1.1.1.1@tcp,,2.2.2.2@tcp", -EINVAL, Q("invalid NID in nidstr") },
	{ "1.1.1.1@tcp,junk", -EINVAL, Q("invalid NID in nidstr") },
	/* 20: host names are not resolved */
	{ "myhost@tcp", -EINVAL, Q("invalid NID in nidstr") },
	/* departures: every expanded NID is checked */
	{ "1.1.1.[250-300]@tcp", -EINVAL, Q("invalid NID in nidstr") },
	{ "1.1.1.1@o2ib[1-2]", -EINVAL, Q("invalid NID in nidstr") },
	{ "1.1.1.[1-5/0]@tcp", -EINVAL, Q("range stride must not be 0") },
	{ "1.1.1.[]@tcp", -EINVAL, Q("empty range") },
	/* 25 */ { "1.1.1.[1/2]@tcp", -EINVAL, Q("invalid character in range") },
	{ "1.1.1.[[1]]@tcp", -EINVAL, Q("invalid character in range") },
	{ "1.1.1.[99999999999]@tcp", -EINVAL, Q("number too large in range") },
	{ "1.1.1.[1-2-3]@tcp", -EINVAL, Q("invalid character in range") },
	{ "2001:db8::[1:2]@tcp", -EINVAL, Q("invalid character in range") },
	/* 30: the limit */
	{ "1.1.[0-1].[0-255]@tcp", -E2BIG,
	  "Unable to parse nidlist: specifies more NIDs than allowed" },
	{ "[0-4294967295]@gni", -E2BIG,
	  "Unable to parse nidlist: specifies more NIDs than allowed" },
};

static void nidrange_errors_carry_lnetctl_descr(void **state)
{
	struct ulnet_nid out[UL_NIDRANGE_MAX_PER_PEER];
	struct ul_err err;
	size_t i, n;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 999;
		ul_err_clear(&err);
		rc = ul_nidrange_expand(bad[i].in, out,
					UL_NIDRANGE_MAX_PER_PEER, &n, &err);
		if (rc != bad[i].rc || strcmp(err.msg, bad[i].descr))
			fail_msg("row %zu '%s': %d '%s'", i, bad[i].in, rc,
				 err.msg);
		assert_int_equal(err.code, bad[i].rc);
		assert_int_equal(n, 999);
	}
	assert_int_equal(ul_nidrange_expand(NULL, out, 1, &n, &err), -EINVAL);
	assert_string_equal(err.msg, "supplied nidstr is NULL");
}

static void nidrange_limit_is_exact(void **state)
{
	struct ulnet_nid out[129];
	size_t n = 0;

	(void)state;
	/* 128 fits a limit of 128 ... */
	assert_int_equal(
		ul_nidrange_expand("1.1.1.[1-128]@tcp", out, 128, &n, NULL), 0);
	assert_int_equal(n, 128);
	/* ... 129 does not (lnetctl lets 129 through). */
	assert_int_equal(ul_nidrange_expand("1.1.1.[1-129]@tcp", out, 128, &n,
					    NULL),
			 -E2BIG);
	assert_int_equal(ul_nidrange_expand("1.1.1.1@tcp", NULL, 0, &n, NULL),
			 -E2BIG);
	assert_int_equal(ul_nidrange_expand("1.1.1.1@tcp,2.2.2.2@tcp", out, 1,
					    &n, NULL),
			 -E2BIG);
}

static void nidrange_refuses_malformed_input_without_crashing(void **state)
{
	static const char *const junk[] = {
		"@",
		"@@",
		"[@",
		"]@",
		"[]@",
		"[,]@tcp",
		"[-]@tcp",
		"[/]@tcp",
		"1.1.1.[1-]@tcp",
		"1.1.1.[-1]@tcp",
		"1.1.1.[1-2/]@tcp",
		"[[[[[[[[@tcp",
		"]]]]]]]]@tcp",
		",,,@",
		"@tcp",
		"1.1.1.1@",
		"1.1.1.1@tcp@tcp",
		"\xff@tcp",
		"1.1.1.[1\x01]@tcp",
	};
	struct ulnet_nid out[4];
	size_t i, n, len = UL_NIDLIST_MAX_LEN + 2;
	char *big;

	(void)state;
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		if (ul_nidrange_expand(junk[i], out, 4, &n, NULL) >= 0)
			fail_msg("row %zu '%s' accepted", i, junk[i]);
	big = malloc(len + 1);
	assert_non_null(big);
	memset(big, '1', len);
	big[len - 4] = '@';
	memcpy(big + len - 3, "gni", 3);
	big[len] = '\0';
	assert_int_equal(ul_nidrange_expand(big, out, 4, &n, NULL), -EINVAL);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nidrange_expands_leftmost_outermost),
		cmocka_unit_test(nidrange_errors_carry_lnetctl_descr),
		cmocka_unit_test(nidrange_limit_is_exact),
		cmocka_unit_test(
			nidrange_refuses_malformed_input_without_crashing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
