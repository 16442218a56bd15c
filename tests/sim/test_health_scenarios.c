/*
 * LNet Health's test scenarios (reference/health.md §14) on the
 * simulator: failures are injected with drop rules carrying a health
 * status (fault.md §5), as sanity-lnet does with `lnetctl fault drop add
 * -e`, and `ping` is the trigger. Each test names its §14 row. "MR": A
 * and B have two NIs each and know each other as Multi-Rail; "SR": one
 * NI each.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/health.h"
#include "core/msg.h"
#include "core/ni.h"
#include "core/peer.h"
#include "core/tunables.h"
#include "helper_health.h"

#define GET UL_FAULT_MSG_GET

static const enum ul_hstatus local_resendable[] = {
	UL_HSTATUS_LOCAL_INTERRUPT, UL_HSTATUS_LOCAL_DROPPED,
	UL_HSTATUS_LOCAL_ABORTED,   UL_HSTATUS_LOCAL_NO_ROUTE,
	UL_HSTATUS_LOCAL_TIMEOUT,
};

/* §14.1, §14.2: SR, any local status: no resends, local health -100. */
static void sr_local_status_fails_without_resend(void **state)
{
	(void)state;
	for (size_t i = 0; i <= 5; i++) {
		enum ul_hstatus hs = i < 5 ? local_resendable[i]
					   : UL_HSTATUS_LOCAL_ERROR;
		struct hh h;

		print_message("row %zu: %s\n", i, ul_hstatus_name(hs));
		hh_init(&h, false, NULL);
		hh_drop(h.a, "*", "*", GET, 1, (int)hs);
		assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
		assert_int_equal(hh_cnt(h.a)->resend_count, 0);
		assert_int_equal(hh_cnt(h.a)->failed_resends, 0);
		assert_int_equal(hh_cnt(h.a)->successful_resends, 0);
		assert_int_equal(hh_ni_health_sum(h.a), 900);
		assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp"), 1000);
		/* a local failure queues the NI for recovery (§5.1) */
		assert_true(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
		hh_fini(&h);
	}
}

/* §14.3: MR, local resendable: 2 resends, then failed; -100 each try. */
static void mr_local_resendable_resends_then_fails(void **state)
{
	(void)state;
	for (size_t i = 0; i < 5; i++) {
		struct hh h;

		print_message("row %zu: %s\n", i,
			      ul_hstatus_name(local_resendable[i]));
		hh_init(&h, true, NULL);
		hh_drop(h.a, "*", "*", GET, 1, (int)local_resendable[i]);
		assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
		assert_int_equal(hh_cnt(h.a)->resend_count, 2);
		assert_int_equal(hh_cnt(h.a)->failed_resends, 1);
		assert_int_equal(hh_cnt(h.a)->successful_resends, 0);
		assert_int_equal(hh_ni_health_sum(h.a), 2000 - 300);
		/* the resend left from the healthier NI: both were used */
		assert_true(hh_ni_health(h.a, "10.0.0.1@tcp") < 1000);
		assert_true(hh_ni_health(h.a, "10.0.1.1@tcp") < 1000);
		assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp") +
					 hh_lpni_health(h.a, "10.0.1.2@tcp"),
				 2000);
		hh_fini(&h);
	}
}

/* §14.4: MR, local_error: never resent; local health -100. */
static void mr_local_error_is_not_resent(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_LOCAL_ERROR);
	assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
	assert_int_equal(hh_cnt(h.a)->resend_count, 0);
	assert_int_equal(hh_cnt(h.a)->failed_resends, 0);
	assert_int_equal(hh_ni_health_sum(h.a), 1900);
	assert_int_equal(hh_cnt(h.a)->local_error_count, 1);
	hh_fini(&h);
}

