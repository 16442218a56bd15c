/*
 * Applying an lnet.conf to a core instance (ctl/conf_apply.h): the
 * complete example of reference/lnetctl.md §17.4 ends as the objects it
 * describes, and failures name the line and the item.
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
#include "core/udsp.h"
#include "ctl/conf.h"
#include "ctl/conf_apply.h"
#include "helper_topo.h"

#define CONF_DIR ULNET_VECTORS_DIR "/../unit/conf/"

/* The host the example is applied on: eth0..eth3 up with these addresses. */
static const struct ul_conf_ifaddr host[] = {
	{ "eth0", 0xc0a80102, false }, /* 192.168.1.2 */
	{ "eth1", 0xc0a80202, false }, /* 192.168.2.2 */
	{ "eth2", 0x0a000002, false }, /* 10.0.0.2 */
	{ "eth3", 0x0a140105, false }, /* 10.20.1.5 */
};

struct fixture {
	struct ul_core *c;
	struct ul_udsp_set *udsp;
	struct ul_conf conf;
	unsigned int nr_notes;
	char notes[16][UL_ERR_MSG_SIZE];
};

static void on_note(void *ctx, unsigned int line, const char *text)
{
	struct fixture *f = ctx;

	(void)line;
	if (f->nr_notes < 16)
		snprintf(f->notes[f->nr_notes], UL_ERR_MSG_SIZE, "%s", text);
	f->nr_notes++;
}

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	if (ul_core_create(&f.c) || ul_udsp_attach(f.c, &f.udsp))
		return -1;
	ul_conf_init(&f.conf);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ul_conf_fini(&f->conf);
	ul_udsp_detach(f->udsp);
	ul_core_destroy(f->c);
	return 0;
}

static int apply_text(struct fixture *f, const char *text, struct ul_err *err)
{
	struct ul_conf_apply_opts opts = {
		.ifaddrs = host,
		.nr_ifaddrs = sizeof(host) / sizeof(host[0]),
		.udsp = f->udsp,
		.note = on_note,
		.ctx = f,
	};

	if (ul_conf_parse(text, strlen(text), &f->conf, err) < 0)
		return -1000;
	return ul_conf_apply(f->c, &f->conf, &opts, err);
}

static bool has_note(const struct fixture *f, const char *part)
{
	unsigned int i;

	for (i = 0; i < f->nr_notes && i < 16; i++)
		if (strstr(f->notes[i], part))
			return true;
	return false;
}

static void apply_complete_example_builds_every_object(void **state)
{
	struct fixture *f = *state;
	struct ul_conf_apply_opts opts = {
		.ifaddrs = host,
		.nr_ifaddrs = sizeof(host) / sizeof(host[0]),
		.udsp = f->udsp,
		.note = on_note,
		.ctx = f,
	};
	struct ul_err err = { 0 };
	struct ul_net *tcp;
	struct ul_ni *ni;
	struct ul_peer *p1, *p2;
	struct ul_peer_ni *lpni;
	struct ulnet_nid n;
	int rc;

	rc = ul_conf_parse_file(CONF_DIR "example.yaml", &f->conf, &err);
	assert_int_equal(rc, 0);
	rc = ul_conf_apply(f->c, &f->conf, &opts, &err);
	if (rc)
		fail_msg("apply: %s", err.msg);

	/* net: two NIs on tcp from eth0 and eth1, with the block tunables */
	tcp = ul_net_find(f->c, ht_net("tcp"));
	assert_non_null(tcp);
	n = ht_nid("192.168.1.2@tcp");
	ni = ul_ni_find(f->c, &n);
	assert_non_null(ni);
	assert_string_equal(ni->ifname, "eth0");
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
	/* routing enabled; buffers reported, not applied */
	assert_int_equal(f->c->tun.routing, 1);
	assert_true(has_note(f, "router buffers"));
	assert_true(has_note(f, "CPT binding not applied"));
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
	/* 0: an interface this host does not have */
	{ "net:\n  - net type: tcp\n    local NI(s):\n      - interfaces:\n"
	  "          0: eth9\n",
	  -ENODEV, "line 5: interface 'eth9' on tcp" },
	/* 1: a route before the net its gateway is on */
	{ "route:\n  - net: tcp9\n    gateway: 10.9.0.1@tcp5\n", -EHOSTUNREACH,
	  "line 2: route:" },
	/* 2: an ip2nets rule that matches no interface */
	{ "ip2nets:\n  - net-spec: tcp3\n    ip-range:\n      0: 172.31.*.*\n",
	  -EINVAL, "No ip2nets rules applied" },
	/* 3: a UDSP rule the same as the one before it */
	{ "udsp:\n  - idx: 0\n    src: tcp\n  - idx: 1\n    src: tcp\n",
	  -EALREADY, "line 4: udsp:" },
	/* 4: a global value the core refuses */
	{ "global:\n  retry_count: 200\n  transaction_timeout: 100\n", -EINVAL,
	  "retry_count" },
	/* 5: the checks LNet makes, not the parser: lo, LND tunables */
	{ "net:\n  - net type: lo\n", -EACCES, "setting @lo not allowed" },
	{ "net:\n  - net type: tcp\n    lnd tunables:\n      "
	  "conns_per_peer: 200\n",
	  -ERANGE, "line 2: failed to parse lnd tunables" },
	{ "route:\n  - net: tcp9\n    gateway: 192.168.1.1@tcp\n    hop: 0\n",
	  -EINVAL, "line 2: route: hop must be 1..255" },
	/* a rule LNet refuses */
	{ "udsp:\n  - idx: 0\n    src: tcp\n    rte: 10.0.0.1@tcp\n", -EINVAL,
	  "src and rte cannot be combined" },
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
	struct ul_conf_apply_opts opts = { 0 };
	struct ul_err err = { 0 };
	struct ulnet_nid n;
	const char *yaml =
		"net:\n  - net type: o2ib\n    local NI(s):\n"
		"      - nid: 10.1.0.1@o2ib\n      - nid: 10.1.0.2@o2ib\n";

	assert_int_equal(ul_conf_parse(yaml, strlen(yaml), &f->conf, &err), 0);
	assert_int_equal(ul_conf_apply(f->c, &f->conf, &opts, &err), 0);
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
	struct ul_conf_apply_opts opts = { .ifaddrs = host, .nr_ifaddrs = 1 };
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
	assert_int_equal(ul_conf_apply(f->c, &f->conf, &opts, &err), -EINVAL);
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
	assert_non_null(strstr(err.msg, "route gateway"));
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
