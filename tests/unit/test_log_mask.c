/*
 * `ulnetd --debug MASK`: the mask text as lctl's debug= takes it. A name
 * without a sign first replaces the default, +name and -name change it,
 * an unknown name is refused and named.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/log.h"

static uint32_t parse_ok(const char *s)
{
	uint32_t m = 0xdead;
	char bad[32];

	assert_int_equal(ul_log_mask_parse(s, UL_LOG_DEFAULT_MASK, &m, bad,
					   sizeof(bad)),
			 0);
	return m;
}

static void log_mask_changes_the_default(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("+net"), UL_LOG_DEFAULT_MASK | UL_D_NET);
	assert_int_equal(parse_ok("-info"), UL_LOG_DEFAULT_MASK & ~UL_D_INFO);
	assert_int_equal(parse_ok("+net,-info -console"),
			 (UL_LOG_DEFAULT_MASK | UL_D_NET) &
				 ~(UL_D_INFO | UL_D_CONSOLE));
}

static void log_mask_first_bare_name_replaces(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("net"), UL_D_NET);
	assert_int_equal(parse_ok("neterror error"),
			 UL_D_NETERROR | UL_D_ERROR);
	assert_int_equal(parse_ok("all -net"), UL_LOG_ALL_MASK & ~UL_D_NET);
	assert_int_equal(parse_ok(" ,all, "), UL_LOG_ALL_MASK);
}

static void log_mask_refuses_unknown_names(void **state)
{
	uint32_t m = 7;
	char bad[32];

	(void)state;
	assert_int_equal(ul_log_mask_parse("+net,+nett", UL_LOG_DEFAULT_MASK,
					   &m, bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "nett");
	assert_int_equal(m, 7); /* untouched */
	assert_int_equal(ul_log_mask_parse("+", 0, &m, bad, sizeof(bad)),
			 -EINVAL);
	assert_int_equal(ul_log_mask_parse("", 0, &m, bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "(empty)");
	/* A prefix of a name is not the name. */
	assert_int_equal(ul_log_mask_parse("netw", 0, &m, bad, sizeof(bad)),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(log_mask_changes_the_default),
		cmocka_unit_test(log_mask_first_bare_name_replaces),
		cmocka_unit_test(log_mask_refuses_unknown_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
