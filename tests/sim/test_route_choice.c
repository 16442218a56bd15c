/*
 * Which gateway C sends to (reference/routing.md §6, scenarios §10.8,
 * 9, 10), with liveness from the router checker, on the virtual clock:
 *
 *   C 10.0.0.10@tcp --- R1 10.0.0.1@tcp  10.1.0.1@tcp1 --- S 10.1.0.20@tcp1
 *                   \-- R2 10.0.0.2@tcp  10.1.0.2@tcp1 --/
 *
 * Both routers have routing enabled from time 0 (ENABLED at 110 s); C
 * runs with avoid_asym_router_failure 0 so that R's tcp1 NIs, which no
 * one pings here, do not matter. The gateway a send goes to is what
 * ul_select() answers on C: its next hop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/core.h"
#include "core/select.h"
#include "helper_sim.h"
#include "util/err.h"

#define SEC 1000000000ull
#define R1_TCP "10.0.0.1@tcp"
#define R2_TCP "10.0.0.2@tcp"
#define S_NID "10.1.0.20@tcp1"
#define NSENDS 8

static const char conf_c[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.10@tcp\n";
static const char conf_r1[] = "net:\n"
			      "  - net type: tcp\n"
			      "    local NI(s):\n"
			      "      - nid: 10.0.0.1@tcp\n"
			      "  - net type: tcp1\n"
			      "    local NI(s):\n"
			      "      - nid: 10.1.0.1@tcp1\n";
static const char conf_r2[] = "net:\n"
			      "  - net type: tcp\n"
			      "    local NI(s):\n"
			      "      - nid: 10.0.0.2@tcp\n"
			      "  - net type: tcp1\n"
			      "    local NI(s):\n"
			      "      - nid: 10.1.0.2@tcp1\n";

struct topo {
	struct sim *sim;
	struct sim_node *c, *r1, *r2;
};

static void route_add(struct topo *t, const char *gw, uint32_t prio)
{
	struct ulnet_nid g = sim_nid(gw);
	struct ul_err err = { 0 };
	uint32_t net_id;

	assert_int_equal(ulnet_net_parse("tcp1", &net_id, NULL, 0), 0);
	assert_int_equal(ul_node_route_add(t->c->node, net_id, &g, 1,
					   UL_HOPS_UNDEFINED, prio, &err),
			 0);
}

/* C with routes to tcp1 via R1 and R2 (priorities p1, p2), at 170 s. */
static void topo_init(struct topo *t, uint32_t p1, uint32_t p2)
{
	struct ul_err err = { 0 };

	t->sim = sim_create(1);
	t->c = sim_node_add(t->sim, "c", conf_c);
	t->r1 = sim_node_add(t->sim, "r1", conf_r1);
	t->r2 = sim_node_add(t->sim, "r2", conf_r2);
	ul_node_core(t->c->node)->tun.avoid_asym_router_failure = 0;
	ul_core_set_route_append(ul_node_core(t->c->node), true);
	assert_int_equal(
		ul_node_routing_set(t->r1->node, "routing", 1, 1, &err), 0);
	assert_int_equal(
		ul_node_routing_set(t->r2->node, "routing", 1, 1, &err), 0);
	route_add(t, R1_TCP, p1);
	route_add(t, R2_TCP, p2);
	/* Checks at 0, 60, 120: both routers answer ENABLED at 120. */
	sim_run(t->sim, 170 * SEC);
}

/* The gateway NID of one send from C to S (a dry run: no traffic). */
static struct ulnet_nid next_hop(struct topo *t, int *rc)
{
	struct ulnet_nid dst = sim_nid(S_NID), none;
	struct ul_select_req req;
	struct ul_select_res res;

	ul_select_req_init(&req, &dst, UL_MSG_PUT);
	*rc = ul_select(ul_node_core(t->c->node), &req, &res, NULL);
	if (*rc) {
		ulnet_nid_set_any(&none);
		return none;
	}
	assert_true(res.is_routed);
	return res.lpni->nid;
}

/* Of NSENDS sends, how many went through gw; every one must route. */
static int sends_via(struct topo *t, const char *gw)
{
	struct ulnet_nid g = sim_nid(gw), hop;
	int i, n = 0, rc;

	for (i = 0; i < NSENDS; i++) {
		hop = next_hop(t, &rc);
		assert_int_equal(rc, 0);
		n += ulnet_nid_same(&hop, &g);
	}
	return n;
}

/* §6.2, §10.8: equal routes take turns, one send each. */
static void equal_routes_alternate(void **state)
{
	struct topo t;

	(void)state;
	topo_init(&t, 0, 0);
	assert_int_equal(sends_via(&t, R1_TCP), NSENDS / 2);
	sim_destroy(t.sim);
}

/*
 * §10.9: priority 0 through R1 takes everything while it is up; when
 * R1's process dies, C's LND hears its connection reset and R1 is dead
 * at once (§4.1, LNet's auto_down): everything moves to R2 without
 * waiting for C's next check (a gateway that only goes silent waits
 * for it: test_route_checker silent_gateway_goes_down_at_next_check).
 */
static void priority_then_failover_to_next_route(void **state)
{
	struct topo t;

	(void)state;
	topo_init(&t, 0, 1);
	assert_int_equal(sends_via(&t, R1_TCP), NSENDS);
	ul_node_shutdown(t.r1->node);
	sim_run(t.sim, t.sim->heap.now_ns + SEC);
	assert_int_equal(sends_via(&t, R2_TCP), NSENDS);
	sim_destroy(t.sim);
}

/*
 * §10.10, §4.2, §7.6: gateway health never takes a route down. At 500
 * both routes stay up and every send finds one; a healthier gateway
 * only wins the tie.
 */
static void health_does_not_down_routes(void **state)
{
	struct ulnet_nid r1 = sim_nid(R1_TCP), r2 = sim_nid(R2_TCP);
	struct ul_core *c;
	struct topo t;

	(void)state;
	topo_init(&t, 0, 0);
	c = ul_node_core(t.c->node);
	ul_node_lpni_set_healthv(t.c->node, ul_peer_ni_find(c, &r1), 500);
	ul_node_lpni_set_healthv(t.c->node, ul_peer_ni_find(c, &r2), 500);
	sim_run(t.sim, 300 * SEC);
	assert_int_equal(sends_via(&t, R1_TCP), NSENDS / 2);
	ul_node_lpni_set_healthv(t.c->node, ul_peer_ni_find(c, &r2), 0);
	assert_int_equal(sends_via(&t, R1_TCP), NSENDS);
	sim_destroy(t.sim);
}

/* §6.2: no live route: the send fails with -EHOSTUNREACH. */
static void no_live_route_is_unreachable(void **state)
{
	struct topo t;
	int rc;

	(void)state;
	topo_init(&t, 0, 1);
	ul_node_shutdown(t.r1->node);
	ul_node_shutdown(t.r2->node);
	sim_run(t.sim, 400 * SEC);
	(void)next_hop(&t, &rc);
	assert_int_equal(rc, -EHOSTUNREACH);
	sim_destroy(t.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_routes_alternate),
		cmocka_unit_test(priority_then_failover_to_next_route),
		cmocka_unit_test(health_does_not_down_routes),
		cmocka_unit_test(no_live_route_is_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
