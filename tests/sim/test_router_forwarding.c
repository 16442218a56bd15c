/*
 * A ulnet node forwards (reference/routing.md §7.2-§7.4, §10.1, §10.11):
 * C on tcp reaches S on tcp1 through the router R (helper_router.h).
 * Each test fails without forwarding: R then drops every message for S.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/fault.h"
#include "helper_health.h"
#include "helper_router.h"

#define S_NID "10.1.0.20@tcp1"
#define TAG_SINK 100

/*
 * §10.1: a PUT (one page and a half: the large pool) and a GET (a small
 * REPLY) go through R byte for byte; each ends in one final event on C;
 * R counts four routed messages and their bytes, and its pools are full
 * again afterwards.
 */
/* Every event of type with tag on sn names nid as the initiator. */
static bool initiator_is(const struct sim_node *sn, uintptr_t tag,
			 enum ulnet_event_type type, const char *nid)
{
	struct ulnet_nid want = sim_nid(nid);
	size_t n = 0;

	for (size_t i = 0; i < sn->nevs; i++) {
		const struct ulnet_event *ev = &sn->evs[i].ev;

		if ((uintptr_t)ev->md_user_ptr != tag || ev->type != type)
			continue;
		if (!ulnet_nid_same(&ev->initiator.nid, &want))
			return false;
		n++;
	}
	return n > 0;
}

static void router_forwards_put_and_get(void **state)
{
	enum { PUT_LEN = 6000, GET_LEN = 3000 };
	static unsigned char put_buf[PUT_LEN], get_buf[GET_LEN];
	struct hr h;

	(void)state;
	hr_init(&h, NULL, NULL);
	hr_sink(&h, h.s, TAG_SINK);
	sim_fill(put_buf, PUT_LEN, 9);
	hr_put(h.c, S_NID, put_buf, PUT_LEN, 1);
	sim_run_idle(h.sim, 10 * HR_SEC);
	assert_int_equal(hr_final(h.c, 1), 0);
	assert_int_equal(sim_ev_count_type(h.c, 1, ULNET_EVENT_ACK), 1);
	assert_int_equal(sim_ev_count_type(h.s, TAG_SINK, ULNET_EVENT_PUT), 1);
	assert_memory_equal(h.sbuf, put_buf, PUT_LEN);

	hr_get(h.c, S_NID, get_buf, GET_LEN, 2);
	sim_run_idle(h.sim, 10 * HR_SEC);
	assert_int_equal(hr_final(h.c, 2), 0);
	assert_int_equal(sim_ev_count_type(h.c, 2, ULNET_EVENT_REPLY), 1);
	assert_memory_equal(get_buf, h.sbuf, GET_LEN);

	/* PUT, ACK, GET, REPLY went through R; nothing was dropped. */
	assert_int_equal(hr_cnt(h.r)->route_count, 4);
	assert_int_equal(hr_cnt(h.r)->route_length, PUT_LEN + GET_LEN);
	assert_int_equal(hr_cnt(h.r)->drop_count, 0);
	/* The header kept its ends: S saw C as the initiator. */
	assert_int_equal(hr_lpni_stats(h.r, S_NID)->send_count[UL_MSG_PUT], 1);
	assert_true(
		initiator_is(h.s, TAG_SINK, ULNET_EVENT_GET, "10.0.0.10@tcp"));
	for (int k = 0; k < UL_RTRPOOL_NR; k++) {
		assert_int_equal(hr_pool_mincredits(h.r, k), 0);
		assert_int_equal(
			hr_pool_credits(h.r, k),
			ul_routing_total(&ul_node_core(h.r->node)->routing, k));
	}
	hr_fini(&h);
}

/*
 * §7.1 / §7.4 step 2: with routing disabled R drops the PUT and counts
 * it; C's operation still ends, in one failed event.
 */
