/*
 * Selection properties on random configurations (fixed seeds), the
 * comparators against a deliberately naive reference ranking, and the
 * explanation: what it records and that recording changes nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/rank.h"
#include "helper_topo.h"

/* xorshift32: the tests' own fixed-seed generator. */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static uint32_t pick(uint32_t *s, uint32_t n)
{
	return rnd(s) % n;
}

/*
 * The naive reference: every criterion as a key where lower is better,
 * compared left to right like a tuple. Returns (1, -1, 0) like the
 * comparators and the index of the deciding key (n on a tie).
 */
static int tuple_cmp(const int64_t *a, const int64_t *b, int n, int *at)
{
	for (int i = 0; i < n; i++) {
		if (a[i] != b[i]) {
			*at = i;
			return a[i] < b[i] ? 1 : -1;
		}
	}
	*at = n;
	return 0;
}

static void check(int row, int got, enum ul_crit crit, int want, int at,
		  const enum ul_crit *order, int n)
{
	if (got != want)
		fail_msg("row %d: rank %d, naive %d", row, got, want);
	if (want && crit != order[at])
		fail_msg("row %d: decided by %s, naive %s", row,
			 ul_crit_name(crit), ul_crit_name(order[at]));
	if (!want && (at != n || crit != UL_CRIT_TIE))
		fail_msg("row %d: tie not reported", row);
}

static void rank_ni_key(const struct ul_ni_cand *c, int64_t *k)
{
	k[0] = c->is_fatal;
	k[1] = -(int64_t)c->healthv;
	k[2] = c->sel_priority;
	k[3] = c->dev_priority;
	k[4] = c->numa_dist;
	k[5] = -(int64_t)c->tx_credits;
	k[6] = c->seq;
}

static void rank_lpni_key(const struct ul_lpni_cand *c, int64_t *k)
{
	k[0] = -(int64_t)c->healthv;
	k[1] = c->sel_priority;
	k[2] = !c->is_preferred;
	k[3] = -(int64_t)c->txcredits;
	k[4] = c->seq;
}

static void rank_pair_key(const struct ul_net_pair_cand *c, int64_t *k)
{
	k[0] = -(int64_t)c->lpn_healthv;
	k[1] = c->lpn_sel_priority;
	k[2] = -(int64_t)c->net_healthv;
	k[3] = c->net_sel_priority;
	k[4] = c->lpn_seq;
	k[5] = c->net_seq;
}

static void rank_route_key(const struct ul_route_cand *c, int64_t *k)
{
	k[0] = !c->is_preferred;
	k[1] = c->priority;
	k[2] = c->hops == UL_HOPS_UNDEFINED ? 1 : c->hops;
}

/* Small value ranges so that ties happen on every criterion. */
static uint32_t small(uint32_t *s)
{
	static const uint32_t v[] = { 0, 1, 2, UINT32_MAX };

	return v[pick(s, 4)];
}

