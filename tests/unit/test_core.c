/*
 * The core object model (src/core): tunables with lnetctl's checks, local
 * nets and NIs, peers, routes and their liveness, references and
 * two-phase delete, observer hooks, the NUMA table, and the memory a
 * peer costs. Every test ends with ul_core_destroy(); ASan checks that
 * nothing is left.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "helper_topo.h"
#include "util/err.h"

static void core_create_has_lo_and_lnet_defaults(void **state)
{
	struct ul_core *c;
	struct ulnet_nid lo = ht_nid("0@lo");

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	assert_non_null(ul_core_lo_ni(c));
	assert_ptr_equal(ul_ni_find(c, &lo), ul_core_lo_ni(c));
	assert_int_equal(c->nnis, 0);
	assert_int_equal(c->tun.numa_range, 0);
	assert_int_equal(c->tun.max_interfaces, 4096);
	assert_int_equal(c->tun.discovery, 1);
	assert_int_equal(c->tun.drop_asym_route, 0);
	assert_int_equal(c->tun.retry_count, 2);
	assert_int_equal(c->tun.transaction_timeout, 150);
	assert_int_equal(c->tun.health_sensitivity, 100);
	assert_int_equal(c->tun.recovery_interval, 1);
	assert_int_equal(c->tun.router_sensitivity, 100);
	assert_int_equal(c->tun.response_tracking, 3);
	assert_int_equal(c->tun.recovery_limit, 0);
	assert_int_equal(c->tun.max_recovery_ping_interval, 900);
	assert_int_equal(c->tun.routing, 0);
	assert_int_equal(c->tun.lock_prim_nid, 1);
	assert_int_equal(c->tun.avoid_asym_router_failure, 1);
	assert_int_equal(c->tun.check_routers_before_use, 0);
	assert_int_equal(c->tun.alive_router_check_interval, 60);
	assert_int_equal(ul_tunables_lnd_timeout(&c->tun), 49);
	ul_core_destroy(c);
}

struct tun_row {
	enum ul_tunable id;
	int64_t value;
	int rc;
	int64_t after; /* value read back */
};

/* lnetctl.md §9 / health.md §2, one set each on fresh defaults. */
static const struct tun_row tun_rows[] = {
	/* 0 */ { UL_TUNABLE_NUMA_RANGE, 30, 0, 30 },
	{ UL_TUNABLE_NUMA_RANGE, -1, 0, 4294967295LL },
	{ UL_TUNABLE_MAX_INTERFACES, 15, 0, 4096 },
	{ UL_TUNABLE_MAX_INTERFACES, 16, 0, 16 },
	{ UL_TUNABLE_DISCOVERY, 0, 0, 0 },
	/* 5 */ { UL_TUNABLE_DISCOVERY, 7, 0, 1 },
	{ UL_TUNABLE_DROP_ASYM_ROUTE, 5, 0, 1 },
	{ UL_TUNABLE_RETRY_COUNT, 150, 0, 150 },
	{ UL_TUNABLE_RETRY_COUNT, 151, -EINVAL, 2 },
	{ UL_TUNABLE_RETRY_COUNT, -1, -EINVAL, 2 },
	/* 10 */ { UL_TUNABLE_TRANSACTION_TIMEOUT, 2, -EINVAL, 150 },
	{ UL_TUNABLE_TRANSACTION_TIMEOUT, 3, 0, 3 },
	{ UL_TUNABLE_TRANSACTION_TIMEOUT, 0, -EINVAL, 150 },
	{ UL_TUNABLE_HEALTH_SENSITIVITY, 1000, 0, 1000 },
	{ UL_TUNABLE_HEALTH_SENSITIVITY, 1001, -EINVAL, 100 },
	/* 15 */ { UL_TUNABLE_RECOVERY_INTERVAL, 5, 0, 1 },
	{ UL_TUNABLE_ROUTER_SENSITIVITY, 100, 0, 100 },
	{ UL_TUNABLE_ROUTER_SENSITIVITY, 101, -EINVAL, 100 },
	{ UL_TUNABLE_ROUTER_SENSITIVITY, 0, 0, 0 },
	{ UL_TUNABLE_RESPONSE_TRACKING, 0, 0, 0 },
	/* 20 */ { UL_TUNABLE_RESPONSE_TRACKING, 4, -EINVAL, 3 },
	{ UL_TUNABLE_RECOVERY_LIMIT, 10, 0, 10 },
	{ UL_TUNABLE_RECOVERY_LIMIT, -1, -EINVAL, 0 },
	{ UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL, 0, -EINVAL, 900 },
	{ UL_TUNABLE_MAX_RECOVERY_PING_INTERVAL, 1, 0, 1 },
	/* 25 */ { UL_TUNABLE_ROUTING, 1, 0, 1 },
	{ UL_TUNABLE_ROUTING, 2, -EINVAL, 0 },
	{ UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL, -1, 0, -1 },
	{ UL_TUNABLE_CHECK_ROUTERS_BEFORE_USE, 3, 0, 3 },
	{ UL_TUNABLE__COUNT, 0, -EINVAL, 0 },
	/* 30 */ { UL_TUNABLE_RECOVERY_INTERVAL, -5, 0, 1 },
	{ UL_TUNABLE_NUMA_RANGE, 4294967296LL, -EINVAL, 0 },
	{ UL_TUNABLE_DISCOVERY, -1, -EINVAL, 1 },
	{ UL_TUNABLE_ROUTER_PING_TIMEOUT, 0, 0, 0 },
	/* LNet's int module parameters: any int, stored as given */
	{ UL_TUNABLE_ROUTER_PING_TIMEOUT, -5, 0, -5 },
	/* 35 */ { UL_TUNABLE_LOCK_PRIM_NID, -3, 0, -3 },
	{ UL_TUNABLE_AVOID_ASYM_ROUTER_FAILURE, INT32_MIN, 0, INT32_MIN },
	{ UL_TUNABLE_ROUTER_PING_TIMEOUT, INT32_MAX + 1LL, -EINVAL, 50 },
	{ UL_TUNABLE_ALIVE_ROUTER_CHECK_INTERVAL, INT32_MIN - 1LL, -EINVAL,
	  60 },
};

