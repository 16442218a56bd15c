/* ulnet_strerror() and ulnet_err_name() come from the one errno table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>

#include <cmocka.h>

#include "ulnet/common.h"

static void strerror_names_table_errnos_either_sign(void **state)
{
	(void)state;
	assert_string_equal(ulnet_strerror(-EPROTO), "protocol error");
	assert_string_equal(ulnet_strerror(EPROTO), "protocol error");
	assert_string_equal(ulnet_err_name(-ENOMSG), "ENOMSG");
	assert_string_equal(ulnet_err_name(E2BIG), "E2BIG");
}

static void strerror_unknown_value_is_never_null(void **state)
{
	(void)state;
	assert_string_equal(ulnet_strerror(-4095), "unknown error");
	assert_string_equal(ulnet_err_name(4095), "UNKNOWN");
	assert_string_equal(ulnet_strerror(INT_MIN), "unknown error");
	assert_string_equal(ulnet_err_name(INT_MIN), "UNKNOWN");
}

/* 0 is the status of everything that went well (issue 16 item 7). */
static void strerror_zero_is_success(void **state)
{
	(void)state;
	assert_string_equal(ulnet_err_name(0), "SUCCESS");
	assert_string_equal(ulnet_strerror(0), "success");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strerror_names_table_errnos_either_sign),
		cmocka_unit_test(strerror_unknown_value_is_never_null),
		cmocka_unit_test(strerror_zero_is_success),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
