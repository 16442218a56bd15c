/*
 * Fault rules (src/core/fault.h, reference/fault.md): wildcard NIDs match
 * as LNet's do, type / portal / local NID filters, which rules take part
 * on the receive and the send side, the rate / interval / random /
 * drop_all decisions, newest rule first, health status choice, add's
 * validation, del's exact comparison, reset.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/fault.h"
#include "helper_topo.h"

#define SEED 12345

static struct ulnet_nid any_of(const char *net)
{
	struct ulnet_nid n = ht_nid(net);

	n.nid_addr[0] = 0xffffffffu;
	return n;
}

static struct ulnet_nid any(void)
{
	struct ulnet_nid n;

	ulnet_nid_set_any(&n);
	return n;
}

/* A drop rule from src to dst, rate 1, nothing else. */
static struct ul_fault_attr attr(const char *src, const char *dst)
{
	struct ul_fault_attr a;

	memset(&a, 0, sizeof(a));
	a.src = strcmp(src, "*") ? ht_nid(src) : any();
	a.dst = strcmp(dst, "*") ? ht_nid(dst) : any();
	a.local = any();
	a.rate = 1;
	return a;
}

static struct ul_fault_msg msg(const char *src, const char *dst, uint32_t type,
			       uint32_t portal)
{
	struct ul_fault_msg m;

	memset(&m, 0, sizeof(m));
	m.src = ht_nid(src);
	m.dst = ht_nid(dst);
	m.type = type;
	m.portal = portal;
	return m;
}

static void wildcards_match(void **state)
{
	struct ulnet_nid a = ht_nid("10.0.0.1@tcp"),
			 b = ht_nid("10.0.0.1@tcp1");
	struct ulnet_nid tcp = any_of("1.1.1.1@tcp"), star = any();

	(void)state;
	assert_true(ul_fault_nid_match(&star, &a));
	assert_true(ul_fault_nid_match(&star, &b));
	assert_true(ul_fault_nid_match(&star, NULL));
	assert_true(ul_fault_nid_match(&tcp, &a));
	assert_false(ul_fault_nid_match(&tcp, &b));
	assert_false(ul_fault_nid_match(&tcp, NULL));
	assert_true(ul_fault_nid_match(&a, &a));
	assert_false(ul_fault_nid_match(&a, &b));
	assert_false(ul_fault_nid_match(&a, NULL));
}

