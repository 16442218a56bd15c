/*
 * Route liveness on the sending node and the router checker
 * (reference/routing.md §4, §5, §7.5, scenarios §10.1, 4, 5, 6, 7, 15), on
 * the virtual clock:
 *
 *   C 10.0.0.10@tcp --- R 10.0.0.1@tcp   R 10.1.0.1@tcp1 --- S 10.1.0.20@tcp1
 *
 * R has routing enabled (STARTING for 110 s, then ENABLED); C routes
 * tcp1 through R's tcp NID, S routes tcp through R's tcp1 NID. Nothing
 * is forwarded here: what is tested is what C and S think of their
 * routes, which is what `route show -v` prints (ul_route_is_alive) and
 * what route choice reads. Default tunables: checks every 60 s, R's NIs
 * DOWN after 110 s without a ping on their net.
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
#include "core/discovery_sm.h"
#include "core/fault.h"
#include "core/hstatus.h"
#include "helper_sim.h"
#include "util/err.h"

#define SEC 1000000000ull
#define C_NID "10.0.0.10@tcp"
#define R_TCP "10.0.0.1@tcp"
#define R_TCP1 "10.1.0.1@tcp1"
#define S_NID "10.1.0.20@tcp1"

static const char conf_c[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.10@tcp\n";
static const char conf_r[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.1@tcp\n"
			     "  - net type: tcp1\n"
			     "    local NI(s):\n"
			     "      - nid: 10.1.0.1@tcp1\n";
static const char conf_s[] = "net:\n"
			     "  - net type: tcp1\n"
			     "    local NI(s):\n"
			     "      - nid: 10.1.0.20@tcp1\n";

struct topo {
	struct sim *sim;
	struct sim_node *c, *r, *s;
};

/* Every node with discovery as given; R starts routing at time 0. */
static void topo_init(struct topo *t, bool is_discovery)
{
	struct ul_err err = { 0 };

	t->sim = sim_create(1);
	t->c = sim_node_add(t->sim, "c", conf_c);
	t->r = sim_node_add(t->sim, "r", conf_r);
	t->s = sim_node_add(t->sim, "s", conf_s);
	if (!is_discovery) {
		ul_node_core(t->c->node)->tun.discovery = 0;
		ul_node_core(t->r->node)->tun.discovery = 0;
		ul_node_core(t->s->node)->tun.discovery = 0;
	}
	assert_int_equal(ul_node_routing_set(t->r->node, "routing", 1, 1, &err),
			 0);
}

static void route_add(struct sim_node *sn, const char *net, const char *gw)
{
	struct ulnet_nid g = sim_nid(gw);
	struct ul_err err = { 0 };
	uint32_t net_id;

	assert_int_equal(ulnet_net_parse(net, &net_id, NULL, 0), 0);
	assert_int_equal(ul_node_route_add(sn->node, net_id, &g, 1,
					   UL_HOPS_UNDEFINED, 0, &err),
			 0);
}

/* The one route of sn to net (route show -v's "state"). */
static struct ul_route *route_of(struct sim_node *sn, const char *net)
{
	struct ul_core *c = ul_node_core(sn->node);
	struct ul_rnet *rnet;
	uint32_t net_id;

	assert_int_equal(ulnet_net_parse(net, &net_id, NULL, 0), 0);
	rnet = ul_rnet_find(c, net_id);
	assert_non_null(rnet);
	assert_int_equal(rnet->nroutes, 1);
	return ul_list_first_entry(&rnet->routes, struct ul_route, rnet_link);
}

static bool is_up(struct sim_node *sn, const char *net)
{
	return ul_route_is_alive(ul_node_core(sn->node), route_of(sn, net));
}

static bool ni_is_up(struct sim_node *sn, const char *nid)
{
	return sim_ni_info(sn, nid).is_up;
}

static void run_to(struct topo *t, uint64_t sec)
{
	sim_run(t->sim, sec * SEC);
}

/*
 * §10.1, §5 and §7.1: routes through R are checked at once (R is
 * STARTING and says RTE_DISABLED: down); when R is ENABLED (110 s) its
 * forced push brings them up, R known as a Multi-Rail router with both
 * NIDs, and single-hop.
 */
