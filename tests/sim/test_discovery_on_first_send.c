/*
 * Discovery on the send path (reference/discovery.md §7.1 item 1, §7.2,
 * §10, §14.3, §14.8), on the virtual clock. Nodes A and B have two NIs
 * each on tcp and no `peer:` section:
 *
 *   A 10.0.0.1@tcp --- B0 10.0.0.2@tcp
 *     10.0.1.1@tcp --- B1 10.0.1.2@tcp    (every pair linked, 1 us)
 *
 * A's first PUT to B0 waits while A pings B0; only the ping GET reaches
 * B before the REPLY is processed, then the PUTs go, over both of B's
 * NIs once B is known to be Multi-Rail. A silent B fails the waiting PUT
 * with the discovery's error and marks the peer REDISCOVER; the next
 * PUT discovers again. With discovery off A pings once and B stays a
 * one-NID, non-MR peer.
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
#include "core/select.h"
#include "helper_pair.h"
#include "helper_sim.h"

#define PORTAL SIM_PAIR_PORTAL
#define SEC 1000000000ull
#define TT_SEC 4 /* transaction_timeout */
#define NPUTS 1000
#define TAG_SRC SIM_PAIR_TAG_SRC
#define TAG_SINK SIM_PAIR_TAG_SINK

#define B0 "10.0.0.2@tcp"
#define B1 "10.0.1.2@tcp"

static const char conf_a_nodisc[] = "net:\n"
				    "  - net type: tcp\n"
				    "    local NI(s):\n"
				    "      - nid: 10.0.0.1@tcp\n"
				    "      - nid: 10.0.1.1@tcp\n"
				    "global:\n"
				    "    discovery: 0\n"
				    "    transaction_timeout: 4\n";

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
				  "global:\n"
				  "    transaction_timeout: 4\n";

/* Messages of type t that B received, over both its NIs. */
static uint64_t b_recv(struct sim_pair *p, int t)
{
	return sim_ni_info(p->b, B0).stats.recv_count[t] +
	       sim_ni_info(p->b, B1).stats.recv_count[t];
}

/* A's peer holding nid, or fail. */
static struct ul_peer *a_peer(struct sim_pair *p, const char *nid)
{
	struct ulnet_nid id = sim_nid(nid);
	struct ul_peer *peer = ul_peer_find(ul_node_core(p->a->node), &id);

	assert_non_null(peer);
	return peer;
}

/* §14.3: the PUT waits; only the ping reaches B before the REPLY. */
static void first_put_waits_for_discovery(void **state)
{
	struct ulnet_nid b0 = sim_nid(B0);
	struct sim_pair p;
	struct ul_peer *peer;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	sim_pair_put(&p, B0);
	/* The ping GET is at B (1 us), its REPLY not yet back at A. */
	sim_run(p.sim, p.sim->heap.now_ns + 1500);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	assert_int_equal(b_recv(&p, UL_MSG_PUT), 0);
	assert_int_equal(sim_ev_count(p.a, TAG_SRC), 0);
	peer = a_peer(&p, B0);
	assert_int_equal(ul_disc_state_bits(peer),
			 UL_PEER_STATE_DISCOVERING | UL_PEER_STATE_PING_SENT);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	/*
	 * Then A pushed its ping info (§7.2, a PUT on the reserved portal),
	 * the PUT went, and its events are those of any PUT.
	 */
	assert_int_equal(b_recv(&p, UL_MSG_PUT), 2);
	assert_int_equal(sim_ev_count_type(p.b, TAG_SINK, ULNET_EVENT_PUT), 1);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_SEND), 1);
	assert_int_equal(sim_ev_last(p.a, TAG_SRC)->ev.type, ULNET_EVENT_ACK);
	/* B is known now: MR, both NIDs, 273 as lnetctl shows (§6). */
	peer = a_peer(&p, B1);
	assert_true(peer == a_peer(&p, B0));
	assert_true(ulnet_nid_same(&peer->primary_nid, &b0));
	assert_int_equal(ul_disc_state_bits(peer), 273);
	assert_int_equal(peer->nnis, 2);
	/* Up to date: the next PUT goes at once, no second ping. */
	sim_pair_put(&p, B1);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	assert_int_equal(b_recv(&p, UL_MSG_PUT), 3);
	sim_pair_fini(&p);
}

