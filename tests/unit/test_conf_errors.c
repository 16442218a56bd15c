/*
 * lnet.conf refusals (src/ctl/conf.h): one numbered row per error path
 * lnetctl takes while it reads a file, each with the exact message a user
 * sees: line and column, field path, the offending value quoted, in
 * lnetctl's words where it has them (reference/lnetctl.md §16, §17).
 * Ranges LNet checks are not refused here (test_conf_read.c).
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

#include "ctl/conf.h"

struct row {
	const char *yaml;
	const char *msg; /* the whole error message */
};

static const struct row rows[] = {
	/* 0: after the place, lnetctl's fixed words exactly (§16) */
	{ "net: [{net type: bogus}]\n",
	  "line 1, column 18: net[0].net type: Invalid network ID 'bogus'" },
	{ "net: [{net type: tcpx}]\n",
	  "line 1, column 18: net[0].net type: Invalid network ID 'tcpx'" },
	{ "net:\n",
	  "line 1, column 5: net: Malformed input. Expect 'net type' found "
	  "''" },
	{ "net: [{local NI(s): [], net type: tcp}]\n",
	  "line 1, column 8: net[0]: Malformed input. Expect 'net type' found "
	  "'local NI(s)'" },
	{ "net: [{}]\n", "line 1, column 7: net[0]: missing 'net type'" },
	/* 5 */
	{ "ip2nets: [{interfaces: {0: eth0}}]\n",
	  "line 1, column 12: ip2nets[0]: Malformed input. Expect 'net-spec' "
	  "found 'interfaces'" },
	{ "ip2nets: [{net-spec: tcp, local NI(s): []}]\n",
	  "line 1, column 27: ip2nets[0].local NI(s): local NI(s)' not valid "
	  "for ip2nets" },
	{ "net: [{net type: tcp, ip-range: {0: 10.0.0.*}}]\n",
	  "line 1, column 23: net[0].ip-range: 'ip-range' only valid for "
	  "ip2nets" },
	{ "net: [{net type: tcp, local NI(s): [{nid: 1.2.3@tcp}]}]\n",
	  "line 1, column 43: net[0].local NI(s)[0].nid: '1.2.3@tcp' is not a "
	  "valid NID: invalid address '1.2.3' for net type tcp" },
	{ "net: [{net type: tcp, local NI(s): [{nid: 10.0.0.1@tcp1}]}]\n",
	  "line 1, column 43: net[0].local NI(s)[0].nid: '10.0.0.1@tcp1' is "
	  "not on net 'tcp'" },
	/* 10 */
	{ "net:\n  - net type: tcp\n    local NI(s):\n      - interfaces: {0: "
	  "eth0}\n      - interfaces: {0: eth1}\n        tunables:\n          "
	  "peer_credits: abc\n",
	  "line 7, column 25: net[0].local NI(s)[1].tunables.peer_credits: "
	  "invalid value 'abc' for key 'peer_credits'" },
	{ "net: [{net type: tcp, tunables: {credits: }}]\n",
	  "line 1, column 43: net[0].tunables.credits: no value specified for "
	  "key 'credits'" },
	/* lnetctl reads the value of a key it then ignores */
	{ "net: [{net type: tcp, lnd tunables: {foo: bar}}]\n",
	  "line 1, column 43: net[0].lnd tunables.foo: invalid value 'bar' for "
	  "key 'foo'" },
	{ "net: [{net type: tcp, CPT: \"[1-0]\"}]\n",
	  "line 1, column 28: net[0].CPT: Unable to parse CPT '[1-0]'" },
	{ "net: [{net type: tcp, CPT: []}]\n",
	  "line 1, column 28: net[0].CPT: Missing CPT configuration" },
	/* 15 */
	{ "net: [{net type: tcp, CPT: \"[]\"}]\n",
	  "line 1, column 28: net[0].CPT: Unable to parse CPT '[]'" },
	/* lnetctl names the item of a list it cannot parse */
	{ "net: [{net type: tcp, CPT: [0, a]}]\n",
	  "line 1, column 32: net[0].CPT: Unable to parse CPT 'a'" },
	{ "net: [{net type: tcp, CPT: {0: 1}}]\n",
	  "line 1, column 28: net[0].CPT: expected a CPT expression or a list "
	  "of CPT numbers, found a mapping" },
	{ "net: [{net type: tcp, interfaces: {0: \"eth0[1-0]\"}}]\n",
	  "line 1, column 39: net[0].interfaces.0: Unable to parse CPT "
	  "'[1-0]': range 1-0 in '[1-0]' is in the wrong order" },
	{ "net: [{net type: tcp, interfaces: {0: averyveryverylongname}}]\n",
	  "line 1, column 39: net[0].interfaces.0: interface name "
	  "'averyveryverylongname' is longer than 15 characters" },
	/* 20 */
	{ "net: [{net type: tcp, interfaces: {0: \"[0]\"}}]\n",
	  "line 1, column 39: net[0].interfaces.0: '[0]' does not start with "
	  "an interface name" },
	{ "net: [{net type: tcp, interfaces: [eth0]}]\n",
	  "line 1, column 35: net[0].interfaces: expected a mapping '<index>: "
	  "<interface>', found a sequence" },
	{ "net: [{net type: tcp, interfaces: }]\n",
	  "line 1, column 35: net[0].interfaces: expected a mapping '<index>: "
	  "<interface>', found nothing" },
	{ "ip2nets: [{net-spec: tcp, ip-range: {0: 10.0.0}}]\n",
	  "line 1, column 41: ip2nets[0].ip-range.0: '10.0.0' is not four "
	  "octet expressions" },
	{ "ip2nets: [{net-spec: tcp, ip-range: {0: \"10.0.0.[5-1]\"}}]\n",
	  "line 1, column 41: ip2nets[0].ip-range.0: range 5-1 in '[5-1]' is "
	  "in the wrong order" },
	/* 25 */
	{ "ip2nets: [{net-spec: tcp, ip-range: {0: 2001:db8::/0}}]\n",
	  "line 1, column 41: ip2nets[0].ip-range.0: prefix length of "
	  "'2001:db8::/0' is not 1..128" },
	{ "ip2nets: [{net-spec: tcp, ip-range: {0: 2001:db8::/129}}]\n",
	  "line 1, column 41: ip2nets[0].ip-range.0: prefix length of "
	  "'2001:db8::/129' is not 1..128" },
	{ "ip2nets: [{net-spec: tcp, ip-range: {0: \"2001:zz::1\"}}]\n",
	  "line 1, column 41: ip2nets[0].ip-range.0: '2001:zz::1' is not an "
	  "IPv6 address" },
	{ "route: [{net: tcp1, gateway: 1.2.3.4@tcp, hop: x}]\n",
	  "line 1, column 48: route[0].hop: 'x' is not an integer" },
	{ "peer: [{primary nid: 1.2.3.4@tcp, Multi-Rail: Foobar}]\n",
	  "line 1, column 47: peer[0].Multi-Rail: 'Foobar': invalid MR flag "
	  "param" },
	/* 30 */
	{ "peer: [{Multi-Rail: yes}]\n",
	  "line 1, column 8: peer[0]: missing 'primary nid'" },
	{ "peer: [{primary nid: foobar@tcp}]\n",
	  "line 1, column 22: peer[0].primary nid: 'foobar@tcp' is not a valid "
	  "NID: invalid address 'foobar' for net type tcp" },
	{ "peer: [{primary nid: 1.2.3.4@tcp, peer ni: [{nid: "
	  "256.1.1.1@tcp}]}]\n",
	  "line 1, column 51: peer[0].peer ni[0].nid: '256.1.1.1@tcp' is not a "
	  "valid NID: invalid address '256.1.1.1' for net type tcp" },
	{ "peer: [{primary nid: 1.2.3.4@tcp, peer ni: [{nid: 1.2.3.4@tcp, "
	  "health stats: {health value: 1000, dropped: 0}}]}]\n",
	  "line 1, column 99: peer[0].peer ni[0].health stats: wrong health "
	  "config format" },
	{ "routing: {enable: yes}\n",
	  "line 1, column 19: routing.enable: invalid value 'yes' for key "
	  "'enable'" },
	/* 35 */
	{ "buffers: {tiny: }\n", "line 1, column 17: buffers.tiny: no value "
				 "specified for key 'tiny'" },
	{ "numa: {range: x}\n",
	  "line 1, column 15: numa.range: invalid value 'x' for key 'range'" },
	{ "global: {foobar: 1}\n",
	  "line 1, column 10: global: invalid key 'foobar'" },
	{ "foobar: 1\n", "line 1, column 1: invalid key 'foobar'" },
	{ "statistics: {msgs_alloc: 0}\n",
	  "line 1, column 1: invalid key 'statistics'" },
	/* 40 */
	{ "global: {discovery: }\n",
	  "line 1, column 21: global.discovery: no value specified for key "
	  "'discovery'" },
	{ "retry_count: abc\n",
	  "line 1, column 14: retry_count: invalid value 'abc' for key "
	  "'retry_count'" },
	{ "lnd_timeout: x\n",
	  "line 1, column 14: lnd_timeout: invalid value 'x' for key "
	  "'lnd_timeout'" },
	{ "udsp: [{idx: x, src: tcp}]\n",
	  "line 1, column 14: udsp[0].idx: invalid value 'x' for key 'idx'" },
	{ "udsp: [{idx: 0, action: {priority: }}]\n",
	  "line 1, column 36: udsp[0].action.priority: no value specified for "
	  "key 'priority'" },
	/* 45 */
	{ "net: [{net type: tcp\n",
	  "line 2, column 1: YAML syntax error: while parsing a flow mapping "
	  "did not find expected ',' or '}'" },
	{ "net:\n  - net type: tcp\n   bad: indent\n",
	  "line 3, column 4: YAML syntax error: while parsing a block "
	  "collection did not find expected '-' indicator" },
	{ "key: *anchor\n",
	  "line 1, column 6: YAML aliases are not supported ('*anchor')" },
	{ "a: &x 1\nb: *x\n",
	  "line 2, column 4: YAML aliases are not supported ('*x')" },
	/* every document is read; each must be a mapping */
	{ "--- {}\n--- [1]\n",
	  "line 2, column 5: expected a mapping of sections, found a "
	  "sequence" },
	/* 50 */
	{ "[1, 2]\n", "line 1, column 1: expected a mapping of sections, found "
		      "a sequence" },
	{ "just a scalar\n",
	  "line 1, column 1: expected a mapping of sections, found a scalar" },
	{ "{[1]: 2}\n", "line 1, column 2: a mapping key must be a scalar" },
	{ "net: \"x\\0y\"\n",
	  "line 1, column 6: a scalar holds a NUL character" },
	{ "net: [{net type: 1}]\n",
	  "line 1, column 18: net[0].net type: Invalid network ID '1'" },
	/* 55 */
	{ "net: [{net type: [tcp]}]\n", "line 1, column 18: net[0].net type: "
					"expected a value, found a sequence" },
};