static void rank_comparators_agree_with_naive_tuples(void **state)
{
	static const enum ul_crit ni_order[] = {
		UL_CRIT_FATAL,	      UL_CRIT_HEALTH, UL_CRIT_PRIORITY,
		UL_CRIT_DEV_PRIORITY, UL_CRIT_NUMA,   UL_CRIT_CREDITS,
		UL_CRIT_RR,
	};
	static const enum ul_crit lpni_order[] = {
		UL_CRIT_HEALTH,	 UL_CRIT_PRIORITY, UL_CRIT_PREFERRED,
		UL_CRIT_CREDITS, UL_CRIT_RR,
	};
	static const enum ul_crit pair_order[] = {
		UL_CRIT_PEER_NET_HEALTH, UL_CRIT_PEER_NET_PRIORITY,
		UL_CRIT_NET_HEALTH,	 UL_CRIT_NET_PRIORITY,
		UL_CRIT_PEER_NET_RR,	 UL_CRIT_NET_RR,
	};
	static const enum ul_crit route_order[] = {
		UL_CRIT_ROUTE_PREFERRED,
		UL_CRIT_ROUTE_PRIORITY,
		UL_CRIT_HOPS,
	};
	uint32_t s = 12345;
	int64_t ka[8], kb[8];
	enum ul_crit crit;
	int at, want, got;

	(void)state;
	for (int row = 0; row < 20000; row++) {
		struct ul_ni_cand na = { pick(&s, 2),
					 (int)pick(&s, 3) * 500,
					 small(&s),
					 small(&s),
					 10 + pick(&s, 2) * 10,
					 (int)pick(&s, 3) - 1,
					 pick(&s, 3) };
		struct ul_ni_cand nb = { pick(&s, 2),
					 (int)pick(&s, 3) * 500,
					 small(&s),
					 small(&s),
					 10 + pick(&s, 2) * 10,
					 (int)pick(&s, 3) - 1,
					 pick(&s, 3) };
		struct ul_lpni_cand la = { (int)pick(&s, 2) * 1000, small(&s),
					   pick(&s, 2), (int)pick(&s, 3) - 1,
					   pick(&s, 3) };
		struct ul_lpni_cand lb = { (int)pick(&s, 2) * 1000, small(&s),
					   pick(&s, 2), (int)pick(&s, 3) - 1,
					   pick(&s, 3) };
		struct ul_net_pair_cand pa = { (int)pick(&s, 2) * 1000,
					       small(&s),
					       (int)pick(&s, 2) * 1000,
					       small(&s),
					       pick(&s, 3),
					       pick(&s, 3) };
		struct ul_net_pair_cand pb = { (int)pick(&s, 2) * 1000,
					       small(&s),
					       (int)pick(&s, 2) * 1000,
					       small(&s),
					       pick(&s, 3),
					       pick(&s, 3) };
		struct ul_route_cand ra = { pick(&s, 2), pick(&s, 2),
					    pick(&s, 2) ? 1
							: UL_HOPS_UNDEFINED };
		struct ul_route_cand rb = { pick(&s, 2), pick(&s, 2),
					    pick(&s, 3) + 1 };

		rank_ni_key(&na, ka);
		rank_ni_key(&nb, kb);
		want = tuple_cmp(ka, kb, 7, &at);
		got = ul_rank_ni(&na, &nb, &crit);
		check(row, got, crit, want, at, ni_order, 7);

		rank_lpni_key(&la, ka);
		rank_lpni_key(&lb, kb);
		want = tuple_cmp(ka, kb, 5, &at);
		got = ul_rank_lpni(&la, &lb, &crit);
		check(row, got, crit, want, at, lpni_order, 5);

		rank_pair_key(&pa, ka);
		rank_pair_key(&pb, kb);
		want = tuple_cmp(ka, kb, 6, &at);
		got = ul_rank_net_pair(&pa, &pb, &crit);
		check(row, got, crit, want, at, pair_order, 6);

		rank_route_key(&ra, ka);
		rank_route_key(&rb, kb);
		want = tuple_cmp(ka, kb, 3, &at);
		got = ul_rank_route(&ra, &rb, &crit);
		check(row, got, crit, want, at, route_order, 3);
	}
}

/* A random node: one local net of nni NIs, an MR peer of nlpni NIDs. */
static struct ul_core *one_net_node(uint32_t nni, uint32_t nlpni,
				    struct ul_ni **nis,
				    struct ul_peer_ni **lpnis)
{
	struct ul_core *c;
	struct ul_peer *p;
	char buf[32];

	assert_int_equal(ul_core_create(&c), 0);
	for (uint32_t i = 0; i < nni; i++) {
		snprintf(buf, sizeof(buf), "10.0.0.%u@o2ib", i + 1);
		nis[i] = ht_ni(c, buf, 0);
	}
	p = ht_peer(c, true, "10.0.1.1@o2ib", NULL);
	for (uint32_t i = 0; i < nlpni; i++) {
		struct ulnet_nid n;

		snprintf(buf, sizeof(buf), "10.0.1.%u@o2ib", i + 1);
		n = ht_nid(buf);
		assert_int_equal(ul_peer_ni_add(c, p, &n, &lpnis[i], NULL), 0);
	}
	return c;
}

static void expect_spread(const int *count, uint32_t n, int row)
{
	int lo = count[0], hi = count[0];

	for (uint32_t i = 1; i < n; i++) {
		if (count[i] < lo)
			lo = count[i];
		if (count[i] > hi)
			hi = count[i];
	}
	if (hi - lo > 1)
		fail_msg("row %d: counts differ by %d", row, hi - lo);
}

