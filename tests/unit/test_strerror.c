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
	assert_string_equal(ulnet_err_name(0), "UNKNOWN");
	assert_string_equal(ulnet_strerror(INT_MIN), "unknown error");
	assert_string_equal(ulnet_err_name(INT_MIN), "UNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strerror_names_table_errnos_either_sign),
		cmocka_unit_test(strerror_unknown_value_is_never_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