/* Table of attribute matches: numbered cases. */
static void attr_filters(void **state)
{
	static const struct {
		uint32_t msg_mask;
		uint64_t ptl_mask;
		const char *dst_msg;
		uint32_t type, portal;
		bool want;
	} cases[] = {
		/* 0 */ { 0, 0, "10.0.0.2@tcp", UL_FAULT_MSG_ACK, 0, true },
		/* 1 */
		{ UL_FAULT_MSG_GET, 0, "10.0.0.2@tcp", UL_FAULT_MSG_PUT, 0,
		  false },
		/* 2 */
		{ UL_FAULT_MSG_GET, 0, "10.0.0.2@tcp", UL_FAULT_MSG_GET, 9,
		  true },
		/* 3 */ { 0, 1ULL << 4, "10.0.0.2@tcp", UL_FAULT_MSG_PUT, 4, true },
		/* 4 */
		{ 0, 1ULL << 4, "10.0.0.2@tcp", UL_FAULT_MSG_PUT, 5, false },
		/* 5 */
		{ 0, 1ULL << 63, "10.0.0.2@tcp", UL_FAULT_MSG_GET, 63, true },
		/* 6 */
		{ 0, 1ULL << 4, "10.0.0.2@tcp", UL_FAULT_MSG_GET, 64, false },
		/* 7 */ { 0, 0, "10.0.0.3@tcp", UL_FAULT_MSG_GET, 0, false },
		/* 8 */
		{ UL_FAULT_MSG_REPLY | UL_FAULT_MSG_ACK, 0, "10.0.0.2@tcp",
		  UL_FAULT_MSG_REPLY, 0, true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ul_fault_attr a = attr("10.0.0.1@tcp", "10.0.0.2@tcp");
		struct ul_fault_msg m = msg("10.0.0.1@tcp", cases[i].dst_msg,
					    cases[i].type, cases[i].portal);

		a.msg_mask = cases[i].msg_mask;
		a.ptl_mask = cases[i].ptl_mask;
		if (ul_fault_attr_match(&a, &m) != cases[i].want)
			fail_msg("case %zu: want %d", i, cases[i].want);
	}
}

static void add_validates_and_normalises(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_attr a = attr("*", "*");
	struct ul_fault_rule *r;
	const char *why = NULL;

	(void)state;
	ul_fault_set_init(&set, SEED);
	/* 0: both rate and interval */
	a.interval = 3;
	assert_int_equal(ul_fault_add(&set, &a, 0, &why), -EINVAL);
	assert_non_null(why);
	/* 1: neither */
	a.rate = 0;
	a.interval = 0;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), -EINVAL);
	/* 2: delay without latency */
	a.rate = 1;
	a.is_delay = true;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), -EINVAL);
	/* 3: portal filter on ACK only: nothing left */
	a.is_delay = false;
	a.ptl_mask = 1;
	a.msg_mask = UL_FAULT_MSG_ACK;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), -EINVAL);
	assert_true(ul_list_empty(&set.drop));
	/* 4: portal filter keeps PUT and GET of the mask */
	a.msg_mask = UL_FAULT_MSG_ACK | UL_FAULT_MSG_GET;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(r->attr.msg_mask, UL_FAULT_MSG_GET);
	/* 5: no types given: all four stored (show prints 15) */
	a.ptl_mask = 0;
	a.msg_mask = 0;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(r->attr.msg_mask, UL_FAULT_MSG_ALL);
	/* 6: portal filter, no types: PUT|GET */
	a.ptl_mask = 1ULL << 4;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(r->attr.msg_mask, UL_FAULT_MSG_PUT | UL_FAULT_MSG_GET);
	assert_int_equal(ul_list_count(&set.drop), 3);
	assert_true(ul_list_empty(&set.delay));
	ul_fault_set_clear(&set);
	assert_true(ul_list_empty(&set.drop));
}

/* Rate N: exactly one hit in each window of N matched messages. */
static void rate_one_per_window(void **state)
{
	static const uint32_t rates[] = { 1, 2, 3, 7 };
	struct ul_fault_msg m =
		msg("10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 0);
	struct ul_fault_hit hit;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct ul_fault_set set;
		struct ul_fault_attr a = attr("*", "10.0.0.2@tcp");
		struct ul_fault_rule *r;
		uint32_t w, k, hits;
		bool first;

		ul_fault_set_init(&set, SEED + i);
		a.rate = rates[i];
		assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
		for (w = 0; w < 20; w++) {
			hits = 0;
			for (k = 0; k < rates[i]; k++) {
				first = ul_fault_match(&set, false,
						       UL_FAULT_SIDE_RX, &m, 0,
						       &hit);
				if (first)
					hits++;
				/* rate 2 drops the first message */
				if (rates[i] == 2 && w == 0 && k == 0)
					assert_true(first);
			}
			if (hits != 1)
				fail_msg("rate %u window %u: %u hits", rates[i],
					 w, hits);
		}
		r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
		assert_int_equal(r->stats.count, 20 * rates[i]);
		assert_int_equal(r->stats.hits, 20);
		assert_int_equal(r->stats.get, 20);
		assert_int_equal(r->stats.put, 0);
		assert_ptr_equal(hit.rule, r);
		assert_int_equal(hit.hstatus, 0);
		ul_fault_set_clear(&set);
	}
}

