/*
 * Expression lists (src/nid/expr.h): LNet's syntax, canonical printing,
 * matching, and the departures (stride 0, signs, overflow, bounds).
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

#include "nid/expr.h"

struct row {
	const char *in;
	uint32_t max;
	const char *canon; /* NULL: must be refused */
};

#define O UL_EXPR_OCTET_MAX
#define N UL_EXPR_NUM_MAX

static const struct row rows[] = {
	/* 0 */ { "5", O, "5" },
	{ "*", O, "[0-255]" },
	{ "*", N, "[0-4294967295]" },
	{ "[1-5]", O, "[1-5]" },
	{ "[1-5/2]", O, "[1-5/2]" },
	/* 5 */ { "[1,3]", O, "[1,3]" },
	{ "[1-3,7]", O, "[1-3,7]" },
	{ "[7,1-3]", O, "[7,1-3]" },
	{ "[1-1]", O, "1" },
	{ "[5]", O, "5" },
	/* 10 */ { "[1-1/4]", O, "1" },
	{ "[0x10-0x1f]", O, "[16-31]" },
	{ "[010-012]", O, "[8-10]" },
	{ " [ 1 - 5 / 2 , 9 ] ", O, "[1-5/2,9]" },
	{ "[*]", O, "[0-255]" },
	/* 15 */ { "[1,*]", O, "[1,0-255]" },
	{ "0", O, "0" },
	{ "255", O, "255" },
	{ "4294967295", N, "4294967295" },
	{ "[0-255/255]", O, "[0-255/255]" },
	/* 20: refused */
	{ "256", O, NULL },
	{ "4294967296", N, NULL },
	{ "99999999999999999999", N, NULL },
	{ "-1", N, NULL },
	{ "+1", O, NULL },
	/* 25 */ { "[1-5/0]", O, NULL },
	{ "[1-5/x]", O, NULL },
	{ "[1-5/]", O, NULL },
	{ "[1-5/2/3]", O, NULL },
	{ "[1-5/256]", O, NULL },
	/* 30 */ { "[5-1]", O, NULL },
	{ "1-5", O, NULL },
	{ "[1-5", O, NULL },
	{ "1-5]", O, NULL },
	{ "[]", O, NULL },
	/* 35 */ { "[1,,2]", O, NULL },
	{ "[,1]", O, NULL },
	{ "[1,]", O, NULL },
	{ "[[1]]", O, NULL },
	{ "", O, NULL },
	/* 40 */ { "   ", O, NULL },
	{ "08", O, NULL },
	{ "0x", O, NULL },
	{ "x", O, NULL },
	{ "[1-x]", O, NULL },
	/* 45 */ { "[-1]", O, NULL },
	{ "[1--2]", O, NULL },
	{ "**", O, NULL },
	{ "[1-2]x", O, NULL },
	{ "x[1-2]", O, NULL },
};

static void expr_parses_and_prints_canonically(void **state)
{
	struct ul_expr *e, *e2;
	struct ul_err err;
	char buf[128], again[128];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = (struct ul_expr *)0x1;
		ul_err_clear(&err);
		rc = ul_expr_parse(rows[i].in, strlen(rows[i].in), 0,
				   rows[i].max, &e, &err);
		if (!rows[i].canon) {
			if (rc != -EINVAL || err.msg[0] == '\0')
				fail_msg("row %zu '%s' accepted", i,
					 rows[i].in);
			assert_ptr_equal(e, (struct ul_expr *)0x1);
			continue;
		}
		if (rc)
			fail_msg("row %zu '%s': %s", i, rows[i].in, err.msg);
		assert_int_equal(ul_expr_format(e, buf, sizeof(buf)),
				 strlen(rows[i].canon));
		if (strcmp(buf, rows[i].canon))
			fail_msg("row %zu '%s': '%s'", i, rows[i].in, buf);
		/* print -> parse -> print is a fixed point */
		assert_int_equal(ul_expr_parse(buf, strlen(buf), 0, rows[i].max,
					       &e2, NULL),
				 0);
		ul_expr_format(e2, again, sizeof(again));
		assert_string_equal(buf, again);
		if (strcmp(rows[i].in, rows[i].canon) == 0)
			assert_true(ul_expr_same(e, e2));
		ul_expr_free(e);
		ul_expr_free(e2);
	}
}

static void expr_rejects_zero_stride(void **state)
{
	struct ul_expr *e = NULL;
	struct ul_err err;

	(void)state;
	assert_int_equal(ul_expr_parse("[1-5/0]", 7, 0, 255, &e, &err),
			 -EINVAL);
	assert_null(e);
	assert_non_null(strstr(err.msg, "stride 0"));
	assert_non_null(strstr(err.msg, "[1-5/0]"));
}

