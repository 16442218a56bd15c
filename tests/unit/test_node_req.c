/*
 * Applying an lnet.conf to a node (ctl/node_req.h), the one engine every
 * path uses: the complete example of reference/lnetctl.md §17.4 ends as
 * the objects it describes, and failures name the line and LNet's words.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/conf.h"
#include "ctl/node_req.h"
#include "helper_topo.h"
#include "util/timer.h"
#include "lnd/lolnd.h"

#define CONF_DIR ULNET_VECTORS_DIR "/../unit/conf/"

#define H4(name, a)                                                            \
	{                                                                      \
		name, true, UL_CONF_ADDR_IPV4, a, { 0 }, false                 \
	}

/* The host the example is applied on: eth0..eth3 up with these addresses. */
static const struct ul_conf_hostaddr host[] = {
	H4("eth0", 0xc0a80102), /* 192.168.1.2 */
	H4("eth1", 0xc0a80202), /* 192.168.2.2 */
	H4("eth2", 0x0a000002), /* 10.0.0.2 */
	H4("eth3", 0x0a140105), /* 10.20.1.5 */
};

#define NHOST (sizeof(host) / sizeof(host[0]))

struct fixture {
	struct ul_timer_heap timers;
	struct ul_node *node;
	struct ul_core *c;
	struct ul_udsp_set *udsp;
	struct ul_conf conf;
	unsigned int nr_notes;
	char notes[16][UL_ERR_MSG_SIZE];
};

static void on_note(void *ctx, const struct ul_conf_warning *w)
{
	struct fixture *f = ctx;

	if (f->nr_notes < 16)
		snprintf(f->notes[f->nr_notes], UL_ERR_MSG_SIZE, "%s", w->text);
	f->nr_notes++;
}

static int setup(void **state)
{
	static struct fixture f;
	struct ul_node_opts nopts = { 0 };
	struct ul_core *c;

	memset(&f, 0, sizeof(f));
	ul_timer_heap_init(&f.timers);
	if (ul_core_create(&c) || ul_udsp_attach(c, &f.udsp))
		return -1;
	nopts.timers = &f.timers;
	if (ul_node_create(c, &nopts, &f.node))
		return -1;
	if (ul_lolnd_register(f.node)) {
		ul_node_destroy(f.node);
		return -1;
	}
	ul_node_set_udsp(f.node, f.udsp);
	f.c = ul_node_core(f.node);
	ul_conf_init(&f.conf);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ul_conf_fini(&f->conf);
	ul_udsp_detach(f->udsp);
	ul_node_destroy(f->node);
	ul_timer_heap_fini(&f->timers);
	return 0;
}

/* Apply f->conf on the host above (nhost entries of it), as a dry run. */
static int apply_conf(struct fixture *f, size_t nhost, struct ul_err *err)
{
	struct ul_node_req_apply_ops ops = { NULL, on_note, f };
	struct ul_node_req_env env = {
		.node = f->node,
		.ncpt = 2,
		.addrs = host,
		.nr_addrs = nhost,
		.is_dry_run = true,
	};

	return ul_node_req_apply(&env, &f->conf, &ops, err);
}

static int apply_text(struct fixture *f, const char *text, struct ul_err *err)
{
	if (ul_conf_parse(text, strlen(text), &f->conf, err) < 0)
		return -1000;
	return apply_conf(f, NHOST, err);
}

