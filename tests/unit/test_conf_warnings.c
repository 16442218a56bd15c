/*
 * What lnet.conf parsing accepts without applying (src/ctl/conf.h): every
 * such key or section lands in ul_conf.warnings with its line, column,
 * path and kind (skipped as lnetctl skips it, lnetctl's own line, or not
 * applied by ulnet). Also the export files and ip2nets rules that produce
 * them.
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

#define CONF_DIR ULNET_VECTORS_DIR "/../unit/conf/"

struct row {
	const char *yaml;
	enum ul_conf_note_kind kind;
	const char *warning; /* "line:column text" of the only note */
};

#define SKIP UL_CONF_NOTE_SKIPPED
#define LNETCTL UL_CONF_NOTE_LNETCTL
#define NOT_APPLIED UL_CONF_NOTE_NOT_APPLIED

static const struct row rows[] = {
	/* 0 */ { "lnd_timeout: 49\n", SKIP,
		  "1:1 lnd_timeout: read-only; skipped" },
	{ "global: {lnd_timeout: 49}\n", SKIP,
	  "1:10 global.lnd_timeout: read-only; skipped" },
	/* routing: enable 1 is applied (ulnet forwards): no note of its own */
	{ "routing: {enable: 1, foo: 2}\n", SKIP,
	  "1:22 routing.foo: unknown key; skipped" },
	{ "ping: {nids: {0: 192.168.1.20@tcp}}\n", SKIP,
	  "1:1 'ping' is only run by import --exec; skipped" },
	{ "discover: {nids: [192.168.1.20@tcp]}\n", SKIP,
	  "1:1 'discover' is only run by import --exec; skipped" },
	/* 5: lnetctl streams what follows a peer section into it */
	{ "peer: []\nfoo: 1\n", SKIP,
	  "2:1 'foo' goes into the 'peer' request; skipped" },
	{ "net: [{net type: tcp, tunables: {peer_timeout: 1, foo: 2}}]\n",
	  LNETCTL, "1:51 Ignoring unrecognized key 'foo' for 'tunables'" },
	{ "net: [{net type: tcp, lnd tunables: {timeout: 50}}]\n", LNETCTL,
	  "1:38 Ignoring unrecognized key 'timeout' for 'lnd tunables'" },
	/* an o2iblnd key on a tcp net is unknown, as in lnetctl */
	{ "net: [{net type: tcp, lnd tunables: {ntx: 5}}]\n", LNETCTL,
	  "1:38 Ignoring unrecognized key 'ntx' for 'lnd tunables'" },
	{ "net: [{net type: o2ib, lnd tunables: {ntx: 5}}]\n", NOT_APPLIED,
	  "1:39 net[0].lnd tunables.ntx: o2iblnd tunable, not applicable to "
	  "user space; kept" },
	/* 10 */
	{ "net: [{net type: tcp, foo: 1}]\n", SKIP,
	  "1:23 net[0].foo: unknown key; skipped" },
	{ "net: [{net type: tcp, local NI(s): [{interfaces: {0: eth0}, "
	  "status: up}]}]\n",
	  SKIP, "1:61 net[0].local NI(s)[0].status: skipped" },
	{ "route: [{net: tcp1, gateway: 1.2.3.4@tcp, type: multi-hop}]\n", SKIP,
	  "1:43 route[0].type: not settable on import; skipped" },
	{ "peer: [{primary nid: 1.2.3.4@tcp, peer state: 273}]\n", SKIP,
	  "1:35 peer[0].peer state: not settable; skipped" },
	{ "peer: [{primary nid: 1.2.3.4@tcp, peer ni: [{nid: 1.2.3.4@tcp, "
	  "health stats: {health value: 1000}}]}]\n",
	  SKIP, "1:64 peer[0].peer ni[0].health stats: health value skipped" },
	/* 15 */
	{ "buffers: {tiny: 5}\n", NOT_APPLIED,
	  "1:1 buffers: counts are kept and shown only while routing is on "
	  "(LNet drops them while it is off)" },
	{ "numa: {range: 1, foo: 2}\n", SKIP,
	  "1:18 numa.foo: unknown key; skipped" },
	/* a misspelt key names the one meant (ulnet's own addition) */
	{ "net: [{net type: tcp, local NIs: [{nid: 1.2.3.4@tcp}]}]\n", SKIP,
	  "1:23 net[0].local NIs: unknown key; skipped (did you mean "
	  "'local NI(s)'?)" },
	{ "net: [{net type: tcp, local NI(s): [{nid: 1.2.3.4@tcp, "
	  "interface: {0: eth0}}]}]\n",
	  SKIP,
	  "1:56 net[0].local NI(s)[0].interface: skipped (did you mean "
	  "'interfaces'?)" },
	{ "routing: {enabled: 1}\n", SKIP,
	  "1:11 routing.enabled: unknown key; skipped (did you mean "
	  "'enable'?)" },
};

