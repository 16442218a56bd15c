/*
 * Discovery's merge of a ping reply (src/core/discovery.h, reference
 * discovery.md §8.3, §10, §11) and the peer rules it leans on: replies
 * are built by hand, no network. Node X has 10.0.0.1@tcp and
 * 10.1.0.1@tcp1; peer B answers with 10.0.0.2@tcp (its primary),
 * 10.0.0.4@tcp and 10.1.0.2@tcp1. Every test ends with
 * ul_core_destroy(); ASan checks that nothing is left.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/discovery.h"
#include "core/discovery_sm.h"
#include "helper_topo.h"
#include "ulnet/ulnet.h"
#include "wire/wire.h"

/* LNet's state word (lnetctl.md §7.3), derived as peer show does. */
static uint32_t state_of(const struct ul_peer *p)
{
	return ul_disc_state_bits(p);
}

static struct ul_core *node_x(void)
{
	struct ul_core *c;

	assert_int_equal(ul_core_create(&c), 0);
	ht_ni(c, "10.0.0.1@tcp", 0);
	ht_ni(c, "10.1.0.1@tcp1", 0);
	return c;
}

/* B's reply: features, then its NIDs (the first is the primary). */
static void reply(struct ulnet_ping_result *r, uint32_t features, ...)
{
	const char *s;
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->features = UL_WIRE_PING_FEAT_NI_STATUS | features;
	va_start(ap, features);
	while ((s = va_arg(ap, const char *)) != NULL) {
		r->nis[r->nnis].nid = ht_nid(s);
		r->nis[r->nnis++].status = UL_WIRE_NI_STATUS_UP;
	}
	va_end(ap);
	r->nnis_total = r->nnis;
	r->primary.nid = r->nis[0].nid;
}

#define FEAT_B                                                                 \
	(UL_WIRE_PING_FEAT_MULTI_RAIL | UL_WIRE_PING_FEAT_DISCOVERY |          \
	 UL_WIRE_PING_FEAT_RTE_DISABLED)

/* The NIDs of p in order, ", "-joined. */
static const char *nids_of(const struct ul_peer *p)
{
	static char buf[512];
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;
	size_t off = 0;

	buf[0] = '\0';
	ul_list_for_each_entry(lpn, &p->peer_nets, peer_link)
		ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%s%s", off ? ", " : "",
						ht_str(&lpni->nid));
	return buf;
}

static struct ul_peer *merge(struct ul_core *c, const char *target,
			     const struct ulnet_ping_result *r)
{
	struct ulnet_nid t = ht_nid(target);
	struct ul_peer *p = NULL;

	ul_discovery_start(c, &t);
	assert_int_equal(ul_discovery_merge(c, &t, r, &p, NULL), 0);
	return p;
}

static void discover_by_second_nid_merges_one_mr_peer(void **state)
{
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_peer *p;
	struct ulnet_nid b1 = ht_nid("10.0.0.2@tcp");

	(void)state;
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", "10.1.0.2@tcp1",
	      NULL);
	p = merge(c, "10.1.0.2@tcp1", &r);
	assert_true(ulnet_nid_same(&p->primary_nid, &b1));
	assert_string_equal(nids_of(p),
			    "10.0.0.2@tcp, 10.0.0.4@tcp, 10.1.0.2@tcp1");
	/* 273: MULTI_RAIL | DISCOVERED | NIDS_UPTODATE (lnetctl.md §7.3) */
	assert_int_equal(state_of(p), 273);
	assert_int_equal(c->npeers, 1);
	/* A router answering without RTE_DISABLED: ROUTER_ENABLED. */
	reply(&r, FEAT_B & ~UL_WIRE_PING_FEAT_RTE_DISABLED, "10.0.0.2@tcp",
	      "10.0.0.4@tcp", "10.1.0.2@tcp1", NULL);
	assert_ptr_equal(merge(c, "10.0.0.2@tcp", &r), p);
	assert_int_equal(state_of(p), 277);
	ul_core_destroy(c);
}