static void core_tunable_setters_apply_lnet_checks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(tun_rows) / sizeof(tun_rows[0]); i++) {
		const struct tun_row *r = &tun_rows[i];
		struct ul_tunables t;
		struct ul_err err = { 0 };
		int rc;

		ul_tunables_init(&t);
		rc = ul_tunables_set(&t, r->id, r->value, &err);
		if (rc != r->rc)
			fail_msg("row %zu: rc %d, expected %d", i, rc, r->rc);
		if (rc)
			assert_true(err.msg[0] != '\0');
		if (r->id < UL_TUNABLE__COUNT &&
		    ul_tunables_get(&t, r->id) != r->after)
			fail_msg("row %zu: value %lld, expected %lld", i,
				 (long long)ul_tunables_get(&t, r->id),
				 (long long)r->after);
	}
}

static void core_health_sensitivity_zero_turns_retries_off(void **state)
{
	struct ul_tunables t;

	(void)state;
	ul_tunables_init(&t);
	assert_int_equal(
		ul_tunables_set(&t, UL_TUNABLE_HEALTH_SENSITIVITY, 0, NULL), 0);
	assert_int_equal(t.retry_count, 0);
	assert_int_equal(ul_tunables_lnd_timeout(&t), 149);
	/* ... and retries cannot come back while health is off. */
	assert_int_equal(ul_tunables_set(&t, UL_TUNABLE_RETRY_COUNT, 1, NULL),
			 -EINVAL);
	assert_int_equal(ul_tunables_set(&t, UL_TUNABLE_RETRY_COUNT, 0, NULL),
			 0);
}

static void core_tunable_names_are_lnetctl_keys(void **state)
{
	(void)state;
	for (int i = 0; i < UL_TUNABLE__COUNT; i++) {
		const char *name = ul_tunable_name(i);

		assert_non_null(name);
		assert_int_equal(ul_tunable_from_name(name), i);
	}
	assert_int_equal(ul_tunable_from_name("max_intf"),
			 UL_TUNABLE_MAX_INTERFACES);
	assert_int_equal(ul_tunable_from_name("nope"), -EINVAL);
	assert_null(ul_tunable_name(UL_TUNABLE__COUNT));
}

static void core_ni_add_del_find(void **state)
{
	struct ul_core *c;
	struct ulnet_nid a = ht_nid("10.0.0.1@tcp");
	struct ulnet_nid b = ht_nid("10.0.0.2@tcp");
	struct ulnet_nid o = ht_nid("10.1.0.1@o2ib");
	struct ulnet_nid lo = ht_nid("0@lo");
	struct ul_err err = { 0 };
	struct ul_net_tunables tun = { 16, 128, -1, -1 };
	struct ul_ni *ni;
	struct ul_net *net;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	assert_int_equal(ul_ni_add(c, &a, "eth0", 0, &tun, &ni, &err), 0);
	assert_string_equal(ni->ifname, "eth0");
	assert_int_equal(ni->tx_credits, 128);
	assert_int_equal(ni->net->tun.peer_tx_credits, 16);
	assert_int_equal(ni->net->tun.peer_timeout_sec, 180);
	assert_int_equal(ni->healthv, UL_HEALTH_MAX);
	assert_int_equal(ni->sel_priority, UL_PRIO_UNSET);
	assert_int_equal(ul_ni_add(c, &a, "eth1", 0, NULL, NULL, &err),
			 -EEXIST);
	assert_int_equal(ul_ni_add(c, &b, "eth0", 0, NULL, NULL, &err),
			 -EEXIST);
	assert_int_equal(ul_ni_add(c, &lo, NULL, 0, NULL, NULL, &err), -ENODEV);
	assert_string_equal(err.msg, "setting @lo not allowed");
	/* An NI given by NID only has no interface. */
	assert_int_equal(ul_ni_add(c, &b, NULL, UL_NUMA_ANY, NULL, &ni, &err),
			 0);
	assert_string_equal(ni->ifname, "");
	assert_int_equal(ni->numa_node, UL_NUMA_ANY);
	assert_int_equal(ul_ni_add(c, &o, "ib0", 1, NULL, NULL, &err), 0);
	assert_int_equal(c->nnis, 3);

	net = ul_net_find(c, ht_net("tcp"));
	assert_non_null(net);
	assert_int_equal(net->nnis, 2);
	assert_ptr_equal(ul_ni_find_by_ifname(net, "eth0")->net, net);
	/* Configuration order: lo, tcp, o2ib. */
	assert_int_equal(
		ul_list_first_entry(&c->nets, struct ul_net, core_link)->net_id,
		ht_net("lo"));

	assert_int_equal(ul_ni_del(c, &a, &err), 0);
	assert_null(ul_ni_find(c, &a));
	assert_int_equal(ul_ni_del(c, &a, &err), -ENOENT);
	assert_int_equal(ul_ni_del(c, &b, &err), 0);
	assert_null(ul_net_find(c, ht_net("tcp"))); /* went with its last NI */
	assert_int_equal(ul_net_del(c, ht_net("tcp"), &err), -EINVAL);
	assert_int_equal(ul_net_del(c, ht_net("lo"), &err), -ENODEV);
	assert_int_equal(ul_net_del(c, ht_net("o2ib"), &err), 0);
	assert_int_equal(c->nnis, 0);
	ul_core_destroy(c);
}

