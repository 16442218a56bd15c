/*
 * Reading lnet.conf as lnetctl imports it (src/ctl/conf.h, ul_conf_read):
 * the document's steps in order, a refusal that keeps what came before it
 * and says how lnetctl reports it, keys streamed into a section, UDSP
 * rules as each importer submits them (udsp.md §7.2), and the legacy
 * dialect's lookups (reference/lnetctl.md §16).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/conf.h"

static void read_ok(const char *text, enum ul_conf_dialect d, struct ul_conf *c)
{
	struct ul_err err = { 0 };
	int rc;

	ul_conf_init(c);
	rc = ul_conf_read(text, strlen(text), d, c, &err);
	if (rc)
		fail_msg("rc %d: %s\n%s", rc, err.msg, text);
}

/* §16: what precedes the refusal stands; the refusal is an import error. */
static void a_refusal_keeps_the_steps_before_it(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("net:\n  - net type: tcp\n    interfaces: {0: eth0}\n"
		"foobar: 1\n"
		"route: [{net: tcp9, gateway: 1.2.3.4@tcp}]\n",
		UL_CONF_NETLINK, &c);
	assert_int_equal(c.nr_steps, 1);
	assert_int_equal(c.steps[0].sec, UL_CONF_SEC_NET);
	assert_int_equal(c.steps[0].nr, 1);
	assert_false(c.steps[0].is_cut);
	assert_int_equal(c.nr_routes, 0);
	assert_true(c.refusal.is_set);
	assert_null(c.refusal.d2_op);
	assert_string_equal(c.refusal.object, "import");
	assert_int_equal(c.refusal.errnum, -EINVAL);
	assert_int_equal(c.refusal.status, -EINVAL);
	assert_int_equal(c.refusal.line, 4);
	assert_string_equal(c.refusal.msg,
			    "line 4, column 1: invalid key 'foobar'");
	ul_conf_fini(&c);
}

/* A block refused inside a section: the blocks before it are a step. */
static void a_refused_item_cuts_its_section(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("net:\n  - net type: tcp1\n  - net type: bogus\n"
		"  - net type: tcp2\n",
		UL_CONF_NETLINK, &c);
	assert_int_equal(c.nr_nets, 1);
	assert_int_equal(c.nr_steps, 1);
	assert_int_equal(c.steps[0].nr, 1);
	assert_true(c.steps[0].is_cut);
	assert_string_equal(c.refusal.where,
			    "line 3, column 15: net[1].net type: Invalid "
			    "network ID 'bogus'");
	ul_conf_fini(&c);
}

/*
 * Every document of a stream, in order, as lnetctl's netlink import
 * reads them (audit2-b 7). A streamed section runs on into the next
 * document until a section lnetctl knows (its request is still open).
 * The legacy parser builds one tree: a second document is not YAML to it.
 */
static void every_document_is_read(void **state)
{
	static const char text[] = "---\nglobal:\n    retry_count: 1\n"
				   "peer:\n  - primary nid: 1.2.3.4@tcp\n"
				   "---\n---\nmax_interfaces: 8\n"
				   "global:\n    retry_count: 0\n"
				   "...\n";
	struct ul_err err = { 0 };
	struct ul_conf c;

	(void)state;
	read_ok(text, UL_CONF_NETLINK, &c);
	assert_false(c.refusal.is_set);
	assert_int_equal(c.nr_steps, 3);
	assert_int_equal(c.steps[0].sec, UL_CONF_SEC_GLOBAL);
	assert_int_equal(c.steps[0].value, 1);
	assert_int_equal(c.steps[1].sec, UL_CONF_SEC_PEER);
	/* max_interfaces went into the peer request; global ends it */
	assert_int_equal(c.steps[2].sec, UL_CONF_SEC_GLOBAL);
	assert_int_equal(c.steps[2].key, UL_CONF_GLOBAL_RETRY_COUNT);
	assert_int_equal(c.steps[2].value, 0);
	ul_conf_fini(&c);
	ul_conf_init(&c);
	assert_int_equal(ul_conf_read(text, strlen(text), UL_CONF_OLD_API, &c,
				      &err),
			 -EINVAL);
	assert_string_equal(err.msg,
			    "line 6, column 1: only one YAML document is "
			    "allowed");
	ul_conf_fini(&c);
}