/* §14.3: B silent: the PUT's SEND carries the error; then again. */
static void silent_peer_fails_put_and_rediscovers(void **state)
{
	struct ul_simlink_props lost = { 0, 1000, 1.0, true };
	struct ul_simlink_props good = { 0, 1000, 0.0, true };
	const struct sim_ev *ev;
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	ul_simfab_default_set(p.sim->fab, &lost);
	sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + 3 * TT_SEC * SEC);
	/* Exactly one final event: the SEND, with the ping's timeout. */
	assert_int_equal(sim_ev_count(p.a, TAG_SRC), 1);
	ev = sim_ev_last(p.a, TAG_SRC);
	assert_int_equal(ev->ev.type, ULNET_EVENT_SEND);
	assert_int_equal(ev->ev.status, -ETIMEDOUT);
	assert_true(ev->at_ns >= TT_SEC * SEC);
	assert_int_equal(b_recv(&p, UL_MSG_PUT), 0);
	peer = a_peer(&p, B0);
	assert_int_equal(ul_disc_state_bits(peer), UL_PEER_STATE_REDISCOVER);
	assert_int_equal(peer->nnis, 1);
	/* B answers again: the next PUT starts a new discovery. */
	ul_simfab_default_set(p.sim->fab, &good);
	sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + 1500);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	assert_int_equal(ul_disc_state_bits(peer) & UL_PEER_STATE_DISCOVERING,
			 UL_PEER_STATE_DISCOVERING);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	assert_int_equal(sim_ev_count(p.a, TAG_SRC), 3);
	assert_int_equal(sim_ev_last(p.a, TAG_SRC)->ev.type, ULNET_EVENT_ACK);
	assert_int_equal(b_recv(&p, UL_MSG_PUT), 2); /* A's push, the PUT */
	assert_int_equal(ul_disc_state_bits(a_peer(&p, B0)), 273);
	sim_pair_fini(&p);
}

/* §14.8: discovery off on A: one ping, B stays one non-MR NID. */
static void discovery_off_pings_once_and_stays_non_mr(void **state)
{
	struct sim_pair p;
	struct ul_peer *peer;
	struct ulnet_nid b1 = sim_nid(B1);

	(void)state;
	sim_pair_init(&p, conf_a_nodisc);
	for (int i = 0; i < 10; i++)
		sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	assert_int_equal(sim_ni_info(p.b, B0).stats.recv_count[UL_MSG_PUT], 10);
	assert_int_equal(sim_ni_info(p.b, B1).stats.recv_count[UL_MSG_PUT], 0);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 10);
	peer = a_peer(&p, B0);
	assert_false(peer->is_mr);
	assert_int_equal(peer->nnis, 1);
	assert_null(ul_peer_find(ul_node_core(p.a->node), &b1));
	assert_int_equal(ul_disc_state_bits(peer),
			 UL_PEER_STATE_NO_DISCOVERY | UL_PEER_STATE_DISCOVERED |
				 UL_PEER_STATE_NIDS_UPTODATE);
	sim_pair_fini(&p);
}

/* §8.3: a configured peer is pinged once, and keeps its NID list. */
static void configured_peer_keeps_its_nids(void **state)
{
	struct sim_pair p;
	struct ul_peer *peer;
	struct ulnet_nid b1 = sim_nid(B1);

	(void)state;
	sim_pair_init(&p, conf_a_peer);
	for (int i = 0; i < 10; i++)
		sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	/* The 10 PUTs and A's push: B is MR by configuration (§7.3). */
	assert_int_equal(sim_ni_info(p.b, B0).stats.recv_count[UL_MSG_PUT], 11);
	peer = a_peer(&p, B0);
	assert_int_equal(peer->nnis, 1);
	/*
	 * B pushed back from whichever NI it chose; a push from B1 makes a
	 * peer of B1 as any traffic does (§11), never a NID of this one.
	 */
	assert_true(ul_peer_find(ul_node_core(p.a->node), &b1) != peer);
	assert_int_equal(ul_disc_state_bits(peer),
			 UL_PEER_STATE_MULTI_RAIL | UL_PEER_STATE_CONFIGURED |
				 UL_PEER_STATE_DISCOVERED |
				 UL_PEER_STATE_NIDS_UPTODATE);
	sim_pair_fini(&p);
}

