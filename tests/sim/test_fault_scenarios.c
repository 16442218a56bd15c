/*
 * Fault rules acting on traffic (reference/fault.md §11, and health.md
 * §14.16), on the simulator: the rules are the node's (ul_node_fault_*,
 * what `lnetctl fault` reaches through the control socket) and each test
 * names its scenario.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/msg.h"
#include "core/ni.h"
#include "core/peer.h"
#include "helper_health.h"

static const struct ul_fault_rule *first_rule(struct sim_node *n, bool is_delay)
{
	const struct ul_list *l = ul_node_fault_rules(n->node, is_delay);

	assert_false(ul_list_empty(l));
	return ul_list_first_entry(l, struct ul_fault_rule, link);
}

/* §11.1: B drops A0's GET silently; A's ping gets no answer. */
static void receive_rule_drops_silently(void **state)
{
	struct hh h;
	struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
	struct ul_ni *ni;
	uint64_t before;

	(void)state;
	hh_init(&h, true, NULL);
	ni = ul_ni_find(ul_node_core(h.b->node), &b0);
	before = ni->stats.drop_count[UL_MSG_GET];
	hh_drop(h.b, "10.0.0.1@tcp", "10.0.0.2@tcp", 0, 1, -1);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.2@tcp"),
			 -ETIMEDOUT);
	assert_true(first_rule(h.b, false)->stats.hits >= 1);
	assert_true(first_rule(h.b, false)->stats.get >= 1);
	assert_true(ni->stats.drop_count[UL_MSG_GET] > before);
	/* nothing on B's side noticed anything: no health change */
	assert_int_equal(hh_lpni_health(h.b, "10.0.0.1@tcp"), 1000);
	hh_fini(&h);
}

/* §11.3: a simulated local_error fails the ping at once, no resend. */
static void send_rule_simulates_local_error(void **state)
{
	struct hh h;
	uint64_t b_recv;

	(void)state;
	hh_init(&h, true, NULL);
	b_recv = hh_cnt(h.b)->recv_count;
	hh_drop(h.a, "10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 1,
		UL_HSTATUS_LOCAL_ERROR);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.2@tcp"),
			 -EIO);
	assert_int_equal(hh_ni_health(h.a, "10.0.0.1@tcp"), 900);
	assert_int_equal(hh_cnt(h.a)->local_error_count, 1);
	assert_int_equal(hh_cnt(h.a)->resend_count, 0);
	assert_int_equal(hh_cnt(h.b)->recv_count, b_recv);
	assert_int_equal(first_rule(h.a, false)->stats.hits, 1);
	hh_fini(&h);
}

/* §11.5: a rule with a health error never acts on receive. */
static void health_rule_ignores_receive(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.b, "10.0.0.1@tcp", "10.0.0.2@tcp", 0, 1,
		UL_HSTATUS_REMOTE_ERROR);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.2@tcp"), 0);
	assert_int_equal(first_rule(h.b, false)->stats.count, 0);
	assert_int_equal(first_rule(h.b, false)->stats.hits, 0);
	hh_fini(&h);
}

struct ping_res {
	bool is_done;
	int status;
	uint64_t at_ns;
	struct sim *sim;
};

static void ping_cb(void *arg, int status, const struct ulnet_ping_result *r)
{
	struct ping_res *pr = arg;

	(void)r;
	pr->is_done = true;
	pr->status = status;
	pr->at_ns = pr->sim->heap.now_ns;
}

static void ping_start(struct hh *h, struct ping_res *pr, const char *nid,
		       uint32_t timeout_ms)
{
	struct ulnet_process_id to = sim_pid(nid);
	struct ulnet_nid a0 = sim_nid("10.0.0.1@tcp");

	pr->sim = h->sim;
	assert_int_equal(
		ul_node_ping(h->a->node, &a0, &to, timeout_ms, ping_cb, pr), 0);
}

