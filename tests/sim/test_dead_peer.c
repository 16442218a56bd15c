/*
 * A peer that dies or restarts while a PUT waits for its ACK (issue 12:
 * "operations in flight end with an error status within one
 * lnd_timeout"). A sends B a PUT asking for an ACK; B holds it on
 * receive with a delay rule (fault.md §6), so the PUT is delivered and
 * its SEND done, and the ACK is owed. Then B's process dies, restarts,
 * or its connection to A is reset, and simlnd tells A (peer_down).
 * transaction_timeout is 100 s: without the news, A would wait 100 to
 * 150 s for the ACK (health.md §6).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/msg.h"
#include "core/tunables.h"
#include "helper_health.h"

#define TT_CONF "    transaction_timeout: 100\n"
#define TAG_PUT 1
#define TAG_SINK 2

/*
 * A's LND timeout in ns (simlnd has none of its own: LNet's lnd_timeout,
 * 33 s here), well below the transaction timeout.
 */
static uint64_t lnd_timeout_ns(struct hh *h)
{
	uint32_t sec = ul_tunables_lnd_timeout(&ul_node_core(h->a->node)->tun);

	assert_true(sec > 0 && sec < 50);
	return (uint64_t)sec * HH_SEC;
}

/* A PUT from A that B holds for hold_sec; its SEND is done at +1 s. */
static uint64_t put_held_by_b(struct hh *h, uint32_t hold_sec)
{
	uint64_t t0 = h->sim->heap.now_ns;
	const struct sim_ev *ev;

	(void)hh_sink(h->b, TAG_SINK);
	hh_delay(h->b, "10.0.0.1@tcp", "*", UL_FAULT_MSG_PUT, 1, hold_sec);
	hh_put(h->a, "10.0.0.2@tcp", TAG_PUT);
	sim_run(h->sim, t0 + HH_SEC);
	assert_int_equal(sim_ev_count(h->a, TAG_PUT), 1);
	ev = sim_ev_last(h->a, TAG_PUT);
	assert_int_equal(ev->ev.type, ULNET_EVENT_SEND);
	assert_int_equal(ev->ev.status, 0);
	return t0;
}

/* The PUT's final event: the second one, an error, unlinked. */
static const struct sim_ev *final_error(struct hh *h)
{
	const struct sim_ev *ev;

	assert_int_equal(sim_ev_count(h->a, TAG_PUT), 2);
	ev = sim_ev_last(h->a, TAG_PUT);
	assert_true(ev->ev.unlinked);
	assert_true(ev->ev.status < 0);
	return ev;
}

/* B dies after taking the PUT: it ends within one lnd_timeout. */
static void peer_dies_after_put_delivered(void **state)
{
	const struct sim_ev *ev;
	uint64_t lndt, t_kill;
	struct hh h;

	(void)state;
	hh_init(&h, false, TT_CONF);
	lndt = lnd_timeout_ns(&h);
	put_held_by_b(&h, 60);
	t_kill = h.sim->heap.now_ns;
	hh_kill_b(&h);
	sim_run(h.sim, t_kill + lndt - HH_SEC);
	/* a peer that comes back in time may still answer */
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 1);
	sim_run(h.sim, t_kill + lndt + HH_SEC);
	ev = final_error(&h);
	assert_int_equal(ev->ev.type, ULNET_EVENT_UNLINK);
	assert_int_equal(ev->ev.status, -ETIMEDOUT);
	assert_true(ev->at_ns <= t_kill + lndt + HH_SEC);
	assert_int_equal(hh_cnt(h.a)->response_timeout_count, 1);
	/* exactly one final event */
	sim_run(h.sim, h.sim->heap.now_ns + 300 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 2);
	hh_fini(&h);
}

