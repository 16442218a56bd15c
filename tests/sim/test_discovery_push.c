/*
 * Discovery push (reference/discovery.md §8.2, §9, §10, §14.1, §14.5,
 * §14.6, §14.7), on the virtual clock. Nodes A and B, two NIs each on
 * tcp, no `peer:` section unless a test says so:
 *
 *   A0 10.0.0.1@tcp --- B0 10.0.0.2@tcp
 *   A1 10.0.1.1@tcp --- B1 10.0.1.2@tcp    (every pair linked, 1 us)
 *
 * A's first PUT to B0 discovers B; A then pushes its ping info to B, so
 * B knows A's NIDs without pinging A. Afterwards every change of B's NI
 * list reaches A by B's push, with nothing done on A: a net added, an
 * NI's link down, an NI deleted, discovery turned off.
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
#include "core/discovery_sm.h"
#include "core/health.h"
#include "core/msg.h"
#include "core/ping.h"
#include "core/tunables.h"
#include "helper_pair.h"
#include "helper_sim.h"
#include "util/err.h"

#define PORTAL SIM_PAIR_PORTAL
#define SEC 1000000000ull
#define TAG_SRC SIM_PAIR_TAG_SRC
#define TAG_SINK SIM_PAIR_TAG_SINK

#define A0 "10.0.0.1@tcp"
#define A1 "10.0.1.1@tcp"
#define B0 "10.0.0.2@tcp"
#define B1 "10.0.1.2@tcp"
#define B99 "10.0.99.2@tcp99"

/* lnetctl's peer state of a discovered MR peer (§6). */
#define STATE_MR_UPTODATE 273

/* A with B configured: `peer add --prim_nid B0 --nid B1`. */
static const char conf_a_peer[] = "net:\n"
				  "  - net type: tcp\n"
				  "    local NI(s):\n"
				  "      - nid: 10.0.0.1@tcp\n"
				  "      - nid: 10.0.1.1@tcp\n"
				  "peer:\n"
				  "  - primary nid: 10.0.0.2@tcp\n"
				  "    Multi-Rail: True\n"
				  "    peer ni:\n"
				  "      - nid: 10.0.0.2@tcp\n"
				  "      - nid: 10.0.1.2@tcp\n"
				  "global:\n"
				  "    transaction_timeout: 4\n";

static void run(struct sim_pair *p)
{
	sim_run(p->sim, p->sim->heap.now_ns + SEC);
}

static struct ul_peer_ni *peer_ni_of(struct sim_node *sn, const char *nid)
{
	struct ulnet_nid id = sim_nid(nid);

	return ul_peer_ni_find(ul_node_core(sn->node), &id);
}

/* PUTs (data and pushes) B's NIs received. */
static uint64_t b_puts(struct sim_pair *p)
{
	return sim_ni_info(p->b, B0).stats.recv_count[UL_MSG_PUT] +
	       sim_ni_info(p->b, B1).stats.recv_count[UL_MSG_PUT];
}

static uint64_t a_gets_sent(struct sim_pair *p)
{
	return sim_ni_info(p->a, A0).stats.send_count[UL_MSG_GET] +
	       sim_ni_info(p->a, A1).stats.send_count[UL_MSG_GET];
}

/* A's first PUT: discovery of B, A's push to B, B's push back. */
static void a_discovers_b(struct sim_pair *p)
{
	struct ul_peer *peer;

	sim_pair_put(p, B0);
	run(p);
	assert_int_equal(sim_ev_count_type(p->a, TAG_SRC, ULNET_EVENT_ACK), 1);
	peer = sim_pair_peer(p->a, B0);
	assert_non_null(peer);
	assert_true(peer->is_mr);
	assert_int_equal(ul_disc_state_bits(peer),
			 STATE_MR_UPTODATE |
				 (peer->is_configured ? UL_PEER_STATE_CONFIGURED
						      : 0));
}