/* §11.10: a delayed ping takes the latency; deleting the rule frees. */
static void delay_rule_holds_and_releases(void **state)
{
	struct hh h;
	struct ping_res p1 = { 0 }, p2 = { 0 };
	struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
	struct ul_peer_ni *lpni;
	struct ulnet_nid any;
	uint64_t t0;

	(void)state;
	hh_init(&h, true, NULL);
	hh_delay(h.a, "10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 1, 3);
	t0 = h.sim->heap.now_ns;
	ping_start(&h, &p1, "10.0.0.2@tcp", 10000);
	sim_run(h.sim, t0 + 2 * HH_SEC);
	assert_false(p1.is_done);
	/* while held, the message keeps its peer credit */
	lpni = ul_peer_ni_find(ul_node_core(h.a->node), &b0);
	assert_int_equal(lpni->txcredits, 7);
	sim_run(h.sim, t0 + 4 * HH_SEC);
	assert_true(p1.is_done);
	assert_int_equal(p1.status, 0);
	assert_true(p1.at_ns >= t0 + 3 * HH_SEC);
	assert_int_equal(first_rule(h.a, true)->stats.hits, 1);
	/* held again, then `fault delay del -a` lets it go at once */
	t0 = h.sim->heap.now_ns;
	ping_start(&h, &p2, "10.0.0.2@tcp", 10000);
	sim_run(h.sim, t0 + HH_SEC);
	assert_false(p2.is_done);
	ulnet_nid_set_any(&any);
	assert_int_equal(ul_node_fault_del(h.a->node, true, &any, &any), 1);
	sim_run(h.sim, t0 + HH_SEC + 10 * HH_MS);
	assert_true(p2.is_done);
	assert_int_equal(p2.status, 0);
	hh_fini(&h);
}

/*
 * fault.md §6, receive side: B holds A0's GET for 2 s before it answers
 * it; the ping takes that long and B's rule counts it.
 */
static void delay_rule_holds_received_message(void **state)
{
	struct hh h;
	struct ping_res p = { 0 };
	uint64_t t0;

	(void)state;
	hh_init(&h, true, NULL);
	hh_delay(h.b, "10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 1, 2);
	t0 = h.sim->heap.now_ns;
	ping_start(&h, &p, "10.0.0.2@tcp", 10000);
	sim_run(h.sim, t0 + HH_SEC + HH_SEC / 2);
	assert_false(p.is_done);
	assert_int_equal(first_rule(h.b, true)->stats.hits, 1);
	sim_run(h.sim, t0 + 3 * HH_SEC);
	assert_true(p.is_done);
	assert_int_equal(p.status, 0);
	assert_true(p.at_ns >= t0 + 2 * HH_SEC);
	/* a held receive is failed, not lost, when the node stops */
	ping_start(&h, &p, "10.0.0.2@tcp", 10000);
	sim_run(h.sim, h.sim->heap.now_ns + HH_SEC);
	hh_fini(&h);
}

/* §11.13: reset zeroes the counters and keeps the rule. */
static void reset_keeps_rules(void **state)
{
	struct hh h;

	(void)state;
	hh_init(&h, true, NULL);
	hh_drop(h.b, "*", "*", UL_FAULT_MSG_GET, 1, -1);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.2@tcp"),
			 -ETIMEDOUT);
	assert_true(first_rule(h.b, false)->stats.hits >= 1);
	ul_node_fault_reset(h.b->node, false);
	assert_int_equal(first_rule(h.b, false)->stats.hits, 0);
	assert_int_equal(first_rule(h.b, false)->stats.count, 0);
	hh_fini(&h);
}

/*
 * health.md §14.16: delay rules hold every peer credit past the
 * deadline; one more ping waits for a credit and, released after its
 * deadline, fails with -ETIMEDOUT, counted as a drop, no health change.
 */
static void credit_queue_deadline_fails_late_send(void **state)
{
	struct hh h;
	struct ping_res held[8] = { 0 }, late = { 0 };
	struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
	struct ul_peer_ni *lpni;

	(void)state;
	hh_init(&h, false,
		"    retry_count: 0\n"
		"    transaction_timeout: 10\n");
	hh_delay(h.a, "*", "*", UL_FAULT_MSG_GET, 1, 11);
	for (int i = 0; i < 8; i++)
		ping_start(&h, &held[i], "10.0.0.2@tcp", 30000);
	ping_start(&h, &late, "10.0.0.2@tcp", 30000);
	sim_run(h.sim, h.sim->heap.now_ns + HH_SEC);
	lpni = ul_peer_ni_find(ul_node_core(h.a->node), &b0);
	assert_int_equal(lpni->txcredits, -1);
	sim_run(h.sim, h.sim->heap.now_ns + 15 * HH_SEC);
	assert_true(late.is_done);
	assert_int_equal(late.status, -ETIMEDOUT);
	assert_int_equal(lpni->msgs->stats.drop_count[UL_MSG_GET], 1);
	assert_int_equal(hh_ni_health(h.a, "10.0.0.1@tcp"), 1000);
	assert_int_equal(lpni->healthv, 1000);
	/* the delayed ones were sent late, without a deadline check */
	for (int i = 0; i < 8; i++) {
		assert_true(held[i].is_done);
		assert_int_equal(held[i].status, 0);
	}
	hh_fini(&h);
}

/* A node on tcp and tcp1, B's twin as an MR peer (fault.md §11.6). */
static const char two_nets_a[] = "net:\n"
				 "  - net type: tcp\n"
				 "    local NI(s):\n"
				 "      - nid: 10.0.0.1@tcp\n"
				 "  - net type: tcp1\n"
				 "    local NI(s):\n"
				 "      - nid: 10.1.0.1@tcp1\n"
				 "peer:\n"
				 "  - primary nid: 10.0.0.2@tcp\n"
				 "    peer ni:\n"
				 "      - nid: 10.0.0.2@tcp\n"
				 "      - nid: 10.1.0.2@tcp1\n"
				 "global:\n"
				 "    discovery: 0\n";
static const char two_nets_b[] = "net:\n"
				 "  - net type: tcp\n"
				 "    local NI(s):\n"
				 "      - nid: 10.0.0.2@tcp\n"
				 "  - net type: tcp1\n"
				 "    local NI(s):\n"
				 "      - nid: 10.1.0.2@tcp1\n"
				 "peer:\n"
				 "  - primary nid: 10.0.0.1@tcp\n"
				 "    peer ni:\n"
				 "      - nid: 10.0.0.1@tcp\n"
				 "      - nid: 10.1.0.1@tcp1\n"
				 "global:\n"
				 "    discovery: 0\n";

static void fault_add(struct sim_node *n, const struct ul_fault_attr *a)
{
	assert_int_equal(ul_node_fault_add(n->node, a, NULL), 0);
}

/*
 * §11.6: `-o` names the local NI a message arrives on: B drops what
 * comes in on its tcp1 NI, not what comes in on tcp; a delay rule with
 * `-o` never delays anything.
 */
static void local_nid_filter_drops_on_that_ni_only(void **state)
{
	struct ul_fault_attr drop = { 0 }, delay = { 0 };
	struct hh h = { 0 };
	uint64_t t0;

	(void)state;
	h.sim = sim_create(7);
	h.a = sim_node_add(h.sim, "a", two_nets_a);
	h.b = sim_node_add(h.sim, "b", two_nets_b);
	ulnet_nid_set_any(&drop.src);
	ulnet_nid_set_any(&drop.dst);
	drop.local = sim_nid("10.1.0.2@tcp1");
	drop.rate = 1;
	fault_add(h.b, &drop);
	assert_int_equal(hh_ping(&h, h.a, "10.1.0.1@tcp1", "10.1.0.2@tcp1"),
			 -ETIMEDOUT);
	assert_true(first_rule(h.b, false)->stats.hits >= 1);
	assert_int_equal(hh_ping(&h, h.a, "10.0.0.1@tcp", "10.0.0.2@tcp"), 0);
	assert_int_equal(
		ul_node_fault_del(h.b->node, false, &drop.src, &drop.dst), 1);

	delay = drop;
	delay.is_delay = true;
	delay.latency = 3;
	fault_add(h.b, &delay);
	t0 = h.sim->heap.now_ns;
	assert_int_equal(hh_ping(&h, h.a, "10.1.0.1@tcp1", "10.1.0.2@tcp1"), 0);
	assert_true(h.sim->heap.now_ns - t0 < HH_SEC);
	assert_int_equal(first_rule(h.b, true)->stats.hits, 0);
	hh_fini(&h);
}

/*
 * One ping from A0 to B0 each second for n seconds, each with a 5 s
 * timeout; how many failed.
 */
static unsigned int ping_stream(struct hh *h, unsigned int n)
{
	struct ping_res *pr = calloc(n, sizeof(*pr));
	unsigned int i, failed = 0;

	assert_non_null(pr);
	for (i = 0; i < n; i++) {
		ping_start(h, &pr[i], "10.0.0.2@tcp", 5000);
		sim_run(h->sim, h->sim->heap.now_ns + HH_SEC);
	}
	sim_run(h->sim, h->sim->heap.now_ns + 10 * HH_SEC);
	for (i = 0; i < n; i++) {
		assert_true(pr[i].is_done);
		failed += pr[i].status != 0;
	}
	free(pr);
	return failed;
}

/*
 * §11.8: `-i 10` on a steady GET stream drops about one GET in 10 s;
 * `--random -i 10` about half of them (fault.md §4.4).
 */
static void interval_rule_drops_one_per_interval(void **state)
{
	struct ul_fault_attr a = { 0 };
	unsigned int failed;
	struct hh h;

	(void)state;
	hh_init(&h, false, NULL);
	a.src = sim_nid("10.0.0.1@tcp");
	a.dst = sim_nid("10.0.0.2@tcp");
	ulnet_nid_set_any(&a.local);
	a.msg_mask = UL_FAULT_MSG_GET;
	a.interval = 10;
	fault_add(h.b, &a);
	failed = ping_stream(&h, 60);
	if (failed < 5 || failed > 7)
		fail_msg("-i 10 over 60 s dropped %u pings", failed);
	assert_int_equal(first_rule(h.b, false)->stats.hits, failed);
	assert_int_equal(ul_node_fault_del(h.b->node, false, &a.src, &a.dst),
			 1);

	a.is_random = true;
	fault_add(h.b, &a);
	failed = ping_stream(&h, 60);
	if (failed < 18 || failed > 42)
		fail_msg("--random -i 10 over 60 pings dropped %u", failed);
	hh_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(receive_rule_drops_silently),
		cmocka_unit_test(send_rule_simulates_local_error),
		cmocka_unit_test(health_rule_ignores_receive),
		cmocka_unit_test(delay_rule_holds_and_releases),
		cmocka_unit_test(delay_rule_holds_received_message),
		cmocka_unit_test(reset_keeps_rules),
		cmocka_unit_test(credit_queue_deadline_fails_late_send),
		cmocka_unit_test(local_nid_filter_drops_on_that_ni_only),
		cmocka_unit_test(interval_rule_drops_one_per_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
