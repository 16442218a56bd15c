/*
 * The lnet.conf value checks (src/ctl/conf.h) that the CLI shares:
 * integers as lnetctl reads them, Multi-Rail words, CPT expressions,
 * interface names, ip-ranges and the global parameter table.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctl/conf.h"

static void integers_are_read_as_lnetctl_reads_them(void **state)
{
	static const struct {
		const char *in;
		long long value; /* LLONG_MIN: refused */
	} rows[] = {
		/* 0 */ { "0", 0 },
		{ "-1", -1 },
		{ "+7", 7 },
		{ "0x10", 16 },
		{ "010", 8 }, /* strtol base 0: octal, as lnetctl */
		/* 5 */ { "08", LLONG_MIN },
		{ "", LLONG_MIN },
		{ " 1", LLONG_MIN },
		{ "1 ", LLONG_MIN },
		{ "abc", LLONG_MIN },
		/* 10 */ { "1.5", LLONG_MIN },
		{ "0x", LLONG_MIN },
		{ "99999999999999999999", LLONG_MIN },
		{ "1000", LLONG_MIN }, /* past max */
		{ "-2", LLONG_MIN },   /* below min */
	};
	struct ul_err err;
	long long v;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		v = 12345;
		rc = ul_conf_parse_int(rows[i].in, -1, 999, &v, &err);
		if (rows[i].value == LLONG_MIN) {
			if (rc != -EINVAL || v != 12345)
				fail_msg("row %zu: '%s' accepted", i,
					 rows[i].in);
		} else if (rc || v != rows[i].value) {
			fail_msg("row %zu: '%s': rc %d v %lld", i, rows[i].in,
				 rc, v);
		}
	}
	ul_conf_parse_int("abc", 0, 1, &v, &err);
	assert_string_equal(err.msg, "'abc' is not an integer");
	ul_conf_parse_int("5", 0, 1, &v, &err);
	assert_string_equal(err.msg, "'5' is out of range 0..1");
}

static void multi_rail_words_in_any_case(void **state)
{
	static const char *const yes[] = { "yes", "True", "ON", "y", "Y" };
	static const char *const no[] = { "no", "False", "off", "N", "FALSE" };
	static const char *const bad[] = { "Foobar", "1", "0", "", "yess" };
	struct ul_err err;
	bool b;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		b = false;
		assert_int_equal(ul_conf_parse_bool(yes[i], &b, &err), 0);
		assert_true(b);
		assert_int_equal(ul_conf_parse_bool(no[i], &b, &err), 0);
		assert_false(b);
		assert_int_equal(ul_conf_parse_bool(bad[i], &b, &err), -EINVAL);
	}
	assert_string_equal(err.msg, "'yess': invalid MR flag param");
}

static void cpt_expressions_are_checked(void **state)
{
	static const struct {
		const char *in;
		const char *shown; /* NULL: refused */
	} rows[] = {
		/* 0 */ { "[0,1]", "[0,1]" },
		{ "[0-3]", "[0-3]" },
		{ "2", "2" },
		{ "[0-6/2]", "[0-6/2]" },
		{ "[1-0]", NULL },
		/* 5 */ { "[]", NULL },
		{ "", NULL },
		{ "[65536]", NULL },
		{ "[0", NULL },
		{ "0-1", NULL },
	};
	struct ul_expr *e;
	struct ul_err err;
	char buf[64];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = NULL;
		rc = ul_conf_parse_cpt(rows[i].in, &e, &err);
		if (!rows[i].shown) {
			if (rc != -EINVAL || e)
				fail_msg("row %zu: '%s' accepted", i,
					 rows[i].in);
			continue;
		}
		if (rc)
			fail_msg("row %zu: '%s': %s", i, rows[i].in, err.msg);
		ul_expr_format(e, buf, sizeof(buf));
		if (strcmp(buf, rows[i].shown))
			fail_msg("row %zu: '%s' shown as '%s'", i, rows[i].in,
				 buf);
		ul_expr_free(e);
	}
}

static void interface_names_with_optional_cpts(void **state)
{
	static const struct {
		const char *in;
		const char *name; /* NULL: refused */
		const char *cpt;
	} rows[] = {
		/* 0 */ { "eth0", "eth0", "-" },
		{ "eth1[0,1]", "eth1", "[0,1]" },
		{ "ib0.8001", "ib0.8001", "-" },
		{ "eth0:1", "eth0:1", "-" },
		{ "abcdefghijklmno", "abcdefghijklmno", "-" },
		/* 5 */ { "abcdefghijklmnop", NULL, NULL },
		{ "", NULL, NULL },
		{ "[0]", NULL, NULL },
		{ "eth 0", NULL, NULL },
		{ "eth/0", NULL, NULL },
		/* 10 */ { "eth0[1-0]", NULL, NULL },
		{ "eth0[0]x", NULL, NULL },
		{ "eth0]", NULL, NULL },
		{ "eth0[", NULL, NULL },
	};
	char ifname[UL_CONF_IFNAME_SIZE], buf[64];
	struct ul_expr *cpt;
	struct ul_err err;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cpt = NULL;
		rc = ul_conf_parse_ifname(rows[i].in, ifname, &cpt, &err);
		if (!rows[i].name) {
			if (rc != -EINVAL)
				fail_msg("row %zu: '%s' accepted", i,
					 rows[i].in);
			continue;
		}
		if (rc)
			fail_msg("row %zu: '%s': %s", i, rows[i].in, err.msg);
		assert_string_equal(ifname, rows[i].name);
		if (cpt)
			ul_expr_format(cpt, buf, sizeof(buf));
		else
			strcpy(buf, "-");
		assert_string_equal(buf, rows[i].cpt);
		ul_expr_free(cpt);
	}
}