static void apply_complete_example_builds_every_object(void **state)
{
	struct fixture *f = *state;
	struct ul_err err = { 0 };
	struct ul_net *tcp;
	struct ul_ni *ni;
	struct ul_peer *p1, *p2;
	struct ul_peer_ni *lpni;
	struct ulnet_nid n;
	int rc;

	rc = ul_conf_parse_file(CONF_DIR "example.yaml", &f->conf, &err);
	assert_int_equal(rc, 0);
	rc = apply_conf(f, NHOST, &err);
	if (rc)
		fail_msg("apply: %s", err.msg);

	/* net: two NIs on tcp from eth0 and eth1, with the block tunables */
	tcp = ul_net_find(f->c, ht_net("tcp"));
	assert_non_null(tcp);
	n = ht_nid("192.168.1.2@tcp");
	ni = ul_ni_find(f->c, &n);
	assert_non_null(ni);
	assert_string_equal(ni->ifname, "eth0");
	/* its CPT binding and LND tunables are the NI's */
	assert_int_equal(ni->cpt_mask, 3); /* lnetctl merges a block's */
	assert_int_equal(ni->conns_per_peer, 4);
	n = ht_nid("192.168.2.2@tcp");
	assert_non_null(ul_ni_find(f->c, &n));
	assert_int_equal(tcp->tun.peer_tx_credits, 8);
	assert_int_equal(tcp->tun.credits, 256);
	assert_int_equal(tcp->tun.peer_timeout_sec, 180);
	n = ht_nid("10.0.0.2@tcp1");
	assert_non_null(ul_ni_find(f->c, &n));
	/* ip2nets: eth3 is in 10.20.*.* */
	n = ht_nid("10.20.1.5@tcp2");
	assert_non_null(ul_ni_find(f->c, &n));
	/* route tcp9 via 192.168.1.1@tcp, hop 1 */
	assert_non_null(ul_rnet_find(f->c, ht_net("tcp9")));
	/* routing starting, with the buffers of the file */
	assert_int_equal(f->c->tun.routing, 1);
	assert_int_equal(ul_routing_total(&f->c->routing, UL_RTRPOOL_TINY),
			 2048);
	assert_int_equal(ul_routing_total(&f->c->routing, UL_RTRPOOL_LARGE),
			 1024);
	/* peers: one MR with two NIDs, one non-MR */
	n = ht_nid("192.168.1.20@tcp");
	p1 = ul_peer_find(f->c, &n);
	assert_non_null(p1);
	assert_true(p1->is_mr);
	assert_int_equal(p1->nnis, 2);
	n = ht_nid("10.0.0.5@tcp1");
	p2 = ul_peer_find(f->c, &n);
	assert_non_null(p2);
	assert_false(p2->is_mr);
	/* udsp: tcp net priority 1; peer NIs 192.168.1.[20-29] priority 2 */
	assert_int_equal(ul_udsp_count(f->udsp), 2);
	assert_int_equal(tcp->sel_priority, 1);
	n = ht_nid("192.168.1.20@tcp");
	lpni = ul_peer_ni_find(f->c, &n);
	assert_non_null(lpni);
	assert_int_equal(lpni->sel_priority, 2);
	n = ht_nid("192.168.2.20@tcp");
	lpni = ul_peer_ni_find(f->c, &n);
	assert_non_null(lpni);
	assert_int_equal(lpni->sel_priority, UINT32_MAX);
}

struct fail_case {
	const char *yaml;
	int rc;
	const char *msg_part;
};

static const struct fail_case fail_cases[] = {
	/* 0: an interface this host does not have (lnetctl's resolution) */
	{ "net:\n  - net type: tcp\n    local NI(s):\n      - interfaces:\n"
	  "          0: eth9\n",
	  -ENOMSG, "line 2: No interface matching 'eth9'" },
	/* 1: a route before the net its gateway is on */
	{ "route:\n  - net: tcp9\n    gateway: 10.9.0.1@tcp5\n", -EHOSTUNREACH,
	  "line 2: No interface configured on the same net as gateway" },
	/* 2: an ip2nets rule that matches no interface */
	{ "ip2nets:\n  - net-spec: tcp3\n    ip-range:\n      0: 172.31.*.*\n",
	  -EINVAL, "line 1: No ip2nets rules applied" },
	/* 3: a UDSP rule the same as the one before it: skipped (§17.3) */
	{ "udsp:\n  - idx: 0\n    src: tcp\n  - idx: 1\n    src: tcp\n", 0,
	  "" },
	/* 4: a global value the core refuses, named */
	{ "global:\n  retry_count: 200\n  transaction_timeout: 100\n", -ENODATA,
	  "line 2: retry_count: 200 must not exceed" },
	/* 5: the checks LNet makes, not the parser: lo, LND tunables */
	{ "net:\n  - net type: lo\n", -ENODEV,
	  "line 2: setting @lo not allowed" },
	{ "net:\n  - net type: tcp\n    lnd tunables:\n      "
	  "conns_per_peer: 200\n",
	  -ERANGE, "line 2: failed to parse lnd tunables" },
	{ "route:\n  - net: tcp9\n    gateway: 192.168.1.1@tcp\n    hop: 0\n",
	  -EINVAL, "line 2: invalid hop count must be between 1 and 255" },
	/* a rule LNet refuses */
	{ "udsp:\n  - idx: 0\n    src: tcp\n    rte: 10.0.0.1@tcp\n", -EINVAL,
	  "line 2: udsp: rule idx 0: src and rte cannot be combined" },
	/* 9: a net naming no NI takes the first up interface but lo */
	{ "net:\n  - net type: tcp\n", 0, "" },
};

static void apply_failures_name_line_and_item(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fail_cases) / sizeof(fail_cases[0]); i++) {
		void *st;
		struct fixture *f;
		struct ul_err err = { 0 };
		int rc;

		setup(&st);
		f = st;
		rc = apply_text(f, fail_cases[i].yaml, &err);
		if (rc != fail_cases[i].rc ||
		    !strstr(err.msg, fail_cases[i].msg_part))
			fail_msg("row %zu: rc %d (want %d), '%s'", i, rc,
				 fail_cases[i].rc, err.msg);
		teardown(&st);
	}
}

