/*
 * The discovery scenarios of reference/discovery.md §14 that the other
 * simulator tests leave: §14.4 (a node's own NIDs fold into one peer),
 * §14.9 and §14.10 (locked primaries), §14.11 (LNetAddPeer's merge,
 * ul_disc_add_known), §14.13 (forced rounds crossing with delayed
 * pings) and §14.14 (a gateway's peer is not for DLC to change). Nodes
 * A and B as in helper_pair.h, two NIs each on tcp:
 *
 *   A0 10.0.0.1@tcp --- B0 10.0.0.2@tcp
 *   A1 10.0.1.1@tcp --- B1 10.0.1.2@tcp
 *
 * Every test ends with sim_pair_fini()/sim_destroy(), which fail on a
 * message or peer reference left behind; ASan checks the memory.
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

#include "core/core.h"
#include "core/discovery_send.h"
#include "core/discovery_sm.h"
#include "core/fault.h"
#include "core/msg.h"
#include "core/route.h"
#include "helper_pair.h"
#include "helper_sim.h"
#include "util/err.h"

#define PORTAL SIM_PAIR_PORTAL
#define SEC 1000000000ull
#define TAG_SRC SIM_PAIR_TAG_SRC

#define A0 "10.0.0.1@tcp"
#define A1 "10.0.1.1@tcp"
#define B0 "10.0.0.2@tcp"
#define B1 "10.0.1.2@tcp"
#define P9 "10.9.0.2@tcp9" /* a NID of B on a net A cannot reach */

/* lnetctl's peer state words (lnetctl.md §7.3, discovery.md §14.9). */
#define STATE_MR_UPTODATE 273
#define STATE_LOCKED_ONLY 1048577
#define STATE_LOCKED_DISCOVERED 1048849

static void run_for(struct sim *sim, uint64_t ns)
{
	sim_run(sim, sim->heap.now_ns + ns);
}

static bool is_nid(const struct ulnet_nid *nid, const char *s)
{
	struct ulnet_nid want = sim_nid(s);

	return ulnet_nid_same(nid, &want);
}

static void on_pong(void *arg, int status, const struct ulnet_ping_result *res)
{
	int *rc = arg;

	(void)res;
	*rc = status;
}

static size_t npeers(struct sim_node *sn)
{
	return ul_node_core(sn->node)->npeers;
}

/*
 * §14.4: A pings its own two NIDs, which makes a peer for each (a ping
 * does not discover); a send to the second discovers it: the reply's
 * primary is A's first NID, whose peer takes the reply, and the second
 * NID's peer folds into it. One peer, primary A0, listing A1.
 */
static void own_nids_fold_into_one_peer(void **state)
{
	struct sim *sim = sim_create(4);
	struct sim_node *a = sim_node_add(sim, "a", sim_pair_conf_a);
	struct ulnet_process_id to0 = sim_pid(A0), to1 = sim_pid(A1);
	char buf[16];
	struct ulnet_md md = sim_md(a, buf, sizeof(buf), 1, 0, TAG_SRC);
	struct ulnet_handle h;
	struct ul_peer *p0, *p1;
	int rc0 = 1, rc1 = 1;

	(void)state;
	assert_int_equal(ul_node_ping(a->node, NULL, &to0, 1000, on_pong, &rc0),
			 0);
	assert_int_equal(ul_node_ping(a->node, NULL, &to1, 1000, on_pong, &rc1),
			 0);
	run_for(sim, SEC);
	assert_int_equal(rc0, 0);
	assert_int_equal(rc1, 0);
	p0 = sim_pair_peer(a, A0);
	p1 = sim_pair_peer(a, A1);
	assert_non_null(p0);
	assert_non_null(p1);
	assert_ptr_not_equal(p0, p1);

	/* The PUT to A1 finds no MD on A and ends; its discovery stays. */
	assert_int_equal(ul_node_md_bind(a->node, &md, ULNET_UNLINK, &h), 0);
	assert_int_equal(ul_node_put(a->node, NULL, h, ULNET_NOACK_REQ, &to1,
				     PORTAL, 0, 0, 0),
			 0);
	run_for(sim, SEC);
	p1 = sim_pair_peer(a, A1);
	assert_ptr_equal(sim_pair_peer(a, A0), p1);
	assert_true(is_nid(&p1->primary_nid, A0));
	assert_int_equal(p1->nnis, 2);
	assert_true(p1->is_mr);
	assert_int_equal(npeers(a), 1);
	assert_int_equal(sim_ev_count_type(a, TAG_SRC, ULNET_EVENT_SEND), 1);
	assert_int_equal(sim_ev_last(a, TAG_SRC)->ev.status, 0);
	sim_destroy(sim);
}