/* Interval S: one hit per S-second window, none without traffic. */
static void interval_one_per_window(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_attr a = attr("*", "*");
	struct ul_fault_msg m =
		msg("10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_PUT, 0);
	struct ul_fault_hit hit;
	struct ul_fault_rule *r;
	int64_t t;
	int hits = 0, in_window;

	(void)state;
	ul_fault_set_init(&set, SEED);
	a.rate = 0;
	a.interval = 10;
	assert_int_equal(ul_fault_add(&set, &a, 1000, NULL), 0);
	/* a message every second for 100 s: 10 windows, 10 hits */
	for (t = 1000; t < 1100; t++) {
		in_window = ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, t,
					   &hit);
		hits += in_window;
	}
	assert_true(hits >= 9 && hits <= 11);
	/* a long silence: one late message, one hit, not a burst */
	assert_true(
		ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 5000, &hit));
	assert_false(
		ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 5000, &hit));
	r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(r->stats.count, 102);
	assert_int_equal(r->stats.put, (uint64_t)hits + 1);
	ul_fault_set_clear(&set);
}

static void random_and_drop_all(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_attr a = attr("*", "*");
	struct ul_fault_msg m =
		msg("10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 0);
	struct ul_fault_hit hit;
	struct ul_fault_rule *r;
	int i, hits = 0;

	(void)state;
	ul_fault_set_init(&set, SEED);
	/* random, interval 1: always */
	a.rate = 0;
	a.interval = 1;
	a.is_random = true;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	for (i = 0; i < 10; i++)
		assert_true(ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0,
					   &hit));
	ul_fault_set_clear(&set);
	/* random, interval 10: about half, fs_count untouched */
	a.interval = 10;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	for (i = 0; i < 1000; i++)
		hits += ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0,
				       &hit);
	assert_true(hits > 350 && hits < 650);
	r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(r->stats.count, 0);
	assert_int_equal(r->stats.hits, (uint64_t)hits);
	ul_fault_set_clear(&set);
	/* drop_all: every message, both sides, a status on TX */
	a.is_random = false;
	a.rate = 5;
	a.interval = 0;
	a.is_drop_all = true;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	for (i = 0; i < 10; i++) {
		assert_true(ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0,
					   &hit));
		assert_int_equal(hit.hstatus, 0);
		assert_true(ul_fault_match(&set, false, UL_FAULT_SIDE_TX, &m, 0,
					   &hit));
		assert_true(hit.hstatus >= 1 &&
			    hit.hstatus <= UL_FAULT_HSTATUS_MAX);
	}
	ul_fault_set_clear(&set);
}

/* Health rules act on the send side only, plain drops on receive only. */
static void sides_and_local_nid(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_attr a = attr("10.0.0.1@tcp", "10.0.0.2@tcp");
	struct ul_fault_msg m =
		msg("10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 0);
	struct ulnet_nid l1 = ht_nid("10.0.0.2@tcp"),
			 l2 = ht_nid("10.0.1.2@tcp");
	struct ul_fault_hit hit;
	struct ul_fault_rule *r;

	(void)state;
	ul_fault_set_init(&set, SEED);
	a.health_mask = 1u << 5; /* local_error */
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	assert_false(
		ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0, &hit));
	r = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(r->stats.count, 0); /* did not take part */
	assert_true(ul_fault_match(&set, false, UL_FAULT_SIDE_TX, &m, 0, &hit));
	assert_int_equal(hit.hstatus, 5);
	ul_fault_set_clear(&set);

	/* -o: only the receive side knows the local NID */
	a.health_mask = 0;
	a.local = l1;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	m.local = &l2;
	assert_false(
		ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0, &hit));
	m.local = &l1;
	assert_true(ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0, &hit));
	/* a delay rule with a local NID never matches */
	a.is_delay = true;
	a.latency = 3;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	assert_false(ul_fault_match(&set, true, UL_FAULT_SIDE_RX, &m, 0, &hit));
	a.local = any();
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	assert_true(ul_fault_match(&set, true, UL_FAULT_SIDE_TX, &m, 0, &hit));
	assert_int_equal(hit.latency, 3);
	assert_int_equal(hit.hstatus, 0);
	assert_true(ul_fault_match(&set, true, UL_FAULT_SIDE_RX, &m, 0, &hit));
	ul_fault_set_clear(&set);
}