/* §14.5: SR, remote statuses: no resends, no health change, counted. */
static void sr_remote_status_only_counts(void **state)
{
	static const enum ul_hstatus rows[] = {
		UL_HSTATUS_REMOTE_DROPPED,
		UL_HSTATUS_REMOTE_ERROR,
		UL_HSTATUS_REMOTE_TIMEOUT,
	};

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct hh h;
		struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
		struct ul_peer_ni *lpni;

		print_message("row %zu: %s\n", i, ul_hstatus_name(rows[i]));
		hh_init(&h, false, NULL);
		hh_drop(h.a, "*", "*", GET, 1, (int)rows[i]);
		assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
		assert_int_equal(hh_cnt(h.a)->resend_count, 0);
		assert_int_equal(hh_ni_health_sum(h.a), 1000);
		assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp"), 1000);
		lpni = ul_peer_ni_find(ul_node_core(h.a->node), &b0);
		assert_int_equal(lpni->msgs->hs_dropped + lpni->msgs->hs_error +
					 lpni->msgs->hs_timeout,
				 1);
		hh_fini(&h);
	}
}

/* §14.6: MR, remote_dropped: 2 resends then failed; peer health down. */
static void mr_remote_dropped_resends(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_REMOTE_DROPPED);
	assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
	assert_int_equal(hh_cnt(h.a)->resend_count, 2);
	assert_int_equal(hh_cnt(h.a)->failed_resends, 1);
	assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp") +
				 hh_lpni_health(h.a, "10.0.1.2@tcp"),
			 2000 - 300);
	assert_int_equal(hh_ni_health_sum(h.a), 2000);
	hh_fini(&h);
}

/* §14.7: MR, remote_error / remote_timeout: no resend, peer -100. */
static void mr_remote_error_is_not_resent(void **state)
{
	static const enum ul_hstatus rows[] = {
		UL_HSTATUS_REMOTE_ERROR,
		UL_HSTATUS_REMOTE_TIMEOUT,
	};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct hh h;

		print_message("row %zu: %s\n", i, ul_hstatus_name(rows[i]));
		hh_init(&h, true, NULL);
		hh_drop(h.a, "*", "*", GET, 1, (int)rows[i]);
		assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
		assert_int_equal(hh_cnt(h.a)->resend_count, 0);
		assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp") +
					 hh_lpni_health(h.a, "10.0.1.2@tcp"),
				 1900);
		assert_int_equal(hh_ni_health_sum(h.a), 2000);
		hh_fini(&h);
	}
}

/* §14.8: network_timeout: no resends; SR local only, MR both. */
static void network_timeout_lowers_both_on_mr(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, false, NULL);
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_NETWORK_TIMEOUT);
	assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
	assert_int_equal(hh_cnt(h.a)->resend_count, 0);
	assert_int_equal(hh_ni_health_sum(h.a), 900);
	assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp"), 1000);
	hh_fini(&h);

	hh_init(&h, true, NULL);
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_NETWORK_TIMEOUT);
	assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
	assert_int_equal(hh_cnt(h.a)->resend_count, 0);
	assert_int_equal(hh_ni_health_sum(h.a), 1900);
	assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp") +
				 hh_lpni_health(h.a, "10.0.1.2@tcp"),
			 1900);
	assert_int_equal(hh_cnt(h.a)->network_timeout_count, 1);
	hh_fini(&h);
}

/* §14.9: rate 2 drops the first try only: the resend gets through. */
static void intermittent_failure_succeeds_on_resend(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.a, "*", "*", GET, 2, UL_HSTATUS_LOCAL_TIMEOUT);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.2@tcp"), 0);
	assert_int_equal(hh_cnt(h.a)->resend_count, 1);
	assert_int_equal(hh_cnt(h.a)->successful_resends, 1);
	assert_int_equal(hh_cnt(h.a)->failed_resends, 0);
	hh_fini(&h);
}