/*
 * §14.1: B learns A's NIDs from A's push: B never pings A (one GET in
 * all, A's), yet B's peer for A is Multi-Rail with both of A's NIDs,
 * primary A0, up to date; the push was ACKed (A's peer for B has A's
 * sequence) and neither side owes another.
 */
static void push_teaches_b_our_nids(void **state)
{
	struct ul_peer *pa, *pb;
	struct ulnet_nid a0 = sim_nid(A0);
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	a_discovers_b(&p);
	assert_int_equal(a_gets_sent(&p), 1);
	assert_int_equal(
		sim_ni_info(p.b, B0).stats.send_count[UL_MSG_GET] +
			sim_ni_info(p.b, B1).stats.send_count[UL_MSG_GET],
		0);
	pa = sim_pair_peer(p.b, A0);
	assert_non_null(pa);
	assert_true(pa == sim_pair_peer(p.b, A1));
	assert_true(pa->is_mr);
	assert_int_equal(pa->nnis, 2);
	assert_true(ulnet_nid_same(&pa->primary_nid, &a0));
	assert_int_equal(ul_disc_state_bits(pa), STATE_MR_UPTODATE);
	pb = sim_pair_peer(p.a, B0);
	assert_int_equal(pb->node_seqno, ul_ping_seq(p.a->node));
	assert_int_equal(pa->node_seqno, ul_ping_seq(p.b->node));
	/* The data PUT and A's push. */
	assert_int_equal(b_puts(&p), 2);
	sim_pair_fini(&p);
}

/*
 * §14.5: B adds a net; without A doing anything, A's peer for B lists
 * the new NID, primary still B0. Then the new NI's link goes down on B:
 * B pushes again and A's peer NI for it is DOWN with health below 1000.
 */
static void remote_net_add_and_link_down_reach_us(void **state)
{
	struct ulnet_nid b0 = sim_nid(B0), b99 = sim_nid(B99);
	struct ul_peer_ni *lpni;
	struct ul_peer *peer;
	uint64_t gets;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	a_discovers_b(&p);
	gets = a_gets_sent(&p);
	assert_int_equal(
		ul_node_ni_add(p.b->node, &b99, "eth9", -1, NULL, NULL), 0);
	run(&p);
	peer = sim_pair_peer(p.a, B99);
	assert_non_null(peer);
	assert_true(peer == sim_pair_peer(p.a, B0));
	assert_true(ulnet_nid_same(&peer->primary_nid, &b0));
	assert_int_equal(peer->nnis, 3);
	assert_int_equal(a_gets_sent(&p), gets); /* learnt, not pinged */
	assert_int_equal(ul_disc_state_bits(peer), STATE_MR_UPTODATE);
	lpni = peer_ni_of(p.a, B99);
	assert_int_equal(lpni->ns_status, UL_NS_STATUS_UP);
	assert_int_equal(lpni->healthv, UL_HEALTH_MAX);

	ul_node_link_change(p.b->node, "eth9", false);
	run(&p);
	lpni = peer_ni_of(p.a, B99);
	assert_non_null(lpni);
	assert_int_equal(lpni->ns_status, UL_NS_STATUS_DOWN);
	assert_true(lpni->healthv < UL_HEALTH_MAX);
	/* The other NIDs are untouched. */
	assert_int_equal(peer_ni_of(p.a, B1)->ns_status, UL_NS_STATUS_UP);
	assert_int_equal(peer_ni_of(p.a, B1)->healthv, UL_HEALTH_MAX);
	sim_pair_fini(&p);
}

/* §14.6: B deletes B1; A's peer for B lists only B0 after B's push. */
static void remote_ni_del_reaches_us(void **state)
{
	struct ulnet_nid b1 = sim_nid(B1);
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	a_discovers_b(&p);
	assert_int_equal(sim_pair_peer(p.a, B0)->nnis, 2);
	assert_int_equal(ul_node_ni_del(p.b->node, &b1, NULL), 0);
	run(&p);
	peer = sim_pair_peer(p.a, B0);
	assert_non_null(peer);
	assert_int_equal(peer->nnis, 1);
	assert_null(sim_pair_peer(p.a, B1));
	assert_int_equal(ul_disc_state_bits(peer), STATE_MR_UPTODATE);
	/* Traffic to B goes on, over B0 alone. */
	sim_pair_put(&p, B0);
	run(&p);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 2);
	sim_pair_fini(&p);
}