static void core_ni_add_respects_max_interfaces(void **state)
{
	struct ul_core *c;
	char buf[32];

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	assert_int_equal(ul_tunables_set(&c->tun, UL_TUNABLE_MAX_INTERFACES, 16,
					 NULL),
			 0);
	/*
	 * lnet_startup_lndni: 0@lo counts against lnet_interfaces_max, so
	 * 15 NIs fit besides it and the 16th is refused.
	 */
	for (int i = 0; i < 15; i++) {
		snprintf(buf, sizeof(buf), "10.0.0.%d@tcp", i + 1);
		ht_ni(c, buf, 0);
	}
	{
		struct ulnet_nid n = ht_nid("10.0.1.1@tcp");
		struct ulnet_nid m = ht_nid("10.0.0.1@tcp");

		assert_int_equal(ul_ni_add(c, &n, NULL, 0, NULL, NULL, NULL),
				 -ENOSPC);
		/* a deleted NI makes room for one more */
		assert_int_equal(ul_ni_del(c, &m, NULL), 0);
		assert_int_equal(ul_ni_add(c, &n, NULL, 0, NULL, NULL, NULL),
				 0);
	}
	ul_core_destroy(c);
}

/*
 * What a later NI asks for is compared with the net's tunables as they
 * are (lnet_startup_lndnet): the peer credits the first NI lowered to its
 * credits no longer match the request that asked for more.
 */
static void core_net_tunables_match(void **state)
{
	struct ul_net_tunables asked = { 300, 200, -1, -1 };
	struct ul_net_tunables same = { 200, 200, 180, 0 };
	struct ulnet_nid n = ht_nid("10.0.0.1@tcp");
	struct ul_core *c;
	struct ul_ni *ni;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	assert_int_equal(ul_ni_add(c, &n, NULL, 0, &asked, &ni, NULL), 0);
	assert_int_equal(ni->net->tun.peer_tx_credits, 200);
	assert_false(ul_net_tunables_match(ni->net, &asked));
	assert_true(ul_net_tunables_match(ni->net, &same));
	same.peer_timeout_sec = -1; /* not given: the default, 180 */
	same.peer_buffer_credits = -1;
	assert_true(ul_net_tunables_match(ni->net, &same));
	same.peer_buffer_credits = 4;
	assert_false(ul_net_tunables_match(ni->net, &same));
	/* NULL asks for every default: 8 peer credits, 256 credits */
	assert_false(ul_net_tunables_match(ni->net, NULL));
	ul_core_destroy(c);
}

/*
 * lnet_nid_cpt_hash, values worked out by hand from Linux's constants
 * (GOLDEN_RATIO_64 0x61C8864680B583EB, GOLDEN_RATIO_32 0x61C88647).
 */
