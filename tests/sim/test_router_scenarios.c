/*
 * routing.md §10 scenarios 12-14 and two routers with one dying, on the
 * simulator (§7.4 steps 8 and 10, §7.6, §8). Each test fails without the
 * behaviour it names: MR forwarding, the router's aliveness check, the
 * receiver's asymmetric-route drop, gateway health on the sender.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper_health.h"
#include "helper_router.h"

#define TAG_SINK 100

/* A router with one NI on tcp and one on tcp1: %d picks 10.x.0.<d>. */
static struct sim_node *router(struct sim *sim, const char *name, int d,
			       const char *extra)
{
	char conf[2048];

	snprintf(conf, sizeof(conf),
		 "net:\n"
		 "  - net type: tcp\n"
		 "    local NI(s):\n"
		 "      - nid: 10.0.0.%d@tcp\n"
		 "  - net type: tcp1\n"
		 "    local NI(s):\n"
		 "      - nid: 10.1.0.%d@tcp1\n"
		 "%s"
		 "global:\n"
		 "    discovery: 0\n"
		 "routing:\n"
		 "    enable: 1\n",
		 d, d, extra ? extra : "");
	return sim_node_add(sim, name, conf);
}

/*
 * §10.12: S has two NIDs on tcp1; on R (health_sensitivity 0) S's first
 * NID is at health 0. 50 GETs from C to that NID: when R knows C as
 * Multi-Rail, R sends every one to S's second NID; when it does not, it
 * must keep to the NID C chose and none goes to the second.
 */
static void mr_forwarding_case(bool is_c_mr)
{
	enum { NGETS = 50 };
	static unsigned char bufs[NGETS][16];
	static const char conf_s[] = "net:\n"
				     "  - net type: tcp1\n"
				     "    local NI(s):\n"
				     "      - nid: 10.1.0.20@tcp1\n"
				     "      - nid: 10.1.1.20@tcp1\n"
				     "route:\n"
				     "  - net: tcp\n"
				     "    gateway: 10.1.0.1@tcp1\n"
				     "global:\n"
				     "    discovery: 0\n";
	static const char peers_mr_c[] = "peer:\n"
					 "  - primary nid: 10.1.0.20@tcp1\n"
					 "    Multi-Rail: True\n"
					 "    peer ni:\n"
					 "      - nid: 10.1.0.20@tcp1\n"
					 "      - nid: 10.1.1.20@tcp1\n"
					 "  - primary nid: 10.0.0.10@tcp\n"
					 "    Multi-Rail: True\n"
					 "    peer ni:\n"
					 "      - nid: 10.0.0.10@tcp\n";
	static const char peers_s[] = "peer:\n"
				      "  - primary nid: 10.1.0.20@tcp1\n"
				      "    Multi-Rail: True\n"
				      "    peer ni:\n"
				      "      - nid: 10.1.0.20@tcp1\n"
				      "      - nid: 10.1.1.20@tcp1\n";
	struct hr h = { 0 };
	struct ulnet_nid s0 = sim_nid("10.1.0.20@tcp1");
	struct ul_peer_ni *lpni;
	uint64_t to_second;

	h.sim = sim_create(3);
	h.c = sim_node_add(h.sim, "c", hr_conf_c);
	h.r = router(h.sim, "r", 1, is_c_mr ? peers_mr_c : peers_s);
	h.s = sim_node_add(h.sim, "s", conf_s);
	hr_routes_up(h.sim, (struct sim_node *const[]){ h.c, h.s }, 2);
	h.sbuf = calloc(1, HR_BUF);
	assert_non_null(h.sbuf);
	sim_peer_known(h.c, "10.1.0.20@tcp1");
	hr_sink(&h, h.s, TAG_SINK);
	assert_int_equal(ul_node_tunable_set(h.r->node,
					     UL_TUNABLE_HEALTH_SENSITIVITY, 0,
					     NULL),
			 0);
	lpni = ul_peer_ni_find(ul_node_core(h.r->node), &s0);
	assert_non_null(lpni);
	ul_node_lpni_set_healthv(h.r->node, lpni, 0);
	for (int i = 0; i < NGETS; i++)
		hr_get(h.c, "10.1.0.20@tcp1", bufs[i], sizeof(bufs[i]),
		       1 + (uintptr_t)i);
	sim_run_idle(h.sim, 400 * HR_SEC);
	to_second =
		hr_lpni_stats(h.r, "10.1.1.20@tcp1")->send_count[UL_MSG_GET];
	print_message("C %s: GETs R sent to S's second NID: %llu\n",
		      is_c_mr ? "MR" : "non-MR", (unsigned long long)to_second);
	for (int i = 0; i < NGETS; i++) {
		int st = hr_final(h.c, 1 + (uintptr_t)i);

		if (is_c_mr)
			assert_int_equal(st, 0);
	}
	if (is_c_mr)
		assert_true(to_second >= NGETS);
	else
		assert_true(to_second < NGETS);
	hr_fini(&h);
}

