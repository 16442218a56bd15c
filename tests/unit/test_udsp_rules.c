/*
 * UDSP rules and the rule list (src/core/udsp.h): what lnetctl accepts
 * (reference/udsp.md §1.2), rule kinds (§1.1), list semantics (§3), the
 * `udsp show` field order (§7.1) and the argv checks of §1.2 and §7.
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
#include "core/udsp.h"

#define NO_PRIO (-1LL)

static struct ul_udsp_rule *rule(const char *src, const char *dst,
				 const char *rte, long long prio, int idx)
{
	struct ul_udsp_rule *r = NULL;
	struct ul_err err = { 0 };

	if (ul_udsp_rule_from_strings(src, dst, rte, prio >= 0,
				      prio >= 0 ? (uint32_t)prio : 0, idx, &r,
				      &err))
		fail_msg("rule %s %s %s: %s", src ? src : "-", dst ? dst : "-",
			 rte ? rte : "-", err.msg);
	return r;
}

static const char *show(const struct ul_udsp_rule *r)
{
	static char buf[512];

	assert_non_null(r);
	assert_true(ul_udsp_rule_format(r, buf, sizeof(buf)) <
		    (int)sizeof(buf));
	return buf;
}

/* §1.2: what `lnetctl udsp add` accepts, row by row. */
static void rule_from_strings_follows_lnetctl(void **state)
{
	static const struct {
		const char *src, *dst, *rte;
		long long prio;
		int rc;
		const char *msg; /* prefix of the message, or the show text */
	} rows[] = {
		/* 0 */
		{ NULL, NULL, NULL, NO_PRIO, -EINVAL,
		  "Missing required argument(s)" },
		{ "tcp", "tcp", "10.1.0.100@o2ib", NO_PRIO, -EINVAL,
		  "The combination of src, dst and rte is not supported" },
		{ "tcp", NULL, "10.1.0.100@o2ib", 1, -EINVAL,
		  "src and rte cannot be combined" },
		{ NULL, NULL, "10.1.0.100@o2ib", NO_PRIO, 0,
		  "{ idx: -1, rte: 10.1.0.100@o2ib }" },
		{ "tcp", NULL, NULL, NO_PRIO, 0,
		  "{ idx: -1, src: tcp, action: { priority: 0 } }" },
		/* 5 */
		{ NULL, "10.1.0.11@o2ib", NULL, NO_PRIO, 0,
		  "{ idx: -1, dst: 10.1.0.11@o2ib, action: { priority: 0 } }" },
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, 2, 0,
		  "{ idx: -1, src: 10.1.0.1@o2ib, dst: 10.1.0.10@o2ib, "
		  "action: { priority: 2 } }" },
		{ "10.1.0.[1-2]@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, 0,
		  "{ idx: -1, src: 10.1.0.[1-2]@o2ib, dst: 10.1.0.10@o2ib }" },
		{ NULL, "o2ib2", "10.1.0.[100-101]@o2ib", NO_PRIO, 0,
		  "{ idx: -1, dst: o2ib2, rte: 10.1.0.[100-101]@o2ib }" },
		{ "foo", NULL, NULL, 1, -EINVAL,
		  "failed to parse src parameter" },
		/* 10 */
		{ NULL, "1.2.3@tcp", NULL, 1, -EINVAL,
		  "failed to parse dst parameter" },
		{ NULL, "tcp", "*@tcp", NO_PRIO, -EINVAL,
		  "failed to parse rte parameter" },
		/* §2.2: several ranges for a net number parse (scenario 24:
		 * the kernel refuses the rule, ul_udsp_add here) */
		{ "o2ib[0,1]", NULL, NULL, 1, 0,
		  "{ idx: -1, src: o2ib[0,1], action: { priority: 1 } }" },
		{ "o2ib[0-1]", NULL, NULL, 1, 0,
		  "{ idx: -1, src: o2ib[0-1], action: { priority: 1 } }" },
		{ "10.0.0.[1-5/0]@tcp", NULL, NULL, 1, -EINVAL,
		  "failed to parse src parameter" },
		/* 15: the combination check comes before parsing */
		{ "foo", NULL, "bar", 1, -EINVAL,
		  "src and rte cannot be combined" },
		{ "tcp", NULL, NULL, 4294967295LL, 0,
		  "{ idx: -1, src: tcp, action: { priority: 4294967295 } }" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_udsp_rule *r = (struct ul_udsp_rule *)0x1;
		struct ul_err err = { 0 };
		int rc;

		rc = ul_udsp_rule_from_strings(
			rows[i].src, rows[i].dst, rows[i].rte,
			rows[i].prio >= 0,
			rows[i].prio >= 0 ? (uint32_t)rows[i].prio : 0, -1, &r,
			&err);
		if (rc != rows[i].rc)
			fail_msg("row %zu: rc %d, want %d (%s)", i, rc,
				 rows[i].rc, err.msg);
		if (rc) {
			/* lnetctl's exact words, nothing after them */
			assert_ptr_equal(r, (struct ul_udsp_rule *)0x1);
			if (strcmp(err.msg, rows[i].msg) != 0)
				fail_msg("row %zu: '%s'", i, err.msg);
			continue;
		}
		if (strcmp(show(r), rows[i].msg) != 0)
			fail_msg("row %zu: '%s'", i, show(r));
		ul_udsp_rule_free(r);
	}
}