static void core_nid_cpt_hash(void **state)
{
	static const struct {
		const char *nid;
		unsigned int ncpt, cpt;
	} rows[] = {
		/* one CPT: always 0 */
		{ "192.168.1.20@tcp", 1, 0 },
		/* 4-byte NIDs: 0x00020000 c0a80114, bytes sum to 383 */
		{ "192.168.1.20@tcp", 2, 1 },
		{ "192.168.1.20@tcp", 3, 2 },
		/* 127.1.1.1@tcp: 2 + 127 + 1 + 1 + 1 = 132 */
		{ "127.1.1.1@tcp", 2, 0 },
		/*
		 * kfi: hash_long of the 64-bit NID, not the byte sum. 4@kfi
		 * is 0x0010000000000004; times GOLDEN_RATIO_64 (mod 2^64)
		 * that is 0x3eb << 52 + 4 * 0x61C8864680B583EB =
		 * 0xc5d2191a02d60fac, whose top bits give 1 for 2 CPTs, 3 for
		 * 4, and for 3 CPTs (2 bits) 3, folded to (key + 3 + 1) % 3 =
		 * (2^52 + 8) % 3 = 0. The byte sum would give 0, 2 and 0.
		 */
		{ "4@kfi", 2, 1 },
		{ "4@kfi", 3, 0 },
		{ "4@kfi", 4, 3 },
		/* 1@kfi: 0xa078864680b583eb, top 3 bits 5, (2^52+1+5+2)%5 */
		{ "1@kfi", 5, 4 },
		/*
		 * IPv6: h = hash_32(word ^ h, 32) over the four address
		 * words read little-endian (2001:db8::2: 0xb80d0120, 0, 0,
		 * 0x02000000) gives h = 0xb2526d20; then hash_32(net ^ h,
		 * bits): tcp (0x00020000) gives 1 of 2 bits for 2 CPTs, 3 of
		 * 2 bits for 3, folded to (h + 3 + 1) % 3 = 0, and 7 of 3
		 * bits for 5, folded to (h + 7 + 3) % 5 = 1; tcp1 gives 1.
		 */
		{ "2001:db8::2@tcp", 2, 1 },
		{ "2001:db8::2@tcp", 3, 0 },
		{ "2001:db8::2@tcp", 5, 1 },
		{ "2001:db8::2@tcp", 8, 7 },
		{ "2001:db8::2@tcp1", 3, 1 },
		{ "2001:db8::3@tcp", 3, 2 },
		{ "2001:db8::7@tcp", 5, 3 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ulnet_nid n = ht_nid(rows[i].nid);
		unsigned int cpt = ul_nid_cpt_hash(&n, rows[i].ncpt);

		if (cpt != rows[i].cpt)
			fail_msg("%s among %u: CPT %u, expected %u",
				 rows[i].nid, rows[i].ncpt, cpt, rows[i].cpt);
	}
}

static const struct ulnet_nid *first_nid_of(const struct ul_peer_net *lpn)
{
	return &ul_list_first_entry(&lpn->peer_nis, struct ul_peer_ni,
				    peer_net_link)
			->nid;
}

static void core_peer_orders_primary_first(void **state)
{
	static const char *const more[] = { "192.168.1.10@tcp",
					    "10.1.0.11@o2ib", "10.1.0.12@o2ib",
					    NULL };
	struct ul_core *c;
	struct ul_peer *p;
	struct ul_peer_net *lpn;
	struct ulnet_nid nid;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	p = ht_peer(c, true, "10.1.0.10@o2ib", more);
	assert_int_equal(p->nnis, 4);
	lpn = ul_list_first_entry(&p->peer_nets, struct ul_peer_net, peer_link);
	assert_int_equal(lpn->net_id, ht_net("o2ib"));
	nid = ht_nid("10.1.0.10@o2ib");
	assert_true(ulnet_nid_same(first_nid_of(lpn), &nid));
	assert_ptr_equal(ul_peer_net_find(p, ht_net("tcp"))->peer, p);

	/* A new primary moves its net and itself first. */
	nid = ht_nid("192.168.1.10@tcp");
	assert_int_equal(ul_peer_set_primary(c, p, &nid, NULL), 0);
	lpn = ul_list_first_entry(&p->peer_nets, struct ul_peer_net, peer_link);
	assert_int_equal(lpn->net_id, ht_net("tcp"));
	nid = ht_nid("10.1.0.12@o2ib");
	assert_int_equal(ul_peer_set_primary(c, p, &nid, NULL), 0);
	lpn = ul_list_first_entry(&p->peer_nets, struct ul_peer_net, peer_link);
	assert_true(ulnet_nid_same(first_nid_of(lpn), &nid));
	nid = ht_nid("10.9.9.9@o2ib");
	assert_int_equal(ul_peer_set_primary(c, p, &nid, NULL), -ENOENT);
	ul_core_destroy(c);
}

static void core_peer_add_del_rules(void **state)
{
	static const char *const more[] = { "10.1.0.11@o2ib", NULL };
	struct ul_core *c;
	struct ul_peer *p, *q;
	struct ul_peer_ni *lpni;
	struct ulnet_nid prim = ht_nid("10.1.0.10@o2ib");
	struct ulnet_nid sec = ht_nid("10.1.0.11@o2ib");
	struct ulnet_nid other = ht_nid("10.1.0.30@o2ib");
	struct ulnet_nid any;
	struct ul_err err = { 0 };

	(void)state;
	ulnet_nid_set_any(&any);
	assert_int_equal(ul_core_create(&c), 0);
	p = ht_peer(c, true, "10.1.0.10@o2ib", more);
	/* Same primary again: no-op; MR mismatch: EPERM. */
	assert_int_equal(ul_peer_add(c, &prim, true, false, &q, &err), 0);
	assert_ptr_equal(p, q);
	assert_int_equal(ul_peer_add(c, &prim, false, false, NULL, &err),
			 -EPERM);
	/* A non-primary NID of another peer cannot become a primary. */
	assert_int_equal(ul_peer_add(c, &sec, true, false, NULL, &err),
			 -EEXIST);
	assert_int_equal(ul_peer_add(c, &any, true, false, NULL, &err),
			 -EINVAL);

	/* A NID some traffic created a peer for moves over. */
	assert_int_equal(ul_peer_ni_find_or_create(c, &other, NULL, &lpni), 0);
	lpni->healthv = 500;
	assert_int_equal(c->npeers, 2);
	assert_int_equal(ul_peer_ni_add(c, p, &other, &lpni, &err), 0);
	assert_ptr_equal(ul_peer_ni_peer(lpni), p);
	assert_int_equal(lpni->healthv, 500);
	assert_int_equal(c->npeers, 1);
	assert_int_equal(p->nnis, 3);

	/* Deleting a non-primary NID; then the primary deletes the peer. */
	assert_int_equal(ul_peer_del(c, &sec, false, &err), -ENODEV);
	assert_int_equal(ul_peer_ni_del(c, &sec, &err), 0);
	assert_null(ul_peer_ni_find(c, &sec));
	assert_int_equal(p->nnis, 2);
	assert_int_equal(ul_peer_ni_del(c, &prim, &err), 0);
	assert_null(ul_peer_find(c, &other));
	assert_int_equal(c->npeers, 0);
	assert_int_equal(ul_peer_del(c, &prim, false, &err), -ENOENT);
	assert_int_equal(c->peer_ni_hash.count, 0);
	ul_core_destroy(c);
}

static void core_peer_del_keeps_locked_primary(void **state)
{
	struct ul_core *c;
	struct ul_peer *p;
	struct ulnet_nid prim = ht_nid("10.1.0.10@o2ib");
	struct ulnet_nid sec = ht_nid("10.1.0.11@o2ib");

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	assert_int_equal(ul_peer_add(c, &prim, true, true, &p, NULL), 0);
	assert_int_equal(ul_peer_ni_add(c, p, &sec, NULL, NULL), 0);
	assert_int_equal(ul_peer_del(c, &prim, false, NULL), 0);
	assert_non_null(ul_peer_ni_find(c, &prim));
	assert_null(ul_peer_ni_find(c, &sec));
	assert_int_equal(ul_peer_del(c, &prim, true, NULL), 0);
	assert_null(ul_peer_ni_find(c, &prim));
	ul_core_destroy(c);
}

static void core_peer_becoming_mr_drops_sticky_nids(void **state)
{
	struct ul_core *c;
	struct ul_ni *ni1, *ni2;
	struct ul_peer_ni *lpni;
	struct ulnet_nid n = ht_nid("10.1.0.20@o2ib");

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	ni1 = ht_ni(c, "10.1.0.1@o2ib", 0);
	ni2 = ht_ni(c, "10.1.0.2@o2ib", 0);
	assert_int_equal(ul_peer_ni_find_or_create(c, &n, ni1, &lpni), 0);
	assert_true(lpni->is_pref_non_mr);
	/* A non-MR peer NI holds one preferred NID (udsp.md §4.2). */
	assert_int_equal(ul_peer_ni_add_pref_nid(lpni, &ni2->nid, false),
			 -EPERM);
	ul_peer_set_mr(ul_peer_ni_peer(lpni), true);
	assert_int_equal(lpni->pref_nids.count, 0);
	/* MR: several, and UDSP-set ones survive. */
	assert_int_equal(ul_peer_ni_add_pref_nid(lpni, &ni1->nid, false), 0);
	assert_int_equal(ul_peer_ni_add_pref_nid(lpni, &ni2->nid, false), 0);
	assert_int_equal(ul_peer_ni_add_pref_nid(lpni, &ni2->nid, false), 0);
	assert_int_equal(lpni->pref_nids.count, 2);
	assert_true(ul_peer_ni_is_pref_nid(lpni, &ni2->nid));
	ul_peer_set_mr(ul_peer_ni_peer(lpni), false);
	ul_peer_set_mr(ul_peer_ni_peer(lpni), true);
	assert_int_equal(lpni->pref_nids.count, 2);
	ul_peer_ni_clear_pref_nids(lpni);
	assert_false(ul_peer_ni_is_pref_nid(lpni, &ni1->nid));
	ul_core_destroy(c);
}

static void core_peer_net_health_is_max_of_its_nis(void **state)
{
	static const char *const more[] = { "10.1.0.11@o2ib", NULL };
	struct ul_core *c;
	struct ul_peer *p;
	struct ulnet_nid a = ht_nid("10.1.0.10@o2ib");
	struct ulnet_nid b = ht_nid("10.1.0.11@o2ib");
	struct ul_peer_ni *la, *lb;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	p = ht_peer(c, true, "10.1.0.10@o2ib", more);
	la = ul_peer_ni_find(c, &a);
	lb = ul_peer_ni_find(c, &b);
	ul_peer_ni_set_healthv(la, 300);
	assert_int_equal(la->peer_net->healthv, 1000);
	ul_peer_ni_set_healthv(lb, 700);
	assert_int_equal(la->peer_net->healthv, 700);
	ul_peer_ni_set_healthv(lb, 0);
	assert_int_equal(la->peer_net->healthv, 300);
	(void)p;
	ul_core_destroy(c);
}

/*
 * peer set --health stores the value as given (lnetctl.md §7.5), 2000
 * too; a raise then goes to full health and no further, as LNet's
 * lnet_inc_lpni_healthv_locked.
 */
static void core_peer_health_as_given_inc_stops_at_full(void **state)
{
	struct ulnet_nid a = ht_nid("10.1.0.10@o2ib");
	struct ul_peer_ni *la;
	struct ul_core *c;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	(void)ht_peer(c, true, "10.1.0.10@o2ib", NULL);
	la = ul_peer_ni_find(c, &a);
	ul_peer_ni_set_healthv(la, 2000);
	assert_int_equal(la->healthv, 2000);
	assert_int_equal(la->peer_net->healthv, 2000);
	ul_peer_ni_inc_healthv(la, 100);
	assert_int_equal(la->healthv, UL_HEALTH_MAX);
	ul_peer_ni_set_healthv(la, 500);
	ul_peer_ni_inc_healthv(la, 100);
	assert_int_equal(la->healthv, 600);
	ul_peer_ni_set_healthv(la, 950);
	ul_peer_ni_inc_healthv(la, 100);
	assert_int_equal(la->healthv, UL_HEALTH_MAX);
	ul_peer_ni_inc_healthv(la, 100);
	assert_int_equal(la->healthv, UL_HEALTH_MAX);
	assert_int_equal(la->peer_net->healthv, UL_HEALTH_MAX);
	ul_core_destroy(c);
}

struct route_row {
	const char *net;
	const char *gw;
	uint32_t hops;
	uint32_t prio;
	int rc;
	const char *msg;
};

/* lnetctl.md §8.1, in its order, on node C. */
static const struct route_row route_rows[] = {
	/* 0 */ { "lo", "10.1.0.100@o2ib", 1, 0, -EACCES,
		  "setting @lo not allowed" },
	{ NULL, "10.1.0.100@o2ib", 1, 0, -ENXIO,
	  "setting LNET_NET_ANY not allowed" },
	{ "o2ib2", NULL, 1, 0, -ENODEV, "cannot parse gateway" },
	{ "o2ib2", "10.1.0.100@o2ib", 0, 0, -EINVAL,
	  "invalid hop count must be between 1 and 255" },
	{ "o2ib2", "10.1.0.100@o2ib", 256, 0, -EINVAL,
	  "invalid hop count must be between 1 and 255" },
	/* 5 */
	{ "o2ib2", "10.1.0.100@o2ib", 1, 0x80000000u, -EINVAL,
	  "invalid priority, must not be negative" },
	{ "o2ib2", "0@lo", 1, 0, -EINVAL,
	  "invalid settings for route creation" },
	{ "o2ib2", "10.1.0.100@o2ib2", 1, 0, -EINVAL,
	  "invalid settings for route creation" },
	{ "tcp", "10.1.0.100@o2ib", 1, 0, -EEXIST,
	  "Route already exists or the specified network is local" },
	{ "o2ib2", "10.9.0.1@o2ib9", 1, 0, -EHOSTUNREACH,
	  "No interface configured on the same net as gateway" },
	/* 10: R1 already routes o2ib1, even through its other NID */
	{ "o2ib1", "10.1.0.100@o2ib", 1, 0, -EEXIST,
	  "Route already exists or the specified network is local" },
	{ "o2ib2", "10.1.0.100@o2ib", UL_HOPS_UNDEFINED, 7, 0, NULL },
};

static void core_route_add_checks_in_lnetctl_order(void **state)
{
	struct ht_c t;

	(void)state;
	ht_build_c(&t);
	for (size_t i = 0; i < sizeof(route_rows) / sizeof(route_rows[0]);
	     i++) {
		const struct route_row *r = &route_rows[i];
		struct ulnet_nid gw;
		struct ul_err err = { 0 };
		int rc;

		if (r->gw)
			gw = ht_nid(r->gw);
		else
			ulnet_nid_set_any(&gw);
		rc = ul_route_add(t.c, r->net ? ht_net(r->net) : ULNET_NET_ANY,
				  &gw, r->hops, r->prio, NULL, &err);
		if (rc != r->rc)
			fail_msg("row %zu: rc %d, expected %d", i, rc, r->rc);
		if (r->msg && strcmp(err.msg, r->msg) != 0)
			fail_msg("row %zu: '%s'", i, err.msg);
	}
	/* A net that is the target of a route cannot become local. */
	{
		struct ulnet_nid n = ht_nid("172.16.0.1@o2ib1");

		assert_int_equal(ul_ni_add(t.c, &n, NULL, 0, NULL, NULL, NULL),
				 -EUSERS);
	}
	ht_destroy_c(&t);
}

static void core_route_del_and_gateway_refs(void **state)
{
	struct ht_c t;
	struct ulnet_nid r1 = ht_nid("172.16.0.100@o2ib1"); /* other NID */
	struct ulnet_nid r3 = ht_nid("192.168.1.200@tcp");

	(void)state;
	ht_build_c(&t);
	assert_int_equal(t.r1->rtr_refcount, 1);
	/* A gateway cannot be deleted as a peer. */
	assert_int_equal(ul_peer_ni_del(t.c, &r3, NULL), -EBUSY);
	/* The gateway NID maps to its peer: any of its NIDs will do. */
	assert_int_equal(ul_route_del(t.c, ht_net("o2ib1"), &r1, NULL), 0);
	assert_int_equal(t.r1->rtr_refcount, 0);
	assert_int_equal(ul_rnet_find(t.c, ht_net("o2ib1"))->nroutes, 1);
	assert_int_equal(ul_route_del(t.c, ht_net("o2ib1"), &r1, NULL),
			 -ENOENT);
	assert_int_equal(ul_route_del(t.c, ht_net("o2ib1"), NULL, NULL), 0);
	assert_null(ul_rnet_find(t.c, ht_net("o2ib1")));
	assert_int_equal(ul_route_del(t.c, ULNET_NET_ANY, &r3, NULL), 0);
	assert_true(ul_list_empty(&t.c->rnets));
	assert_int_equal(ul_peer_ni_del(t.c, &r3, NULL), 0);
	ht_destroy_c(&t);
}

/* Route order for one seed: the gateway's last octet per position. */
static void route_order(uint64_t seed, int n, uint32_t *out)
{
	struct ul_core *c;
	struct ul_rnet *rnet;
	struct ul_route *r;
	char buf[32];
	int i = 0;

	assert_int_equal(ul_core_create(&c), 0);
	ul_core_seed(c, seed);
	ht_ni(c, "10.0.0.1@tcp", 0);
	for (int k = 0; k < n; k++) {
		struct ulnet_nid gw;

		snprintf(buf, sizeof(buf), "10.0.0.%d@tcp", 100 + k);
		gw = ht_nid(buf);
		assert_int_equal(ul_route_add(c, ht_net("tcp1"), &gw,
					      UL_HOPS_UNDEFINED, 0, NULL, NULL),
				 0);
	}
	rnet = ul_rnet_find(c, ht_net("tcp1"));
	ul_list_for_each_entry(r, &rnet->routes, rnet_link)
		out[i++] = r->gw_nid.nid_addr[0] & 0xff;
	assert_int_equal(i, n);
	ul_core_destroy(c);
}

/* routing.md §2.2: random position, deterministic for a seed. */
static void core_route_insertion_is_random_but_seeded(void **state)
{
	uint32_t a[4], b[4];
	int first_seen[4] = { 0 };

	(void)state;
	route_order(42, 4, a);
	route_order(42, 4, b);
	assert_memory_equal(a, b, sizeof(a));
	/* Over many seeds, every gateway comes first sometimes. */
	for (uint64_t s = 0; s < 200; s++) {
		route_order(s, 4, a);
		first_seen[a[0] - 100] = 1;
	}
	for (int k = 0; k < 4; k++)
		assert_true(first_seen[k]);
}

/*
 * Remote nets are kept in LNet's remote-net hash order (lnet_scan_route
 * walks the 64 buckets of (net number + LND type) & 63), creation order
 * within a bucket, whatever order the routes came in.
 */
static void core_rnets_in_lnet_hash_order(void **state)
{
	/* Added in this order; bucket after the name. */
	static const char *const added[] = {
		"tcp9",	  /* 11 */
		"tcp5",	  /* 7 */
		"o2ib",	  /* 5 */
		"tcp70",  /* 72 & 63 = 8 */
		"o2ib2",  /* 7, after tcp5 */
		"tcp69",  /* 71 & 63 = 7, after o2ib2 */
		"gni100", /* 113 & 63 = 49 */
	};
	static const char *const want[] = {
		"o2ib", "tcp5", "o2ib2", "tcp69", "tcp70", "tcp9", "gni100",
	};
	struct ulnet_nid gw = ht_nid("10.0.0.100@tcp");
	struct ul_rnet *rnet;
	struct ul_core *c;
	char buf[32];
	size_t i = 0;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	ht_ni(c, "10.0.0.1@tcp", 0);
	for (size_t k = 0; k < sizeof(added) / sizeof(added[0]); k++)
		assert_int_equal(ul_route_add(c, ht_net(added[k]), &gw,
					      UL_HOPS_UNDEFINED, 0, NULL, NULL),
				 0);
	ul_list_for_each_entry(rnet, &c->rnets, core_link) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_string_equal(ulnet_net_format(rnet->net_id, buf,
						     sizeof(buf)),
				    want[i]);
		i++;
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	ul_core_destroy(c);
}

/* selection.md §5.1 / routing.md §4.2 on node C's MR router R1. */
static void core_route_liveness_rules(void **state)
{
	struct ht_c t;
	struct ulnet_nid r1_o2ib = ht_nid("10.1.0.100@o2ib");
	struct ulnet_nid r1_o2ib1 = ht_nid("172.16.0.100@o2ib1");
	struct ul_peer_ni *l_loc, *l_rem;

	(void)state;
	ht_build_c(&t);
	l_loc = ul_peer_ni_find(t.c, &r1_o2ib);
	l_rem = ul_peer_ni_find(t.c, &r1_o2ib1);
	assert_true(ul_route_is_alive(t.c, t.rt_r1));
	/* 1: gateway not alive. */
	t.r1->is_alive = false;
	assert_false(ul_route_is_alive(t.c, t.rt_r1));
	t.r1->is_alive = true;
	/* 3: no UP NI on the route's local net. */
	l_loc->ns_status = UL_NS_STATUS_DOWN;
	assert_false(ul_route_is_alive(t.c, t.rt_r1));
	l_loc->ns_status = UL_NS_STATUS_UP;
	/* 4: single hop, avoid_asym_router_failure: remote NI must be UP. */
	l_rem->ns_status = UL_NS_STATUS_DOWN;
	assert_false(ul_route_is_alive(t.c, t.rt_r1));
	t.rt_r1->hops = UL_HOPS_UNDEFINED;
	assert_true(ul_route_is_alive(t.c, t.rt_r1));
	t.rt_r1->is_single_hop = true;
	assert_false(ul_route_is_alive(t.c, t.rt_r1));
	t.c->tun.avoid_asym_router_failure = 0;
	assert_true(ul_route_is_alive(t.c, t.rt_r1));
	/* 5: routing disabled on the gateway. */
	t.r1->rtr = UL_PEER_RTR_DISABLED;
	assert_false(ul_route_is_alive(t.c, t.rt_r1));
	/* 2: discovery off for the gateway: the cached flag decides. */
	t.r1->has_no_discovery = true;
	assert_true(ul_route_is_alive(t.c, t.rt_r1));
	t.rt_r1->is_alive = false;
	assert_false(ul_route_is_alive(t.c, t.rt_r1));
	/* The non-MR router R3 always goes by the cached flag. */
	assert_true(ul_route_is_alive(t.c, t.rt_r3));
	ht_destroy_c(&t);
}

/* A dead route is skipped; no live route at all is EHOSTUNREACH. */
static void select_skips_dead_routes(void **state)
{
	struct ht_c t;
	struct ul_select_res res;

	(void)state;
	ht_build_c(&t);
	t.r2->is_alive = false;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ht_send(t.c, NULL, "172.16.0.10@o2ib1", NULL,
					 UL_MSG_PUT, &res),
				 0);
		assert_ptr_equal(res.route, t.rt_r1);
	}
	t.r1->is_alive = false;
	assert_int_equal(ht_send(t.c, NULL, "172.16.0.10@o2ib1", NULL,
				 UL_MSG_PUT, &res),
			 -EHOSTUNREACH);
	ht_destroy_c(&t);
}

