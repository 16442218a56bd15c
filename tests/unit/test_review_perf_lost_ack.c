/*
 * A perf stream (runtime/perf.h) whose PUT is lost still ends.
 *
 * The stream's PUTs share one MD, and the MD has one response tracker
 * (health.md §6): any ACK removes it. With two PUTs in flight, if the
 * first is lost and the second is ACKed, nothing is left to time the
 * first out. The stream must still call done() once, within about a
 * transaction timeout of draining, counting the lost PUT as failed;
 * otherwise `ulnetctl perf put` waits for ever.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helper_mocklnd.h"
#include "runtime/perf.h"

#define NS_PER_SEC UINT64_C(1000000000)
#define DELAY_NS (1000000u) /* 1 ms per hop */

struct done_rec {
	int ncalls;
	struct ul_perf_result res;
};

static void on_done(void *arg, const struct ul_perf_result *res)
{
	struct done_rec *d = arg;

	d->ncalls++;
	d->res = *res;
}

static void stream_with_lost_put_ends(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	struct ulnet_process_id target = { mock_nid("10.0.0.2@tcp"),
					   ULNET_PID_LUSTRE };
	struct ul_perf_sink *sink = NULL;
	struct done_rec d = { 0 };
	struct mock_fabric f;
	struct ul_node *a, *b;
	uint32_t tt;

	(void)state;
	mock_fabric_init(&f);
	f.delay_ns = DELAY_NS;
	/* One peer credit: the second PUT leaves when the first is done. */
	a = mock_node(&f, an, 1, 1, 0);
	b = mock_node(&f, bn, 1, 0, 0);
	assert_non_null(a);
	assert_non_null(b);
	tt = ul_node_core(a)->tun.transaction_timeout;
	assert_int_equal(ul_perf_sink_create(b, &sink), 0);
	/* Two PUTs in flight; the stream drains as soon as time moves. */
	assert_int_equal(ul_perf_stream_start(a, &f.timers, &target, 4096, 1, 2,
					      on_done, &d, NULL),
			 0);
	/* The first PUT is lost on the wire (its SEND is fine). */
	f.is_drop = true;
	mock_run(&f, DELAY_NS);
	f.is_drop = false;
	/* The second one is ACKed; then wait 3 transaction timeouts. */
	mock_run(&f, 3 * (uint64_t)tt * NS_PER_SEC);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.puts, 1);
	assert_int_equal(d.res.failed, 1);
	assert_int_equal(d.res.status, -ETIMEDOUT);
	ul_perf_sink_destroy(sink);
	mock_run(&f, DELAY_NS);
	mock_fabric_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stream_with_lost_put_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
