/*
 * What a user notices of UDSP rules: the sends of reference/udsp.md §10
 * (scenarios 1, 3, 5, 13, 14, 18, 25), run through ul_select() on the
 * §10 node. Rules write fields (test_udsp_scenarios.c); these tests show
 * selection reading them (selection.md §9).
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

#include "core/core.h"
#include "core/select.h"
#include "core/udsp.h"

#define NO_PRIO (-1LL)
#define SENDS 8

struct fx {
	struct ul_core *c;
	struct ul_udsp_set *set;
};

static struct ulnet_nid nid(const char *s)
{
	struct ulnet_nid n;

	if (ulnet_nid_parse(s, &n, NULL, 0))
		fail_msg("nid '%s'", s);
	return n;
}

static void ni_add(struct fx *fx, const char *s)
{
	struct ulnet_nid n = nid(s);

	assert_int_equal(
		ul_ni_add(fx->c, &n, NULL, UL_NUMA_ANY, NULL, NULL, NULL), 0);
}

static struct ul_peer *peer_add(struct fx *fx, const char *prim,
				const char *more1, const char *more2)
{
	struct ulnet_nid n = nid(prim);
	const char *more[2] = { more1, more2 };
	struct ul_peer *peer = NULL;
	int i;

	assert_int_equal(ul_peer_add(fx->c, &n, true, false, &peer, NULL), 0);
	for (i = 0; i < 2 && more[i]; i++) {
		n = nid(more[i]);
		assert_int_equal(ul_peer_ni_add(fx->c, peer, &n, NULL, NULL),
				 0);
	}
	return peer;
}

static void route_add(struct fx *fx, const char *gw)
{
	struct ulnet_nid n = nid(gw);
	struct ul_route *r = NULL;
	uint32_t net;

	assert_int_equal(ulnet_net_parse("o2ib2", &net, NULL, 0), 0);
	assert_int_equal(ul_route_add(fx->c, net, &n, 1, 0, &r, NULL), 0);
	ul_udsp_on_route_add(fx->set, r);
}

/* The §10 node; N1 is created by the first send to it. */
static int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	assert_int_equal(ul_core_create(&fx->c), 0);
	ul_core_set_route_append(fx->c, true);
	assert_int_equal(ul_udsp_attach(fx->c, &fx->set), 0);
	ni_add(fx, "10.1.0.1@o2ib");
	ni_add(fx, "10.1.0.2@o2ib");
	ni_add(fx, "10.1.1.1@o2ib1");
	ni_add(fx, "192.168.1.1@tcp");
	peer_add(fx, "10.1.0.10@o2ib", "10.1.0.11@o2ib", "192.168.1.10@tcp");
	route_add(fx, "10.1.0.100@o2ib");
	route_add(fx, "10.1.0.101@o2ib");
	peer_add(fx, "172.16.0.10@o2ib2", "172.16.0.11@o2ib2", NULL);
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;

	ul_udsp_detach(fx->set);
	ul_core_destroy(fx->c);
	free(fx);
	return 0;
}

static void add(struct fx *fx, const char *src, const char *dst,
		const char *rte, long long prio)
{
	struct ul_udsp_rule *r = NULL;
	struct ul_err err = { 0 };

	if (ul_udsp_rule_from_strings(src, dst, rte, prio >= 0,
				      prio >= 0 ? (uint32_t)prio : 0, -1, &r,
				      &err) ||
	    ul_udsp_add(fx->set, r, &err))
		fail_msg("udsp add: %s", err.msg);
	ul_udsp_rule_free(r);
}

/* One PUT to dst: "local-NI > next-hop [> final]" for the message. */
static const char *put(struct fx *fx, const char *dst)
{
	static char out[256];
	struct ulnet_nid d = nid(dst);
	struct ul_select_req req;
	struct ul_select_res res;
	char a[ULNET_NIDSTR_SIZE], b[ULNET_NIDSTR_SIZE], f[ULNET_NIDSTR_SIZE];

	ul_select_req_init(&req, &d, UL_MSG_PUT);
	if (ul_select(fx->c, &req, &res, NULL))
		fail_msg("no path to %s", dst);
	ulnet_nid_format(&res.ni->nid, a, sizeof(a));
	ulnet_nid_format(&res.lpni->nid, b, sizeof(b));
	ulnet_nid_format(&res.final_lpni->nid, f, sizeof(f));
	if (res.is_routed)
		snprintf(out, sizeof(out), "%s > %s > %s", a, b, f);
	else
		snprintf(out, sizeof(out), "%s > %s", a, b);
	return out;
}