/* `peer add --prim_nid B1 --lock_prim`, then CONFIGURED cleared. */
static void add_locked_b1(struct sim_pair *p)
{
	struct ul_node_peer_req r = { .prim = sim_nid(B1),
				      .is_mr = true,
				      .is_lock = true };
	struct ulnet_nid b1 = sim_nid(B1);
	struct ul_err err = { 0 };

	assert_int_equal(ul_node_peer_add(p->a->node, &r, &err), 0);
	assert_int_equal(ul_disc_state_bits(sim_pair_peer(p->a, B1)), 1048585);
	assert_int_equal(ul_node_peer_set_state(p->a->node, &b1,
						STATE_LOCKED_ONLY, &err),
			 0);
	assert_int_equal(ul_disc_state_bits(sim_pair_peer(p->a, B1)),
			 STATE_LOCKED_ONLY);
}

/*
 * §14.9: a primary locked before discovery stays primary: a send to B0
 * discovers B (whose own primary is B0) into the locked peer, which then
 * lists both NIDs with B1 still its primary; state 1048849.
 */
static void locked_primary_survives_discovery(void **state)
{
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	add_locked_b1(&p);
	sim_pair_put(&p, B0);
	run_for(p.sim, SEC);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 1);
	peer = sim_pair_peer(p.a, B0);
	assert_ptr_equal(peer, sim_pair_peer(p.a, B1));
	assert_true(is_nid(&peer->primary_nid, B1));
	assert_int_equal(peer->nnis, 2);
	assert_int_equal(npeers(p.a), 1);
	assert_int_equal(ul_disc_state_bits(peer), STATE_LOCKED_DISCOVERED);
	sim_pair_fini(&p);
}

/*
 * §14.10: `peer del --prim_nid B1` of the locked peer takes its other
 * NIDs and keeps B1 (its NIDs no longer up to date); with --force the
 * peer goes.
 */
static void locked_peer_needs_force_to_go(void **state)
{
	struct ul_node_peer_req del = { .prim = sim_nid(B1) };
	struct ul_err err = { 0 };
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	add_locked_b1(&p);
	sim_pair_put(&p, B0);
	run_for(p.sim, SEC);
	assert_int_equal(sim_pair_peer(p.a, B1)->nnis, 2);

	assert_int_equal(ul_node_peer_del(p.a->node, &del, &err), 0);
	peer = sim_pair_peer(p.a, B1);
	assert_non_null(peer);
	assert_int_equal(peer->nnis, 1);
	assert_null(sim_pair_peer(p.a, B0));
	assert_true(peer->is_lock_prim);
	assert_false(ul_disc_state_bits(peer) & UL_PEER_STATE_NIDS_UPTODATE);

	del.is_lock = true; /* --force */
	assert_int_equal(ul_node_peer_del(p.a->node, &del, &err), 0);
	assert_null(sim_pair_peer(p.a, B1));
	assert_int_equal(npeers(p.a), 0);
	sim_pair_fini(&p);
}

/*
 * §14.11: A discovered B through B0 (one MR peer, primary B0). The upper
 * layer then says B is [P9, B0], P9 on a net A has no route to: P9's
 * peer is made with its primary locked and its discovery fails, but
 * B0's peer is pinged again and folds into P9's: `peer show --nid P9`
 * lists B0 and B1 within the 20 s the reference allows, and traffic to
 * B0 goes on through that one peer.
 */