static void route_up_when_router_enabled_pushes(void **state)
{
	struct topo t;
	struct ul_peer *gw;

	(void)state;
	topo_init(&t, true);
	route_add(t.c, "tcp1", R_TCP);
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 1);
	assert_false(is_up(t.c, "tcp1"));
	assert_false(is_up(t.s, "tcp"));
	gw = route_of(t.c, "tcp1")->gateway;
	assert_true(gw->is_rtr_checked);
	assert_int_equal(gw->rtr, UL_PEER_RTR_DISABLED);
	/* peer show -v 3: MR, DISCOVERED, NIDS_UPTODATE, RTR_DISCOVERED. */
	assert_int_equal(ul_disc_state_bits(gw), 131345);
	/*
	 * Checks at 0 and 60; R ENABLED at 110 pushes to C and S, which
	 * know it as Multi-Rail from those checks (and it them, from
	 * their checks' forced pushes): up then, not at the check at 120.
	 */
	run_to(&t, 109);
	assert_false(is_up(t.c, "tcp1"));
	run_to(&t, 111);
	assert_true(is_up(t.c, "tcp1"));
	assert_true(is_up(t.s, "tcp"));
	assert_int_equal(gw->rtr, UL_PEER_RTR_ENABLED);
	assert_int_equal(ul_disc_state_bits(gw), 131345 | 4); /* routes */
	assert_true(gw->is_mr);
	assert_int_equal(gw->nnis, 2);
	assert_true(route_of(t.c, "tcp1")->is_single_hop);
	/* Both of R's nets were pinged, so R publishes both up. */
	assert_true(ni_is_up(t.r, R_TCP));
	assert_true(ni_is_up(t.r, R_TCP1));
	run_to(&t, 400);
	assert_true(is_up(t.c, "tcp1"));
	assert_true(is_up(t.s, "tcp"));
	sim_destroy(t.sim);
}

/*
 * §10.7: set routing 0 on R publishes RTE_DISABLED, without a push; C's
 * route stays up until C's next check (at 180 s), then goes down.
 * Routing back on: up again the moment R is ENABLED once more, by R's
 * forced push.
 */
static void router_disabled_route_down_at_next_check(void **state)
{
	struct ul_err err = { 0 };
	struct ul_core *rc;
	struct topo t;

	(void)state;
	topo_init(&t, true);
	route_add(t.c, "tcp1", R_TCP);
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 170);
	assert_true(is_up(t.c, "tcp1"));
	assert_int_equal(ul_node_routing_set(t.r->node, "routing", 0, 1, &err),
			 0);
	run_to(&t, 179);
	assert_true(is_up(t.c, "tcp1"));
	run_to(&t, 181);
	assert_false(is_up(t.c, "tcp1"));
	assert_false(is_up(t.s, "tcp"));
	/* STOPPING ends 110 s after (no buffer is out): DISABLED at 280. */
	run_to(&t, 281);
	rc = ul_node_core(t.r->node);
	assert_int_equal(rc->routing.state, UL_ROUTING_DISABLED);
	assert_int_equal(ul_node_routing_set(t.r->node, "routing", 1, 1, &err),
			 0);
	/* ENABLED at 391, and R's push says so at once (§7.1). */
	run_to(&t, 390);
	assert_false(is_up(t.c, "tcp1"));
	run_to(&t, 392);
	assert_true(is_up(t.c, "tcp1"));
	assert_true(is_up(t.s, "tcp"));
	sim_destroy(t.sim);
}

/*
 * §4.1, §4.3 (LNet's auto_down): R's process dies at 130 s; C's LND
 * hears its connection reset one latency later, and C's route through R
 * is down at once with R dead, not at C's next check (180 s).
 */
static void gateway_down_when_lnd_reports_it(void **state)
{
	struct topo t;

	(void)state;
	topo_init(&t, true);
	route_add(t.c, "tcp1", R_TCP);
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 130);
	assert_true(is_up(t.c, "tcp1"));
	ul_node_shutdown(t.r->node);
	run_to(&t, 131);
	assert_false(route_of(t.c, "tcp1")->gateway->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	assert_false(is_up(t.s, "tcp"));
	sim_destroy(t.sim);
}

/*
 * §10.4, §7.5: only C has a route. R's tcp1 NI hears no ping and is
 * DOWN from 110 s; with avoid_asym_router_failure C's route is down.
 * Once S routes through R too, S's first check pings R's tcp1, which is
 * UP at once, and R's forced push of that status brings C's route up
 * (not C's next check). When C goes away, R's tcp NI is DOWN 110 s
 * after C's last ping, and R's push takes S's route down at once.
 */