static void every_error_row_is_refused_with_its_message(void **state)
{
	struct ul_err err;
	struct ul_conf c;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&err, 0, sizeof(err));
		ul_conf_init(&c);
		rc = ul_conf_parse(rows[i].yaml, strlen(rows[i].yaml), &c,
				   &err);
		if (rc != -EINVAL)
			fail_msg("row %zu: rc %d", i, rc);
		if (strcmp(err.msg, rows[i].msg) != 0)
			fail_msg("row %zu:\n got  %s\n want %s", i, err.msg,
				 rows[i].msg);
		assert_int_equal(err.code, -EINVAL);
		/* a refusal leaves nothing behind */
		assert_int_equal(c.nr_nets + c.nr_routes + c.nr_warnings, 0);
		ul_conf_fini(&c);
	}
}

/* One bad value refuses the file: nothing before it is kept. */
static void a_bad_value_refuses_the_whole_file(void **state)
{
	const char *text = "route: [{net: tcp1, gateway: 198.18.0.9@tcp}]\n"
			   "peer: [{primary nid: 198.18.0.1@tcp, "
			   "Multi-Rail: maybe}]\n";
	struct ul_err err = { 0 };
	struct ul_conf c;

	(void)state;
	ul_conf_init(&c);
	assert_int_equal(ul_conf_parse(text, strlen(text), &c, &err), -EINVAL);
	assert_string_equal(err.msg, "line 2, column 50: peer[0].Multi-Rail: "
				     "'maybe': invalid MR flag param");
	assert_int_equal(c.nr_routes, 0);
	ul_conf_fini(&c);
}