/* §14.6: the same with B configured on A: B1 stays listed, DOWN. */
static void remote_ni_del_keeps_configured_nid_down(void **state)
{
	struct ulnet_nid b1 = sim_nid(B1);
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, conf_a_peer);
	a_discovers_b(&p);
	assert_int_equal(peer_ni_of(p.a, B1)->ns_status, UL_NS_STATUS_UP);
	assert_int_equal(ul_node_ni_del(p.b->node, &b1, NULL), 0);
	run(&p);
	peer = sim_pair_peer(p.a, B0);
	assert_non_null(peer);
	assert_true(peer == sim_pair_peer(p.a, B1));
	assert_int_equal(peer->nnis, 2);
	assert_int_equal(peer_ni_of(p.a, B1)->ns_status, UL_NS_STATUS_DOWN);
	assert_int_equal(peer_ni_of(p.a, B0)->ns_status, UL_NS_STATUS_UP);
	sim_pair_fini(&p);
}

/*
 * §14.7: B turns discovery off: its forced push (without DISCOVERY, the
 * same sequence) makes A delete its peer for B; A's next PUT makes B
 * again from the NID used: one NID, not Multi-Rail, NO_DISCOVERY.
 */
static void remote_discovery_off_deletes_peer(void **state)
{
	struct ul_err err = { 0 };
	struct ul_peer *peer;
	uint32_t seq;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	a_discovers_b(&p);
	seq = ul_ping_seq(p.b->node);
	assert_int_equal(ul_node_tunable_set(p.b->node, UL_TUNABLE_DISCOVERY, 0,
					     &err),
			 0);
	/* A feature bit: the same sequence (§5), but a FORCE_PUSH to A. */
	assert_int_equal(ul_ping_seq(p.b->node), seq);
	assert_true(sim_pair_peer(p.b, A0)->is_push_forced);
	run(&p);
	assert_false(sim_pair_peer(p.b, A0)->is_push_forced);
	assert_null(sim_pair_peer(p.a, B0));
	assert_null(sim_pair_peer(p.a, B1));

	sim_pair_put(&p, B1);
	run(&p);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 2);
	peer = sim_pair_peer(p.a, B1);
	assert_non_null(peer);
	assert_false(peer->is_mr);
	assert_int_equal(peer->nnis, 1);
	assert_null(sim_pair_peer(p.a, B0));
	assert_int_equal(ul_disc_state_bits(peer),
			 UL_PEER_STATE_NO_DISCOVERY | UL_PEER_STATE_DISCOVERED |
				 UL_PEER_STATE_NIDS_UPTODATE);
	sim_pair_fini(&p);
}

/*
 * §9: a change of our NIs makes an MR peer owe a push; a PUT to it
 * meanwhile waits until the push is ACKed, and goes after it.
 */
static void send_waits_for_owed_push(void **state)
{
	struct ulnet_nid a99 = sim_nid("10.0.99.1@tcp99");
	struct ul_peer *peer;
	uint64_t puts;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	a_discovers_b(&p);
	puts = b_puts(&p);
	assert_int_equal(
		ul_node_ni_add(p.a->node, &a99, "eth9", -1, NULL, NULL), 0);
	peer = sim_pair_peer(p.a, B0);
	assert_int_equal(ul_disc_state_bits(peer),
			 STATE_MR_UPTODATE | UL_PEER_STATE_DISCOVERING);
	sim_pair_put(&p, B0);
	run(&p);
	/* The push, then the PUT; B learnt A's new NID. */
	assert_int_equal(b_puts(&p), puts + 2);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 2);
	assert_int_equal(sim_pair_peer(p.b, A0)->nnis, 3);
	assert_true(sim_pair_peer(p.b, "10.0.99.1@tcp99") ==
		    sim_pair_peer(p.b, A0));
	assert_int_equal(ul_disc_state_bits(peer), STATE_MR_UPTODATE);
	sim_pair_fini(&p);
}