static void aarf_one_side_configured(void **state)
{
	struct topo t;

	(void)state;
	topo_init(&t, true);
	route_add(t.c, "tcp1", R_TCP);
	run_to(&t, 125);
	assert_true(ni_is_up(t.r, R_TCP));
	assert_false(ni_is_up(t.r, R_TCP1));
	assert_int_equal(route_of(t.c, "tcp1")->gateway->rtr,
			 UL_PEER_RTR_ENABLED);
	assert_false(is_up(t.c, "tcp1"));
	/* S's check pings R's tcp1 at 125, C's next check is at 180. */
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 126);
	assert_true(ni_is_up(t.r, R_TCP1));
	assert_true(is_up(t.s, "tcp"));
	assert_true(is_up(t.c, "tcp1"));
	run_to(&t, 181);
	assert_true(is_up(t.c, "tcp1"));
	/* C's last check pings R at 180: R's tcp is quiet from 290 on. */
	ul_node_shutdown(t.c->node);
	run_to(&t, 289);
	assert_true(ni_is_up(t.r, R_TCP));
	assert_true(is_up(t.s, "tcp"));
	/* S's checks are at 245 and 305; R's push is what tells S. */
	run_to(&t, 292);
	assert_false(ni_is_up(t.r, R_TCP));
	assert_false(is_up(t.s, "tcp"));
	sim_destroy(t.sim);
}

/*
 * §10.5: with avoid_asym_router_failure 0, C's route is up while R's
 * tcp1 NI is down, and S's stays up after C went away.
 */
static void aarf_off_route_up_on_one_side(void **state)
{
	struct topo t;

	(void)state;
	topo_init(&t, true);
	ul_node_core(t.c->node)->tun.avoid_asym_router_failure = 0;
	ul_node_core(t.s->node)->tun.avoid_asym_router_failure = 0;
	route_add(t.c, "tcp1", R_TCP);
	run_to(&t, 125);
	assert_false(ni_is_up(t.r, R_TCP1));
	assert_true(is_up(t.c, "tcp1"));
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 181);
	ul_node_shutdown(t.c->node);
	run_to(&t, 400);
	assert_false(ni_is_up(t.r, R_TCP));
	assert_true(is_up(t.s, "tcp"));
	sim_destroy(t.sim);
}

/*
 * §10.6, §4.3: discovery off everywhere. R stays a non-MR peer of one
 * NID on C and S, so only the routes' cached flags speak: down while R
 * says RTE_DISABLED, up once R routes, and (AARF) down on C while R's
 * tcp1 NI is DOWN, up once S's checks have pinged it.
 */