/* An empty CPT list is lnetctl's -ENODATA, for the errno and the status. */
static void missing_cpt_is_enodata(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("net:\n  - net type: tcp1\n    CPT: []\n", UL_CONF_NETLINK, &c);
	assert_true(c.refusal.is_set);
	assert_null(c.refusal.d2_op);
	assert_string_equal(c.refusal.object, "import");
	assert_int_equal(c.refusal.errnum, -ENODATA);
	assert_int_equal(c.refusal.status, -ENODATA);
	assert_string_equal(c.refusal.msg,
			    "line 3, column 10: net[0].CPT: Missing CPT "
			    "configuration");
	ul_conf_fini(&c);
}

/* §17.3: LNet refuses the word inside the peer request: the peer's error. */
static void a_bad_multi_rail_word_is_the_peers_error(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("peer:\n  - primary nid: 1.2.3.4@tcp\n"
		"  - primary nid: 1.2.3.5@tcp\n    Multi-Rail: Foobar\n",
		UL_CONF_NETLINK, &c);
	assert_int_equal(c.nr_peers, 1);
	assert_true(c.steps[0].is_cut);
	assert_string_equal(c.refusal.object, "peer");
	assert_string_equal(c.refusal.msg, "invalid MR flag param");
	assert_int_equal(c.refusal.line, 4);
	ul_conf_fini(&c);
	/* the legacy parser's words, as a D2 entry */
	read_ok("peer:\n  - primary nid: 1.2.3.5@tcp\n    Multi-Rail: yes\n",
		UL_CONF_OLD_API, &c);
	assert_string_equal(c.refusal.d2_op, "peer");
	assert_string_equal(c.refusal.object, "add");
	assert_string_equal(c.refusal.msg, "Multi-Rail must be set to 'True' "
					   "or 'False' found 'yes'");
	ul_conf_fini(&c);
	/* True and false are booleans it reads as absent: Multi-Rail */
	read_ok("peer:\n  - primary nid: 1.2.3.5@tcp\n    Multi-Rail: false\n",
		UL_CONF_OLD_API, &c);
	assert_true(c.peers[0].is_multi_rail);
	ul_conf_fini(&c);
}

/*
 * §16: after a peer, route, routing, buffers or numa section every key
 * goes into that section's request until a known section starts.
 */
static void keys_after_a_streamed_section_go_unread(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("peer: []\nfoo: 1\ndiscovery: 0\n"
		"global: {retry_count: 3}\nnet: []\nretry_count: 4\n"
		"numa: {range: 2, foo: 1}\nbar: 2\n",
		UL_CONF_NETLINK, &c);
	assert_false(c.refusal.is_set);
	assert_int_equal(c.nr_steps, 5);
	assert_int_equal(c.steps[1].sec, UL_CONF_SEC_GLOBAL);
	assert_int_equal(c.steps[1].key, UL_CONF_GLOBAL_RETRY_COUNT);
	assert_int_equal(c.steps[3].sec, UL_CONF_SEC_GLOBAL);
	assert_int_equal(c.steps[3].value, 4);
	assert_int_equal(c.steps[4].sec, UL_CONF_SEC_NUMA);
	assert_int_equal(c.steps[4].value, 2);
	assert_false(c.global.flags & 1U << UL_CONF_GLOBAL_DISCOVERY);
	assert_int_equal(c.nr_warnings, 4);
	assert_string_equal(c.warnings[1].text,
			    "'discovery' goes into the 'peer' request; "
			    "skipped");
	assert_int_equal(c.warnings[1].step, 1);
	assert_string_equal(c.warnings[3].text,
			    "'bar' goes into the 'numa' request; skipped");
	ul_conf_fini(&c);
}

