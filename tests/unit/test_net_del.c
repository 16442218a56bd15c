/*
 * What deleting a local net does to peers and routes (LNet's
 * lnet_peer_tables_cleanup(), ul_peer_on_net_del()): the routes of every
 * gateway with a peer NI on the net go, all of them; a peer NI on the
 * net stays without credits when its peer has a NI on another local net
 * (the primary moving there unless locked), else it goes, a primary with
 * its whole peer. A net that never started takes nothing with it. Every
 * test ends with ul_core_destroy(); ASan checks that nothing is left.
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

/* Local nets tcp (10.0.0.1) and tcp1 (10.0.1.1), and tcp2 if is_three. */
static struct ul_core *two_nets(bool is_three)
{
	struct ul_core *c;

	assert_int_equal(ul_core_create(&c), 0);
	ht_ni(c, "10.0.0.1@tcp", 0);
	ht_ni(c, "10.0.1.1@tcp1", 0);
	if (is_three)
		ht_ni(c, "10.0.2.1@tcp2", 0);
	return c;
}

static struct ul_peer *peer_of(struct ul_core *c, const char *nid)
{
	struct ulnet_nid n = ht_nid(nid);

	return ul_peer_find(c, &n);
}

static void add_route(struct ul_core *c, const char *net, const char *gw)
{
	struct ulnet_nid n = ht_nid(gw);

	assert_int_equal(ul_route_add(c, ht_net(net), &n, UL_HOPS_UNDEFINED, 0,
				      NULL, NULL),
			 0);
}

/*
 * Gateway G (10.0.0.100@tcp, also 10.0.1.100@tcp1) routes tcp9 and
 * tcp8; H (10.0.1.200@tcp1) routes tcp7. Deleting tcp takes both of G's
 * routes, the one through its tcp1 NID too; H's stays. G keeps its tcp1
 * NI, which becomes its primary.
 */
static void net_del_takes_every_route_of_its_gateways(void **state)
{
	struct ulnet_nid g1 = ht_nid("10.0.1.100@tcp1");
	struct ul_core *c = two_nets(false);
	struct ul_peer *g;

	(void)state;
	add_route(c, "tcp9", "10.0.0.100@tcp");
	g = peer_of(c, "10.0.0.100@tcp");
	assert_int_equal(ul_peer_ni_add(c, g, &g1, NULL, NULL), 0);
	add_route(c, "tcp8", "10.0.1.100@tcp1");
	add_route(c, "tcp7", "10.0.1.200@tcp1");
	assert_int_equal(g->rtr_refcount, 2);

	assert_int_equal(ul_net_del(c, ht_net("tcp"), NULL), 0);
	assert_null(ul_rnet_find(c, ht_net("tcp9")));
	assert_null(ul_rnet_find(c, ht_net("tcp8")));
	assert_non_null(ul_rnet_find(c, ht_net("tcp7")));
	assert_ptr_equal(peer_of(c, "10.0.1.100@tcp1"), g);
	assert_int_equal(g->rtr_refcount, 0);
	assert_true(ulnet_nid_same(&g->primary_nid, &g1));
	assert_int_equal(peer_of(c, "10.0.1.200@tcp1")->rtr_refcount, 1);
	ul_core_destroy(c);
}

/*
 * Five peers with NIs on tcp, deleted: A (tcp only) goes; B (primary on
 * tcp1) keeps its tcp NID, without credits; C (primary on tcp, a NID on
 * tcp1)
 * stays whole, primary now its tcp1 NID, the tcp NI first still and
 * without credits; D is C locked: its primary stays; E (primary on tcp,
 * a NID on tcp9, not local) goes whole.
 */
static void net_del_peer_rules(void **state)
{
	static const char *const b_more[] = { "10.0.0.20@tcp", NULL };
	static const char *const c_more[] = { "10.0.1.30@tcp1", NULL };
	static const char *const d_more[] = { "10.0.1.40@tcp1", NULL };
	static const char *const e_more[] = { "10.0.9.50@tcp9", NULL };
	struct ulnet_nid b_prim = ht_nid("10.0.1.20@tcp1");
	struct ulnet_nid b_tcp = ht_nid("10.0.0.20@tcp");
	struct ulnet_nid c_tcp = ht_nid("10.0.0.30@tcp");
	struct ulnet_nid c_tcp1 = ht_nid("10.0.1.30@tcp1");
	struct ulnet_nid d_prim = ht_nid("10.0.0.40@tcp");
	struct ul_core *c = two_nets(false);
	struct ul_peer *pb, *pc, *pd;
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;

	(void)state;
	ht_peer(c, true, "10.0.0.10@tcp", NULL);
	pb = ht_peer(c, true, "10.0.1.20@tcp1", b_more);
	pc = ht_peer(c, true, "10.0.0.30@tcp", c_more);
	pd = ht_peer(c, true, "10.0.0.40@tcp", d_more);
	pd->is_lock_prim = true;
	ht_peer(c, true, "10.0.0.50@tcp", e_more);
	assert_int_equal(c->npeers, 5);

	assert_int_equal(ul_net_del(c, ht_net("tcp"), NULL), 0);
	assert_int_equal(c->npeers, 3);
	assert_null(peer_of(c, "10.0.0.10@tcp"));
	assert_null(peer_of(c, "10.0.9.50@tcp9"));
	/* B */
	assert_ptr_equal(peer_of(c, "10.0.0.20@tcp"), pb);
	assert_true(ulnet_nid_same(&pb->primary_nid, &b_prim));
	assert_int_equal(pb->nnis, 2);
	assert_int_equal(ul_peer_ni_find(c, &b_tcp)->txcredits, 0);
	/* C: both NIs, in their order; the tcp one without credits. */
	assert_true(ulnet_nid_same(&pc->primary_nid, &c_tcp1));
	assert_int_equal(pc->nnis, 2);
	lpn = ul_list_first_entry(&pc->peer_nets, struct ul_peer_net,
				  peer_link);
	assert_int_equal(lpn->net_id, ht_net("tcp"));
	lpni = ul_peer_ni_find(c, &c_tcp);
	assert_non_null(lpni);
	assert_int_equal(lpni->txcredits, 0);
	assert_int_equal(lpni->mintxcredits, 0);
	assert_int_equal(ul_peer_ni_find(c, &c_tcp1)->txcredits, 8);
	/* D: locked, its primary stays on the gone net. */
	assert_true(ulnet_nid_same(&pd->primary_nid, &d_prim));
	assert_int_equal(pd->nnis, 2);
	/* tcp back: the peer NIs kept on it get its credits again. */
	ht_ni(c, "10.0.0.1@tcp", 0);
	assert_int_equal(lpni->txcredits, 8);
	ul_core_destroy(c);
}