/* STYLE.md two-phase delete: unlinked at once, freed on the last put. */
static void core_deleted_objects_live_until_last_put(void **state)
{
	struct ht_c t;
	struct ul_ni *c1;
	struct ul_peer_ni *lpni;
	struct ul_route *rt;
	struct ulnet_nid n = ht_nid("10.1.0.11@o2ib");
	struct ulnet_nid gw = ht_nid("10.1.0.100@o2ib");

	(void)state;
	ht_build_c(&t);
	c1 = t.c1;
	ul_ni_get(c1);
	lpni = ul_peer_ni_find(t.c, &n);
	ul_peer_ni_get(lpni);
	rt = t.rt_r1;
	ul_route_get(rt);

	assert_int_equal(ul_ni_del(t.c, &c1->nid, NULL), 0);
	assert_int_equal(ul_peer_ni_del(t.c, &n, NULL), 0);
	assert_int_equal(ul_route_del(t.c, ht_net("o2ib1"), &gw, NULL), 0);
	assert_true(c1->is_dead);
	assert_true(lpni->is_dead);
	assert_true(rt->is_dead);
	assert_null(ul_ni_find(t.c, &c1->nid));
	assert_null(ul_peer_ni_find(t.c, &n));
	/* Still readable, with their parents, after the instance is gone. */
	ht_destroy_c(&t);
	assert_int_equal(c1->net->net_id, ht_net("o2ib"));
	{
		struct ulnet_nid s1 = ht_nid("10.1.0.10@o2ib");

		assert_true(ulnet_nid_same(&lpni->peer_net->peer->primary_nid,
					   &s1));
		assert_true(lpni->peer_net->peer->is_dead);
	}
	assert_true(ulnet_nid_same(&rt->gateway->primary_nid, &gw));
	ul_ni_put(c1);
	ul_peer_ni_put(lpni);
	ul_route_put(rt);
}

