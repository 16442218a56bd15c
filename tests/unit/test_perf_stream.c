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
 * - failures are counted by final status, and started = completed +
 *   failed;
 * - selftest's operations: brw read (GETs) and write (PUTs) with
 *   lnet_selftest's checks, where a corrupted byte is counted at the side
 *   that looked (the reader, or the sink for a write) and check=simple
 *   looks only at both ends of each page; pings; 1:N round robin.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

	assert_int_equal(r->started, r->completed + r->failed);
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
	assert_int_equal(ul_perf_put_start(p->a, &p->f.timers, &p->target, 4096,
					   3600 * NS_PER_SEC, 4, on_done, &d,
					   &st),
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
	assert_true(d.res.completed >= 4);
	assert_int_equal(d.res.bytes, d.res.completed * 4096);
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

	assert_int_equal(ul_perf_put_start(p->a, &p->f.timers, &p->target, 64,
					   3600 * NS_PER_SEC, 1, on_done, &d,
					   &st),
			 0);
	/* Its one PUT is out; stopping twice is stopping once. */
	ul_perf_stream_stop(st);
	ul_perf_stream_stop(st);
	assert_int_equal(d.ncalls, 0); /* never from inside the call */
	/* Its PUT waits for discovery: a ping and a push (a round trip each). */
	mock_run(&p->f, 8 * DELAY_NS);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.completed, 1);
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
	assert_int_equal(ul_perf_put_start(a, &f.timers, &target, 4096, 1, 2,
					   on_done, &d, NULL),
			 0);
	/* The first PUT is lost on the wire (its SEND is fine). */
	f.is_drop = true;
	mock_run(&f, DELAY_NS);
	f.is_drop = false;
	/* The second one is ACKed; then wait 3 transaction timeouts. */
	mock_run(&f, 3 * (uint64_t)tt * NS_PER_SEC);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.completed, 1);
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
	assert_int_equal(ul_perf_put_start(a, &f.timers, &target, 4096,
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
	assert_true(d.res.completed > 20);
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
	assert_int_equal(ul_perf_put_start(p->a, &p->f.timers, &p->target, 4096,
					   10 * DELAY_NS, 4, on_done, &d, NULL),
			 0);
	mock_run(&p->f, 20 * DELAY_NS);
	p->f.fail_status = 0;
	mock_run(&p->f, 5 * DELAY_NS);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.res.completed, 0);
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

static struct ul_perf_spec spec_of(enum ul_perf_op op, enum ul_perf_check check,
				   uint32_t size, uint64_t duration_ns,
				   uint32_t inflight)
{
	struct ul_perf_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.op = op;
	sp.check = check;
	sp.size = size;
	sp.duration_ns = duration_ns;
	sp.inflight = inflight;
	sp.ntargets = 1;
	sp.targets[0].nid = mock_nid("10.0.0.2@tcp");
	sp.targets[0].pid = ULNET_PID_LUSTRE;
	return sp;
}

/* Run a stream to its end; the result in d. */
static void run_stream(struct pair *p, const struct ul_perf_spec *sp,
		       struct done_rec *d)
{
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, sp, on_done,
					      d, NULL),
			 0);
	mock_run(&p->f, sp->duration_ns + 20 * DELAY_NS);
	assert_int_equal(d->ncalls, 1);
	assert_every_put_ended(&d->res);
}

static void checked_reads_come_back_whole(void **state)
{
	struct pair *p = *state;
	struct ul_perf_spec sp = spec_of(UL_PERF_OP_GET, UL_PERF_CHECK_FULL,
					 3 * 4096 + 100, 50 * DELAY_NS, 3);
	struct ul_perf_sink_stats ss;
	struct done_rec d = { 0 };

	run_stream(p, &sp, &d);
	assert_true(d.res.completed > 10);
	assert_int_equal(d.res.failed, 0);
	assert_int_equal(d.res.check_errors, 0);
	assert_int_equal(d.res.bytes, d.res.completed * sp.size);
	ul_perf_sink_stats(p->sink, &ss);
	assert_int_equal(ss.gets, d.res.completed);
	assert_int_equal(ss.get_bytes, d.res.bytes);
	assert_int_equal(ss.puts, 0);
}