/* The newest rule is tried first and the first hit wins. */
static void newest_first(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_attr a = attr("*", "*");
	struct ul_fault_msg m =
		msg("10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_PUT, 0);
	struct ul_fault_hit hit;
	struct ul_fault_rule *older, *newer;

	(void)state;
	ul_fault_set_init(&set, SEED);
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	older = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	newer = ul_list_first_entry(&set.drop, struct ul_fault_rule, link);
	assert_ptr_not_equal(older, newer);
	assert_true(ul_fault_match(&set, false, UL_FAULT_SIDE_RX, &m, 0, &hit));
	assert_ptr_equal(hit.rule, newer);
	assert_int_equal(older->stats.count, 0);
	ul_fault_set_clear(&set);
}

static void hstatus_choice(void **state)
{
	static const struct {
		uint32_t mask, c;
		int want;
	} cases[] = {
		/* 0 */ { 1u << 6, 0, 6 },
		/* 1 */ { 1u << 6, 10, 6 },
		/* 2 */ { 0, 0, 1 }, /* no mask: the draw, 0 counts as 1 */
		/* 3 */ { 0, 7, 7 },
		/* 4 */ { UL_FAULT_HEALTH_RANDOM, 4, 4 },
		/* 5 */ { (1u << 3) | (1u << 7), 5, 7 }, /* tie: the higher */
		/* 6 */ { (1u << 3) | (1u << 8), 5, 3 },
		/* 7 */ { (1u << 2) | (1u << 9), 9, 9 },
		/* 8 */ { 1u << 10, 1, 10 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (ul_fault_hstatus_pick(cases[i].mask, cases[i].c) !=
		    cases[i].want)
			fail_msg("case %zu: got %d want %d", i,
				 ul_fault_hstatus_pick(cases[i].mask,
						       cases[i].c),
				 cases[i].want);
}

static void del_exact_and_reset(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_attr a = attr("10.0.0.1@tcp", "10.0.0.2@tcp");
	struct ul_fault_msg m =
		msg("10.0.0.1@tcp", "10.0.0.2@tcp", UL_FAULT_MSG_GET, 0);
	struct ulnet_nid s = a.src, d = a.dst, star = any();
	struct ulnet_nid tcp = any_of("1.1.1.1@tcp");
	struct ul_fault_hit hit;
	struct ul_fault_rule *r;

	(void)state;
	ul_fault_set_init(&set, SEED);
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	a.is_delay = true;
	a.latency = 1;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	a.src = tcp;
	a.dst = tcp;
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	/* a drop del finds only the drop rule */
	assert_int_equal(ul_fault_del(&set, false, &s, &d), 1);
	assert_int_equal(ul_fault_del(&set, false, &s, &d), -ENOENT);
	/* "*@tcp" rules are not deleted by a NID they cover */
	assert_int_equal(ul_fault_del(&set, true, &tcp, &d), -ENOENT);
	/* reset zeroes counters, keeps rules */
	assert_true(ul_fault_match(&set, true, UL_FAULT_SIDE_RX, &m, 0, &hit));
	ul_fault_reset(&set, true, 0);
	ul_list_for_each_entry(r, &set.delay, link) {
		assert_int_equal(r->stats.count, 0);
		assert_int_equal(r->stats.hits, 0);
		assert_int_equal(r->stats.get, 0);
	}
	assert_int_equal(ul_fault_del(&set, true, &tcp, &tcp), 1);
	assert_int_equal(ul_fault_add(&set, &a, 0, NULL), 0);
	/* ANY src and dst: every rule of the kind */
	assert_int_equal(ul_fault_del(&set, true, &star, &star), 2);
	assert_int_equal(ul_fault_del(&set, true, &star, &star), -ENOENT);
	assert_true(ul_list_empty(&set.delay));
	ul_fault_set_clear(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wildcards_match),
		cmocka_unit_test(attr_filters),
		cmocka_unit_test(add_validates_and_normalises),
		cmocka_unit_test(rate_one_per_window),
		cmocka_unit_test(interval_one_per_window),
		cmocka_unit_test(random_and_drop_all),
		cmocka_unit_test(sides_and_local_nid),
		cmocka_unit_test(newest_first),
		cmocka_unit_test(hstatus_choice),
		cmocka_unit_test(del_exact_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