struct counts {
	int net, ni, peer, lpn, lpni;
};

static void on_net(void *ctx, struct ul_net *net)
{
	(void)net;
	((struct counts *)ctx)->net++;
}

static void on_ni(void *ctx, struct ul_ni *ni)
{
	(void)ni;
	((struct counts *)ctx)->ni++;
}

static void on_peer(void *ctx, struct ul_peer *peer)
{
	(void)peer;
	((struct counts *)ctx)->peer++;
}

static void on_lpn(void *ctx, struct ul_peer_net *lpn)
{
	/* Visible to lookups when the hook runs. */
	assert_non_null(lpn->peer);
	((struct counts *)ctx)->lpn++;
}

static void on_lpni(void *ctx, struct ul_peer_ni *lpni)
{
	assert_non_null(lpni->peer_net);
	((struct counts *)ctx)->lpni++;
}

static void core_observer_sees_every_new_object(void **state)
{
	static const char *const more[] = { "10.1.0.11@o2ib",
					    "192.168.1.10@tcp", NULL };
	struct counts n = { 0 };
	struct ul_core_observer obs = { &n,	 on_net, on_ni,
					on_peer, on_lpn, on_lpni };
	struct ul_core *c;
	struct ul_select_res res;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	ul_core_set_observer(c, &obs);
	ht_ni(c, "10.1.0.1@o2ib", 0);
	ht_ni(c, "10.1.0.2@o2ib", 0);
	ht_ni(c, "192.168.1.1@tcp", 0);
	assert_int_equal(n.net, 2);
	assert_int_equal(n.ni, 3);
	ht_peer(c, true, "10.1.0.10@o2ib", more);
	assert_int_equal(n.peer, 1);
	assert_int_equal(n.lpn, 2);
	assert_int_equal(n.lpni, 3);
	/* A send to an unknown NID creates a peer: hooks run too. */
	assert_int_equal(
		ht_send(c, NULL, "10.1.0.20@o2ib", NULL, UL_MSG_PUT, &res), 0);
	assert_int_equal(n.peer, 2);
	assert_int_equal(n.lpni, 4);
	ul_core_set_observer(c, NULL);
	ht_ni(c, "10.1.0.3@o2ib", 0);
	assert_int_equal(n.ni, 3);
	ul_core_destroy(c);
}