/* A byte spoiled at off of what the sink serves: what each check sees. */
static uint64_t read_errors(struct pair *p, enum ul_perf_check check,
			    size_t off, uint64_t *completed)
{
	struct ul_perf_spec sp =
		spec_of(UL_PERF_OP_GET, check, 2 * 4096, 20 * DELAY_NS, 2);
	uint8_t *buf = ul_perf_sink_get_buf(p->sink);
	struct done_rec d = { 0 };

	buf[off] ^= 0x5a;
	run_stream(p, &sp, &d);
	buf[off] ^= 0x5a;
	*completed = d.res.completed;
	return d.res.check_errors;
}

static void spoiled_reads_are_counted_by_the_reader(void **state)
{
	struct pair *p = *state;
	uint64_t n, errors;

	/* full sees any byte; simple only the first and last 8 of a page */
	errors = read_errors(p, UL_PERF_CHECK_FULL, 5000, &n);
	assert_true(n > 0);
	assert_int_equal(errors, n);
	errors = read_errors(p, UL_PERF_CHECK_SIMPLE, 5000, &n);
	assert_true(n > 0);
	assert_int_equal(errors, 0);
	errors = read_errors(p, UL_PERF_CHECK_SIMPLE, 4096, &n);
	assert_int_equal(errors, n);
	errors = read_errors(p, UL_PERF_CHECK_SIMPLE, 8191, &n);
	assert_int_equal(errors, n);
	errors = read_errors(p, UL_PERF_CHECK_NONE, 4096, &n);
	assert_true(n > 0);
	assert_int_equal(errors, 0);
}

static void checked_writes_are_verified_by_the_sink(void **state)
{
	struct pair *p = *state;
	struct ul_perf_spec sp = spec_of(UL_PERF_OP_PUT, UL_PERF_CHECK_SIMPLE,
					 8192, 20 * DELAY_NS, 2);
	struct ul_perf_sink_stats ss;
	struct done_rec d = { 0 }, d2 = { 0 };

	run_stream(p, &sp, &d);
	ul_perf_sink_stats(p->sink, &ss);
	assert_true(d.res.completed > 0);
	assert_int_equal(ss.puts, d.res.completed);
	assert_int_equal(ss.checked, d.res.completed);
	assert_int_equal(ss.check_errors, 0);
	/* The wire flips byte 4200, inside page 1: only check=full sees it. */
	p->f.corrupt_at = 4201;
	run_stream(p, &sp, &d2);
	ul_perf_sink_stats(p->sink, &ss);
	assert_int_equal(ss.check_errors, 0);
	sp.check = UL_PERF_CHECK_FULL;
	memset(&d2, 0, sizeof(d2));
	run_stream(p, &sp, &d2);
	ul_perf_sink_stats(p->sink, &ss);
	assert_true(d2.res.completed > 0);
	assert_int_equal(ss.check_errors, d2.res.completed);
	/* The writer's ACKs still came: the sink is who knows. */
	assert_int_equal(d2.res.check_errors, 0);
	p->f.corrupt_at = 0;
}

