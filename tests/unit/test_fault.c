/*
 * Fault rules (src/core/fault.h): wildcards match as LNet's do, type and
 * portal masks filter, counters count what matched, del finds rules by
 * source and destination or all of a kind, reset zeroes counters.
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

static struct ulnet_nid any_of(const char *net)
{
	struct ulnet_nid n = ht_nid(net);

	n.nid_addr[0] = 0xffffffffu;
	return n;
}

static void wildcards_match(void **state)
{
	struct ulnet_nid any, a = ht_nid("10.0.0.1@tcp"),
			      b = ht_nid("10.0.0.1@tcp1");
	struct ulnet_nid tcp = any_of("1.1.1.1@tcp");

	(void)state;
	ulnet_nid_set_any(&any);
	assert_true(ul_fault_nid_match(&any, &a));
	assert_true(ul_fault_nid_match(&any, &b));
	assert_true(ul_fault_nid_match(&tcp, &a));
	assert_false(ul_fault_nid_match(&tcp, &b));
	assert_true(ul_fault_nid_match(&a, &a));
	assert_false(ul_fault_nid_match(&a, &b));
}

static void masks_filter_and_counters_count(void **state)
{
	struct ul_fault_rule r;
	struct ulnet_nid s = ht_nid("10.0.0.1@tcp"), d = ht_nid("10.0.0.2@tcp");

	(void)state;
	memset(&r, 0, sizeof(r));
	ulnet_nid_set_any(&r.src);
	r.dst = d;
	r.msg_mask = UL_FAULT_MSG_GET;
	r.ptl_mask = 1ULL << 4;
	assert_false(ul_fault_match(&r, &s, &d, UL_FAULT_MSG_PUT, 4));
	assert_false(ul_fault_match(&r, &s, &d, UL_FAULT_MSG_GET, 5));
	assert_false(ul_fault_match(&r, &s, &s, UL_FAULT_MSG_GET, 4));
	assert_true(ul_fault_match(&r, &s, &d, UL_FAULT_MSG_GET, 4));
	assert_true(ul_fault_match(&r, &s, &d, UL_FAULT_MSG_GET, 4));
	assert_int_equal(r.count, 2);
	assert_int_equal(r.get, 2);
	assert_int_equal(r.put, 0);
	r.ptl_mask = 0;
	r.msg_mask = 0;
	assert_true(ul_fault_match(&r, &s, &d, UL_FAULT_MSG_ACK, 63));
	assert_int_equal(r.ack, 1);
}

static void del_and_reset(void **state)
{
	struct ul_fault_set set;
	struct ul_fault_rule r;
	struct ulnet_nid s = ht_nid("10.0.0.1@tcp"), d = ht_nid("10.0.0.2@tcp");

	(void)state;
	ul_fault_set_init(&set);
	memset(&r, 0, sizeof(r));
	r.src = s;
	r.dst = d;
	r.rate = 1;
	assert_int_equal(ul_fault_add(&set, &r), 0);
	r.is_delay = true;
	assert_int_equal(ul_fault_add(&set, &r), 0);
	r.dst = s;
	assert_int_equal(ul_fault_add(&set, &r), 0);
	/* A drop del finds only the drop rule. */
	assert_int_equal(ul_fault_del(&set, false, &s, &d, false), 1);
	assert_int_equal(ul_fault_del(&set, false, &s, &d, false), -ENOENT);
	r.count = 9;
	ul_fault_reset(&set, true);
	assert_int_equal(ul_fault_del(&set, true, NULL, NULL, true), 2);
	assert_int_equal(ul_fault_del(&set, true, NULL, NULL, true), -ENOENT);
	ul_fault_set_clear(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wildcards_match),
		cmocka_unit_test(masks_filter_and_counters_count),
		cmocka_unit_test(del_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