static void router_mr_forwarding_when_chosen_nid_unhealthy(void **state)
{
	(void)state;
	mr_forwarding_case(true);
}

static void router_keeps_nid_of_non_mr_originator(void **state)
{
	(void)state;
	mr_forwarding_case(false);
}

/*
 * §10.13: S's NI goes away. The GET that R forwards then fails and
 * lowers S's health on R (a router keeps remote health even for a
 * single-NI peer, §7.6); the next GET finds S not alive and R drops it
 * before sending, counted in R's dropped GETs for S. C's GETs fail, each
 * with one final event.
 */
static void router_drops_for_a_dead_next_hop(void **state)
{
	static unsigned char bufs[3][16];
	struct ulnet_nid s_nid = sim_nid("10.1.0.20@tcp1");
	struct hr h;

	(void)state;
	hr_init(&h, NULL, NULL);
	hr_sink(&h, h.s, TAG_SINK);
	assert_int_equal(ul_node_tunable_set(h.c->node,
					     UL_TUNABLE_HEALTH_SENSITIVITY, 0,
					     NULL),
			 0);
	hr_get(h.c, "10.1.0.20@tcp1", bufs[0], sizeof(bufs[0]), 1);
	sim_run_idle(h.sim, 10 * HR_SEC);
	assert_int_equal(hr_final(h.c, 1), 0);
	assert_int_equal(ul_simfab_ni_set_up(h.sim->fab, &s_nid, false), 0);
	hr_get(h.c, "10.1.0.20@tcp1", bufs[1], sizeof(bufs[1]), 2);
	sim_run(h.sim, h.sim->heap.now_ns + HR_SEC);
	assert_true(hh_lpni_health(h.r, "10.1.0.20@tcp1") < 1000);
	hr_get(h.c, "10.1.0.20@tcp1", bufs[2], sizeof(bufs[2]), 3);
	sim_run_idle(h.sim, 400 * HR_SEC);
	assert_int_not_equal(hr_final(h.c, 2), 0);
	assert_int_not_equal(hr_final(h.c, 3), 0);
	assert_true(
		hr_lpni_stats(h.r, "10.1.0.20@tcp1")->drop_count[UL_MSG_GET] >=
		1);
	hr_fini(&h);
}

/* S on tcp1 with routes to tcp through the given gateways. */
static struct sim_node *server(struct sim *sim, const char *gws,
			       const char *global)
{
	char conf[2048], routes[512] = "";
	const char *p = gws;

	while (*p) {
		char gw[32];
		size_t k = strcspn(p, ",");

		snprintf(gw, sizeof(gw), "%.*s", (int)k, p);
		snprintf(routes + strlen(routes),
			 sizeof(routes) - strlen(routes),
			 "  - net: tcp\n    gateway: %s\n", gw);
		p += k + (p[k] == ',');
	}
	snprintf(conf, sizeof(conf),
		 "net:\n"
		 "  - net type: tcp1\n"
		 "    local NI(s):\n"
		 "      - nid: 10.1.0.20@tcp1\n"
		 "route:\n%s"
		 "global:\n"
		 "    discovery: 0\n%s",
		 routes, global ? global : "");
	return sim_node_add(sim, "s", conf);
}

/*
 * §10.14: S has drop_asym_route 1 and a route to tcp only through R2; a
 * PUT from C through R1 is dropped on S (counted, no PUT event). Once S
 * has a route through R1 too, the next PUT is accepted.
 */
