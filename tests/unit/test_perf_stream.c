/*
 * Perf streams (runtime/perf.h) end, whatever happens to their PUTs, and
 * report each PUT once:
 *
 * - ul_perf_stream_stop (what the control server does when the client of
 *   `perf put` goes away) sends nothing more, lets what is in flight
 *   drain, and still reports once, with what was moved;
 * - a lost PUT: each PUT has its own MD and so its own response tracker
 *   (health.md §6). With two PUTs in flight, if the first is lost and the
 *   second is ACKed, the first is still timed out and counted failed
 *   (-ETIMEDOUT), or `ulnetctl perf put` waits for ever;
 * - a PUT lost while the stream runs on does not stall it, and the rate's
 *   window ends with the sending, not with that PUT's timeout;
 * - failures are counted by final status, and started = puts + failed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

/* Every PUT started ended once, as a completion or a failure. */
static void assert_every_put_ended(const struct ul_perf_result *r)
{
	uint64_t sum = 0;
	size_t i;

	assert_int_equal(r->started, r->puts + r->failed);
	for (i = 0; i < r->nfails; i++) {
		assert_true(r->fails[i].status < 0);
		sum += r->fails[i].count;
	}
	assert_int_equal(sum, r->failed);
}

struct pair {
	struct mock_fabric f;
	struct ul_node *a, *b;
	struct ul_perf_sink *sink;
	struct ulnet_process_id target;
};

static int pair_setup(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	struct pair *p = calloc(1, sizeof(*p));

	mock_fabric_init(&p->f);
	p->f.delay_ns = DELAY_NS;
	p->a = mock_node(&p->f, an, 1, 0, 0);
	p->b = mock_node(&p->f, bn, 1, 0, 0);
	assert_non_null(p->a);
	assert_non_null(p->b);
	assert_int_equal(ul_perf_sink_create(p->b, &p->sink), 0);
	p->target.nid = mock_nid(bn[0]);
	p->target.pid = ULNET_PID_LUSTRE;
	*state = p;
	return 0;
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	ul_perf_sink_destroy(p->sink);
	mock_run(&p->f, DELAY_NS);
	mock_fabric_fini(&p->f);
	free(p);
	return 0;
}

static void stop_ends_a_long_stream_at_once(void **state)
{
	struct pair *p = *state;
	struct ul_perf_stream *st = NULL;
	struct done_rec d = { 0 };
	uint32_t sent;

	/* An hour-long stream, four PUTs in flight. */
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &p->target,
					      4096, 3600 * NS_PER_SEC, 4,
					      on_done, &d, &st),
			 0);
	assert_non_null(st);
	mock_run(&p->f, 10 * DELAY_NS);
	assert_int_equal(d.ncalls, 0);
	ul_perf_stream_stop(st);
	/* What was in flight drains within a round trip; nothing new. */
	mock_run(&p->f, 3 * DELAY_NS);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.status, 0);
	assert_int_equal(d.res.failed, 0);
	assert_true(d.res.puts >= 4);
	assert_int_equal(d.res.bytes, d.res.puts * 4096);
	assert_every_put_ended(&d.res);
	sent = p->f.nsent;
	mock_run(&p->f, 10 * DELAY_NS);
	assert_int_equal(p->f.nsent, sent);
	assert_int_equal(d.ncalls, 1);
}

static void stopping_twice_reports_once(void **state)
{
	struct pair *p = *state;
	struct ul_perf_stream *st = NULL;
	struct done_rec d = { 0 };

	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &p->target,
					      64, 3600 * NS_PER_SEC, 1, on_done,
					      &d, &st),
			 0);
	/* Its one PUT is out; stopping twice is stopping once. */
	ul_perf_stream_stop(st);
	ul_perf_stream_stop(st);
	assert_int_equal(d.ncalls, 0); /* never from inside the call */
	/* Its PUT waits for discovery: a ping and a push (a round trip each). */
	mock_run(&p->f, 8 * DELAY_NS);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.puts, 1);
	assert_int_equal(d.res.started, 1);
	assert_every_put_ended(&d.res);
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
	mock_peer_known(a, bn[0]); /* the first message is the lost PUT */
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
	assert_int_equal(d.res.nfails, 1);
	assert_int_equal(d.res.fails[0].status, -ETIMEDOUT);
	assert_int_equal(d.res.fails[0].count, 1);
	assert_every_put_ended(&d.res);
	ul_perf_sink_destroy(sink);
	mock_run(&f, DELAY_NS);
	mock_fabric_fini(&f);
}

