/*
 * Every message between two NIs is lost (loss 1.0; the wire says
 * nothing): a PUT with ACK still gets its SEND with status 0, since it
 * left, and then, with no ACK, an UNLINK with unlinked = 1 between one
 * and about one and a half transaction_timeout later (health.md §6).
 * The same holds for a GET waiting for its REPLY. Resends are not
 * asserted: only what exists now.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helper_sim.h"

#define PORTAL 5
#define SEC 1000000000ull
#define TIMEOUT_SEC 4
#define TAG_PUT 1
#define TAG_GET 2

static const char conf_a[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.1@tcp\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "    transaction_timeout: 4\n";

static const char conf_b[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.2@tcp\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "    transaction_timeout: 4\n";

/* tag's events: SEND ok, then UNLINK (unlinked) in the timeout window. */
static void assert_timed_out(const struct sim_node *a, uintptr_t tag,
			     uint64_t t0)
{
	const struct sim_ev *ev;

	assert_int_equal(sim_ev_count(a, tag), 2);
	assert_int_equal(sim_ev_count_type(a, tag, ULNET_EVENT_SEND), 1);
	ev = sim_ev_last(a, tag);
	assert_int_equal(ev->ev.type, ULNET_EVENT_UNLINK);
	assert_true(ev->ev.unlinked);
	print_message("tag %lu: UNLINK after %llu ns\n", (unsigned long)tag,
		      (unsigned long long)(ev->at_ns - t0));
	assert_true(ev->at_ns - t0 >= TIMEOUT_SEC * SEC);
	assert_true(ev->at_ns - t0 <= TIMEOUT_SEC * SEC * 3 / 2 + SEC);
	for (size_t i = 0; i < a->nevs; i++)
		if ((uintptr_t)a->evs[i].ev.md_user_ptr == tag &&
		    a->evs[i].ev.type == ULNET_EVENT_SEND)
			assert_int_equal(a->evs[i].ev.status, 0);
}

static void lossy_link_response_timeout(void **state)
{
	struct sim *sim = sim_create(1);
	struct sim_node *a = sim_node_add(sim, "a", conf_a);
	struct sim_node *b = sim_node_add(sim, "b", conf_b);
	struct ulnet_process_id target = sim_pid("10.0.0.2@tcp");
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_simlink_props lossy = { .latency_ns = 1000,
					  .loss = 1.0,
					  .is_up = true };
	struct ulnet_nid na = sim_nid("10.0.0.1@tcp");
	struct ulnet_nid nb = sim_nid("10.0.0.2@tcp");
	struct ul_simlink_stats st;
	static char src[64], sink[64], getbuf[64];
	struct ulnet_handle hp, hg, hd;
	struct ulnet_md md;
	uint64_t t0;

	(void)state;
	ulnet_nid_set_any(&any.nid);
	/* Discovered before the link went bad: no discovery ping to lose. */
	sim_peer_known(a, "10.0.0.2@tcp");
	assert_int_equal(ul_simfab_link_set(sim->fab, &na, &nb, &lossy), 0);
	md = sim_md(b, sink, sizeof(sink), ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT | ULNET_MD_OP_GET, 99);
	assert_int_equal(ul_node_md_attach(b->node, PORTAL, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &hd),
			 0);
	sim_run(sim, SEC);
	t0 = sim->heap.now_ns;
	md = sim_md(a, src, sizeof(src), ULNET_MD_THRESH_INF, 0, TAG_PUT);
	assert_int_equal(ul_node_md_bind(a->node, &md, ULNET_RETAIN, &hp), 0);
	assert_int_equal(ul_node_put(a->node, NULL, hp, ULNET_ACK_REQ, &target,
				     PORTAL, 0, 0, 0),
			 0);
	md = sim_md(a, getbuf, sizeof(getbuf), ULNET_MD_THRESH_INF, 0, TAG_GET);
	assert_int_equal(ul_node_md_bind(a->node, &md, ULNET_RETAIN, &hg), 0);
	assert_int_equal(ul_node_get(a->node, NULL, hg, &target, PORTAL, 0, 0),
			 0);
	sim_run(sim, t0 + 3 * TIMEOUT_SEC * SEC);

	assert_timed_out(a, TAG_PUT, t0);
	assert_timed_out(a, TAG_GET, t0);
	/* Nothing reached B; the wire carried and lost both requests. */
	assert_int_equal(sim_ev_count(b, 99), 0);
	ul_simfab_link_stats(sim->fab, &na, &nb, &st);
	assert_true(st.msgs >= 2);
	assert_int_equal(st.delivered, 0);
	assert_int_equal(st.drops, st.msgs);
	assert_int_equal(ul_node_md_unlink(b->node, hd), 0);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lossy_link_response_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