/* B restarts: A's pending PUT ends as soon as A meets the new B. */
static void peer_restart_ends_pending_put_at_once(void **state)
{
	const struct sim_ev *ev;
	uint64_t t_meet;
	struct hh h;

	(void)state;
	hh_init(&h, false, TT_CONF);
	put_held_by_b(&h, 60);
	hh_restart_b(&h);
	sim_run(h.sim, h.sim->heap.now_ns + 2 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 1);
	/* the new B talks to A: A learns its new incarnation */
	t_meet = h.sim->heap.now_ns;
	assert_int_equal(hh_ping(&h, h.b, NULL, "10.0.0.1@tcp"), 0);
	ev = final_error(&h);
	assert_int_equal(ev->ev.type, ULNET_EVENT_UNLINK);
	assert_int_equal(ev->ev.status, -ECONNRESET);
	assert_true(ev->at_ns < t_meet + HH_SEC);
	/* a restart is no response timeout and no fault of the path */
	assert_int_equal(hh_cnt(h.a)->response_timeout_count, 0);
	assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp"), 1000);
	sim_run(h.sim, h.sim->heap.now_ns + 300 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 2);
	hh_fini(&h);
}

/* A restarted peer answers what A sends it after the restart. */
static void put_after_restart_succeeds(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, false, TT_CONF);
	assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), 0);
	hh_restart_b(&h);
	(void)hh_sink(h.b, TAG_SINK);
	hh_put(h.a, "10.0.0.2@tcp", TAG_PUT);
	sim_run(h.sim, h.sim->heap.now_ns + 300 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 2);
	assert_int_equal(sim_ev_count_type(h.a, TAG_PUT, ULNET_EVENT_SEND), 1);
	assert_int_equal(sim_ev_count_type(h.a, TAG_PUT, ULNET_EVENT_ACK), 1);
	assert_int_equal(sim_ev_last(h.a, TAG_PUT)->ev.status, 0);
	assert_int_equal(sim_ev_count(h.b, TAG_SINK), 1);
	hh_fini(&h);
}

/*
 * A reset whose peer answers within lnd_timeout: success, one final
 * event. One whose answer comes later: an error at reset + lnd_timeout.
 */
static void reset_then_quick_ack_succeeds(void **state)
{
	struct ulnet_nid a0 = sim_nid("10.0.0.1@tcp");
	struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
	const struct sim_ev *ev;
	uint64_t lndt, t_reset;
	struct hh h;

	(void)state;
	hh_init(&h, false, TT_CONF);
	put_held_by_b(&h, 3);
	assert_int_equal(ul_simfab_conn_reset(h.sim->fab, &a0, &b0), 0);
	sim_run(h.sim, h.sim->heap.now_ns + 300 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 2);
	assert_int_equal(sim_ev_count_type(h.a, TAG_PUT, ULNET_EVENT_ACK), 1);
	ev = sim_ev_last(h.a, TAG_PUT);
	assert_int_equal(ev->ev.type, ULNET_EVENT_ACK);
	assert_int_equal(ev->ev.status, 0);
	assert_true(ev->ev.unlinked);
	assert_int_equal(hh_cnt(h.a)->response_timeout_count, 0);
	hh_fini(&h);

	hh_init(&h, false, TT_CONF);
	lndt = lnd_timeout_ns(&h);
	put_held_by_b(&h, (uint32_t)(lndt / HH_SEC) + 20);
	t_reset = h.sim->heap.now_ns;
	assert_int_equal(ul_simfab_conn_reset(h.sim->fab, &a0, &b0), 0);
	sim_run(h.sim, t_reset + lndt + HH_SEC);
	ev = final_error(&h);
	assert_int_equal(ev->ev.type, ULNET_EVENT_UNLINK);
	assert_int_equal(ev->ev.status, -ETIMEDOUT);
	/* the late ACK finds no MD: still one final event */
	sim_run(h.sim, h.sim->heap.now_ns + 300 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, TAG_PUT), 2);
	hh_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(peer_dies_after_put_delivered),
		cmocka_unit_test(peer_restart_ends_pending_put_at_once),
		cmocka_unit_test(put_after_restart_succeeds),
		cmocka_unit_test(reset_then_quick_ack_succeeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