static void discovery_off_uses_cached_flag(void **state)
{
	struct ul_route *r;
	struct topo t;

	(void)state;
	topo_init(&t, false);
	route_add(t.c, "tcp1", R_TCP);
	run_to(&t, 1);
	r = route_of(t.c, "tcp1");
	assert_false(r->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	run_to(&t, 125);
	r = route_of(t.c, "tcp1");
	assert_false(r->gateway->is_mr);
	assert_true(r->gateway->has_no_discovery);
	assert_int_equal(r->gateway->nnis, 1);
	/* The reply lists R's tcp1 NID, DOWN: single-hop, AARF says down. */
	assert_true(r->is_single_hop);
	assert_false(r->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 181);
	r = route_of(t.c, "tcp1");
	assert_true(r->is_alive);
	assert_true(is_up(t.c, "tcp1"));
	assert_true(is_up(t.s, "tcp"));
	sim_destroy(t.sim);
}

/*
 * §4.1, §5: a gateway that stops answering (its cable pulled: messages
 * to it vanish, no connection is reset) is dead after its next check
 * fails (the check's ping ends by its response deadline or the LND's
 * error): its routes and peer NIs are down.
 */
static void silent_gateway_goes_down_at_next_check(void **state)
{
	struct ulnet_nid r_tcp = sim_nid(R_TCP);
	struct ul_peer *gw;
	struct topo t;

	(void)state;
	topo_init(&t, true);
	ul_node_core(t.c->node)->tun.avoid_asym_router_failure = 0;
	route_add(t.c, "tcp1", R_TCP);
	run_to(&t, 170);
	assert_true(is_up(t.c, "tcp1"));
	gw = route_of(t.c, "tcp1")->gateway;
	assert_int_equal(ul_simfab_ni_set_up(t.sim->fab, &r_tcp, false), 0);
	run_to(&t, 179);
	assert_true(gw->is_alive);
	assert_true(is_up(t.c, "tcp1"));
	/* The transaction timeout (150 s) bounds the failing check. */
	run_to(&t, 180 + 151);
	assert_false(gw->is_alive);
	assert_false(route_of(t.c, "tcp1")->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	sim_destroy(t.sim);
}

/*
 * §3 check_routers_before_use: the gateway and its route start down and
 * come up only when a check has answered.
 */
static void check_routers_before_use_starts_down(void **state)
{
	struct topo t;

	(void)state;
	topo_init(&t, true);
	ul_node_core(t.c->node)->tun.check_routers_before_use = 1;
	ul_node_core(t.c->node)->tun.avoid_asym_router_failure = 0;
	/* R enabled before the route exists, so its first answer counts. */
	run_to(&t, 111);
	route_add(t.c, "tcp1", R_TCP);
	assert_false(route_of(t.c, "tcp1")->gateway->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	run_to(&t, 112);
	assert_true(is_up(t.c, "tcp1"));
	sim_destroy(t.sim);
}

static void on_pong(void *arg, int status, const struct ulnet_ping_result *res)
{
	int *rc = arg;

	(void)res;
	*rc = status;
}

/*
 * §4.1: a gateway a failed check left dead comes back with the first
 * routed message through it: discovery off, C drops every REPLY from R,
 * so C's checks fail and R is dead for C, and stays so (its checks keep
 * failing). S (avoid_asym_router_failure 0, so that R's tcp NI, which
 * C's checks no longer reach, does not take S's route down) then pings
 * C through R: the GET's arrival revives R and C's cached route to tcp1,
 * so C's REPLY goes back through R and S's ping succeeds.
 */
static void routed_traffic_revives_dead_gateway(void **state)
{
	struct ulnet_process_id to_c = sim_pid(C_NID);
	struct ul_fault_attr drop = { 0 };
	struct ul_peer *gw;
	struct topo t;
	uint64_t sec;
	int rc = 1;

	(void)state;
	topo_init(&t, false);
	ul_node_core(t.s->node)->tun.avoid_asym_router_failure = 0;
	route_add(t.c, "tcp1", R_TCP);
	route_add(t.s, "tcp", R_TCP1);
	run_to(&t, 181);
	assert_true(is_up(t.c, "tcp1"));
	assert_true(is_up(t.s, "tcp"));
	gw = route_of(t.c, "tcp1")->gateway;

	drop.src = sim_nid(R_TCP);
	ulnet_nid_set_any(&drop.dst);
	ulnet_nid_set_any(&drop.local);
	drop.msg_mask = UL_FAULT_MSG_REPLY;
	drop.rate = 1;
	assert_int_equal(ul_node_fault_add(t.c->node, &drop, NULL), 0);
	for (sec = 182; sec < 600 && gw->is_alive; sec++)
		run_to(&t, sec);
	assert_false(gw->is_alive);
	run_to(&t, sec + 30);
	assert_false(gw->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	assert_true(is_up(t.s, "tcp"));

	assert_int_equal(
		ul_node_ping(t.s->node, NULL, &to_c, 5000, on_pong, &rc), 0);
	sim_run(t.sim, (sec + 30) * SEC + 10 * 1000000ull);
	assert_int_equal(rc, 0);
	assert_true(gw->is_alive);
	assert_true(is_up(t.c, "tcp1"));
	sim_destroy(t.sim);
}

/*
 * §10.15: discovery off, C has two NIs on tcp and is Multi-Rail to R
 * and R to C (peer entries both ways). A local_error injected on C's
 * second NI toward R fails one ping from that NI and lowers its health,
 * but the route through R stays up through the checks that follow (they
 * leave from the healthier NI, and a local failure says nothing of the
 * gateway); only when R's tcp NI goes away does the route go down.
 */
static void local_error_on_one_ni_leaves_route_up(void **state)
{
	static const char conf_c2[] = "net:\n"
				      "  - net type: tcp\n"
				      "    local NI(s):\n"
				      "      - nid: 10.0.0.10@tcp\n"
				      "      - nid: 10.0.0.11@tcp\n"
				      "peer:\n"
				      "  - primary nid: 10.0.0.1@tcp\n"
				      "    Multi-Rail: True\n"
				      "    peer ni:\n"
				      "      - nid: 10.0.0.1@tcp\n"
				      "global:\n"
				      "    discovery: 0\n";
	static const char conf_r2[] = "net:\n"
				      "  - net type: tcp\n"
				      "    local NI(s):\n"
				      "      - nid: 10.0.0.1@tcp\n"
				      "  - net type: tcp1\n"
				      "    local NI(s):\n"
				      "      - nid: 10.1.0.1@tcp1\n"
				      "peer:\n"
				      "  - primary nid: 10.0.0.10@tcp\n"
				      "    Multi-Rail: True\n"
				      "    peer ni:\n"
				      "      - nid: 10.0.0.10@tcp\n"
				      "      - nid: 10.0.0.11@tcp\n"
				      "global:\n"
				      "    discovery: 0\n";
	struct ulnet_process_id to = sim_pid(R_TCP);
	struct ulnet_nid c1 = sim_nid("10.0.0.11@tcp");
	struct ulnet_nid r_tcp = sim_nid(R_TCP);
	struct ul_fault_attr drop = { 0 };
	struct ul_err err = { 0 };
	struct topo t;
	uint64_t sec;
	int rc = 1;

	(void)state;
	t.sim = sim_create(1);
	t.c = sim_node_add(t.sim, "c", conf_c2);
	t.r = sim_node_add(t.sim, "r", conf_r2);
	t.s = sim_node_add(t.sim, "s", conf_s);
	ul_node_core(t.s->node)->tun.discovery = 0;
	ul_node_core(t.c->node)->tun.avoid_asym_router_failure = 0;
	assert_int_equal(ul_node_routing_set(t.r->node, "routing", 1, 1, &err),
			 0);
	route_add(t.c, "tcp1", R_TCP);
	run_to(&t, 180);
	assert_true(is_up(t.c, "tcp1"));

	drop.src = c1;
	drop.dst = r_tcp;
	ulnet_nid_set_any(&drop.local);
	drop.rate = 1;
	drop.health_mask = 1u << UL_HSTATUS_LOCAL_ERROR;
	assert_int_equal(ul_node_fault_add(t.c->node, &drop, NULL), 0);
	assert_int_equal(ul_node_ping(t.c->node, &c1, &to, 5000, on_pong, &rc),
			 0);
	sim_run(t.sim, 180 * SEC + 10);
	assert_int_equal(rc, -EIO);
	assert_int_equal(sim_ni_info(t.c, "10.0.0.11@tcp").healthv, 900);
	assert_int_equal(sim_ni_info(t.c, "10.0.0.10@tcp").healthv, 1000);
	assert_int_equal(
		ul_node_fault_del(t.c->node, false, &drop.src, &drop.dst), 1);

	/* Three router checks, C1 healed by its recovery: always up. */
	for (sec = 182; sec <= 360; sec++) {
		run_to(&t, sec);
		assert_true(is_up(t.c, "tcp1"));
	}
	assert_true(route_of(t.c, "tcp1")->gateway->is_alive);

	assert_int_equal(ul_simfab_ni_set_up(t.sim->fab, &r_tcp, false), 0);
	run_to(&t, 360 + 60 + 151);
	assert_false(route_of(t.c, "tcp1")->gateway->is_alive);
	assert_false(is_up(t.c, "tcp1"));
	sim_destroy(t.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(route_up_when_router_enabled_pushes),
		cmocka_unit_test(router_disabled_route_down_at_next_check),
		cmocka_unit_test(aarf_one_side_configured),
		cmocka_unit_test(aarf_off_route_up_on_one_side),
		cmocka_unit_test(gateway_down_when_lnd_reports_it),
		cmocka_unit_test(discovery_off_uses_cached_flag),
		cmocka_unit_test(silent_gateway_goes_down_at_next_check),
		cmocka_unit_test(check_routers_before_use_starts_down),
		cmocka_unit_test(local_error_on_one_ni_leaves_route_up),
		cmocka_unit_test(routed_traffic_revives_dead_gateway),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