/* §1.2: --priority and --idx as lnetctl's parse_long() reads them. */
static void priority_and_idx_parse_like_lnetctl(void **state)
{
	static const struct {
		const char *s;
		long long prio; /* -1: refused */
		long long idx;	/* -1: refused */
	} rows[] = {
		/* 0 */
		{ "0", 0, 0 },
		{ "3", 3, 3 },
		{ "0x10", 16, 16 },
		{ "010", 8, 8 },
		{ "-1", -1, -1 },
		/* 5 */
		{ "4294967295", 4294967295LL, -1 },
		/* udsp.md §1.2: stored as u32, these wrap to 0 and 1 */
		{ "4294967296", 0, -1 },
		{ "4294967297", 1, -1 },
		{ "2147483647", 2147483647LL, 2147483647LL },
		{ "2147483648", 2147483648LL, -1 },
		/* 10: parse_long() reads an empty word as 0 */
		{ "", 0, 0 },
		{ "1x", -1, -1 },
		{ "one", -1, -1 },
		{ "99999999999999999999", -1, -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_err err = { 0 };
		uint32_t prio = 77;
		int idx = 77;
		int rc;

		rc = ul_udsp_parse_priority(rows[i].s, &prio, &err);
		if (rows[i].prio < 0) {
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(prio, 77);
			assert_non_null(strstr(err.msg, "Invalid priority"));
		} else if (rc || prio != (uint32_t)rows[i].prio) {
			fail_msg("row %zu: priority rc %d value %u", i, rc,
				 prio);
		}
		rc = ul_udsp_parse_idx(rows[i].s, &idx, &err);
		if (rows[i].idx < 0) {
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(idx, 77);
			assert_non_null(strstr(err.msg, "Invalid index"));
		} else if (rc || idx != (int)rows[i].idx) {
			fail_msg("row %zu: idx rc %d value %d", i, rc, idx);
		}
	}
	assert_int_equal(ul_udsp_parse_priority(NULL, &(uint32_t){ 0 }, NULL),
			 -EINVAL);
}

/* §1.1: the kind follows the descriptors present; effect needs the action
 * that fits the kind. */
static void rule_kind_and_effect_follow_descriptors(void **state)
{
	static const struct {
		const char *src, *dst, *rte;
		long long prio;
		enum ul_udsp_kind kind;
		bool is_effective;
	} rows[] = {
		/* 0 */
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO,
		  UL_UDSP_KIND_PAIR, true },
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, 2, UL_UDSP_KIND_PAIR,
		  false },
		{ NULL, "172.16.0.10@o2ib2", "10.1.0.101@o2ib", NO_PRIO,
		  UL_UDSP_KIND_ROUTER, true },
		{ NULL, "o2ib2", "10.1.0.101@o2ib", 1, UL_UDSP_KIND_ROUTER,
		  false },
		{ NULL, "o2ib", NULL, 0, UL_UDSP_KIND_DST_NET, true },
		/* 5 */
		{ NULL, "10.1.0.11@o2ib", NULL, NO_PRIO, UL_UDSP_KIND_DST_NID,
		  true },
		{ "tcp", NULL, NULL, 1, UL_UDSP_KIND_SRC_NET, true },
		{ "10.1.0.2@o2ib", NULL, NULL, 0, UL_UDSP_KIND_SRC_NID, true },
		{ NULL, NULL, "10.1.0.100@o2ib", NO_PRIO, UL_UDSP_KIND_INVALID,
		  false },
		{ NULL, NULL, "10.1.0.100@o2ib", 3, UL_UDSP_KIND_INVALID,
		  false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_udsp_rule *r = rule(rows[i].src, rows[i].dst,
					      rows[i].rte, rows[i].prio, -1);

		if (ul_udsp_rule_kind(r) != rows[i].kind ||
		    ul_udsp_rule_is_effective(r) != rows[i].is_effective)
			fail_msg("row %zu: kind %d effective %d", i,
				 ul_udsp_rule_kind(r),
				 ul_udsp_rule_is_effective(r));
		ul_udsp_rule_free(r);
	}
}

