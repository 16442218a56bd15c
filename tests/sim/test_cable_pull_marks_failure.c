/*
 * A cable pull on one rail of a two-rail node: a PUT pinned to the
 * pulled NI fails once its resends on that NI are spent (SEND with
 * -EHOSTUNREACH, the final event; the fabric counts three drops); the link monitor's news (ul_node_link_change
 * on its interface) marks the NI down, and from then on selection sends
 * everything over the other rail, which delivers it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helper_sim.h"

#define PORTAL 3
#define SEC 1000000000ull
#define NPUTS 20
#define TAG_PINNED 1
#define TAG_SRC 2
#define TAG_SINK 3

static const char conf_a[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - interfaces:\n"
			     "          0: eth0\n"
			     "      - interfaces:\n"
			     "          0: eth1\n"
			     "peer:\n"
			     "  - primary nid: 10.0.0.2@tcp\n"
			     "    Multi-Rail: True\n"
			     "    peer ni:\n"
			     "      - nid: 10.0.0.2@tcp\n"
			     "      - nid: 10.0.1.2@tcp\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "    transaction_timeout: 4\n";

static const char conf_b[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.2@tcp\n"
			     "      - nid: 10.0.1.2@tcp\n"
			     "peer:\n"
			     "  - primary nid: 10.0.0.1@tcp\n"
			     "    Multi-Rail: True\n"
			     "    peer ni:\n"
			     "      - nid: 10.0.0.1@tcp\n"
			     "      - nid: 10.0.1.1@tcp\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "    transaction_timeout: 4\n";

static void cable_pull_marks_failure(void **state)
{
	struct sim *sim = sim_create(1);
	struct sim_node *a = sim_node_add_ifs(sim, "a", conf_a,
					      "eth0=10.0.0.1,eth1=10.0.1.1");
	struct sim_node *b = sim_node_add(sim, "b", conf_b);
	struct ulnet_process_id target = sim_pid("10.0.0.2@tcp");
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_nid a0 = sim_nid("10.0.0.1@tcp");
	static char src[128], sink[128];
	struct ulnet_handle hpin, hs, hd;
	struct ulnet_md md;
	const struct sim_ev *ev;
	uint64_t sent0, sent1;
	struct ul_simlink_stats st[2];

	(void)state;
	ulnet_nid_set_any(&any.nid);
	assert_true(sim_ni_info(a, "10.0.0.1@tcp").is_up);
	md = sim_md(b, sink, sizeof(sink), ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE, TAG_SINK);
	assert_int_equal(ul_node_md_attach(b->node, PORTAL, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &hd),
			 0);

	/* B was discovered before: only the PUTs cross the links. */
	sim_peer_known(a, "10.0.0.2@tcp");
	/* The cable of eth0 goes; nobody has told the node yet. */
	assert_int_equal(ul_simfab_ni_set_up(sim->fab, &a0, false), 0);
	md = sim_md(a, src, sizeof(src), ULNET_MD_THRESH_INF, 0, TAG_PINNED);
	assert_int_equal(ul_node_md_bind(a->node, &md, ULNET_RETAIN, &hpin), 0);
	assert_int_equal(ul_node_put(a->node, &a0, hpin, ULNET_ACK_REQ, &target,
				     PORTAL, 0, 0, 0),
			 0);
	sim_run(sim, sim->heap.now_ns + SEC);
	assert_int_equal(sim_ev_count_type(a, TAG_PINNED, ULNET_EVENT_SEND), 1);
	ev = sim_ev_last(a, TAG_PINNED);
	assert_int_equal(ev->ev.type, ULNET_EVENT_SEND);
	assert_int_equal(ev->ev.status, -EHOSTUNREACH);
	assert_int_equal(sim_ev_count(b, TAG_SINK), 0);
	{
		struct ulnet_nid b0 = sim_nid("10.0.0.2@tcp");
		struct ulnet_nid b1 = sim_nid("10.0.1.2@tcp");

		ul_simfab_link_stats(sim->fab, &a0, &b0, &st[0]);
		ul_simfab_link_stats(sim->fab, &a0, &b1, &st[1]);
		/*
		 * The source was given: each resend (health.md §7) takes
		 * the same pulled NI again, so the PUT is tried 1 +
		 * retry_count (2) times before its SEND fails.
		 */
		assert_int_equal(st[0].drops + st[1].drops, 3);
		assert_int_equal(st[0].delivered + st[1].delivered, 0);
	}

	/* The link monitor reports it: the NI is down for selection. */
	ul_node_link_change(a->node, "eth0", false);
	assert_false(sim_ni_info(a, "10.0.0.1@tcp").is_up);
	assert_true(sim_ni_info(a, "10.0.1.1@tcp").is_up);
	sent0 = sim_ni_info(a, "10.0.0.1@tcp").stats.send_count[1];
	sent1 = sim_ni_info(a, "10.0.1.1@tcp").stats.send_count[1];
	md = sim_md(a, src, sizeof(src), ULNET_MD_THRESH_INF, 0, TAG_SRC);
	assert_int_equal(ul_node_md_bind(a->node, &md, ULNET_RETAIN, &hs), 0);
	for (int i = 0; i < NPUTS; i++)
		assert_int_equal(ul_node_put(a->node, NULL, hs, ULNET_ACK_REQ,
					     &target, PORTAL, 0, 0, 0),
				 0);
	sim_run(sim, sim->heap.now_ns + SEC);
	assert_int_equal(sim_ev_count_type(a, TAG_SRC, ULNET_EVENT_SEND),
			 NPUTS);
	assert_int_equal(sim_ev_count_type(a, TAG_SRC, ULNET_EVENT_ACK), NPUTS);
	for (size_t i = 0; i < a->nevs; i++)
		if ((uintptr_t)a->evs[i].ev.md_user_ptr == TAG_SRC)
			assert_int_equal(a->evs[i].ev.status, 0);
	assert_int_equal(sim_ev_count_type(b, TAG_SINK, ULNET_EVENT_PUT),
			 NPUTS);
	assert_int_equal(sim_ni_info(a, "10.0.0.1@tcp").stats.send_count[1],
			 sent0);
	assert_int_equal(sim_ni_info(a, "10.0.1.1@tcp").stats.send_count[1],
			 sent1 + NPUTS);
	assert_int_equal(ul_node_md_unlink(b->node, hd), 0);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cable_pull_marks_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