static void select_equal_nis_share_traffic_within_one(void **state)
{
	uint32_t s = 777;

	(void)state;
	for (int row = 0; row < 60; row++) {
		uint32_t nni = 1 + pick(&s, 6), nlpni = 1 + pick(&s, 6);
		uint32_t nsend = 1 + pick(&s, 300);
		struct ul_ni *nis[6];
		struct ul_peer_ni *lpnis[6];
		int ni_count[6] = { 0 }, lpni_count[6] = { 0 };
		struct ul_core *c = one_net_node(nni, nlpni, nis, lpnis);
		struct ul_select_res res;

		for (uint32_t k = 0; k < nsend; k++) {
			assert_int_equal(ht_send(c, NULL, "10.0.1.1@o2ib", NULL,
						 UL_MSG_PUT, &res),
					 0);
			for (uint32_t i = 0; i < nni; i++)
				ni_count[i] += res.ni == nis[i];
			for (uint32_t i = 0; i < nlpni; i++)
				lpni_count[i] += res.lpni == lpnis[i];
		}
		expect_spread(ni_count, nni, row);
		expect_spread(lpni_count, nlpni, row);
		ul_core_destroy(c);
	}
}

static void select_non_mr_peer_always_gets_same_ni(void **state)
{
	uint32_t s = 4242;

	(void)state;
	for (int row = 0; row < 20; row++) {
		struct ul_core *c;
		struct ul_ni *first[8] = { 0 };
		char buf[32];
		uint32_t nni = 2 + pick(&s, 4);

		assert_int_equal(ul_core_create(&c), 0);
		for (uint32_t i = 0; i < nni; i++) {
			snprintf(buf, sizeof(buf), "10.0.0.%u@tcp", i + 1);
			ht_ni(c, buf, (int)pick(&s, 2));
		}
		for (int k = 0; k < 200; k++) {
			uint32_t peer = pick(&s, 8);
			struct ul_select_res res;
			struct ul_select_req req;
			struct ulnet_nid d;

			snprintf(buf, sizeof(buf), "10.0.9.%u@tcp", peer + 1);
			d = ht_nid(buf);
			ul_select_req_init(&req, &d,
					   pick(&s, 2) ? UL_MSG_PUT
						       : UL_MSG_GET);
			req.md_numa_node = (int)pick(&s, 3) - 1;
			assert_int_equal(ul_select(c, &req, &res, NULL), 0);
			if (!first[peer])
				first[peer] = res.ni;
			if (res.ni != first[peer])
				fail_msg("row %d send %d: peer %u moved", row,
					 k, peer);
			/* Health changes do not move a sticky NI. */
			if (pick(&s, 4) == 0) {
				struct ul_ni *ni = ul_list_first_entry(
					&res.ni->net->nis, struct ul_ni,
					net_link);
				ni->healthv = (int)pick(&s, 1001);
			}
		}
		ul_core_destroy(c);
	}
}

/* Is any non-fatal NI of net healthier than h? */
static bool healthier_ni_exists(const struct ul_net *net, int h)
{
	const struct ul_ni *ni;

	ul_list_for_each_entry(ni, &net->nis, net_link) {
		if (!ni->is_fatal && ni->healthv > h)
			return true;
	}
	return false;
}

static bool healthier_lpni_exists(const struct ul_peer_net *lpn, int h)
{
	const struct ul_peer_ni *lpni;

	ul_list_for_each_entry(lpni, &lpn->peer_nis, peer_net_link) {
		if (lpni->healthv > h)
			return true;
	}
	return false;
}

/*
 * Two nets, random health, fatal flags, priorities and NUMA nodes on
 * both sides: whatever wins, nothing healthier was passed over on the
 * chosen local net, the chosen peer net, or among the peer nets.
 */