/* ---- the list (§3) ---- */

struct fx {
	struct ul_core *c;
	struct ul_udsp_set *set;
};

static int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	assert_int_equal(ul_core_create(&fx->c), 0);
	assert_int_equal(ul_udsp_attach(fx->c, &fx->set), 0);
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

static int add(struct fx *fx, const char *src, const char *dst, const char *rte,
	       long long prio, int idx)
{
	struct ul_udsp_rule *r = rule(src, dst, rte, prio, idx);
	int rc = ul_udsp_add(fx->set, r, NULL);

	ul_udsp_rule_free(r);
	return rc;
}

/* The list as `udsp show` lists it, one "src-or-dst:prio" per rule. */
static void expect_list(struct fx *fx, const char *const *want, unsigned n)
{
	unsigned int i;

	assert_int_equal(ul_udsp_count(fx->set), n);
	for (i = 0; i < n; i++) {
		const struct ul_udsp_rule *r = ul_udsp_get(fx->set, (int)i);

		assert_non_null(r);
		assert_int_equal(r->idx, i);
		assert_string_equal(show(r), want[i]);
	}
	assert_null(ul_udsp_get(fx->set, (int)n));
	assert_null(ul_udsp_get(fx->set, -1));
}

static void add_appends_and_inserts_before_idx(void **state)
{
	struct fx *fx = *state;
	static const char *const want[] = {
		"{ idx: 0, src: tcp3, action: { priority: 3 } }",
		"{ idx: 1, src: tcp, action: { priority: 0 } }",
		"{ idx: 2, src: tcp4, action: { priority: 4 } }",
		"{ idx: 3, src: tcp1, action: { priority: 1 } }",
		"{ idx: 4, src: tcp2, action: { priority: 2 } }",
		"{ idx: 5, src: tcp5, action: { priority: 5 } }",
	};

	assert_int_equal(add(fx, "tcp", NULL, NULL, 0, -1), 0);
	assert_int_equal(add(fx, "tcp1", NULL, NULL, 1, -1), 0);
	/* idx past the end appends; idx == length appends */
	assert_int_equal(add(fx, "tcp2", NULL, NULL, 2, 7), 0);
	/* insert before the rule at 0 */
	assert_int_equal(add(fx, "tcp3", NULL, NULL, 3, 0), 0);
	/* insert in the middle: the rule at 2 and after move down */
	assert_int_equal(add(fx, "tcp4", NULL, NULL, 4, 2), 0);
	assert_int_equal(add(fx, "tcp5", NULL, NULL, 5, 5), 0);
	expect_list(fx, want, 6);
}