static void receiver_drops_asymmetric_route(void **state)
{
	static unsigned char buf[128];
	struct ulnet_nid r1 = sim_nid("10.1.0.1@tcp1");
	struct hr h = { 0 };

	(void)state;
	h.sim = sim_create(5);
	h.c = sim_node_add(h.sim, "c", hr_conf_c);
	h.r = router(h.sim, "r1", 1, NULL);
	(void)router(h.sim, "r2", 2, NULL);
	h.s = server(h.sim, "10.1.0.2@tcp1", "    drop_asym_route: 1\n");
	/*
	 * Each router is pinged from one side only, so with
	 * avoid_asym_router_failure its other net reads DOWN and the route
	 * goes down (§10.4); this scenario wants the asymmetric path up.
	 */
	ul_node_core(h.c->node)->tun.avoid_asym_router_failure = 0;
	ul_node_core(h.s->node)->tun.avoid_asym_router_failure = 0;
	hr_routes_up(h.sim, (struct sim_node *const[]){ h.c, h.s }, 2);
	h.sbuf = calloc(1, HR_BUF);
	assert_non_null(h.sbuf);
	sim_peer_known(h.c, "10.1.0.20@tcp1");
	hr_sink(&h, h.s, TAG_SINK);
	hr_put(h.c, "10.1.0.20@tcp1", buf, sizeof(buf), 1);
	sim_run_idle(h.sim, 400 * HR_SEC);
	assert_int_equal(hr_cnt(h.r)->route_count, 1);
	assert_int_equal(sim_ev_count_type(h.s, TAG_SINK, ULNET_EVENT_PUT), 0);
	assert_int_equal(hr_cnt(h.s)->drop_count, 1);
	assert_int_not_equal(hr_final(h.c, 1), 0);

	assert_int_equal(ul_node_route_add(h.s->node,
					   ulnet_net_make(ULNET_LND_SOCK, 0),
					   &r1, 1, UL_HOPS_UNDEFINED, 0, NULL),
			 0);
	hr_put(h.c, "10.1.0.20@tcp1", buf, sizeof(buf), 2);
	sim_run_idle(h.sim, 400 * HR_SEC);
	assert_int_equal(sim_ev_count_type(h.s, TAG_SINK, ULNET_EVENT_PUT), 1);
	assert_int_equal(hr_final(h.c, 2), 0);
	assert_int_equal(hr_cnt(h.s)->drop_count, 1);
	hr_fini(&h);
}

/*
 * Two routers, C and S with a route through each (§10.8), PUTs with ACK
 * every 10 ms; R1 dies after the tenth. Every PUT ends in exactly one
 * final event; C's failed sends to R1 lower that gateway's health (it
 * is a gateway: remote health counts even with one NI, health.md §4),
 * so the routes through R2 win from then on and the last PUTs all
 * succeed through R2.
 */
static void two_routers_one_dies_mid_stream(void **state)
{
	enum { NPUTS = 30, KILL_AT = 10, LAST_OK = 10 };
	static unsigned char buf[NPUTS][256];
	static const char conf_c2[] = "net:\n"
				      "  - net type: tcp\n"
				      "    local NI(s):\n"
				      "      - nid: 10.0.0.10@tcp\n"
				      "route:\n"
				      "  - net: tcp1\n"
				      "    gateway: 10.0.0.1@tcp\n"
				      "  - net: tcp1\n"
				      "    gateway: 10.0.0.2@tcp\n"
				      "global:\n"
				      "    discovery: 0\n";
	struct sim_node *r2;
	struct hr h = { 0 };
	uint64_t r2_before = 0;
	int nfailed = 0;

	(void)state;
	h.sim = sim_create(11);
	h.c = sim_node_add(h.sim, "c", conf_c2);
	h.r = router(h.sim, "r1", 1, NULL);
	r2 = router(h.sim, "r2", 2, NULL);
	h.s = server(h.sim, "10.1.0.1@tcp1,10.1.0.2@tcp1", NULL);
	hr_routes_up(h.sim, (struct sim_node *const[]){ h.c, h.s }, 2);
	h.sbuf = calloc(1, HR_BUF);
	assert_non_null(h.sbuf);
	sim_peer_known(h.c, "10.1.0.20@tcp1");
	hr_sink(&h, h.s, TAG_SINK);
	for (int i = 0; i < NPUTS; i++) {
		if (i == KILL_AT) {
			ul_node_shutdown(h.r->node);
			r2_before = hr_cnt(r2)->route_count;
		}
		sim_fill(buf[i], sizeof(buf[i]), (uint32_t)i);
		hr_put(h.c, "10.1.0.20@tcp1", buf[i], sizeof(buf[i]),
		       1 + (uintptr_t)i);
		sim_run(h.sim, h.sim->heap.now_ns + 10 * HR_MS);
	}
	sim_run_idle(h.sim, 400 * HR_SEC);
	for (int i = 0; i < NPUTS; i++) {
		int st = hr_final(h.c, 1 + (uintptr_t)i);

		nfailed += st != 0;
		if (i < KILL_AT || i >= NPUTS - LAST_OK)
			assert_int_equal(st, 0);
	}
	print_message("PUTs failed when R1 died: %d\n", nfailed);
	assert_true(hh_lpni_health(h.c, "10.0.0.1@tcp") < 1000);
	/* The last PUTs and their ACKs all went through R2. */
	assert_true(hr_cnt(r2)->route_count - r2_before >= 2 * LAST_OK);
	hr_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			router_mr_forwarding_when_chosen_nid_unhealthy),
		cmocka_unit_test(router_keeps_nid_of_non_mr_originator),
		cmocka_unit_test(router_drops_for_a_dead_next_hop),
		cmocka_unit_test(receiver_drops_asymmetric_route),
		cmocka_unit_test(two_routers_one_dies_mid_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