static void core_numa_distance_table(void **state)
{
	static const uint32_t dist[] = { 10, 21, 31, 21, 10, 21, 31, 21, 10 };
	struct ul_core *c;

	(void)state;
	assert_int_equal(ul_core_create(&c), 0);
	assert_int_equal(ul_core_numa_distance(c, 0, 0), 10);
	assert_int_equal(ul_core_numa_distance(c, 0, 3), 20);
	assert_int_equal(ul_core_numa_distance(c, UL_NUMA_ANY, 0), 20);
	assert_int_equal(ul_core_set_numa_table(c, 3, dist), 0);
	assert_int_equal(ul_core_numa_distance(c, 0, 2), 31);
	assert_int_equal(ul_core_numa_distance(c, 1, 2), 21);
	assert_int_equal(ul_core_numa_distance(c, 0, UL_NUMA_ANY), 31);
	assert_int_equal(ul_core_numa_distance(c, 0, 7), 31);
	assert_int_equal(ul_core_set_numa_table(c, UL_NUMA_MAX_NODES + 1, dist),
			 -EINVAL);
	assert_int_equal(ul_core_set_numa_table(c, 0, NULL), 0);
	assert_int_equal(ul_core_numa_distance(c, 1, 1), 10);
	ul_core_destroy(c);
}