/* §14.10: health_sensitivity 0: values never move, no resends. */
static void sensitivity_zero_freezes_health(void **state)
{
	struct hh h;
	struct ul_tunables *t;

	(void)state;
	hh_init(&h, true, NULL);
	t = &ul_node_core(h.a->node)->tun;
	assert_int_equal(
		ul_tunables_set(t, UL_TUNABLE_HEALTH_SENSITIVITY, 0, NULL), 0);
	assert_int_equal(t->retry_count, 0);
	assert_int_equal(ul_tunables_set(t, UL_TUNABLE_RETRY_COUNT, 1, NULL),
			 -EINVAL);
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_NETWORK_TIMEOUT);
	assert_int_equal(hh_ping(&h, h.a, NULL, "10.0.0.2@tcp"), -EIO);
	assert_int_equal(hh_ni_health_sum(h.a), 2000);
	assert_int_equal(hh_cnt(h.a)->resend_count, 0);
	hh_fini(&h);
}

/* §14.12: local NI recovery pings back off 1, 2, 4 ... s, capped. */
static void local_recovery_backs_off(void **state)
{
	struct hh h;
	struct ulnet_nid a0 = sim_nid("10.0.0.1@tcp");
	struct ul_ni *ni;
	uint32_t count;
	int64_t next;
	uint64_t t0;

	(void)state;
	hh_init(&h, true, NULL);
	/* every GET fails: the recovery pings too */
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_LOCAL_ERROR);
	ni = ul_ni_find(ul_node_core(h.a->node), &a0);
	ul_node_ni_set_healthv(h.a->node, ni, 0);
	assert_true(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
	t0 = h.sim->heap.now_ns;
	/* pings at +1, +3, +7, +15 s (count 1, 2, 3, 4) */
	sim_run(h.sim, t0 + 3 * HH_SEC + HH_SEC / 2);
	ul_health_ni_ping_state(ni, &count, &next);
	assert_int_equal(count, 2);
	sim_run(h.sim, t0 + 7 * HH_SEC + HH_SEC / 2);
	ul_health_ni_ping_state(ni, &count, &next);
	assert_int_equal(count, 3);
	assert_int_equal(next, (int64_t)((t0 + 15 * HH_SEC) / HH_SEC));
	/* with a cap of 4 s the gaps stop growing at 4 */
	ul_node_core(h.a->node)->tun.max_recovery_ping_interval = 4;
	sim_run(h.sim, t0 + 15 * HH_SEC + HH_SEC / 2);
	ul_health_ni_ping_state(ni, &count, &next);
	assert_int_equal(count, 4);
	assert_int_equal(next, (int64_t)((t0 + 19 * HH_SEC) / HH_SEC));
	/* still failing: it never leaves the queue */
	assert_true(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
	assert_int_equal(ni->healthv, 0);
	assert_int_equal(ni->status, UL_NI_STATUS_DOWN);
	hh_fini(&h);
}

/* §14.13: a peer NI heard from ages out of recovery after the limit. */
static void peer_ni_ages_out_of_recovery(void **state)
{
	struct hh h;
	struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
	struct ul_peer_ni *lpni;
	uint64_t t0;

	(void)state;
	hh_init(&h, true, "    recovery_limit: 10\n");
	/* heard from: B pings A once */
	assert_int_equal(hh_ping(&h, h.b, "10.0.0.2@tcp", "10.0.0.1@tcp"), 0);
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_REMOTE_ERROR);
	lpni = ul_peer_ni_find(ul_node_core(h.a->node), &b0);
	ul_node_lpni_set_healthv(h.a->node, lpni, 0);
	assert_true(hh_recq_has(h.a, false, "10.0.0.2@tcp"));
	t0 = h.sim->heap.now_ns;
	sim_run(h.sim, t0 + 20 * HH_SEC);
	assert_false(hh_recq_has(h.a, false, "10.0.0.2@tcp"));
	assert_int_equal(lpni->msgs->rec.ping_count, 0);
	hh_fini(&h);

	/* recovery_limit 0 and no failures: healed, then off the queue */
	hh_init(&h, true, NULL);
	assert_int_equal(hh_ping(&h, h.b, "10.0.0.2@tcp", "10.0.0.1@tcp"), 0);
	lpni = ul_peer_ni_find(ul_node_core(h.a->node), &b0);
	ul_node_lpni_set_healthv(h.a->node, lpni, 500);
	assert_true(hh_recq_has(h.a, false, "10.0.0.2@tcp"));
	sim_run(h.sim, h.sim->heap.now_ns + 20 * HH_SEC);
	assert_false(hh_recq_has(h.a, false, "10.0.0.2@tcp"));
	assert_int_equal(lpni->healthv, 1000);
	hh_fini(&h);
}