static void known_nids_fold_into_the_first_nids_peer(void **state)
{
	struct ulnet_nid known[2] = { sim_nid(P9), sim_nid(B0) };
	struct ul_err err = { 0 };
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	sim_pair_put(&p, B0);
	run_for(p.sim, SEC);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 1);
	assert_int_equal(sim_pair_peer(p.a, B0)->nnis, 2);

	assert_int_equal(ul_disc_add_known(p.a->node, known, 2, &err), 0);
	peer = sim_pair_peer(p.a, P9);
	assert_non_null(peer);
	assert_true(peer->is_lock_prim);
	assert_ptr_not_equal(peer, sim_pair_peer(p.a, B0));
	run_for(p.sim, 20 * SEC);

	peer = sim_pair_peer(p.a, P9);
	assert_non_null(peer);
	assert_ptr_equal(sim_pair_peer(p.a, B0), peer);
	assert_ptr_equal(sim_pair_peer(p.a, B1), peer);
	assert_true(is_nid(&peer->primary_nid, P9));
	assert_int_equal(peer->nnis, 3);
	assert_true(peer->is_mr);
	assert_int_equal(npeers(p.a), 1);

	sim_pair_put(&p, B0);
	run_for(p.sim, SEC);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 2);

	/* Again: nothing changes, the first NID belongs to that peer. */
	assert_int_equal(ul_disc_add_known(p.a->node, known, 2, &err), 0);
	run_for(p.sim, 20 * SEC);
	assert_int_equal(npeers(p.a), 1);
	/* A NID that is another peer's non-primary NID cannot lead. */
	known[0] = sim_nid(B1);
	assert_int_equal(ul_disc_add_known(p.a->node, known, 2, &err),
			 -EALREADY);
	assert_int_equal(ul_disc_add_known(p.a->node, known, 0, &err), -EINVAL);
	sim_pair_fini(&p);
}

/* With discovery off, only NIDs on local nets, each its own peer. */
static void known_nids_without_discovery_stay_apart(void **state)
{
	static const char conf_nodisc[] = "net:\n"
					  "  - net type: tcp\n"
					  "    local NI(s):\n"
					  "      - nid: 10.0.0.1@tcp\n"
					  "      - nid: 10.0.1.1@tcp\n"
					  "global:\n"
					  "    discovery: 0\n";
	struct ulnet_nid known[3] = { sim_nid(B0), sim_nid(P9), sim_nid(B1) };
	struct ul_err err = { 0 };
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, conf_nodisc);
	assert_int_equal(ul_disc_add_known(p.a->node, known, 3, &err), 0);
	assert_null(sim_pair_peer(p.a, P9));
	assert_non_null(sim_pair_peer(p.a, B0));
	assert_ptr_not_equal(sim_pair_peer(p.a, B0), sim_pair_peer(p.a, B1));
	assert_false(sim_pair_peer(p.a, B0)->is_mr);
	assert_false(sim_pair_peer(p.a, B0)->is_lock_prim);
	assert_int_equal(npeers(p.a), 2);
	sim_pair_fini(&p);
}

/* Hold every GET (a discovery ping) sn gets from nid for latency s. */
static void delay_gets(struct sim_node *sn, const char *nid, uint32_t latency)
{
	struct ul_fault_attr a = { 0 };

	a.is_delay = true;
	a.src = sim_nid(nid);
	ulnet_nid_set_any(&a.dst);
	ulnet_nid_set_any(&a.local);
	a.msg_mask = UL_FAULT_MSG_GET;
	a.rate = 1;
	a.latency = latency;
	assert_int_equal(ul_node_fault_add(sn->node, &a, NULL), 0);
}

/* `discover --force` as the node runs it: ping and push again. */
static void force_round(struct sim_node *sn, const char *nid)
{
	struct ul_peer *p = sim_pair_peer(sn, nid);

	assert_non_null(p);
	assert_false(ul_disc_is_busy(p));
	p->is_push_forced = true;
	ul_disc_invalidate(p);
	ul_disc_queue(sn->node, p, UL_DISC_STATE_QUEUED);
}

/* PUTs (data and pushes) sn's NIs received. */
static uint64_t puts_in(struct sim_node *sn, const char *n0, const char *n1)
{
	return sim_ni_info(sn, n0).stats.recv_count[UL_MSG_PUT] +
	       sim_ni_info(sn, n1).stats.recv_count[UL_MSG_PUT];
}

/*
 * §14.13 (LU-14627): A and B know each other and both start a forced
 * round (`discover --force`) at the same moment, while B holds A's pings
 * 3 s: B's round ends at once and B's push reaches A while A's own ping
 * to B is still out, so A merges it into a peer in PING_SENT. Then both
 * rounds again with every ping held, and B's peer for A deleted while
 * B's ping to A is out. Nothing is lost: every round ends, A has one MR
 * peer of two NIDs up to date, B at most one, and a PUT goes.
 */