/* a and b within 10% of the larger, and both carried something. */
static void assert_about_half(uint64_t a, uint64_t b, const char *what)
{
	uint64_t hi = a > b ? a : b;
	uint64_t lo = a > b ? b : a;

	print_message("%s: %llu / %llu\n", what, (unsigned long long)a,
		      (unsigned long long)b);
	assert_true(lo > 0);
	assert_true((hi - lo) * 100 <= hi * 10);
}

/* The headline: no peer section, yet both of B's rails carry PUTs. */
static void discovery_spreads_puts_over_both_rails(void **state)
{
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	for (int i = 0; i < NPUTS; i++)
		sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + 10 * SEC);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_SEND),
			 NPUTS);
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK),
			 NPUTS);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	assert_about_half(sim_ni_info(p.b, B0).stats.recv_count[UL_MSG_PUT],
			  sim_ni_info(p.b, B1).stats.recv_count[UL_MSG_PUT],
			  "PUTs received per NI of b");
	assert_about_half(
		sim_ni_info(p.a, "10.0.0.1@tcp").stats.send_count[UL_MSG_PUT],
		sim_ni_info(p.a, "10.0.1.1@tcp").stats.send_count[UL_MSG_PUT],
		"PUTs sent per NI of a");
	sim_pair_fini(&p);
}

struct pong {
	int ncalls;
	int status;
};

static void on_pong(void *arg, int status, const struct ulnet_ping_result *res)
{
	struct pong *pg = arg;

	(void)res;
	pg->ncalls++;
	pg->status = status;
}

/* §14.2: a ping (reserved portal) is no discovery and never waits. */
static void ping_neither_waits_nor_discovers(void **state)
{
	struct ulnet_process_id to = sim_pid(B1);
	struct ulnet_nid b0 = sim_nid(B0);
	struct pong pg = { 0 };
	struct ul_peer *peer;
	struct sim_pair p;

	(void)state;
	sim_pair_init(&p, sim_pair_conf_a);
	assert_int_equal(ul_node_ping(p.a->node, NULL, &to, 1000, on_pong, &pg),
			 0);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	assert_int_equal(pg.ncalls, 1);
	assert_int_equal(pg.status, 0);
	assert_int_equal(b_recv(&p, UL_MSG_GET), 1);
	peer = a_peer(&p, B1);
	assert_false(peer->is_mr);
	assert_int_equal(peer->nnis, 1);
	assert_int_equal(ul_disc_state_bits(peer), 0);
	assert_null(ul_peer_find(ul_node_core(p.a->node), &b0));
	sim_pair_fini(&p);
}

#define BIG_NIS 16

/*
 * §14.12: B with 16 NIs answers with 17 entries (0@lo first), 288 bytes,
 * which A's first discovery ping (272 bytes) truncates; A pings again
 * with room for all of it and then knows every NID, and the waiting PUT
 * goes. The larger size is kept: a later discovery pings once.
 */
static void truncated_reply_is_pinged_again(void **state)
{
	char conf[2048], nid[32];
	struct ul_peer *peer;
	uint64_t gets = 0;
	struct sim_pair p;
	int i;

	(void)state;
	sim_pair_conf_many(conf, sizeof(conf), BIG_NIS);
	sim_pair_init_with(&p, sim_pair_conf_a, conf, false);

	sim_pair_put(&p, B0);
	sim_run(p.sim, p.sim->heap.now_ns + SEC);
	for (i = 0; i < BIG_NIS; i++) {
		snprintf(nid, sizeof(nid), "10.0.%d.2@tcp", i);
		gets += sim_ni_info(p.b, nid).stats.recv_count[UL_MSG_GET];
	}
	assert_int_equal(gets, 2); /* truncated, then whole */
	assert_int_equal(sim_ev_count_type(p.a, TAG_SRC, ULNET_EVENT_ACK), 1);
	peer = a_peer(&p, B0);
	assert_true(peer->is_mr);
	assert_int_equal(peer->nnis, BIG_NIS);
	assert_int_equal(peer->disc_ping_size, 16 + (BIG_NIS + 1) * 16);
	sim_pair_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_put_waits_for_discovery),
		cmocka_unit_test(silent_peer_fails_put_and_rediscovers),
		cmocka_unit_test(discovery_off_pings_once_and_stays_non_mr),
		cmocka_unit_test(discovery_spreads_puts_over_both_rails),
		cmocka_unit_test(configured_peer_keeps_its_nids),
		cmocka_unit_test(ping_neither_waits_nor_discovers),
		cmocka_unit_test(truncated_reply_is_pinged_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