/* The last NI of a net takes the net, and so its peers, with it. */
static void last_ni_del_cleans_as_net_del(void **state)
{
	struct ul_core *c = two_nets(true);
	struct ulnet_nid ni = ht_nid("10.0.2.1@tcp2");
	struct ulnet_nid one = ht_nid("10.0.1.1@tcp1");

	(void)state;
	ht_ni(c, "10.0.1.2@tcp1", 0);
	ht_peer(c, true, "10.0.2.10@tcp2", NULL);
	ht_peer(c, true, "10.0.1.10@tcp1", NULL);
	add_route(c, "tcp9", "10.0.2.100@tcp2");
	/* tcp1 keeps an NI: nothing happens to its peer. */
	assert_int_equal(ul_ni_del(c, &one, NULL), 0);
	assert_non_null(peer_of(c, "10.0.1.10@tcp1"));
	assert_int_equal(ul_ni_del(c, &ni, NULL), 0);
	assert_null(peer_of(c, "10.0.2.10@tcp2"));
	assert_null(peer_of(c, "10.0.2.100@tcp2"));
	assert_null(ul_rnet_find(c, ht_net("tcp9")));
	ul_core_destroy(c);
}

/*
 * Two-phase delete: a peer NI a message holds stays readable, dead and
 * unlinked, with its peer, until that reference is put.
 */
static void net_del_keeps_held_peer_ni_until_put(void **state)
{
	static const char *const more[] = { "10.0.0.11@tcp", NULL };
	struct ulnet_nid n = ht_nid("10.0.0.11@tcp");
	struct ulnet_nid prim = ht_nid("10.0.0.10@tcp");
	struct ul_core *c = two_nets(false);
	struct ul_peer_ni *lpni;

	(void)state;
	ht_peer(c, true, "10.0.0.10@tcp", more);
	lpni = ul_peer_ni_find(c, &n);
	ul_peer_ni_get(lpni);
	assert_int_equal(ul_net_del(c, ht_net("tcp"), NULL), 0);
	assert_true(lpni->is_dead);
	assert_null(ul_peer_ni_find(c, &n));
	assert_true(lpni->peer_net->peer->is_dead);
	assert_true(ulnet_nid_same(&lpni->peer_net->peer->primary_nid, &prim));
	ul_core_destroy(c);
	ul_peer_ni_put(lpni);
}

/*
 * An NI that could not start is taken back with its new net: the peers
 * and routes already there stay, and peer NIs lose the credits the net
 * gave them, as when it never existed.
 */
static void ni_add_undo_leaves_peers(void **state)
{
	struct ulnet_nid n = ht_nid("10.0.5.10@tcp5");
	struct ulnet_nid ni = ht_nid("10.0.5.1@tcp5");
	struct ul_core *c = two_nets(false);
	struct ul_peer_ni *lpni;

	(void)state;
	ht_peer(c, true, "10.0.5.10@tcp5", NULL);
	lpni = ul_peer_ni_find(c, &n);
	assert_int_equal(lpni->txcredits, 0);
	ht_ni(c, "10.0.5.1@tcp5", 0);
	assert_int_equal(lpni->txcredits, 8);
	assert_int_equal(ul_ni_add_undo(c, &ni), 0);
	assert_null(ul_net_find(c, ht_net("tcp5")));
	assert_ptr_equal(ul_peer_ni_find(c, &n), lpni);
	assert_false(lpni->is_dead);
	assert_int_equal(lpni->txcredits, 0);
	assert_int_equal(lpni->mintxcredits, 0);
	assert_int_equal(ul_ni_add_undo(c, &ni), -ENOENT);
	ul_core_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(net_del_takes_every_route_of_its_gateways),
		cmocka_unit_test(net_del_peer_rules),
		cmocka_unit_test(last_ni_del_cleans_as_net_del),
		cmocka_unit_test(net_del_keeps_held_peer_ni_until_put),
		cmocka_unit_test(ni_add_undo_leaves_peers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
