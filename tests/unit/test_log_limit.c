/*
 * Console rate limiting (util/log.h ul_log_limit), as libcfs's
 * CDEBUG_LIMIT behaves: a call site prints, then holds its lines back
 * for half a second, doubling with each line printed up to 600 s and
 * shrinking after a long quiet spell; the first line after some were
 * held back is followed by "Skipped N previous similar message(s)";
 * call sites are independent, and a sink without limits holds nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/log.h"

#define MS 1000000ull
#define SEC 1000000000ull

struct sink {
	int n;
	char last[8][256];
	uint64_t now;
};

static void sink_fn(void *ctx, const char *line)
{
	struct sink *s = ctx;

	snprintf(s->last[s->n % 8], sizeof(s->last[0]), "%s", line);
	s->n++;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct sink *)ctx)->now;
}

struct fx {
	struct sink s;
	struct ul_log lg;
};

static int setup(void **state)
{
	static struct fx f;

	memset(&f, 0, sizeof(f));
	f.lg.fn = sink_fn;
	f.lg.ctx = &f.s;
	f.lg.mask = UL_LOG_DEFAULT_MASK;
	f.lg.limits = ul_log_limits_new();
	assert_non_null(f.lg.limits);
	ul_log_limits_set_clock(f.lg.limits, fake_now, &f.s);
	f.s.now = 1000 * SEC;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ul_log_limits_free(f->lg.limits);
	return 0;
}

/* One call site, as a refused connection's line would be. */
static void refused(struct fx *f, int i)
{
	ul_log_limit(&f->lg, UL_D_NETERROR, "refused client %d", i);
}

static void other(struct fx *f)
{
	ul_log_limit(&f->lg, UL_D_NETERROR, "another site");
}

static const char *last(const struct fx *f)
{
	return f->s.last[(f->s.n - 1) % 8];
}

static void a_burst_prints_once_then_says_what_it_skipped(void **state)
{
	struct fx *f = *state;
	int i;

	for (i = 0; i < 100; i++)
		refused(f, i);
	assert_int_equal(f->s.n, 1);
	assert_string_equal(last(f), "neterror: refused client 0");
	/* Still within half a second: held. */
	f->s.now += 499 * MS;
	refused(f, 100);
	assert_int_equal(f->s.n, 1);
	f->s.now += 2 * MS;
	refused(f, 101);
	assert_int_equal(f->s.n, 3);
	assert_string_equal(f->s.last[1], "neterror: refused client 101");
	assert_string_equal(last(f),
			    "neterror: Skipped 100 previous similar messages");
}

static void the_delay_doubles_then_shrinks_after_quiet(void **state)
{
	struct fx *f = *state;

	refused(f, 0); /* printed; held for 0.5 s */
	f->s.now += 600 * MS;
	refused(f, 1); /* printed; held for 1 s */
	assert_int_equal(f->s.n, 2);
	f->s.now += 900 * MS;
	refused(f, 2); /* within the second: held */
	assert_int_equal(f->s.n, 2);
	f->s.now += 200 * MS;
	refused(f, 3); /* printed with "Skipped 1 previous similar message" */
	assert_int_equal(f->s.n, 4);
	assert_string_equal(last(f),
			    "neterror: Skipped 1 previous similar message");
	/* Held for 2 s now; after a long quiet spell, back to 0.5 s. */
	f->s.now += 1900 * MS;
	refused(f, 4);
	assert_int_equal(f->s.n, 4);
	f->s.now += 700 * SEC;
	refused(f, 5);
	assert_int_equal(f->s.n, 6); /* the line and its skipped count */
	f->s.now += 600 * MS;
	refused(f, 6);
	assert_int_equal(f->s.n, 7);
}

static void the_delay_stops_at_600_seconds(void **state)
{
	struct fx *f = *state;
	int i, n;

	for (i = 0; i < 20; i++) {
		f->s.now += 601 * SEC;
		refused(f, i);
	}
	n = f->s.n;
	assert_int_equal(n, 20); /* every one came after the delay */
	f->s.now += 599 * SEC;
	refused(f, 99);
	assert_int_equal(f->s.n, n); /* held: the delay is 600 s */
}

static void call_sites_are_independent(void **state)
{
	struct fx *f = *state;

	refused(f, 0);
	refused(f, 1);
	other(f);
	other(f);
	assert_int_equal(f->s.n, 2);
	assert_string_equal(last(f), "neterror: another site");
}

static void a_sink_without_limits_holds_nothing(void **state)
{
	struct fx *f = *state;
	struct ul_log_limits *l = f->lg.limits;
	int i;

	f->lg.limits = NULL;
	for (i = 0; i < 10; i++)
		refused(f, i);
	assert_int_equal(f->s.n, 10);
	f->lg.limits = l;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			a_burst_prints_once_then_says_what_it_skipped, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			the_delay_doubles_then_shrinks_after_quiet, setup,
			teardown),
		cmocka_unit_test_setup_teardown(the_delay_stops_at_600_seconds,
						setup, teardown),
		cmocka_unit_test_setup_teardown(call_sites_are_independent,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_sink_without_limits_holds_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