static char *repeat(const char *head, const char *item, size_t n,
		    const char *tail)
{
	size_t hl = strlen(head), il = strlen(item), tl = strlen(tail), i;
	char *s = malloc(hl + il * n + tl + 1), *p;

	assert_non_null(s);
	memcpy(s, head, hl);
	p = s + hl;
	for (i = 0; i < n; i++, p += il)
		memcpy(p, item, il);
	memcpy(p, tail, tl + 1);
	return s;
}

static void limits_on_depth_items_and_size_are_enforced(void **state)
{
	struct ul_err err = { 0 };
	struct ul_conf c;
	char want[128];
	char *s;

	(void)state;
	ul_conf_init(&c);
	/* 65 nested flow sequences */
	s = repeat("a: ", "[", UL_CONF_MAX_DEPTH, "]");
	assert_int_equal(ul_conf_parse(s, strlen(s), &c, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "line 1, column 67: nested deeper than 64 levels");
	free(s);
	/* one route too many */
	s = repeat("route: [", "{}, ", UL_CONF_MAX_ITEMS + 1, "]");
	assert_int_equal(ul_conf_parse(s, strlen(s), &c, &err), -EINVAL);
	snprintf(want, sizeof(want),
		 "line 1, column %d: more than %d items in one collection",
		 9 + 4 * UL_CONF_MAX_ITEMS, UL_CONF_MAX_ITEMS);
	assert_string_equal(err.msg, want);
	free(s);
	/* the most are fine, and each one is checked */
	s = repeat("peer: [", "{}, ", UL_CONF_MAX_ITEMS, "]");
	assert_int_equal(ul_conf_parse(s, strlen(s), &c, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "line 1, column 8: peer[0]: missing 'primary nid'");
	free(s);
	/* one byte past the size limit */
	s = repeat("", " ", UL_CONF_MAX_BYTES + 1, "");
	assert_int_equal(ul_conf_parse(s, strlen(s), &c, &err), -EINVAL);
	snprintf(want, sizeof(want), "the document is larger than %d bytes",
		 UL_CONF_MAX_BYTES);
	assert_string_equal(err.msg, want);
	free(s);
	ul_conf_fini(&c);
}

static void invalid_utf8_is_a_reader_error(void **state)
{
	const char text[] = "net: \xff\xfe\n";
	struct ul_err err = { 0 };
	struct ul_conf c;

	(void)state;
	ul_conf_init(&c);
	assert_int_equal(ul_conf_parse(text, sizeof(text) - 1, &c, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "byte 5: YAML reader error: invalid "
				     "leading UTF-8 octet");
	ul_conf_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_error_row_is_refused_with_its_message),
		cmocka_unit_test(a_bad_value_refuses_the_whole_file),
		cmocka_unit_test(limits_on_depth_items_and_size_are_enforced),
		cmocka_unit_test(invalid_utf8_is_a_reader_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