/* §7 of udsp.md: values kept as written, LNet decides. */
static void settings_are_kept_as_written(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("routing: {enable: 2}\nbuffers: {tiny: -1, large: 5}\n"
		"global: {response_tracking: 10, discovery: 7}\n"
		"net: [{net type: tcp, lnd tunables: {conns_per_peer: 200}, "
		"tunables: {credits: -5, credits: 9}}]\n",
		UL_CONF_NETLINK, &c);
	assert_false(c.refusal.is_set);
	assert_int_equal(c.steps[0].value, 2);
	assert_false(c.routing_enable);
	assert_int_equal(c.steps[1].buffers[0], -1);
	assert_int_equal(c.steps[1].buffers[1], 0); /* netlink: default */
	assert_int_equal(c.steps[1].buffers[2], 5);
	assert_int_equal(c.steps[2].value, 10);
	assert_int_equal(c.steps[3].value, 7);
	assert_int_equal(c.nets[0].lnd_tunables.conns_per_peer, 200);
	assert_int_equal(c.nets[0].tunables.credits, 9);
	ul_conf_fini(&c);
	/* --old-api: a missing pool is left alone, routing needs enable */
	read_ok("routing: {}\nbuffers: {tiny: 5}\n", UL_CONF_OLD_API, &c);
	assert_int_equal(c.nr_steps, 1);
	assert_int_equal(c.steps[0].buffers[1], -1);
	ul_conf_fini(&c);
}

struct want_rule {
	int idx;
	const char *src, *dst;
	bool has_prio;
	long long prio;
};

static void check_rules(const struct ul_conf_udsp *u, size_t nr,
			const struct want_rule *w, size_t nw)
{
	size_t i;

	assert_int_equal(nr, nw);
	for (i = 0; i < nr; i++) {
		assert_int_equal(u[i].idx, w[i].idx);
		if (w[i].src)
			assert_string_equal(u[i].src, w[i].src);
		else
			assert_null(u[i].src);
		if (w[i].dst)
			assert_string_equal(u[i].dst, w[i].dst);
		else
			assert_null(u[i].dst);
		assert_int_equal(!!(u[i].flags & UL_CONF_UDSP_HAS_PRIORITY),
				 w[i].has_prio);
		if (w[i].has_prio)
			assert_int_equal(u[i].priority, w[i].prio);
	}
}

/* udsp.md §7.2: the netlink import's event stream. */
static void udsp_rules_as_the_netlink_import_submits_them(void **state)
{
	static const struct want_rule carried[] = {
		{ 0, "tcp", "tcp1", true, 3 },
	};
	static const struct want_rule unset[] = {
		{ 0, "tcp", NULL, true, -1 },
		{ 1, NULL, "tcp1", true, 2 },
		{ 2, NULL, "tcp2", true, 2 },
	};
	static const struct want_rule early[] = {
		{ 0, NULL, NULL, true, 1 },
	};
	struct ul_conf c;

	(void)state;
	/* a rule without idx lends src and priority to the next */
	read_ok("udsp: [{src: tcp, action: {priority: 3}}, "
		"{idx: 0, dst: tcp1}]\n",
		UL_CONF_NETLINK, &c);
	check_rules(c.udsps, c.nr_udsps, carried, 1);
	ul_conf_fini(&c);
	/* no priority yet is UINT32_MAX; then the last one carries on */
	read_ok("udsp:\n  - {idx: 0, src: tcp}\n"
		"  - {idx: 1, dst: tcp1, priority: 2}\n"
		"  - {idx: 2, dst: tcp2}\n",
		UL_CONF_NETLINK, &c);
	check_rules(c.udsps, c.nr_udsps, unset, 3);
	ul_conf_fini(&c);
	/* the end of "action" submits when idx came first */
	read_ok("udsp: [{idx: 0, action: {priority: 1}, src: tcp}]\n",
		UL_CONF_NETLINK, &c);
	check_rules(c.udsps, c.nr_udsps, early, 1);
	ul_conf_fini(&c);
}