static void identical_priority_rule_updates_in_place(void **state)
{
	struct fx *fx = *state;
	static const char *const want[] = {
		"{ idx: 0, src: tcp, action: { priority: 1 } }",
		"{ idx: 1, src: tcp1, action: { priority: 4 } }",
	};

	assert_int_equal(add(fx, "tcp", NULL, NULL, 1, -1), 0);
	assert_int_equal(add(fx, "tcp1", NULL, NULL, 2, -1), 0);
	/* the requested idx 0 is ignored: the rule stays at 1 */
	assert_int_equal(add(fx, "tcp1", NULL, NULL, 4, 0), 0);
	expect_list(fx, want, 2);
}

static void duplicate_rule_is_already(void **state)
{
	static const struct {
		const char *src, *dst, *rte;
		long long prio_a, prio_b;
	} rows[] = {
		/* 0: same priority */
		{ "tcp", NULL, NULL, 4, 4 },
		/* preferred lists never update */
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, NO_PRIO },
		/* one priority, one list: same descriptors, refused */
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, 2 },
		{ "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, 2, NO_PRIO },
		{ NULL, NULL, "10.1.0.[100-101]@o2ib", NO_PRIO, NO_PRIO },
	};
	struct fx *fx = *state;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ul_udsp_rule *b = rule(rows[i].src, rows[i].dst,
					      rows[i].rte, rows[i].prio_b, -1);
		const struct ul_udsp_rule *kept;
		struct ul_err err = { 0 };
		char before[512];

		assert_int_equal(add(fx, rows[i].src, rows[i].dst, rows[i].rte,
				     rows[i].prio_a, -1),
				 0);
		kept = ul_udsp_get(fx->set, 0);
		snprintf(before, sizeof(before), "%s", show(kept));
		if (ul_udsp_add(fx->set, b, &err) != -EALREADY)
			fail_msg("row %zu: not refused", i);
		assert_non_null(strstr(err.msg, "idx 0"));
		assert_int_equal(ul_udsp_count(fx->set), 1);
		assert_string_equal(show(ul_udsp_get(fx->set, 0)), before);
		ul_udsp_rule_free(b);
		assert_int_equal(ul_udsp_del(fx->set, -1, NULL), 0);
	}
}

/* §3 note: "tcp" and "tcp0" are different descriptors. */
static void tcp_and_tcp0_are_two_rules(void **state)
{
	struct fx *fx = *state;
	static const char *const want[] = {
		"{ idx: 0, src: tcp, action: { priority: 1 } }",
		"{ idx: 1, src: tcp0, action: { priority: 2 } }",
	};

	assert_int_equal(add(fx, "tcp", NULL, NULL, 1, -1), 0);
	assert_int_equal(add(fx, "tcp0", NULL, NULL, 2, -1), 0);
	expect_list(fx, want, 2);
}

static void del_renumbers_following_rules(void **state)
{
	struct fx *fx = *state;
	static const char *const want[] = {
		"{ idx: 0, src: tcp, action: { priority: 0 } }",
		"{ idx: 1, src: tcp2, action: { priority: 2 } }",
	};
	struct ul_err err = { 0 };

	assert_int_equal(add(fx, "tcp", NULL, NULL, 0, -1), 0);
	assert_int_equal(add(fx, "tcp1", NULL, NULL, 1, -1), 0);
	assert_int_equal(add(fx, "tcp2", NULL, NULL, 2, -1), 0);
	assert_int_equal(ul_udsp_del(fx->set, 3, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "idx 3"));
	assert_int_equal(ul_udsp_del(fx->set, 1, NULL), 0);
	expect_list(fx, want, 2);
}

static void del_all_empties_the_list(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(ul_udsp_del(fx->set, -1, NULL), 0);
	assert_int_equal(add(fx, "tcp", NULL, NULL, 0, -1), 0);
	assert_int_equal(add(fx, NULL, "o2ib", NULL, 0, -1), 0);
	assert_int_equal(ul_udsp_del(fx->set, -1, NULL), 0);
	expect_list(fx, NULL, 0);
	assert_int_equal(ul_udsp_del(fx->set, 0, NULL), -ENOENT);
}

