/*
 * Two nodes with two NIs each on tcp, each configured as the other's
 * multi-rail peer: 1000 PUTs with ACK from A to B spread over both local
 * NIs of A and both NIs of B, evenly (selection.md §4.5, round-robin
 * among equals), as the per-NI statistics and the fabric's per-link
 * counters show.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helper_sim.h"

#define NPUTS 1000
#define PORTAL 7
#define TAG_SRC 1
#define TAG_SINK 2

static const char conf_a[] = "net:\n"
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
			     "    discovery: 0\n";

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
			     "    discovery: 0\n";

/* a and b within 5% of the larger, and both carried something. */
static void assert_even(uint64_t a, uint64_t b, const char *what)
{
	uint64_t hi = a > b ? a : b;
	uint64_t lo = a > b ? b : a;

	print_message("%s: %llu / %llu\n", what, (unsigned long long)a,
		      (unsigned long long)b);
	assert_true(lo > 0);
	assert_true((hi - lo) * 100 <= hi * 5);
}

static void multirail_spreads_puts(void **state)
{
	static const char *const a_nids[2] = { "10.0.0.1@tcp", "10.0.1.1@tcp" };
	static const char *const b_nids[2] = { "10.0.0.2@tcp", "10.0.1.2@tcp" };
	struct sim *sim = sim_create(1);
	struct sim_node *a = sim_node_add(sim, "a", conf_a);
	struct sim_node *b = sim_node_add(sim, "b", conf_b);
	struct ulnet_process_id target = sim_pid("10.0.0.2@tcp");
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	static char src[256], sink[256];
	struct ulnet_handle hs, hd;
	struct ulnet_md md;
	uint64_t pair[2][2] = { { 0 } };

	(void)state;
	ulnet_nid_set_any(&any.nid);
	md = sim_md(b, sink, sizeof(sink), ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE, TAG_SINK);
	assert_int_equal(ul_node_md_attach(b->node, PORTAL, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &hd),
			 0);
	md = sim_md(a, src, sizeof(src), ULNET_MD_THRESH_INF, 0, TAG_SRC);
	assert_int_equal(ul_node_md_bind(a->node, &md, ULNET_RETAIN, &hs), 0);
	for (int i = 0; i < NPUTS; i++)
		assert_int_equal(ul_node_put(a->node, NULL, hs, ULNET_ACK_REQ,
					     &target, PORTAL, 0, 0, 0),
				 0);
	sim_run(sim, 10ull * 1000000000);

	assert_int_equal(sim_ev_count_type(a, TAG_SRC, ULNET_EVENT_SEND),
			 NPUTS);
	assert_int_equal(sim_ev_count_type(a, TAG_SRC, ULNET_EVENT_ACK), NPUTS);
	assert_int_equal(sim_ev_count_type(b, TAG_SINK, ULNET_EVENT_PUT),
			 NPUTS);
	/* PUTs leave from both of A's NIs and land on both of B's. */
	assert_even(sim_ni_info(a, a_nids[0]).stats.send_count[1],
		    sim_ni_info(a, a_nids[1]).stats.send_count[1],
		    "PUTs sent per NI of a");
	assert_even(sim_ni_info(b, b_nids[0]).stats.recv_count[1],
		    sim_ni_info(b, b_nids[1]).stats.recv_count[1],
		    "PUTs received per NI of b");
	/*
	 * The wire agrees: every message went over some A->B pair, the
	 * PUTs and the one discovery ping before them (a configured peer
	 * is still pinged once, even with discovery off: discovery.md
	 * §7.1, §10).
	 */
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < 2; j++) {
			struct ul_simlink_stats st;
			struct ulnet_nid s = sim_nid(a_nids[i]);
			struct ulnet_nid d = sim_nid(b_nids[j]);

			ul_simfab_link_stats(sim->fab, &s, &d, &st);
			pair[i][j] = st.delivered;
		}
	}
	assert_int_equal(pair[0][0] + pair[0][1] + pair[1][0] + pair[1][1],
			 NPUTS + 1);
	assert_int_equal(ul_node_md_unlink(a->node, hs), 0);
	assert_int_equal(ul_node_md_unlink(b->node, hd), 0);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(multirail_spreads_puts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