/* 1: the tcp net has the best priority: every send to S1 uses it. */
static void src_net_priority_pins_sends_to_tcp(void **state)
{
	struct fx *fx = *state;
	int i;

	add(fx, "tcp", NULL, NULL, 1);
	for (i = 0; i < SENDS; i++)
		assert_string_equal(put(fx, "10.1.0.10@o2ib"),
				    "192.168.1.1@tcp > 192.168.1.10@tcp");
}

/* 3: o2ib sends to S1 leave from 10.1.0.2; o2ib and tcp alternate. */
static void src_nid_priority_picks_the_o2ib_ni(void **state)
{
	struct fx *fx = *state;
	int i, tcp = 0;

	add(fx, "10.1.0.2@o2ib", NULL, NULL, 0);
	for (i = 0; i < SENDS; i++) {
		const char *p = put(fx, "10.1.0.10@o2ib");

		if (strncmp(p, "192.168.1.1@tcp", 15) == 0)
			tcp++;
		else if (strncmp(p, "10.1.0.2@o2ib >", 15) != 0)
			fail_msg("send %d: %s", i, p);
	}
	assert_int_equal(tcp, SENDS / 2);
}

/* 5: the o2ib peer net priority beats the tcp local net priority. */
static void dst_net_priority_beats_src_net_priority(void **state)
{
	struct fx *fx = *state;
	int i;

	add(fx, "tcp", NULL, NULL, 0);
	add(fx, NULL, "o2ib", NULL, 0);
	for (i = 0; i < SENDS; i++)
		if (strncmp(put(fx, "10.1.0.10@o2ib"), "10.1.0.", 7) != 0)
			fail_msg("send %d left o2ib", i);
}

/* 13: from 10.1.0.2 the peer NI is always .11. */
static void pair_rule_pairs_source_and_peer_ni(void **state)
{
	struct fx *fx = *state;
	int i, from2 = 0;

	add(fx, "10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, NO_PRIO);
	for (i = 0; i < 4 * SENDS; i++) {
		const char *p = put(fx, "10.1.0.10@o2ib");

		if (strncmp(p, "10.1.0.2@o2ib", 13) != 0)
			continue;
		from2++;
		assert_string_equal(p, "10.1.0.2@o2ib > 10.1.0.11@o2ib");
	}
	assert_true(from2 > 0);
}

/* 14: every send to the non-MR N1 leaves from 10.1.0.1. */
static void pair_rule_fixes_non_mr_source(void **state)
{
	struct fx *fx = *state;
	struct ul_peer_ni *lpni;
	struct ulnet_nid n1 = nid("10.1.0.20@o2ib");
	int i;

	assert_int_equal(ul_peer_ni_find_or_create(fx->c, &n1, NULL, &lpni), 0);
	add(fx, "10.1.0.[1-2]@o2ib", "10.1.0.20@o2ib", NULL, NO_PRIO);
	for (i = 0; i < SENDS; i++)
		assert_string_equal(put(fx, "10.1.0.20@o2ib"),
				    "10.1.0.1@o2ib > 10.1.0.20@o2ib");
}

/* 18: messages whose final NID is .10 always go through R2. */
static void router_rule_picks_the_gateway(void **state)
{
	struct fx *fx = *state;
	int i, to10 = 0, via_r1 = 0;

	add(fx, NULL, "172.16.0.10@o2ib2", "10.1.0.101@o2ib", NO_PRIO);
	for (i = 0; i < 4 * SENDS; i++) {
		const char *p = put(fx, "172.16.0.10@o2ib2");

		if (!strstr(p, "> 172.16.0.10@o2ib2")) {
			via_r1 += strstr(p, "> 10.1.0.100@o2ib >") != NULL;
			continue;
		}
		to10++;
		if (!strstr(p, "> 10.1.0.101@o2ib >"))
			fail_msg("send %d: %s", i, p);
	}
	/* .10 was a final NID; .11's messages still use R1 too */
	assert_true(to10 > 0);
	assert_true(via_r1 > 0);
}

/* 25: health is ranked before the NI priority. */
static void health_beats_ni_priority(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid c1 = nid("10.1.0.1@o2ib");
	int i;

	add(fx, "10.1.0.1@o2ib", NULL, NULL, 0);
	ul_ni_find(fx->c, &c1)->healthv = 900;
	for (i = 0; i < SENDS; i++) {
		const char *p = put(fx, "10.1.0.10@o2ib");

		if (strncmp(p, "10.1.0.1@o2ib", 13) == 0)
			fail_msg("send %d: %s", i, p);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(src_net_priority_pins_sends_to_tcp),
		T(src_nid_priority_picks_the_o2ib_ni),
		T(dst_net_priority_beats_src_net_priority),
		T(pair_rule_pairs_source_and_peer_ni),
		T(pair_rule_fixes_non_mr_source),
		T(router_rule_picks_the_gateway),
		T(health_beats_ni_priority),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