static void ip_ranges_are_octet_expressions_or_ipv6_prefixes(void **state)
{
	static const struct {
		const char *in;
		int ok;
		unsigned int prefix; /* IPv6 */
	} rows[] = {
		/* 0 */ { "10.20.*.*", 1, 0 },
		{ "192.168.[0-3].[1-254/2]", 1, 0 },
		{ "2001:db8::/32", 1, 32 },
		{ "::1", 1, 128 },
		{ "fd00::/128", 1, 128 },
		/* 5 */ { "fd00::/1", 1, 1 },
		{ "fd00::/0", 0, 0 },
		{ "fd00::/129", 0, 0 },
		{ "fd00::/", 0, 0 },
		{ "fd00::/0x10", 0, 0 },
		/* 10 */ { "fd00::/ 8", 0, 0 },
		{ "1.2.3", 0, 0 },
		{ "1.2.3.256", 0, 0 },
		{ "1.2.3.4.5", 0, 0 },
		{ "10.0.0.[5-1]", 0, 0 },
		/* 15 */ { "gg::1", 0, 0 },
		{ "", 0, 0 },
	};
	struct ul_conf_ip_range r;
	struct ul_err err;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&r, 0, sizeof(r));
		rc = ul_conf_parse_ip_range(rows[i].in, &r, &err);
		if (!rows[i].ok) {
			if (rc != -EINVAL || r.text)
				fail_msg("row %zu: '%s' accepted", i,
					 rows[i].in);
			continue;
		}
		if (rc)
			fail_msg("row %zu: '%s': %s", i, rows[i].in, err.msg);
		assert_string_equal(r.text, rows[i].in);
		assert_int_equal(r.is_ipv6, rows[i].prefix != 0);
		assert_int_equal(r.prefix_len, rows[i].prefix);
		ul_conf_ip_range_fini(&r);
	}
}

/* lnetctl.md §9: names, the max_intf alias and lnd_timeout. */
static void global_parameters_have_lnetctl_names(void **state)
{
	static const char *const names[] = {
		/* 0 */ "numa_range",
		"max_interfaces",
		"discovery",
		"drop_asym_route",
		"retry_count",
		/* 5 */ "transaction_timeout",
		"health_sensitivity",
		"recovery_interval",
		"router_sensitivity",
		"response_tracking",
		/* 10 */ "recovery_limit",
		"max_recovery_ping_interval",
	};
	size_t i;

	(void)state;
	/* values are LNet's to check (conf.h): only names here */
	assert_int_equal(sizeof(names) / sizeof(names[0]), UL_CONF_GLOBAL_NR);
	for (i = 0; i < UL_CONF_GLOBAL_NR; i++) {
		assert_int_equal(ul_conf_global_lookup(names[i]), (int)i);
		assert_string_equal(ul_conf_global_name(i), names[i]);
	}
	assert_int_equal(ul_conf_global_lookup("max_intf"),
			 UL_CONF_GLOBAL_MAX_INTERFACES);
	assert_int_equal(ul_conf_global_lookup("lnd_timeout"), -EINVAL);
	assert_int_equal(ul_conf_global_lookup("Discovery"), -EINVAL);
	assert_null(ul_conf_global_name(UL_CONF_GLOBAL_NR));
}

static void section_names_are_lnet_conf_keys(void **state)
{
	static const char *const names[UL_CONF_SEC_NR] = {
		"net",	   "ip2nets", "route",	"peer", "routing",
		"buffers", "numa",    "global", "udsp",
	};
	int i;

	(void)state;
	for (i = 0; i < UL_CONF_SEC_NR; i++)
		assert_string_equal(ul_conf_section_name(i), names[i]);
	assert_null(ul_conf_section_name(UL_CONF_SEC_NR));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_are_read_as_lnetctl_reads_them),
		cmocka_unit_test(multi_rail_words_in_any_case),
		cmocka_unit_test(cpt_expressions_are_checked),
		cmocka_unit_test(interface_names_with_optional_cpts),
		cmocka_unit_test(
			ip_ranges_are_octet_expressions_or_ipv6_prefixes),
		cmocka_unit_test(global_parameters_have_lnetctl_names),
		cmocka_unit_test(section_names_are_lnet_conf_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