static void expr_match_uses_lo_hi_and_stride(void **state)
{
	static const struct {
		const char *in;
		uint32_t v;
		bool match;
	} m[] = {
		{ "[2-20/2]", 2, true },
		{ "[2-20/2]", 3, false },
		{ "[2-20/2]", 20, true },
		{ "[2-20/2]", 22, false },
		{ "[2-20/2]", 0, false },
		{ "[1-5/10]", 1, true },
		{ "[1-5/10]", 5, false },
		{ "[1-3,7]", 7, true },
		{ "[1-3,7]", 4, false },
		{ "*", 0, true },
		{ "*", 255, true },
		{ "[0-255/255]", 255, true },
		{ "[0-255/255]", 254, false },
	};
	struct ul_expr *e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_int_equal(ul_expr_parse(m[i].in, strlen(m[i].in), 0, 255,
					       &e, NULL),
				 0);
		if (ul_expr_match(e, m[i].v) != m[i].match)
			fail_msg("row %zu: %s ~ %u", i, m[i].in, m[i].v);
		ul_expr_free(e);
	}
}

static void expr_match_survives_full_32bit_range(void **state)
{
	struct ul_expr *e;

	(void)state;
	assert_int_equal(ul_expr_parse("[4294967290-4294967295/3]", 25, 0,
				       UL_EXPR_NUM_MAX, &e, NULL),
			 0);
	assert_true(ul_expr_match(e, 4294967293u));
	assert_false(ul_expr_match(e, 4294967295u));
	assert_false(ul_expr_match(e, 1));
	ul_expr_free(e);
}

static void expr_respects_length_not_nul(void **state)
{
	static const char text[] = "[1-5]junk";
	static const char nul[] = "[1\0-5]";
	struct ul_expr *e;

	(void)state;
	assert_int_equal(ul_expr_parse(text, 5, 0, 255, &e, NULL), 0);
	ul_expr_free(e);
	assert_int_equal(ul_expr_parse(nul, sizeof(nul) - 1, 0, 255, &e, NULL),
			 -EINVAL);
	assert_int_equal(ul_expr_parse("5\0", 2, 0, 255, &e, NULL), -EINVAL);
}

static void expr_bounds_range_count(void **state)
{
	size_t n = UL_EXPR_MAX_RANGES + 1, i, len = 0;
	char *s = malloc(n * 2 + 2);
	struct ul_expr *e;

	(void)state;
	assert_non_null(s);
	s[len++] = '[';
	for (i = 0; i < n; i++) {
		s[len++] = '1';
		s[len++] = ',';
	}
	s[len - 1] = ']';
	assert_int_equal(ul_expr_parse(s, len, 0, 255, &e, NULL), -EINVAL);
	/* exactly the limit is fine */
	assert_int_equal(ul_expr_parse(s + 2, len - 2, 0, 255, &e, NULL),
			 -EINVAL); /* no leading '[' */
	s[2] = '[';
	assert_int_equal(ul_expr_parse(s + 2, len - 2, 0, 255, &e, NULL), 0);
	assert_int_equal(e->nr, UL_EXPR_MAX_RANGES);
	ul_expr_free(e);
	free(s);
}

static void expr_format_is_snprintf_like(void **state)
{
	struct ul_expr *e;
	char buf[6];

	(void)state;
	assert_int_equal(ul_expr_parse("[1-3,100]", 9, 0, 255, &e, NULL), 0);
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(ul_expr_format(e, buf, sizeof(buf)), 9);
	assert_string_equal(buf, "[1-3,");
	assert_int_equal(ul_expr_format(e, NULL, 0), 9);
	ul_expr_free(e);
	ul_expr_free(NULL);
}

static void octets_need_exactly_four(void **state)
{
	static const struct {
		const char *in;
		const char *canon;
	} r[] = {
		{ "1.2.3.4", "1.2.3.4" },
		{ " 1 . 2 .3. [4-5] ", "1.2.3.[4-5]" },
		{ "*.*.*.*", "[0-255].[0-255].[0-255].[0-255]" },
		{ "1.2.3", NULL },
		{ "1.2.3.4.5", NULL },
		{ "1..3.4", NULL },
		{ "1.2.3.4.", NULL },
		{ ".1.2.3", NULL },
		{ "*", NULL },
		{ "1.2.3.256", NULL },
	};
	struct ul_expr *oct[4] = { NULL };
	char buf[64];
	size_t i;
	int rc, j;

	(void)state;
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		rc = ul_expr_parse_octets(r[i].in, strlen(r[i].in), oct, NULL);
		if (!r[i].canon) {
			if (rc != -EINVAL)
				fail_msg("row %zu '%s' accepted", i, r[i].in);
			continue;
		}
		assert_int_equal(rc, 0);
		buf[0] = '\0';
		for (j = 0; j < 4; j++) {
			char one[32];

			ul_expr_format(oct[j], one, sizeof(one));
			strcat(buf, j ? "." : "");
			strcat(buf, one);
			ul_expr_free(oct[j]);
		}
		if (strcmp(buf, r[i].canon))
			fail_msg("row %zu '%s': '%s'", i, r[i].in, buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expr_parses_and_prints_canonically),
		cmocka_unit_test(expr_rejects_zero_stride),
		cmocka_unit_test(expr_match_uses_lo_hi_and_stride),
		cmocka_unit_test(expr_match_survives_full_32bit_range),
		cmocka_unit_test(expr_respects_length_not_nul),
		cmocka_unit_test(expr_bounds_range_count),
		cmocka_unit_test(expr_format_is_snprintf_like),
		cmocka_unit_test(octets_need_exactly_four),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
