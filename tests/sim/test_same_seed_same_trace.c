/*
 * Determinism: one lossy scenario (30% loss both ways, PUTs with ACK and
 * GETs, some of which time out) run twice with the same fabric seed
 * gives the same event trace byte for byte, and another seed gives
 * another trace. Every operation ends in exactly one final event either
 * way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper_sim.h"

#define PORTAL 4
#define SEC 1000000000ull
#define NOPS 60

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

/* Run the scenario with seed; returns its trace (caller frees). */
static char *scenario(uint64_t seed, size_t *nacks, size_t *ntimeouts)
{
	struct sim *sim = sim_create(seed);
	struct sim_node *a = sim_node_add(sim, "a", conf_a);
	struct sim_node *b = sim_node_add(sim, "b", conf_b);
	struct ulnet_process_id target = sim_pid("10.0.0.2@tcp");
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_simlink_props lossy = { .bandwidth = 100000000,
					  .latency_ns = 20000,
					  .loss = 0.3,
					  .is_up = true };
	struct ulnet_nid na = sim_nid("10.0.0.1@tcp");
	struct ulnet_nid nb = sim_nid("10.0.0.2@tcp");
	static char bufs[NOPS][512], sink[512];
	struct ulnet_handle h;
	struct ulnet_md md;
	char *trace;

	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_simfab_link_set(sim->fab, &na, &nb, &lossy), 0);
	md = sim_md(b, sink, sizeof(sink), ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT | ULNET_MD_OP_GET | ULNET_MD_MANAGE_REMOTE,
		    1000);
	assert_int_equal(ul_node_md_attach(b->node, PORTAL, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &h),
			 0);
	/* Discovered before the lossy run: no discovery ping to lose. */
	sim_peer_known(a, "10.0.0.2@tcp");
	for (int i = 0; i < NOPS; i++) {
		md = sim_md(a, bufs[i], sizeof(bufs[i]), ULNET_MD_THRESH_INF, 0,
			    (uintptr_t)i + 1);
		assert_int_equal(
			ul_node_md_bind(a->node, &md, ULNET_RETAIN, &h), 0);
		if (i % 3 == 2)
			assert_int_equal(ul_node_get(a->node, NULL, h, &target,
						     PORTAL, 0, 0),
					 0);
		else
			assert_int_equal(ul_node_put(a->node, NULL, h,
						     ULNET_ACK_REQ, &target,
						     PORTAL, 0, 0, i),
					 0);
		/* Spread over time so that the trace has some shape. */
		sim_run(sim, sim->heap.now_ns + 100000);
	}
	sim_run(sim, sim->heap.now_ns + 10 * SEC);

	*nacks = 0;
	*ntimeouts = 0;
	for (int i = 0; i < NOPS; i++) {
		uintptr_t tag = (uintptr_t)i + 1;
		size_t done = sim_ev_count_type(a, tag, ULNET_EVENT_ACK) +
			      sim_ev_count_type(a, tag, ULNET_EVENT_REPLY);
		size_t lost = sim_ev_count_type(a, tag, ULNET_EVENT_UNLINK);

		assert_int_equal(sim_ev_count_type(a, tag, ULNET_EVENT_SEND),
				 1);
		assert_int_equal(done + lost, 1);
		*nacks += done;
		*ntimeouts += lost;
	}
	trace = strdup(sim->trace);
	assert_non_null(trace);
	sim_destroy(sim);
	return trace;
}

static void same_seed_same_trace(void **state)
{
	size_t acks[3], timeouts[3];
	char *t1, *t2, *t3;

	(void)state;
	t1 = scenario(7, &acks[0], &timeouts[0]);
	t2 = scenario(7, &acks[1], &timeouts[1]);
	t3 = scenario(8, &acks[2], &timeouts[2]);
	print_message("seed 7: %zu answered, %zu timed out; seed 8: %zu, %zu\n",
		      acks[0], timeouts[0], acks[2], timeouts[2]);
	/* The scenario exercises both outcomes. */
	assert_true(acks[0] > 0 && timeouts[0] > 0);
	assert_string_equal(t1, t2);
	assert_string_not_equal(t1, t3);
	free(t1);
	free(t2);
	free(t3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_seed_same_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