static void every_row_gives_its_one_warning(void **state)
{
	struct ul_err err = { 0 };
	struct ul_conf c;
	char got[512];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ul_conf_init(&c);
		rc = ul_conf_parse(rows[i].yaml, strlen(rows[i].yaml), &c,
				   &err);
		if (rc)
			fail_msg("row %zu: rc %d: %s", i, rc, err.msg);
		if (c.nr_warnings != 1)
			fail_msg("row %zu: %zu warnings", i, c.nr_warnings);
		snprintf(got, sizeof(got), "%u:%u %s", c.warnings[0].line,
			 c.warnings[0].column, c.warnings[0].text);
		if (strcmp(got, rows[i].warning) != 0)
			fail_msg("row %zu:\n got  %s\n want %s", i, got,
				 rows[i].warning);
		if (c.warnings[0].kind != rows[i].kind)
			fail_msg("row %zu: kind %d", i, c.warnings[0].kind);
		ul_conf_fini(&c);
	}
}

static void parse_file_ok(const char *name, struct ul_conf *c)
{
	struct ul_err err = { 0 };
	int rc;

	ul_conf_init(c);
	rc = ul_conf_parse_file(name, c, &err);
	if (rc)
		fail_msg("%s: rc %d: %s", name, rc, err.msg);
}

/*
 * lnetctl.md §15: a backup export is meant to be imported again, and
 * imports quietly: its read-only lnd_timeout is skipped without a word.
 */
static void backup_export_imports_quietly(void **state)
{
	struct ul_conf c;

	(void)state;
	parse_file_ok(CONF_DIR "export_backup.yaml", &c);
	assert_int_equal(c.nr_nets, 1);
	assert_int_equal(c.nets[0].nr_groups, 2);
	assert_int_equal(c.nets[0].groups[1].lnd_tunables.conns_per_peer, 1);
	assert_int_equal(c.nr_routes, 1);
	assert_int_equal(c.routes[0].hop, -1);
	assert_int_equal(c.nr_peers, 2);
	assert_false(c.peers[0].is_multi_rail); /* "false" */
	assert_true(c.peers[1].is_multi_rail);	/* "true" */
	assert_int_equal(c.nr_udsps, 1);
	assert_int_equal(c.nr_warnings, 1);
	assert_int_equal(c.warnings[0].kind, UL_CONF_NOTE_SKIPPED);
	assert_string_equal(c.warnings[0].text,
			    "global.lnd_timeout: read-only; skipped");
	/* recovery_interval is set: LNet takes it and ignores it */
	assert_true(c.global.flags & 1U << UL_CONF_GLOBAL_RECOVERY_INTERVAL);
	ul_conf_fini(&c);
}

/*
 * A full export's state is skipped key by key, as lnetctl skips it; its
 * read-only LND timeout gets lnetctl's own line.
 */