/* §2.2, scenario 24: the kernel refuses a net number of two ranges. */
static void add_refuses_several_net_ranges(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(add(fx, "o2ib[0,1]", NULL, NULL, 1, -1), -EINVAL);
	assert_int_equal(add(fx, NULL, "10.1.0.1@tcp[1,3]", NULL, 1, -1),
			 -EINVAL);
	assert_int_equal(add(fx, NULL, "tcp", "10.1.0.1@tcp[1,3]", NO_PRIO, -1),
			 -EINVAL);
	expect_list(fx, NULL, 0);
	assert_int_equal(add(fx, "o2ib[0-1]", NULL, NULL, 1, -1), 0);
}

/* The set copies the rule: the caller's rule stays the caller's. */
static void add_copies_the_callers_rule(void **state)
{
	struct fx *fx = *state;
	struct ul_udsp_rule *r =
		rule("10.1.0.[1-2]@o2ib", "o2ib", NULL, NO_PRIO, -1);
	struct ul_udsp_rule *copy = NULL;

	assert_int_equal(ul_udsp_add(fx->set, r, NULL), 0);
	assert_int_equal(ul_udsp_rule_dup(r, &copy), 0);
	ul_udsp_rule_free(r);
	assert_true(ul_udsp_rule_same(ul_udsp_get(fx->set, 0), copy));
	assert_string_equal(show(ul_udsp_get(fx->set, 0)),
			    "{ idx: 0, src: 10.1.0.[1-2]@o2ib, dst: o2ib }");
	ul_udsp_rule_free(copy);
}

/* §7.1: the example listing, field order idx, src, dst, rte, action. */
static void show_lists_fields_in_lnetctl_order(void **state)
{
	struct fx *fx = *state;
	static const char *const want[] = {
		/* clang-format off */
		"{ idx: 0, src: 192.168.1.[2-20/2]@tcp1, action: { priority: 1 } }",
		/* clang-format on */
		"{ idx: 1, src: 10.1.0.[1-2]@o2ib, dst: 10.1.0.10@o2ib }",
		"{ idx: 2, dst: 172.16.0.10@o2ib2, rte: 10.1.0.101@o2ib }",
	};
	char small[8];
	int n;

	assert_int_equal(add(fx, "192.168.1.[2-20/2]@tcp1", NULL, NULL, 1, -1),
			 0);
	assert_int_equal(add(fx, "10.1.0.[1-2]@o2ib", "10.1.0.10@o2ib", NULL,
			     NO_PRIO, -1),
			 0);
	assert_int_equal(add(fx, NULL, "172.16.0.10@o2ib2", "10.1.0.101@o2ib",
			     NO_PRIO, -1),
			 0);
	expect_list(fx, want, 3);
	/* snprintf-like: truncated, NUL-terminated, full length returned */
	n = ul_udsp_rule_format(ul_udsp_get(fx->set, 1), small, sizeof(small));
	assert_int_equal(n, (int)strlen(want[1]));
	assert_string_equal(small, "{ idx: ");
}

/* The core has one observer slot: a second set is refused. */
static void attach_refuses_a_second_observer(void **state)
{
	struct fx *fx = *state;
	struct ul_udsp_set *other = (struct ul_udsp_set *)0x1;

	assert_int_equal(ul_udsp_attach(fx->c, &other), -EBUSY);
	assert_ptr_equal(other, (struct ul_udsp_set *)0x1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rule_from_strings_follows_lnetctl),
		cmocka_unit_test(priority_and_idx_parse_like_lnetctl),
		cmocka_unit_test(rule_kind_and_effect_follow_descriptors),
		cmocka_unit_test_setup_teardown(
			add_appends_and_inserts_before_idx, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(
			identical_priority_rule_updates_in_place, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(duplicate_rule_is_already,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(tcp_and_tcp0_are_two_rules,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(del_renumbers_following_rules,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(del_all_empties_the_list,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(add_refuses_several_net_ranges,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(add_copies_the_callers_rule,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			show_lists_fields_in_lnetctl_order, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(attach_refuses_a_second_observer,
						fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