/* §14.14: status follows health 0 / 1000; recovery heals a set NI. */
static void manual_health_moves_status(void **state)
{
	struct hh h;
	struct ulnet_nid a0 = sim_nid("10.0.0.1@tcp");
	struct ul_ni *ni;

	(void)state;
	hh_init(&h, true, NULL);
	ni = ul_ni_find(ul_node_core(h.a->node), &a0);
	ul_node_ni_set_healthv(h.a->node, ni, 0);
	assert_int_equal(ni->status, UL_NI_STATUS_DOWN);
	ul_node_ni_set_healthv(h.a->node, ni, 1000);
	assert_int_equal(ni->status, UL_NI_STATUS_UP);
	assert_false(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
	/*
	 * Every GET failing with local_timeout: a recovery ping fails on
	 * the NI that carried it (the healthier one, chosen freely, §5.1),
	 * so both NIs go down step by step until they reach 0: down.
	 */
	hh_drop(h.a, "*", "*", GET, 1, UL_HSTATUS_LOCAL_TIMEOUT);
	ul_node_ni_set_healthv(h.a->node, ni, 100);
	sim_run(h.sim, h.sim->heap.now_ns + 300 * HH_SEC);
	assert_int_equal(ni->healthv, 0);
	assert_int_equal(ni->status, UL_NI_STATUS_DOWN);
	/* rules gone, 900: recovered to 1000 and up, off the queue */
	ul_node_fault_clear(h.a->node);
	ul_node_ni_set_healthv(h.a->node, ni, 900);
	/* it stays queued with its back-off: the next ping may be minutes
	 * away (§5.3, at most max_recovery_ping_interval) */
	sim_run(h.sim, h.sim->heap.now_ns + 900 * HH_SEC);
	assert_int_equal(ni->healthv, 1000);
	assert_int_equal(ni->status, UL_NI_STATUS_UP);
	assert_false(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
	hh_fini(&h);
}

/* §14.15: a PUT whose ACK never comes: SEND 0, then UNLINK -ETIMEDOUT. */
static void response_timeout_unlinks_with_etimedout(void **state)
{
	struct hh h;
	static char src[64], sink[64];
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_process_id to = sim_pid("10.0.0.2@tcp");
	struct ulnet_handle hs, hd;
	struct ulnet_md md;
	const struct sim_ev *ev;
	uint64_t t0;

	(void)state;
	hh_init(&h, false, "    transaction_timeout: 10\n");
	ulnet_nid_set_any(&any.nid);
	md = sim_md(h.b, sink, sizeof(sink), ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT, 2);
	assert_int_equal(ul_node_md_attach(h.b->node, 3, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &hd),
			 0);
	/* B drops A's PUTs on receive, silently (fault.md §4.1) */
	hh_drop(h.b, "10.0.0.1@tcp", "*", UL_FAULT_MSG_PUT, 1, -1);
	md = sim_md(h.a, src, sizeof(src), 2, 0, 1);
	assert_int_equal(ul_node_md_bind(h.a->node, &md, ULNET_UNLINK, &hs), 0);
	t0 = h.sim->heap.now_ns;
	assert_int_equal(ul_node_put(h.a->node, NULL, hs, ULNET_ACK_REQ, &to, 3,
				     0, 0, 0),
			 0);
	sim_run(h.sim, t0 + 9 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, 1), 1);
	ev = sim_ev_last(h.a, 1);
	assert_int_equal(ev->ev.type, ULNET_EVENT_SEND);
	assert_int_equal(ev->ev.status, 0);
	sim_run(h.sim, t0 + 16 * HH_SEC);
	assert_int_equal(sim_ev_count(h.a, 1), 2);
	ev = sim_ev_last(h.a, 1);
	assert_int_equal(ev->ev.type, ULNET_EVENT_UNLINK);
	assert_int_equal(ev->ev.status, -ETIMEDOUT);
	assert_true(ev->ev.unlinked);
	assert_int_equal(hh_cnt(h.a)->response_timeout_count, 1);
	/* the next hop takes a remote failure, whatever its NI count */
	assert_int_equal(hh_lpni_health(h.a, "10.0.0.2@tcp"), 900);
	assert_int_equal(sim_ev_count(h.b, 2), 0);
	assert_int_equal(ul_node_md_unlink(h.b->node, hd), 0);
	hh_fini(&h);
}

/* §14.17: our own NID as the peer: local recovery only, never peer. */
static void own_nid_failure_is_local_only(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.a, "10.0.0.1@tcp", "10.0.1.1@tcp", GET, 1,
		UL_HSTATUS_NETWORK_TIMEOUT);
	hh_drop(h.a, "10.0.1.1@tcp", "10.0.0.1@tcp", GET, 1,
		UL_HSTATUS_NETWORK_TIMEOUT);
	hh_drop(h.a, "10.0.0.1@tcp", "10.0.0.1@tcp", GET, 1,
		UL_HSTATUS_NETWORK_TIMEOUT);
	assert_int_equal(hh_ping(&h, h.a, "10.0.1.1@tcp", "10.0.0.1@tcp"),
			 -EIO);
	assert_true(hh_recq_len(h.a, true) >= 1);
	assert_int_equal(hh_recq_len(h.a, false), 0);
	hh_fini(&h);
}