static void full_export_state_is_skipped_key_by_key(void **state)
{
	static const char *const want[] = {
		"net[0].local NI(s)[0].status",
		"net[0].local NI(s)[0].statistics",
		"net[0].local NI(s)[0].sent_stats",
		"net[0].local NI(s)[0].received_stats",
		"net[0].local NI(s)[0].dropped_stats",
		"net[0].local NI(s)[0].health stats",
		"Ignoring unrecognized key 'timeout' for 'lnd tunables'",
		"route[0].state",
		"route[0].type",
		"peer[0].peer state",
		"peer[0].peer ni[0].state",
		"peer[0].peer ni[0].max_ni_tx_credits",
		"peer[0].peer ni[0].available_tx_credits",
		"peer[0].peer ni[0].refcount",
		"peer[0].peer ni[0].health stats",
		"global.lnd_timeout",
	};
	struct ul_conf c;
	size_t i, n;

	(void)state;
	parse_file_ok(CONF_DIR "export_full.yaml", &c);
	assert_int_equal(c.nr_warnings, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < c.nr_warnings; i++) {
		n = strlen(want[i]);
		if (c.warnings[i].kind == UL_CONF_NOTE_LNETCTL
			    ? strcmp(c.warnings[i].text, want[i]) != 0
			    : strncmp(c.warnings[i].text, want[i], n) ||
				      c.warnings[i].text[n] != ':' ||
				      c.warnings[i].kind !=
					      UL_CONF_NOTE_SKIPPED)
			fail_msg("warning %zu: %s", i, c.warnings[i].text);
	}
	/* the configuration in it is kept */
	assert_int_equal(c.nets[0].groups[0].nr_nis, 1);
	assert_string_equal(c.nets[0].groups[0].nis[0].ifname, "eth0");
	assert_int_equal(c.nets[0].groups[0].tunables.credits, 256);
	assert_int_equal(c.nets[0].groups[0].lnd_tunables.flags,
			 UL_CONF_LND_HAS_CONNS_PER_PEER | UL_CONF_LND_HAS_TOS);
	assert_int_equal(c.peers[0].nr_nis, 1);
	ul_conf_fini(&c);
}

static void ip2nets_rules_keep_ranges_interfaces_and_cpts(void **state)
{
	const struct ul_conf_net *r;
	struct ul_conf c;
	char buf[64];

	(void)state;
	parse_file_ok(CONF_DIR "ip2nets.yaml", &c);
	assert_int_equal(c.nr_ip2nets, 2);
	r = &c.ip2nets[0];
	assert_int_equal(r->nr_nis, 2);
	assert_string_equal(r->nis[1].ifname, "eth1");
	ul_expr_format(r->nis[1].cpt, buf, sizeof(buf));
	assert_string_equal(buf, "1");
	assert_int_equal(r->nr_ranges, 4);
	assert_false(r->ranges[0].is_ipv6);
	assert_true(ul_expr_match_octets(r->ranges[0].oct, 0xc0a80305));
	assert_false(ul_expr_match_octets(r->ranges[0].oct, 0xc0a80306));
	assert_true(r->ranges[2].is_ipv6);
	assert_int_equal(r->ranges[2].prefix_len, 64);
	assert_int_equal(r->ranges[2].addr6[0], 0x20010db8);
	assert_int_equal(r->ranges[2].addr6[3], 1);
	assert_int_equal(r->ranges[3].prefix_len, 128);
	assert_string_equal(r->ranges[3].text, "fd00::7");
	assert_int_equal(r->tunables.flags, UL_CONF_TUN_HAS_PEER_CREDITS);
	assert_int_equal(r->lnd_tunables.conns_per_peer, 2);
	ul_expr_format(r->cpt, buf, sizeof(buf));
	assert_string_equal(buf, "[0,1]");
	/* a rule with only its net */
	assert_int_equal(c.ip2nets[1].nr_nis + c.ip2nets[1].nr_ranges, 0);
	assert_int_equal(c.nr_warnings, 0);
	ul_conf_fini(&c);
}

static void warnings_past_the_limit_are_counted(void **state)
{
	struct ul_err err = { 0 };
	struct ul_conf c;
	char *text, *p;
	size_t i, n = UL_CONF_MAX_WARNINGS + 10;

	(void)state;
	text = malloc(32 + n * 16);
	assert_non_null(text);
	p = text + sprintf(text, "net: [{net type: tcp, tunables: {");
	for (i = 0; i < n; i++)
		p += sprintf(p, "k%zu: 1, ", i);
	strcpy(p, "}}]\n");
	ul_conf_init(&c);
	assert_int_equal(ul_conf_parse(text, strlen(text), &c, &err), 0);
	assert_int_equal(c.nr_warnings, UL_CONF_MAX_WARNINGS);
	assert_int_equal(c.nr_warnings_dropped, 10);
	assert_string_equal(c.warnings[UL_CONF_MAX_WARNINGS - 1].text,
			    "Ignoring unrecognized key 'k255' for 'tunables'");
	ul_conf_fini(&c);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_gives_its_one_warning),
		cmocka_unit_test(backup_export_imports_quietly),
		cmocka_unit_test(full_export_state_is_skipped_key_by_key),
		cmocka_unit_test(ip2nets_rules_keep_ranges_interfaces_and_cpts),
		cmocka_unit_test(warnings_past_the_limit_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