/*
 * The memory goal: a peer with 4 NIDs on 2 nets costs at most 1 KiB
 * (peer, peer nets, peer NIs and their share of hash buckets; the
 * allocator's own headers, 16 bytes per block with glibc, on top).
 */
static void core_peer_with_four_nids_fits_in_1kib(void **state)
{
	size_t bytes = sizeof(struct ul_peer) + 2 * sizeof(struct ul_peer_net) +
		       4 * sizeof(struct ul_peer_ni) +
		       4 * 2 * sizeof(struct ul_hnode *);
	size_t with_malloc = bytes + 7 * 16;

	(void)state;
	print_message("peer with 4 NIDs: %zu bytes (peer %zu, peer net %zu, "
		      "peer NI %zu, buckets %zu), %zu with malloc headers\n",
		      bytes, sizeof(struct ul_peer), sizeof(struct ul_peer_net),
		      sizeof(struct ul_peer_ni),
		      4 * 2 * sizeof(struct ul_hnode *), with_malloc);
	assert_true(with_malloc <= 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(core_create_has_lo_and_lnet_defaults),
		cmocka_unit_test(core_tunable_setters_apply_lnet_checks),
		cmocka_unit_test(
			core_health_sensitivity_zero_turns_retries_off),
		cmocka_unit_test(core_tunable_names_are_lnetctl_keys),
		cmocka_unit_test(core_ni_add_del_find),
		cmocka_unit_test(core_ni_add_respects_max_interfaces),
		cmocka_unit_test(core_net_tunables_match),
		cmocka_unit_test(core_nid_cpt_hash),
		cmocka_unit_test(core_peer_orders_primary_first),
		cmocka_unit_test(core_peer_add_del_rules),
		cmocka_unit_test(core_peer_del_keeps_locked_primary),
		cmocka_unit_test(core_peer_becoming_mr_drops_sticky_nids),
		cmocka_unit_test(core_peer_net_health_is_max_of_its_nis),
		cmocka_unit_test(core_peer_health_as_given_inc_stops_at_full),
		cmocka_unit_test(core_route_add_checks_in_lnetctl_order),
		cmocka_unit_test(core_route_del_and_gateway_refs),
		cmocka_unit_test(core_route_insertion_is_random_but_seeded),
		cmocka_unit_test(core_rnets_in_lnet_hash_order),
		cmocka_unit_test(core_route_liveness_rules),
		cmocka_unit_test(select_skips_dead_routes),
		cmocka_unit_test(core_deleted_objects_live_until_last_put),
		cmocka_unit_test(core_observer_sees_every_new_object),
		cmocka_unit_test(core_numa_distance_table),
		cmocka_unit_test(core_peer_with_four_nids_fits_in_1kib),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