static void forced_rounds_cross_with_pings_held(void **state)
{
	struct ul_node_peer_req del = { .prim = sim_nid(A0) };
	struct ul_err err = { 0 };
	uint64_t a_puts;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	sim_pair_put(&p, B0);
	run_for(p.sim, SEC);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 1);
	assert_non_null(sim_pair_peer(p.b, A0));

	delay_gets(p.b, A0, 3);
	delay_gets(p.b, A1, 3);
	a_puts = puts_in(p.a, A0, A1);
	force_round(p.a, B0);
	force_round(p.b, A0);
	run_for(p.sim, SEC);
	/* B's round is over and its push came in; A's ping is still out. */
	assert_int_equal(sim_pair_peer(p.a, B0)->disc_state,
			 UL_DISC_STATE_PING_SENT);
	assert_int_equal(ul_disc_state_bits(sim_pair_peer(p.b, A0)),
			 STATE_MR_UPTODATE);
	assert_int_equal(puts_in(p.a, A0, A1), a_puts + 1);
	run_for(p.sim, 10 * SEC);
	assert_int_equal(ul_disc_state_bits(sim_pair_peer(p.a, B0)),
			 STATE_MR_UPTODATE);
	assert_int_equal(ul_disc_state_bits(sim_pair_peer(p.b, A0)),
			 STATE_MR_UPTODATE);
	assert_int_equal(sim_pair_peer(p.a, B0)->nnis, 2);
	assert_int_equal(sim_pair_peer(p.b, A0)->nnis, 2);

	/* Every ping held; B's peer for A goes while B's ping is out. */
	delay_gets(p.a, B0, 3);
	delay_gets(p.a, B1, 3);
	force_round(p.a, B0);
	force_round(p.b, A0);
	run_for(p.sim, SEC);
	assert_int_equal(sim_pair_peer(p.b, A0)->disc_state,
			 UL_DISC_STATE_PING_SENT);
	assert_int_equal(ul_node_peer_del(p.b->node, &del, &err), 0);
	run_for(p.sim, 10 * SEC);
	assert_int_equal(ul_disc_state_bits(sim_pair_peer(p.a, B0)),
			 STATE_MR_UPTODATE);
	assert_int_equal(npeers(p.a), 1);
	assert_true(npeers(p.b) <= 1);

	sim_pair_put(&p, B1);
	run_for(p.sim, 10 * SEC);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 2);
	sim_pair_fini(&p);
}

/*
 * §14.14: after `route add --net tcp9 --gateway B0`, `peer del --prim_nid
 * B0` and `peer add --prim_nid B0` fail (-EBUSY): the gateway's peer is
 * the route's.
 */
static void gateway_peer_refuses_del_and_add(void **state)
{
	struct ul_node_peer_req r = { .prim = sim_nid(B0), .is_mr = true };
	struct ulnet_nid gw = sim_nid(B0);
	struct ul_err err = { 0 };
	struct sim_pair p;
	uint32_t net_id;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	assert_int_equal(ulnet_net_parse("tcp9", &net_id, NULL, 0), 0);
	assert_int_equal(ul_node_route_add(p.a->node, net_id, &gw, 1,
					   UL_HOPS_UNDEFINED, 0, &err),
			 0);
	assert_int_equal(ul_node_peer_del(p.a->node, &r, &err), -EBUSY);
	assert_int_equal(ul_node_peer_add(p.a->node, &r, &err), -EBUSY);
	assert_non_null(sim_pair_peer(p.a, B0));
	assert_false(sim_pair_peer(p.a, B0)->is_configured);
	sim_pair_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_nids_fold_into_one_peer),
		cmocka_unit_test(locked_primary_survives_discovery),
		cmocka_unit_test(locked_peer_needs_force_to_go),
		cmocka_unit_test(known_nids_fold_into_the_first_nids_peer),
		cmocka_unit_test(known_nids_without_discovery_stay_apart),
		cmocka_unit_test(forced_rounds_cross_with_pings_held),
		cmocka_unit_test(gateway_peer_refuses_del_and_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