static void select_never_prefers_lower_health(void **state)
{
	static const char *const more[] = { "10.1.0.11@o2ib", "10.1.0.12@o2ib",
					    "192.168.1.10@tcp",
					    "192.168.1.11@tcp", NULL };
	uint32_t s = 99;

	(void)state;
	for (int row = 0; row < 40; row++) {
		struct ul_core *c;
		struct ul_ni *nis[5];
		struct ul_peer *p;
		struct ul_peer_net *lpn;
		struct ul_peer_ni *lpni;

		assert_int_equal(ul_core_create(&c), 0);
		nis[0] = ht_ni(c, "10.1.0.1@o2ib", 0);
		nis[1] = ht_ni(c, "10.1.0.2@o2ib", 1);
		nis[2] = ht_ni(c, "10.1.0.3@o2ib", 0);
		nis[3] = ht_ni(c, "192.168.1.1@tcp", 1);
		nis[4] = ht_ni(c, "192.168.1.2@tcp", 0);
		p = ht_peer(c, true, "10.1.0.10@o2ib", more);
		for (int k = 0; k < 100; k++) {
			struct ul_select_res res;
			const struct ul_peer_net *best_lpn = NULL;

			if (k % 10 == 0) {
				for (int i = 0; i < 5; i++) {
					nis[i]->healthv =
						(int)pick(&s, 4) * 300;
					nis[i]->is_fatal = pick(&s, 5) == 0;
					nis[i]->sel_priority = small(&s);
				}
				ul_list_for_each_entry(lpn, &p->peer_nets,
						       peer_link) {
					ul_list_for_each_entry(lpni,
							       &lpn->peer_nis,
							       peer_net_link) {
						ul_peer_ni_set_healthv(
							lpni,
							(int)pick(&s, 4) * 300);
						lpni->sel_priority = small(&s);
					}
				}
			}
			assert_int_equal(ht_send(c, NULL, "10.1.0.10@o2ib",
						 NULL, UL_MSG_PUT, &res),
					 0);
			if (!res.ni->is_fatal &&
			    healthier_ni_exists(res.ni->net, res.ni->healthv))
				fail_msg("row %d send %d: healthier NI passed",
					 row, k);
			if (healthier_lpni_exists(res.lpni->peer_net,
						  res.lpni->healthv))
				fail_msg("row %d send %d: healthier peer NI",
					 row, k);
			ul_list_for_each_entry(lpn, &p->peer_nets, peer_link) {
				if (!best_lpn ||
				    lpn->healthv > best_lpn->healthv)
					best_lpn = lpn;
			}
			if (res.lpni->peer_net->healthv < best_lpn->healthv)
				fail_msg("row %d send %d: healthier peer net",
					 row, k);
		}
		ul_core_destroy(c);
	}
}

/* Example A message 3, explained: every step, value and decision. */
static void select_explanation_records_each_decision(void **state)
{
	struct ht_c t;
	struct ul_explain ex;
	struct ulnet_nid dst;
	struct ul_select_req req;
	struct ul_select_res res;
	const struct ul_explain_step *st;
	const struct ul_explain_cand *cd;
	unsigned int n;

	(void)state;
	ht_build_c(&t);
	dst = ht_nid("10.1.0.10@o2ib");
	ul_select_req_init(&req, &dst, UL_MSG_PUT);
	assert_int_equal(ul_explain_init(&ex, 64), 0);
	assert_int_equal(ul_select(t.c, &req, &res, NULL), 0);
	assert_int_equal(ul_select(t.c, &req, &res, NULL), 0);
	assert_int_equal(ul_select(t.c, &req, &res, &ex), 0);
	assert_int_equal(ex.rc, 0);
	assert_int_equal(ex.scase, UL_CASE_ANY_MR);
	assert_string_equal(ul_select_case_name(ex.scase), "any_mr");
	assert_int_equal(ex.nsteps, 4);

	st = &ex.steps[0];
	assert_int_equal(st->kind, UL_STEP_CLASSIFY);

	st = &ex.steps[1];
	assert_int_equal(st->kind, UL_STEP_NET_PAIR);
	assert_int_equal(st->ncands, 2);
	assert_int_equal(st->winner, 0);
	cd = &ex.cands[st->first_cand + 1]; /* tcp */
	assert_int_equal(cd->net_id, ht_net("tcp"));
	assert_int_equal(cd->verdict, UL_VERDICT_WORSE);
	assert_int_equal(cd->decided_by, UL_CRIT_PEER_NET_RR);
	assert_string_equal(ul_crit_name(cd->decided_by),
			    "peer net round robin");
	assert_int_equal(cd->value[4], 2); /* tcp lpn_seq */

	st = &ex.steps[2];
	assert_int_equal(st->kind, UL_STEP_LOCAL_NI);
	assert_int_equal(st->ncands, 2);
	assert_int_equal(st->winner, 1);
	cd = &ex.cands[st->first_cand + 1];
	assert_true(ulnet_nid_same(&cd->nid, &t.c2->nid));
	assert_int_equal(cd->verdict, UL_VERDICT_BETTER);
	assert_int_equal(cd->decided_by, UL_CRIT_RR);
	assert_string_equal(ul_crit_name(UL_CRIT_RR), "round robin");
	ul_step_crits(st->kind, &n);
	assert_int_equal(n, 7);
	assert_int_equal(cd->value[1], 1000); /* health */

	st = &ex.steps[3];
	assert_int_equal(st->kind, UL_STEP_PEER_NI);
	assert_int_equal(st->winner, 1);
	assert_int_equal(ex.cands[st->first_cand + 1].decided_by, UL_CRIT_RR);

	/* A routed send records the route walk and the gateway NI. */
	dst = ht_nid("172.16.0.10@o2ib1");
	ul_select_req_init(&req, &dst, UL_MSG_PUT);
	assert_int_equal(ul_select(t.c, &req, &res, &ex), 0);
	assert_int_equal(ex.route_mode, UL_ROUTE_MODE_O);
	n = 0;
	for (uint32_t i = 0; i < ex.nsteps; i++) {
		st = &ex.steps[i];
		if (st->kind == UL_STEP_ROUTE) {
			assert_int_equal(st->ncands, 2);
			assert_int_equal(st->winner, 1);
			cd = &ex.cands[st->first_cand + 1];
			assert_int_equal(cd->decided_by, UL_CRIT_ROUTE_RR);
			n |= 1;
		}
		if (st->kind == UL_STEP_GATEWAY_NI)
			n |= 2;
		if (st->kind == UL_STEP_PEER_NET)
			n |= 4;
	}
	assert_int_equal(n, 7);
	ul_explain_fini(&ex);
	ht_destroy_c(&t);
}