/* §14.18: recovery of A0 may leave from A1, so A0 heals. */
static void local_recovery_uses_every_path(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.a, "10.0.0.1@tcp", "10.0.0.1@tcp", GET, 1,
		UL_HSTATUS_LOCAL_ERROR);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.1@tcp"),
			 -EIO);
	assert_int_equal(hh_ni_health(h.a, "10.0.0.1@tcp"), 900);
	sim_run(h.sim, h.sim->heap.now_ns + 5 * HH_SEC);
	assert_int_equal(hh_ni_health(h.a, "10.0.0.1@tcp"), 1000);
	assert_int_equal(hh_ni_health(h.a, "10.0.1.1@tcp"), 1000);
	assert_int_equal(hh_recq_len(h.a, true), 0);
	hh_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sr_local_status_fails_without_resend),
		cmocka_unit_test(mr_local_resendable_resends_then_fails),
		cmocka_unit_test(mr_local_error_is_not_resent),
		cmocka_unit_test(sr_remote_status_only_counts),
		cmocka_unit_test(mr_remote_dropped_resends),
		cmocka_unit_test(mr_remote_error_is_not_resent),
		cmocka_unit_test(network_timeout_lowers_both_on_mr),
		cmocka_unit_test(intermittent_failure_succeeds_on_resend),
		cmocka_unit_test(sensitivity_zero_freezes_health),
		cmocka_unit_test(local_recovery_backs_off),
		cmocka_unit_test(peer_ni_ages_out_of_recovery),
		cmocka_unit_test(manual_health_moves_status),
		cmocka_unit_test(response_timeout_unlinks_with_etimedout),
		cmocka_unit_test(own_nid_failure_is_local_only),
		cmocka_unit_test(local_recovery_uses_every_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
