/*
 * Routing's states and router buffer pools (src/core/routing.h,
 * reference/routing.md §7.1, §7.2) on a virtual clock: STARTING for the
 * wait then ENABLED; STOPPING for the wait then DISABLED with the
 * buffers freed; set routing 1 refused while stopping; the pools' sizes
 * per CPT, their growth at once and their shrinking never (nothing is
 * forwarded), the warnings of small totals, and unconfigure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/routing.h"

#define SEC UINT64_C(1000000000)
#define WAIT (110 * SEC) /* 60 + 50, LNet's defaults */

static void starting_becomes_enabled_after_the_wait(void **state)
{
	struct ul_routing r;
	unsigned int warn;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ul_routing_enable(&r, 2, 1000 * SEC, WAIT, &warn), 0);
	assert_int_equal(warn, 0);
	assert_int_equal(r.state, UL_ROUTING_STARTING);
	assert_true(ul_routing_is_on(&r));
	assert_int_equal(ul_routing_deadline(&r), 1110 * SEC);
	/* a second set routing 1 changes nothing, not even the wait */
	assert_int_equal(ul_routing_enable(&r, 2, 1050 * SEC, WAIT, &warn), 0);
	assert_int_equal(ul_routing_deadline(&r), 1110 * SEC);
	assert_false(ul_routing_tick(&r, 1109 * SEC));
	assert_int_equal(r.state, UL_ROUTING_STARTING);
	assert_true(ul_routing_tick(&r, 1110 * SEC));
	assert_int_equal(r.state, UL_ROUTING_ENABLED);
	assert_int_equal(ul_routing_deadline(&r), 0);
	assert_false(ul_routing_tick(&r, 5000 * SEC));
}

static void stopping_frees_the_buffers_and_keeps_the_pools(void **state)
{
	struct ul_routing r;
	unsigned int warn;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ul_routing_enable(&r, 2, 0, WAIT, &warn), 0);
	assert_true(ul_routing_tick(&r, WAIT));
	assert_true(ul_routing_disable(&r, 200 * SEC, WAIT));
	assert_int_equal(r.state, UL_ROUTING_STOPPING);
	assert_true(ul_routing_is_on(&r));
	assert_false(ul_routing_disable(&r, 201 * SEC, WAIT));
	/* LNet refuses to start again while it stops (EBUSY). */
	assert_int_equal(ul_routing_enable(&r, 2, 250 * SEC, WAIT, &warn),
			 -EBUSY);
	/* every buffer is free: it stops once the 110 s are over */
	assert_int_equal(ul_routing_deadline(&r), 310 * SEC);
	assert_false(ul_routing_tick(&r, 309 * SEC));
	assert_int_equal(ul_routing_total(&r, UL_RTRPOOL_TINY), 2048);
	assert_true(ul_routing_tick(&r, 310 * SEC));
	assert_int_equal(r.state, UL_ROUTING_DISABLED);
	assert_false(ul_routing_is_on(&r));
	/* the pools stay, empty, for routing show (lnet_rtrpools_free(1)) */
	assert_int_equal(r.ncpt, 2);
	for (int k = 0; k < UL_RTRPOOL_NR; k++) {
		assert_int_equal(ul_routing_total(&r, k), 0);
		assert_int_equal(r.pools[1][k].credits, 0);
		assert_int_equal(r.pools[1][k].mincredits, 0);
	}
	/* starting again refills them to the configured totals */
	assert_int_equal(ul_routing_enable(&r, 2, 400 * SEC, WAIT, &warn), 0);
	assert_int_equal(ul_routing_total(&r, UL_RTRPOOL_SMALL), 16384);
}

static void stopping_while_starting_keeps_the_wait(void **state)
{
	struct ul_routing r;
	unsigned int warn;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ul_routing_enable(&r, 1, 0, WAIT, &warn), 0);
	assert_true(ul_routing_disable(&r, 10 * SEC, WAIT));
	/* the wait begun at 0 runs on: stopped at 110 s, at most 330 s */
	assert_int_equal(r.min_ns, WAIT);
	assert_int_equal(r.max_ns, 3 * WAIT);
	assert_true(ul_routing_tick(&r, WAIT));
	assert_int_equal(r.state, UL_ROUTING_DISABLED);
}

static void pools_per_cpt_grow_now_and_never_shrink(void **state)
{
	struct ul_routing r;
	unsigned int warn;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* while disabled a total is not kept (lnetctl.md §8.4 Quirk) */
	assert_int_equal(ul_routing_set_buffers(&r, UL_RTRPOOL_TINY, 1, &warn),
			 0);
	assert_int_equal(r.nbufs[UL_RTRPOOL_TINY], 0);
	assert_int_equal(ul_routing_enable(&r, 3, 0, WAIT, &warn), 0);
	/* defaults: 2048, 16384, 1024 over 3 CPTs, rounded down per CPT */
	assert_int_equal(r.pools[0][UL_RTRPOOL_TINY].nbuffers, 682);
	assert_int_equal(ul_routing_total(&r, UL_RTRPOOL_TINY), 3 * 682);
	assert_int_equal(ul_routing_total(&r, UL_RTRPOOL_LARGE), 3 * 341);
	/* growth: at once, credits and mincredits with it */
	assert_int_equal(
		ul_routing_set_buffers(&r, UL_RTRPOOL_LARGE, 3000, &warn), 0);
	assert_int_equal(warn, 0);
	assert_int_equal(r.pools[2][UL_RTRPOOL_LARGE].nbuffers, 1000);
	assert_int_equal(r.pools[2][UL_RTRPOOL_LARGE].credits, 1000);
	assert_int_equal(r.pools[2][UL_RTRPOOL_LARGE].mincredits, 1000);
	/* below the minimum: a warning; the pools keep what they have */
	assert_int_equal(ul_routing_set_buffers(&r, UL_RTRPOOL_LARGE, 1, &warn),
			 0);
	assert_int_equal(warn, 1u << UL_RTRPOOL_LARGE);
	assert_int_equal(r.nbufs[UL_RTRPOOL_LARGE], 1);
	assert_int_equal(r.pools[2][UL_RTRPOOL_LARGE].req, 1);
	assert_int_equal(ul_routing_total(&r, UL_RTRPOOL_LARGE), 3000);
	/* -1 leaves it, 0 is LNet's default, < -1 is out of range */
	assert_int_equal(
		ul_routing_set_buffers(&r, UL_RTRPOOL_SMALL, -1, &warn), 0);
	assert_int_equal(r.nbufs[UL_RTRPOOL_SMALL], 0);
	assert_int_equal(ul_routing_set_buffers(&r, UL_RTRPOOL_SMALL, -2,
						&warn),
			 -ERANGE);
	/* unconfigure: no pools; the totals stay (module parameters) */
	ul_routing_reset(&r);
	assert_int_equal(r.state, UL_ROUTING_DISABLED);
	assert_int_equal(r.ncpt, 0);
	assert_int_equal(ul_routing_enable(&r, 2, 0, WAIT, &warn), 0);
	assert_int_equal(warn, 1u << UL_RTRPOOL_LARGE);
	/* max(total / CPTs, 1) each: 1 + 1 */
	assert_int_equal(ul_routing_total(&r, UL_RTRPOOL_LARGE), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(starting_becomes_enabled_after_the_wait),
		cmocka_unit_test(
			stopping_frees_the_buffers_and_keeps_the_pools),
		cmocka_unit_test(stopping_while_starting_keeps_the_wait),
		cmocka_unit_test(pools_per_cpt_grow_now_and_never_shrink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