static void router_disabled_drops_and_counts(void **state)
{
	static unsigned char buf[100];
	struct ul_err *no_err = NULL;
	struct hr h;

	(void)state;
	hr_init(&h, NULL, NULL);
	hr_sink(&h, h.s, TAG_SINK);
	/*
	 * C checks R no more: its route stays up as at its last check, so
	 * the PUT reaches R (the next check would take the route down and
	 * C would refuse the PUT with -EHOSTUNREACH, routing.md §10.7).
	 */
	ul_node_core(h.c->node)->tun.alive_router_check_interval = 0;
	assert_int_equal(
		ul_node_routing_set(h.r->node, "routing", 0, 1, no_err), 0);
	/* STOPPING forwards still; DISABLED once the wait is over. */
	sim_run_idle(h.sim, 400 * HR_SEC);
	assert_int_equal(ul_node_core(h.r->node)->routing.state,
			 UL_ROUTING_DISABLED);
	hr_put(h.c, S_NID, buf, sizeof(buf), 1);
	sim_run_idle(h.sim, 400 * HR_SEC);
	assert_int_not_equal(hr_final(h.c, 1), 0);
	assert_int_equal(sim_ev_count_type(h.s, TAG_SINK, ULNET_EVENT_PUT), 0);
	assert_int_equal(hr_cnt(h.r)->drop_count, 1);
	assert_int_equal(hr_cnt(h.r)->drop_length, sizeof(buf));
	assert_int_equal(hr_cnt(h.r)->route_count, 0);
	hr_fini(&h);
}

/*
 * §7.2, §7.3: R's tiny pools are asked down to one buffer each (a pool
 * shrinks as its buffers come back, as LNet's does) and 64 GETs come at
 * once, eight times the sender's 8 router credits: they wait for router
 * credits, then for the shrinking pool's buffers, and all complete; the
 * pool of C's CPT ends with its one buffer and every credit is back.
 */
static void router_pool_exhaustion_waits(void **state)
{
	enum { NGETS = 64, LEN = 64 };
	static unsigned char bufs[NGETS][LEN];
	struct hr h;
	struct ul_peer_ni *c_lpni;
	struct ulnet_nid c_nid = sim_nid("10.0.0.10@tcp");

	(void)state;
	hr_init(&h, "buffers:\n    tiny: 1\n", NULL);
	hr_sink(&h, h.s, TAG_SINK);
	for (int i = 0; i < NGETS; i++)
		hr_get(h.c, S_NID, bufs[i], LEN, 1 + (uintptr_t)i);
	sim_run_idle(h.sim, 10 * HR_SEC);
	for (int i = 0; i < NGETS; i++) {
		assert_int_equal(hr_final(h.c, 1 + (uintptr_t)i), 0);
		assert_memory_equal(bufs[i], h.sbuf, LEN);
	}
	assert_int_equal(hr_cnt(h.r)->drop_count, 0);
	assert_int_equal(hr_cnt(h.r)->route_count, 2 * NGETS);
	/* GETs waited for the tiny buffers of C's CPT ... */
	assert_true(hr_pool_mincredits(h.r, UL_RTRPOOL_TINY) < 0);
	assert_int_equal(ul_routing_pool(&ul_node_core(h.r->node)->routing,
					 &c_nid, UL_RTRPOOL_TINY)
				 ->nbuffers,
			 1);
	assert_int_equal(hr_pool_credits(h.r, UL_RTRPOOL_TINY),
			 ul_routing_total(&ul_node_core(h.r->node)->routing,
					  UL_RTRPOOL_TINY));
	/* ... and for C's router credits (peer_credits 8). */
	c_lpni = ul_peer_ni_find(ul_node_core(h.r->node), &c_nid);
	assert_non_null(c_lpni);
	assert_int_equal(c_lpni->msgs->rtrcredits, 8);
	assert_true(c_lpni->msgs->minrtrcredits < 0);
	hr_fini(&h);
}

/*
 * §10.11: R's retry_count 0 and transaction_timeout 10, R's peer credits
 * toward S 1, GETs held 11 s by a delay rule on R: the second GET waits
 * for the credit past its deadline, and is still sent (a router never
 * drops for age). Nothing is dropped for S.
 */