static void discover_keeps_the_earliest_locked_primary(void **state)
{
	struct ulnet_nid b1 = ht_nid("10.0.0.2@tcp");
	struct ulnet_nid b2 = ht_nid("10.0.0.4@tcp");
	struct ulnet_nid b3 = ht_nid("10.1.0.2@tcp1");
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_peer *p, *locked;

	(void)state;
	/* sanity-lnet 304: a locked, then unconfigured, peer for B's NID. */
	assert_int_equal(ul_peer_add(c, &b2, true, true, &locked, NULL), 0);
	assert_int_equal(state_of(locked), 1048585);
	locked->is_configured = false; /* peer set --state 1048577 */
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", NULL);
	p = merge(c, "10.0.0.2@tcp", &r);
	assert_int_equal(c->npeers, 1);
	assert_true(ulnet_nid_same(&p->primary_nid, &b2));
	/* the reply's primary first, the locked primary kept */
	assert_string_equal(nids_of(p), "10.0.0.2@tcp, 10.0.0.4@tcp");
	assert_int_equal(state_of(p), 1048849);
	assert_int_equal(ul_peer_del(c, &b2, true, NULL), 0);

	/* Two locked peers: the one locked first keeps its primary. */
	assert_int_equal(ul_peer_add(c, &b3, true, true, &locked, NULL), 0);
	assert_int_equal(ul_peer_add(c, &b1, true, true, &p, NULL), 0);
	locked->is_configured = false;
	p->is_configured = false;
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.1.0.2@tcp1", NULL);
	assert_ptr_equal(merge(c, "10.0.0.2@tcp", &r), p);
	assert_true(ulnet_nid_same(&p->primary_nid, &b3));
	assert_int_equal(c->npeers, 1);
	ul_core_destroy(c);
}

static void discovery_off_here_pings_once_non_mr(void **state)
{
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_peer *p;

	(void)state;
	c->tun.discovery = 0;
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", NULL);
	p = merge(c, "10.0.0.4@tcp", &r);
	/* discovery.md §10: NO_DISCOVERY, DISCOVERED, NIDS_UPTODATE */
	assert_int_equal(state_of(p), 2 + 16 + 256);
	assert_string_equal(nids_of(p), "10.0.0.4@tcp");
	ul_core_destroy(c);
}

static void discovery_off_there_remakes_the_peer_non_mr(void **state)
{
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_peer *p;

	(void)state;
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", NULL);
	p = merge(c, "10.0.0.4@tcp", &r);
	assert_int_equal(state_of(p), 273);
	/* B sets discovery 0: its reply lacks DISCOVERY (sanity-lnet 238). */
	reply(&r, FEAT_B & ~UL_WIRE_PING_FEAT_DISCOVERY, "10.0.0.2@tcp",
	      "10.0.0.4@tcp", NULL);
	p = merge(c, "10.0.0.4@tcp", &r);
	assert_int_equal(c->npeers, 1);
	assert_false(p->is_mr);
	assert_string_equal(nids_of(p), "10.0.0.4@tcp");
	assert_int_equal(state_of(p), 2 + 16 + 256);
	ul_core_destroy(c);
}

static void discovery_off_there_remakes_gateways_and_locks(void **state)
{
	struct ulnet_nid b1 = ht_nid("10.0.0.2@tcp");
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_route *rt;
	struct ul_rnet *rn;
	struct ul_peer *p;

	(void)state;
	assert_int_equal(ul_route_add(c, ht_net("tcp5"), &b1, 3, 2, &rt, NULL),
			 0);
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", NULL);
	p = merge(c, "10.0.0.2@tcp", &r);
	p->is_lock_prim = true;
	assert_int_equal(p->nnis, 2);
	/* LNet deletes even a locked gateway, then adds its routes again */
	reply(&r, FEAT_B & ~UL_WIRE_PING_FEAT_DISCOVERY, "10.0.0.2@tcp",
	      "10.0.0.4@tcp", NULL);
	p = merge(c, "10.0.0.2@tcp", &r);
	assert_int_equal(c->npeers, 1);
	assert_string_equal(nids_of(p), "10.0.0.2@tcp");
	assert_false(p->is_lock_prim);
	assert_int_equal(state_of(p), 2 + 16 + 256);
	rn = ul_rnet_find(c, ht_net("tcp5"));
	assert_non_null(rn);
	rt = ul_list_first_entry(&rn->routes, struct ul_route, rnet_link);
	assert_ptr_equal(rt->gateway, p);
	assert_int_equal(rt->hops, 3);
	assert_int_equal(rt->priority, 2);
	assert_int_equal(p->rtr_refcount, 1);
	ul_core_destroy(c);
}

static void configured_peer_keeps_its_nids(void **state)
{
	static const char *const more[] = { "10.0.0.9@tcp", NULL };
	struct ulnet_nid gone = ht_nid("10.0.0.9@tcp");
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_peer *p, *q;

	(void)state;
	p = ht_peer(c, true, "10.0.0.4@tcp", more);
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", NULL);
	q = merge(c, "10.0.0.4@tcp", &r);
	assert_ptr_equal(p, q);
	/* nothing added or removed; what the reply lacks is down */
	assert_string_equal(nids_of(p), "10.0.0.4@tcp, 10.0.0.9@tcp");
	assert_int_equal(ul_peer_ni_find(c, &p->primary_nid)->ns_status,
			 UL_NS_STATUS_UP);
	assert_int_equal(ul_peer_ni_find(c, &gone)->ns_status,
			 UL_NS_STATUS_DOWN);
	assert_int_equal(state_of(p), 1 + 8 + 16 + 256);
	ul_core_destroy(c);
}