/*
 * §8.2: a push nobody ACKs fails the round with -ETIMEDOUT (REDISCOVER),
 * and the PUT that waited for it ends with that error as its SEND.
 */
static void unanswered_push_fails_round(void **state)
{
	struct ul_simlink_props lost = { 0, 1000, 1.0, true };
	struct ulnet_nid a99 = sim_nid("10.0.99.1@tcp99");
	const struct sim_ev *ev;
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	a_discovers_b(&p);
	ul_simfab_default_set(p.sim->fab, &lost);
	assert_int_equal(
		ul_node_ni_add(p.a->node, &a99, "eth9", -1, NULL, NULL), 0);
	sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + 20 * SEC);
	peer = sim_pair_peer(p.a, B0);
	assert_int_equal(ul_disc_state_bits(peer),
			 (STATE_MR_UPTODATE & ~UL_PEER_STATE_NIDS_UPTODATE) |
				 UL_PEER_STATE_REDISCOVER);
	assert_int_equal(peer->disc_error, -ETIMEDOUT);
	ev = sim_ev_last(p.a, TAG_SRC);
	assert_int_equal(ev->ev.type, ULNET_EVENT_SEND);
	assert_int_equal(ev->ev.status, -ETIMEDOUT);
	sim_pair_fini(&p);
}

#define BIG_NIS 17

/*
 * §8.2 passive step 7: B with 17 NIs discovers A and pushes 18 entries
 * (304 bytes) into A's 272-byte push target. A pings B instead and
 * learns all of B's NIDs, and its push target grows to 304 bytes: when
 * B deletes an NI, its push (288 bytes) arrives whole, no ping needed.
 */
static void truncated_push_is_pinged(void **state)
{
	struct ulnet_process_id to = sim_pid(A0);
	struct ulnet_nid last;
	char conf[2048];
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_conf_many(conf, sizeof(conf), BIG_NIS);
	/* This time B sends and A takes the PUT. */
	sim_pair_init_with(&p, sim_pair_conf_a, conf, true);
	assert_int_equal(ul_node_put(p.b->node, NULL, p.src, ULNET_ACK_REQ, &to,
				     PORTAL, 0, 0, 0),
			 0);
	run(&p);
	assert_int_equal(sim_ev_count_type(p.b, TAG_SRC, ULNET_EVENT_ACK), 1);
	/* A pinged B (its 272-byte ping cut too, so twice): all NIDs. */
	peer = sim_pair_peer(p.a, "10.0.0.2@tcp");
	assert_non_null(peer);
	assert_true(peer->is_mr);
	assert_int_equal(peer->nnis, BIG_NIS);
	assert_int_equal(a_gets_sent(&p), 2);
	assert_int_equal(ul_disc_state_bits(peer), STATE_MR_UPTODATE);
	last = sim_nid("10.0.16.2@tcp");
	assert_int_equal(ul_node_ni_del(p.b->node, &last, NULL), 0);
	run(&p);
	assert_int_equal(sim_pair_peer(p.a, "10.0.0.2@tcp")->nnis, BIG_NIS - 1);
	assert_null(sim_pair_peer(p.a, "10.0.16.2@tcp"));
	assert_int_equal(a_gets_sent(&p), 2);
	sim_pair_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(push_teaches_b_our_nids),
		cmocka_unit_test(remote_net_add_and_link_down_reach_us),
		cmocka_unit_test(remote_ni_del_reaches_us),
		cmocka_unit_test(remote_ni_del_keeps_configured_nid_down),
		cmocka_unit_test(remote_discovery_off_deletes_peer),
		cmocka_unit_test(send_waits_for_owed_push),
		cmocka_unit_test(unanswered_push_fails_round),
		cmocka_unit_test(truncated_push_is_pinged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