static void router_never_drops_for_age(void **state)
{
	static unsigned char bufs[2][32];
	struct hr h;

	(void)state;
	hr_init(&h, NULL, NULL);
	assert_int_equal(ul_node_tunable_set(h.r->node, UL_TUNABLE_RETRY_COUNT,
					     0, NULL),
			 0);
	assert_int_equal(ul_node_tunable_set(h.r->node,
					     UL_TUNABLE_TRANSACTION_TIMEOUT, 10,
					     NULL),
			 0);
	hr_sink(&h, h.s, TAG_SINK);
	{
		struct ulnet_nid s_nid = sim_nid(S_NID);
		struct ul_peer_ni *lpni;

		/* R's peer credits toward S: one. */
		assert_int_equal(
			ul_peer_ni_find_or_create(ul_node_core(h.r->node),
						  &s_nid, NULL, &lpni),
			0);
		lpni->txcredits = 1;
		lpni->mintxcredits = 1;
	}
	hh_delay(h.r, "*", "*", UL_FAULT_MSG_GET, 1, 11);
	hr_get(h.c, S_NID, bufs[0], sizeof(bufs[0]), 1);
	hr_get(h.c, S_NID, bufs[1], sizeof(bufs[1]), 2);
	sim_run_idle(h.sim, 100 * HR_SEC);
	assert_int_equal(hr_final(h.c, 1), 0);
	assert_int_equal(hr_final(h.c, 2), 0);
	assert_int_equal(hr_lpni_stats(h.r, S_NID)->drop_count[UL_MSG_GET], 0);
	assert_int_equal(hr_cnt(h.r)->drop_count, 0);
	hr_fini(&h);
}

static void note_wake(void *ctx)
{
	*(bool *)ctx = true;
}

/*
 * A driver that flushes only the nodes that said they have work
 * (ul_node_opts.wake, as bench_fabric drives 10,000 nodes) gets R's
 * forwarding done at once: a message R received to send on is work for
 * ul_node_flush(). Before, R sent it on at its next tick, a second
 * later on the virtual clock.
 */
static void router_forwarding_wakes_its_driver(void **state)
{
	static unsigned char buf[64];
	bool woken[3] = { true, true, true };
	struct sim_node *n[3];
	const struct sim_ev *ack;
	struct ul_timer_heap *heap;
	uint64_t t0, next;
	struct hr h;

	(void)state;
	hr_init(&h, NULL, NULL);
	hr_sink(&h, h.s, TAG_SINK);
	n[0] = h.c;
	n[1] = h.r;
	n[2] = h.s;
	for (int i = 0; i < 3; i++) {
		n[i]->node->opts.wake = note_wake;
		n[i]->node->opts.wake_ctx = &woken[i];
	}
	heap = &h.sim->heap;
	t0 = heap->now_ns;
	hr_put(h.c, S_NID, buf, sizeof(buf), 1);
	while (!sim_ev_last(h.c, 1) ||
	       sim_ev_count_type(h.c, 1, ULNET_EVENT_ACK) == 0) {
		for (int i = 0; i < 3; i++) {
			while (woken[i]) {
				woken[i] = false;
				if (ul_node_flush(n[i]->node))
					woken[i] = true;
			}
		}
		next = ul_timer_heap_next(heap);
		if (next == UL_TIMER_NEVER || next > t0 + 5 * HR_SEC)
			break;
		ul_timer_heap_run(heap,
				  next > heap->now_ns ? next : heap->now_ns);
	}
	ack = sim_ev_last(h.c, 1);
	assert_non_null(ack);
	assert_int_equal(ack->ev.type, ULNET_EVENT_ACK);
	assert_int_equal(ack->ev.status, 0);
	assert_true(ack->at_ns - t0 < 100 * HR_MS);
	/* woken lives in this frame; the teardown still queues work */
	for (int i = 0; i < 3; i++)
		n[i]->node->opts.wake = NULL;
	hr_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(router_forwards_put_and_get),
		cmocka_unit_test(router_disabled_drops_and_counts),
		cmocka_unit_test(router_pool_exhaustion_waits),
		cmocka_unit_test(router_never_drops_for_age),
		cmocka_unit_test(router_forwarding_wakes_its_driver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