static void vanished_nids_leave_an_unconfigured_peer(void **state)
{
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_peer *p;

	(void)state;
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.0.0.4@tcp", "10.1.0.2@tcp1",
	      NULL);
	p = merge(c, "10.0.0.2@tcp", &r);
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.1.0.2@tcp1", NULL);
	assert_ptr_equal(merge(c, "10.0.0.2@tcp", &r), p);
	assert_string_equal(nids_of(p), "10.0.0.2@tcp, 10.1.0.2@tcp1");
	/* A reply cut short lists not every NID: nothing goes then. */
	reply(&r, FEAT_B, "10.0.0.2@tcp", NULL);
	r.nnis_total = 2;
	assert_ptr_equal(merge(c, "10.0.0.2@tcp", &r), p);
	assert_string_equal(nids_of(p), "10.0.0.2@tcp, 10.1.0.2@tcp1");
	ul_core_destroy(c);
}

static void non_mr_peer_has_one_nid_per_net(void **state)
{
	struct ul_core *c = node_x();
	struct ulnet_nid prim = ht_nid("10.0.0.6@tcp");
	struct ulnet_nid same_net = ht_nid("10.0.0.7@tcp");
	struct ulnet_nid other_net = ht_nid("10.1.0.7@tcp1");
	struct ul_peer *p;

	(void)state;
	assert_int_equal(ul_peer_add(c, &prim, false, false, &p, NULL), 0);
	assert_int_equal(ul_peer_ni_add(c, p, &same_net, NULL, NULL),
			 -ENOTUNIQ);
	assert_int_equal(ul_peer_ni_add(c, p, &other_net, NULL, NULL), 0);
	assert_int_equal(p->nnis, 2);
	ul_core_destroy(c);
}

static void gateway_reply_sets_route_type_and_state(void **state)
{
	struct ulnet_nid gw = ht_nid("10.0.0.2@tcp");
	struct ulnet_ping_result r;
	struct ul_core *c = node_x();
	struct ul_route *to5, *to6;
	struct ul_peer *p;

	(void)state;
	assert_int_equal(ul_route_add(c, ht_net("tcp5"), &gw, UL_HOPS_UNDEFINED,
				      0, &to5, NULL),
			 0);
	assert_int_equal(ul_route_add(c, ht_net("tcp6"), &gw, 1, 0, &to6, NULL),
			 0);
	p = to5->gateway;
	/* route add alone tells nothing of its routing: no bit 2 */
	assert_int_equal(state_of(p), 0);
	assert_false(to5->is_single_hop);
	/* A router with a NID on tcp5, none on tcp6, routing on. */
	reply(&r, FEAT_B & ~UL_WIRE_PING_FEAT_RTE_DISABLED, "10.0.0.2@tcp",
	      "10.5.0.2@tcp5", NULL);
	assert_ptr_equal(merge(c, "10.0.0.2@tcp", &r), p);
	assert_true(p->rtr == UL_PEER_RTR_ENABLED);
	assert_true(to5->is_single_hop);
	assert_false(to6->is_single_hop);
	assert_true(ul_route_is_alive(c, to5));
	/* hop 1 with avoid_asym_router_failure needs the far net up */
	assert_false(ul_route_is_alive(c, to6));
	/* Routing off there: every route through it is down. */
	reply(&r, FEAT_B, "10.0.0.2@tcp", "10.5.0.2@tcp5", NULL);
	merge(c, "10.0.0.2@tcp", &r);
	assert_int_equal(state_of(p), 273);
	assert_false(ul_route_is_alive(c, to5));
	assert_false(to5->is_alive);
	ul_core_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(discover_by_second_nid_merges_one_mr_peer),
		cmocka_unit_test(discover_keeps_the_earliest_locked_primary),
		cmocka_unit_test(discovery_off_here_pings_once_non_mr),
		cmocka_unit_test(discovery_off_there_remakes_the_peer_non_mr),
		cmocka_unit_test(
			discovery_off_there_remakes_gateways_and_locks),
		cmocka_unit_test(configured_peer_keeps_its_nids),
		cmocka_unit_test(vanished_nids_leave_an_unconfigured_peer),
		cmocka_unit_test(non_mr_peer_has_one_nid_per_net),
		cmocka_unit_test(gateway_reply_sets_route_type_and_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