/* A full candidate buffer only counts what it drops. */
static void select_explanation_memory_is_bounded(void **state)
{
	struct ht_c t;
	struct ul_explain ex;
	struct ulnet_nid dst = ht_nid("10.1.0.10@o2ib");
	struct ul_select_req req;
	struct ul_select_res res;

	(void)state;
	ht_build_c(&t);
	ul_select_req_init(&req, &dst, UL_MSG_PUT);
	assert_int_equal(ul_explain_init(&ex, 3), 0);
	assert_int_equal(ul_select(t.c, &req, &res, &ex), 0);
	assert_int_equal(ex.ncands, 3);
	assert_true(ex.ncands_dropped > 0);
	ul_explain_fini(&ex);
	ht_destroy_c(&t);
}

/* Two identical nodes, one explained: the same sends, the same stamps. */
static void select_explanation_changes_nothing(void **state)
{
	static const char *const dsts[] = {
		"10.1.0.10@o2ib", "172.16.0.10@o2ib1", "172.16.0.20@o2ib1",
		"10.1.0.20@o2ib", "10.2.0.10@tcp1",    "10.2.0.20@tcp1",
		"0@lo",
	};
	struct ht_c a, b;
	struct ul_explain ex;
	uint32_t s = 5;

	(void)state;
	ht_build_c(&a);
	ht_build_c(&b);
	assert_int_equal(ul_explain_init(&ex, 256), 0);
	for (int k = 0; k < 500; k++) {
		struct ulnet_nid d = ht_nid(dsts[pick(&s, 7)]);
		struct ul_select_req req;
		struct ul_select_res ra, rb;

		ul_select_req_init(&req, &d, UL_MSG_PUT);
		req.is_reserved_portal = pick(&s, 5) == 0;
		assert_int_equal(ul_select(a.c, &req, &ra, NULL), 0);
		assert_int_equal(ul_select(b.c, &req, &rb, &ex), 0);
		assert_true(ulnet_nid_same(&ra.ni->nid, &rb.ni->nid));
		assert_true(ulnet_nid_same(&ra.hdr_dst_nid, &rb.hdr_dst_nid));
		assert_int_equal(ra.scase, rb.scase);
	}
	assert_int_equal(a.c->net_seq, b.c->net_seq);
	assert_int_equal(a.rt_r1->seq, b.rt_r1->seq);
	ul_explain_fini(&ex);
	ht_destroy_c(&a);
	ht_destroy_c(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rank_comparators_agree_with_naive_tuples),
		cmocka_unit_test(select_equal_nis_share_traffic_within_one),
		cmocka_unit_test(select_non_mr_peer_always_gets_same_ni),
		cmocka_unit_test(select_never_prefers_lower_health),
		cmocka_unit_test(select_explanation_records_each_decision),
		cmocka_unit_test(select_explanation_memory_is_bounded),
		cmocka_unit_test(select_explanation_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