static void apply_ni_by_nid_needs_no_interface(void **state)
{
	struct fixture *f = *state;
	struct ul_err err = { 0 };
	struct ulnet_nid n;
	const char *yaml =
		"net:\n  - net type: o2ib\n    local NI(s):\n"
		"      - nid: 10.1.0.1@o2ib\n      - nid: 10.1.0.2@o2ib\n";

	assert_int_equal(ul_conf_parse(yaml, strlen(yaml), &f->conf, &err), 0);
	assert_int_equal(apply_conf(f, 0, &err), 0);
	n = ht_nid("10.1.0.2@o2ib");
	assert_non_null(ul_ni_find(f->c, &n));
}

/*
 * lnetctl.md §16: the document goes in order up to the parse's refusal;
 * what came before it stays.
 */
static void apply_stops_at_the_refusal(void **state)
{
	struct fixture *f = *state;
	struct ul_err err = { 0 };
	struct ulnet_nid n;
	const char *yaml = "net:\n  - net type: tcp\n"
			   "    local NI(s):\n      - nid: 10.1.0.1@tcp\n"
			   "foobar: 1\n"
			   "net:\n  - net type: tcp1\n";

	assert_int_equal(ul_conf_read(yaml, strlen(yaml), UL_CONF_NETLINK,
				      &f->conf, &err),
			 0);
	assert_true(f->conf.refusal.is_set);
	assert_int_equal(apply_conf(f, 1, &err), -EINVAL);
	assert_string_equal(err.msg, "line 5, column 1: invalid key 'foobar'");
	n = ht_nid("10.1.0.1@tcp");
	assert_non_null(ul_ni_find(f->c, &n));
	assert_null(ul_net_find(f->c, ht_net("tcp1")));
}

/* A peer configured before its net exists gets the net's credits. */
static void apply_peer_before_net_gets_net_credits(void **state)
{
	struct fixture *f = *state;
	struct ul_err err = { 0 };
	struct ul_peer_ni *lpni;
	struct ulnet_nid n;
	const char *yaml = "peer:\n  - primary nid: 10.1.0.10@o2ib\n"
			   "net:\n  - net type: o2ib\n    local NI(s):\n"
			   "      - nid: 10.1.0.1@o2ib\n        tunables:\n"
			   "          peer_credits: 16\n";

	assert_int_equal(apply_text(f, yaml, &err), 0);
	n = ht_nid("10.1.0.10@o2ib");
	lpni = ul_peer_ni_find(f->c, &n);
	assert_non_null(lpni);
	assert_int_equal(lpni->txcredits, 16);
}

/* A route's gateway cannot then be configured as a peer, as in LNet. */
static void apply_gateway_refused_as_configured_peer(void **state)
{
	struct fixture *f = *state;
	struct ul_err err = { 0 };
	const char *yaml =
		"net:\n  - net type: o2ib\n    local NI(s):\n"
		"      - nid: 10.1.0.1@o2ib\n"
		"route:\n  - net: o2ib1\n    gateway: 10.1.0.100@o2ib\n"
		"peer:\n  - primary nid: 10.1.0.100@o2ib\n";

	assert_int_equal(apply_text(f, yaml, &err), -EBUSY);
	/* LNet gives one text for every refusal of a primary */
	assert_string_equal(err.msg, "line 9: failed to add primary peer");
}

/* Core refuses what it cannot hold, instead of cutting or accepting it. */
static void core_refuses_long_ifname_and_lo_peers(void **state)
{
	struct fixture *f = *state;
	struct ul_peer_ni *lpni = NULL;
	struct ulnet_nid n = ht_nid("10.1.0.1@o2ib");
	struct ulnet_nid lo5;

	assert_int_equal(ul_ni_add(f->c, &n, "an-interface-name-too-long",
				   UL_NUMA_ANY, NULL, NULL, NULL),
			 -EINVAL);
	memset(&lo5, 0, sizeof(lo5));
	lo5.nid_type = ULNET_LND_LO;
	lo5.nid_addr[0] = 5;
	assert_int_equal(ul_peer_ni_find_or_create(f->c, &lo5, NULL, &lpni),
			 -EINVAL);
	assert_null(lpni);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			apply_complete_example_builds_every_object, setup,
			teardown),
		cmocka_unit_test(apply_failures_name_line_and_item),
		cmocka_unit_test_setup_teardown(
			apply_ni_by_nid_needs_no_interface, setup, teardown),
		cmocka_unit_test_setup_teardown(apply_stops_at_the_refusal,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			apply_peer_before_net_gets_net_credits, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			apply_gateway_refused_as_configured_peer, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			core_refuses_long_ifname_and_lo_peers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
