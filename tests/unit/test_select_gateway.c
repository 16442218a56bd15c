/*
 * Route choice between equal routes by their gateway NIs (selection.md
 * §5.2): health, then fewer queued bytes, then more credits, through
 * ul_select() on node C (routes [R1, R2] to o2ib1, priority 0, hop 1).
 * With everything equal the later route, R2, goes first (§12 quirk 2).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "helper_topo.h"

#define R1_NI "10.1.0.100@o2ib"
#define R2_NI "10.1.0.101@o2ib"

static struct ul_peer_ni *gw_ni(struct ht_c *t, const char *nid)
{
	struct ulnet_nid n = ht_nid(nid);
	struct ul_peer_ni *lpni = ul_peer_ni_find(t->c, &n);

	assert_non_null(lpni);
	return lpni;
}

/* Three sends to S2; every one must leave through gateway NI want. */
static void expect_gateway(struct ht_c *t, const char *want)
{
	struct ulnet_nid w = ht_nid(want);
	int i;

	for (i = 0; i < 3; i++) {
		struct ul_select_res res;

		assert_int_equal(ht_send(t->c, NULL, "172.16.0.10@o2ib1", NULL,
					 UL_MSG_PUT, &res),
				 0);
		if (!ulnet_nid_same(&res.lpni->nid, &w))
			fail_msg("send %d went through %s, want %s", i,
				 ht_str(&res.lpni->nid), want);
	}
}

static void route_tie_goes_to_fewer_queued_bytes(void **state)
{
	struct ht_c t;

	(void)state;
	ht_build_c(&t);
	gw_ni(&t, R2_NI)->txqnob = 4096;
	expect_gateway(&t, R1_NI);
	ht_destroy_c(&t);
}

static void route_tie_goes_to_more_credits(void **state)
{
	struct ht_c t;

	(void)state;
	ht_build_c(&t);
	gw_ni(&t, R2_NI)->txcredits = 1;
	expect_gateway(&t, R1_NI);
	ht_destroy_c(&t);
}

/* Health ranks before queued bytes: the healthier gateway wins though
 * more bytes wait for it. */
static void route_tie_health_before_queued_bytes(void **state)
{
	struct ht_c t;

	(void)state;
	ht_build_c(&t);
	ul_peer_ni_set_healthv(gw_ni(&t, R1_NI), 900);
	gw_ni(&t, R2_NI)->txqnob = 1 << 20;
	expect_gateway(&t, R2_NI);
	ht_destroy_c(&t);
}

/* A lower route priority wins before any gateway NI criterion. */
static void route_priority_before_gateway_ni(void **state)
{
	struct ht_c t;

	(void)state;
	ht_build_c(&t);
	t.rt_r2->priority = 1;
	gw_ni(&t, R1_NI)->txqnob = 1 << 20;
	expect_gateway(&t, R1_NI);
	ht_destroy_c(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(route_tie_goes_to_fewer_queued_bytes),
		cmocka_unit_test(route_tie_goes_to_more_credits),
		cmocka_unit_test(route_tie_health_before_queued_bytes),
		cmocka_unit_test(route_priority_before_gateway_ni),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