/*
 * The legacy parser: one rule per item, keys found anywhere in it; no
 * idx, or any negative one (LNet appends for all of them), is -1.
 */
static void udsp_rules_as_the_legacy_parser_reads_them(void **state)
{
	static const struct want_rule want[] = {
		{ 0, "tcp", NULL, true, 1 },
		{ -1, "tcp2", NULL, false, 0 },
		{ -1, "tcp3", NULL, false, 0 },
	};
	struct ul_conf c;

	(void)state;
	read_ok("udsp: [{idx: 0, src: tcp, action: {priority: 1}}, "
		"{src: tcp2}, {idx: -2, src: tcp3}]\n",
		UL_CONF_OLD_API, &c);
	check_rules(c.udsps, c.nr_udsps, want, 3);
	ul_conf_fini(&c);
}

/* §16: the legacy table matches a key by its start, in its order. */
static void legacy_sections_are_looked_up_by_prefix(void **state)
{
	struct ul_conf c;

	(void)state;
	read_ok("networks:\n  - net type: tcp\n    local NI(s): []\n"
		"discovery: 0\nnuma_range: 3\n"
		"routes: {net: tcp9, gateway: 1.2.3.4@tcp}\n"
		"statistics: {}\n",
		UL_CONF_OLD_API, &c);
	assert_false(c.refusal.is_set);
	assert_int_equal(c.nr_steps, 3);
	assert_int_equal(c.steps[0].sec, UL_CONF_SEC_NET);
	assert_int_equal(c.nets[0].flags & UL_CONF_NET_HAS_LOCAL_NIS,
			 UL_CONF_NET_HAS_LOCAL_NIS);
	/* "numa_range" is the numa section, without a range */
	assert_int_equal(c.steps[1].sec, UL_CONF_SEC_NUMA);
	assert_int_equal(c.steps[1].value, -1);
	/* a lone mapping is one item */
	assert_int_equal(c.steps[2].sec, UL_CONF_SEC_ROUTE);
	assert_int_equal(c.nr_routes, 1);
	ul_conf_fini(&c);
	read_ok("net: []\nfoobar: 1\nnet: []\n", UL_CONF_OLD_API, &c);
	assert_int_equal(c.nr_steps, 1);
	assert_string_equal(c.refusal.d2_op, "yaml");
	assert_string_equal(c.refusal.object, "helper");
	assert_string_equal(c.refusal.msg, "call back for 'foobar' not found");
	ul_conf_fini(&c);
}

/* Text that is not YAML is refused whole, and the conf stays as it was. */
static void a_syntax_error_applies_nothing(void **state)
{
	struct ul_err err = { 0 };
	struct ul_conf c;
	const char *bad = "net: [{net type: tcp}]\nroute: [\n";

	(void)state;
	read_ok("peer: []\n", UL_CONF_NETLINK, &c);
	assert_int_equal(ul_conf_read(bad, strlen(bad), UL_CONF_NETLINK, &c,
				      &err),
			 -EINVAL);
	assert_int_equal(c.nr_steps, 1);
	assert_int_equal(c.steps[0].sec, UL_CONF_SEC_PEER);
	ul_conf_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_refusal_keeps_the_steps_before_it),
		cmocka_unit_test(a_refused_item_cuts_its_section),
		cmocka_unit_test(missing_cpt_is_enodata),
		cmocka_unit_test(every_document_is_read),
		cmocka_unit_test(a_bad_multi_rail_word_is_the_peers_error),
		cmocka_unit_test(keys_after_a_streamed_section_go_unread),
		cmocka_unit_test(settings_are_kept_as_written),
		cmocka_unit_test(udsp_rules_as_the_netlink_import_submits_them),
		cmocka_unit_test(udsp_rules_as_the_legacy_parser_reads_them),
		cmocka_unit_test(legacy_sections_are_looked_up_by_prefix),
		cmocka_unit_test(a_syntax_error_applies_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