static void pings_go_to_every_target_in_turn(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	static const char *const cn[] = { "10.0.0.3@tcp" };
	struct ul_perf_spec sp = spec_of(UL_PERF_OP_PING, UL_PERF_CHECK_NONE, 0,
					 40 * DELAY_NS, 4);
	struct ul_perf_sink *sb = NULL, *sc = NULL;
	struct ul_perf_sink_stats b, c;
	struct done_rec d = { 0 };
	struct mock_fabric f;
	struct ul_node *na, *nb, *nc;

	(void)state;
	mock_fabric_init(&f);
	f.delay_ns = DELAY_NS;
	na = mock_node(&f, an, 1, 0, 0);
	nb = mock_node(&f, bn, 1, 0, 0);
	nc = mock_node(&f, cn, 1, 0, 0);
	assert_non_null(na);
	assert_non_null(nb);
	assert_non_null(nc);
	assert_int_equal(ul_perf_sink_create(nb, &sb), 0);
	assert_int_equal(ul_perf_sink_create(nc, &sc), 0);
	sp.ntargets = 2;
	sp.targets[1].nid = mock_nid(cn[0]);
	sp.targets[1].pid = ULNET_PID_LUSTRE;
	assert_int_equal(
		ul_perf_stream_start(na, &f.timers, &sp, on_done, &d, NULL), 0);
	mock_run(&f, sp.duration_ns + 20 * DELAY_NS);
	assert_int_equal(d.ncalls, 1);
	assert_every_put_ended(&d.res);
	assert_int_equal(d.res.failed, 0);
	assert_int_equal(d.res.bytes, 0);
	ul_perf_sink_stats(sb, &b);
	ul_perf_sink_stats(sc, &c);
	/* Each answered a 0-byte GET for every other ping. */
	assert_int_equal(b.gets + c.gets, d.res.completed);
	assert_true(b.gets > 10 && c.gets > 10);
	assert_true(b.gets <= c.gets + 1 && c.gets <= b.gets + 1);
	assert_int_equal(b.get_bytes + c.get_bytes, 0);
	ul_perf_sink_destroy(sb);
	ul_perf_sink_destroy(sc);
	mock_run(&f, DELAY_NS);
	mock_fabric_fini(&f);
}

static void bad_specs_are_refused(void **state)
{
	struct pair *p = *state;
	struct ul_perf_spec sp;
	struct done_rec d = { 0 };

	sp = spec_of(UL_PERF_OP_PUT, UL_PERF_CHECK_NONE, 0, DELAY_NS, 1);
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	sp = spec_of(UL_PERF_OP_GET, UL_PERF_CHECK_NONE, UL_PERF_MAX_SIZE + 1,
		     DELAY_NS, 1);
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	sp = spec_of(UL_PERF_OP_PUT, (enum ul_perf_check)3, 64, DELAY_NS, 1);
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	sp = spec_of((enum ul_perf_op)7, UL_PERF_CHECK_NONE, 64, DELAY_NS, 1);
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	sp = spec_of(UL_PERF_OP_PING, UL_PERF_CHECK_NONE, 0, DELAY_NS, 1);
	sp.ntargets = 0;
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	sp.ntargets = UL_PERF_TARGETS_MAX + 1;
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	sp.ntargets = 1;
	sp.inflight = UL_PERF_INFLIGHT_MAX + 1;
	assert_int_equal(ul_perf_stream_start(p->a, &p->f.timers, &sp, on_done,
					      &d, NULL),
			 -EINVAL);
	assert_int_equal(d.ncalls, 0);
}

static void the_check_looks_where_lst_looks(void **state)
{
	uint8_t buf[3 * 4096 + 10];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = ul_perf_pattern_byte(i);
	assert_true(ul_perf_check_ok(buf, sizeof(buf), UL_PERF_CHECK_FULL));
	buf[4096 + 100] ^= 1;
	assert_true(ul_perf_check_ok(buf, sizeof(buf), UL_PERF_CHECK_SIMPLE));
	assert_false(ul_perf_check_ok(buf, sizeof(buf), UL_PERF_CHECK_FULL));
	assert_true(ul_perf_check_ok(buf, sizeof(buf), UL_PERF_CHECK_NONE));
	buf[4096 + 100] ^= 1;
	/* The last, short page: its last 8 bytes are looked at. */
	buf[sizeof(buf) - 1] ^= 1;
	assert_false(ul_perf_check_ok(buf, sizeof(buf), UL_PERF_CHECK_SIMPLE));
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
		cmocka_unit_test_setup_teardown(checked_reads_come_back_whole,
						pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(
			spoiled_reads_are_counted_by_the_reader, pair_setup,
			pair_teardown),
		cmocka_unit_test_setup_teardown(
			checked_writes_are_verified_by_the_sink, pair_setup,
			pair_teardown),
		cmocka_unit_test(pings_go_to_every_target_in_turn),
		cmocka_unit_test_setup_teardown(bad_specs_are_refused,
						pair_setup, pair_teardown),
		cmocka_unit_test(the_check_looks_where_lst_looks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