static void lost_put_neither_stalls_nor_slows_the_rate(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	const uint64_t window_ns = NS_PER_SEC / 10; /* 100 ms of sending */
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
	mock_peer_known(a, bn[0]); /* the first message is the lost PUT */
	tt = ul_node_core(a)->tun.transaction_timeout;
	assert_int_equal(ul_perf_sink_create(b, &sink), 0);
	assert_int_equal(ul_perf_stream_start(a, &f.timers, &target, 4096,
					      window_ns, 2, on_done, &d, NULL),
			 0);
	/* The first PUT is lost on the wire; the stream runs on. */
	f.is_drop = true;
	mock_run(&f, DELAY_NS);
	f.is_drop = false;
	mock_run(&f, window_ns);
	assert_int_equal(d.ncalls, 0); /* the lost one is still out */
	/* Past the lost PUT's response timeout. */
	mock_run(&f, (uint64_t)(tt + 2) * NS_PER_SEC);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.failed, 1);
	assert_int_equal(d.res.nfails, 1);
	assert_int_equal(d.res.fails[0].status, -ETIMEDOUT);
	assert_every_put_ended(&d.res);
	/* The other slot went on, a PUT every 2 ms or so. */
	assert_true(d.res.puts > 20);
	/* The stream lasted until the timeout; its rate's window did not. */
	assert_true(d.res.elapsed_ns >= (uint64_t)tt * NS_PER_SEC);
	assert_true(d.res.send_ns > window_ns / 2);
	assert_true(d.res.send_ns <= window_ns);
	assert_true(d.res.send_bytes > 0);
	assert_true(d.res.send_bytes <= d.res.bytes);
	ul_perf_sink_destroy(sink);
	mock_run(&f, DELAY_NS);
	mock_fabric_fini(&f);
}

static void failures_are_counted_by_status(void **state)
{
	struct pair *p = *state;
	struct done_rec d = { 0 };
	uint64_t reset = 0;
	size_t i;

	/* Every send fails as a reset connection, a final health status. */
	p->f.fail_status = -ECONNRESET;
	p->f.fail_hstatus = UL_HSTATUS_REMOTE_ERROR;
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &p->target,
					      4096, 10 * DELAY_NS, 4, on_done,
					      &d, NULL),
			 0);
	mock_run(&p->f, 20 * DELAY_NS);
	p->f.fail_status = 0;
	mock_run(&p->f, 5 * DELAY_NS);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.puts, 0);
	assert_int_equal(d.res.bytes, 0);
	assert_true(d.res.failed >= 4);
	assert_every_put_ended(&d.res);
	for (i = 0; i < d.res.nfails; i++)
		if (d.res.fails[i].status == -ECONNRESET)
			reset = d.res.fails[i].count;
	assert_true(reset >= 4);
	assert_int_equal(d.res.status, -ECONNRESET);
	/* Nothing was ACKed: no rate to speak of. */
	assert_int_equal(d.res.send_ns, 0);
	assert_int_equal(d.res.send_bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(stop_ends_a_long_stream_at_once,
						pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(stopping_twice_reports_once,
						pair_setup, pair_teardown),
		cmocka_unit_test(stream_with_lost_put_ends),
		cmocka_unit_test(lost_put_neither_stalls_nor_slows_the_rate),
		cmocka_unit_test_setup_teardown(failures_are_counted_by_status,
						pair_setup, pair_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
