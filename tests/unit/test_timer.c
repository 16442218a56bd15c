/*
 * The timer heap (src/util/timer.h) on a virtual clock: deadline order,
 * FIFO among equal deadlines, callbacks that cancel, arm, re-arm and free,
 * and 10,000 random operations checked against a naive reference (an
 * array scanned for the smallest (when, seq)).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/list.h"
#include "util/timer.h"

#define MAX_FIRED 64

/* A timer with a name, recording into a shared log when it fires. */
struct tt {
	struct ul_timer t;
	int id;
	struct tlog *log;
	struct ul_timer_heap *h;
	/* what the callback does besides logging */
	struct tt *cancel_other;
	uint64_t rearm_step_ns; /* re-arm self at last deadline + step */
	int rearm_left;
	uint64_t arm_new_at; /* arm new_timer at this time if set */
	struct tt *new_timer;
	bool is_heap_owned; /* free self from the callback */
};

struct tlog {
	int ids[MAX_FIRED];
	uint64_t now[MAX_FIRED];
	int n;
};

static void tt_cb(struct ul_timer *t, uint64_t now_ns)
{
	struct tt *x = ul_container_of(t, struct tt, t);

	assert_false(ul_timer_is_armed(t));
	assert_true(x->log->n < MAX_FIRED);
	x->log->ids[x->log->n] = x->id;
	x->log->now[x->log->n] = now_ns;
	x->log->n++;
	if (x->cancel_other)
		ul_timer_cancel(x->h, &x->cancel_other->t);
	if (x->new_timer)
		assert_int_equal(
			ul_timer_arm(x->h, &x->new_timer->t, x->arm_new_at), 0);
	if (x->rearm_left > 0) {
		x->rearm_left--;
		assert_int_equal(ul_timer_arm(x->h, &x->t,
					      t->when_ns + x->rearm_step_ns),
				 0);
	}
	if (x->is_heap_owned)
		free(x);
}

static void tt_init(struct tt *x, int id, struct tlog *log,
		    struct ul_timer_heap *h)
{
	memset(x, 0, sizeof(*x));
	ul_timer_init(&x->t, tt_cb);
	x->id = id;
	x->log = log;
	x->h = h;
}

static void timer_fires_in_deadline_order(void **state)
{
	struct ul_timer_heap h;
	struct tlog log = { 0 };
	struct tt a, b, c;

	(void)state;
	ul_timer_heap_init(&h);
	tt_init(&a, 1, &log, &h);
	tt_init(&b, 2, &log, &h);
	tt_init(&c, 3, &log, &h);
	assert_int_equal(ul_timer_heap_next(&h), UL_TIMER_NEVER);
	assert_int_equal(ul_timer_arm(&h, &a.t, 30), 0);
	assert_int_equal(ul_timer_arm(&h, &b.t, 10), 0);
	assert_int_equal(ul_timer_arm(&h, &c.t, 20), 0);
	assert_int_equal(ul_timer_heap_next(&h), 10);

	/* Nothing is due before the first deadline. */
	assert_int_equal(ul_timer_heap_run(&h, 9), 0);
	assert_int_equal(h.now_ns, 9);
	assert_int_equal(log.n, 0);

	/* A deadline equal to now is due. */
	assert_int_equal(ul_timer_heap_run(&h, 20), 2);
	assert_int_equal(ul_timer_heap_run(&h, 100), 1);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.ids[0], 2);
	assert_int_equal(log.ids[1], 3);
	assert_int_equal(log.ids[2], 1);
	assert_int_equal(log.now[0], 20);
	assert_int_equal(log.now[2], 100);
	assert_int_equal(ul_timer_heap_next(&h), UL_TIMER_NEVER);
	ul_timer_heap_fini(&h);
}

static void timer_equal_deadlines_fire_fifo(void **state)
{
	struct ul_timer_heap h;
	struct tlog log = { 0 };
	struct tt x[6];

	(void)state;
	ul_timer_heap_init(&h);
	for (int i = 0; i < 6; i++) {
		tt_init(&x[i], i, &log, &h);
		assert_int_equal(ul_timer_arm(&h, &x[i].t, 50), 0);
	}
	/* Re-arming x[1] at the same time sends it to the back. */
	assert_int_equal(ul_timer_arm(&h, &x[1].t, 50), 0);
	assert_int_equal(ul_timer_heap_run(&h, 50), 6);
	assert_int_equal(log.n, 6);
	assert_int_equal(log.ids[0], 0);
	assert_int_equal(log.ids[1], 2);
	assert_int_equal(log.ids[2], 3);
	assert_int_equal(log.ids[3], 4);
	assert_int_equal(log.ids[4], 5);
	assert_int_equal(log.ids[5], 1);
	ul_timer_heap_fini(&h);
}

static void timer_cancel_from_callback_stops_other(void **state)
{
	struct ul_timer_heap h;
	struct tlog log = { 0 };
	struct tt a, b, c;

	(void)state;
	ul_timer_heap_init(&h);
	tt_init(&a, 1, &log, &h);
	tt_init(&b, 2, &log, &h);
	tt_init(&c, 3, &log, &h);
	/* Both due in the same run: a fires first and cancels b. */
	a.cancel_other = &b;
	assert_int_equal(ul_timer_arm(&h, &a.t, 10), 0);
	assert_int_equal(ul_timer_arm(&h, &b.t, 10), 0);
	assert_int_equal(ul_timer_arm(&h, &c.t, 15), 0);
	assert_int_equal(ul_timer_heap_run(&h, 20), 2);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.ids[0], 1);
	assert_int_equal(log.ids[1], 3);
	assert_false(ul_timer_is_armed(&b.t));
	/* Cancelling an idle timer is harmless. */
	ul_timer_cancel(&h, &b.t);
	ul_timer_cancel(&h, &b.t);
	assert_int_equal(h.count, 0);
	ul_timer_heap_fini(&h);
}

static void timer_rearm_self_runs_while_due(void **state)
{
	struct ul_timer_heap h;
	struct tlog log = { 0 };
	struct tt p;

	(void)state;
	ul_timer_heap_init(&h);
	tt_init(&p, 7, &log, &h);
	p.rearm_step_ns = 10;
	p.rearm_left = 100;
	assert_int_equal(ul_timer_arm(&h, &p.t, 0), 0);
	/* A periodic timer: 0, 10, 20, 30, 40 are due at 45; 50 waits. */
	assert_int_equal(ul_timer_heap_run(&h, 45), 5);
	assert_int_equal(log.n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(log.now[i], 45);
	assert_true(ul_timer_is_armed(&p.t));
	assert_int_equal(ul_timer_heap_next(&h), 50);
	ul_timer_cancel(&h, &p.t);
	assert_false(ul_timer_is_armed(&p.t));
	assert_int_equal(ul_timer_heap_run(&h, 1000), 0);
	ul_timer_heap_fini(&h);
}

static void timer_armed_by_callback_for_now_runs_same_call(void **state)
{
	struct ul_timer_heap h;
	struct tlog log = { 0 };
	struct tt a, due, later;

	(void)state;
	ul_timer_heap_init(&h);
	tt_init(&a, 1, &log, &h);
	tt_init(&due, 2, &log, &h);
	tt_init(&later, 3, &log, &h);
	a.new_timer = &due;
	a.arm_new_at = 5; /* in the past at run time */
	assert_int_equal(ul_timer_arm(&h, &a.t, 10), 0);
	assert_int_equal(ul_timer_arm(&h, &later.t, 11), 0);
	assert_int_equal(ul_timer_heap_run(&h, 10), 2);
	assert_int_equal(log.ids[0], 1);
	assert_int_equal(log.ids[1], 2);
	assert_true(ul_timer_is_armed(&later.t));
	ul_timer_heap_fini(&h);
	/* fini leaves owners with idle timers. */
	assert_false(ul_timer_is_armed(&later.t));
}

static void timer_callback_may_free_its_owner(void **state)
{
	struct ul_timer_heap h;
	struct tlog log = { 0 };

	(void)state;
	ul_timer_heap_init(&h);
	for (int i = 0; i < 40; i++) {
		struct tt *x = malloc(sizeof(*x));

		assert_non_null(x);
		tt_init(x, i, &log, &h);
		x->is_heap_owned = true;
		assert_int_equal(ul_timer_arm(&h, &x->t, (uint64_t)(40 - i)),
				 0);
	}
	assert_int_equal(ul_timer_heap_run(&h, 40), 40);
	for (int i = 0; i < 40; i++)
		assert_int_equal(log.ids[i], 39 - i);
	ul_timer_heap_fini(&h);
}

/* The random test: NT timers, a shadow of each, and a naive "heap". */
#define NT 48
#define NOPS 10000

struct rt {
	struct ul_timer t;
	int id;
	struct rfx *fx;
};

struct rfx {
	struct ul_timer_heap h;
	struct rt timers[NT];
	/* the reference: armed flag, deadline and arming order per timer */
	bool ref_armed[NT];
	uint64_t ref_when[NT];
	uint64_t ref_seq[NT];
	uint64_t ref_next_seq;
	/* firing order expected by the reference, and what the heap did */
	int want[NT];
	int nwant;
	int got[NT];
	int ngot;
	uint64_t rng;
};

static uint32_t rnd(struct rfx *fx, uint32_t n)
{
	fx->rng ^= fx->rng << 13;
	fx->rng ^= fx->rng >> 7;
	fx->rng ^= fx->rng << 17;
	return (uint32_t)(fx->rng % n);
}

static void rt_cb(struct ul_timer *t, uint64_t now_ns)
{
	struct rt *x = ul_container_of(t, struct rt, t);

	(void)now_ns;
	assert_true(x->fx->ngot < NT);
	x->fx->got[x->fx->ngot++] = x->id;
}

/* The armed timer with the smallest (when, seq), or -1. */
static int ref_min(const struct rfx *fx)
{
	int best = -1;

	for (int i = 0; i < NT; i++) {
		if (!fx->ref_armed[i])
			continue;
		if (best < 0 || fx->ref_when[i] < fx->ref_when[best] ||
		    (fx->ref_when[i] == fx->ref_when[best] &&
		     fx->ref_seq[i] < fx->ref_seq[best]))
			best = i;
	}
	return best;
}

static void check_heap_shape(const struct ul_timer_heap *h)
{
	for (size_t i = 0; i < h->count; i++) {
		const struct ul_timer *t = h->items[i].t;

		assert_int_equal(t->idx, i);
		/* the slot's copy of the key is the timer's */
		assert_true(h->items[i].when_ns == t->when_ns);
		assert_true(h->items[i].seq == t->seq);
		if (i == 0)
			continue;
		const struct ul_timer *p = h->items[(i - 1) / 2].t;
		assert_true(p->when_ns < t->when_ns ||
			    (p->when_ns == t->when_ns && p->seq < t->seq));
	}
}

static void timer_random_ops_match_naive_reference(void **state)
{
	struct rfx *fx = calloc(1, sizeof(*fx));
	uint64_t now = 0;

	(void)state;
	assert_non_null(fx);
	fx->rng = 0x9e3779b97f4a7c15ull;
	ul_timer_heap_init(&fx->h);
	for (int i = 0; i < NT; i++) {
		ul_timer_init(&fx->timers[i].t, rt_cb);
		fx->timers[i].id = i;
		fx->timers[i].fx = fx;
	}
	for (int op = 0; op < NOPS; op++) {
		int i = (int)rnd(fx, NT);
		uint32_t what = rnd(fx, 10);

		if (what < 5) {
			/* arm or re-arm; sometimes in the past, often tied */
			uint64_t when = now + rnd(fx, 64);

			if (when >= 8 && rnd(fx, 8) == 0)
				when -= 8;
			assert_int_equal(ul_timer_arm(&fx->h, &fx->timers[i].t,
						      when),
					 0);
			fx->ref_armed[i] = true;
			fx->ref_when[i] = when;
			fx->ref_seq[i] = fx->ref_next_seq++;
		} else if (what < 8) {
			ul_timer_cancel(&fx->h, &fx->timers[i].t);
			fx->ref_armed[i] = false;
		} else {
			int m;

			now += rnd(fx, 24);
			fx->nwant = 0;
			fx->ngot = 0;
			while ((m = ref_min(fx)) >= 0 &&
			       fx->ref_when[m] <= now) {
				fx->ref_armed[m] = false;
				fx->want[fx->nwant++] = m;
			}
			assert_int_equal(ul_timer_heap_run(&fx->h, now),
					 fx->nwant);
			assert_int_equal(fx->ngot, fx->nwant);
			for (int k = 0; k < fx->nwant; k++)
				assert_int_equal(fx->got[k], fx->want[k]);
		}
		for (int k = 0; k < NT; k++)
			assert_int_equal(ul_timer_is_armed(&fx->timers[k].t),
					 fx->ref_armed[k]);
		int m = ref_min(fx);
		assert_int_equal(ul_timer_heap_next(&fx->h),
				 m < 0 ? UL_TIMER_NEVER : fx->ref_when[m]);
		check_heap_shape(&fx->h);
	}
	ul_timer_heap_fini(&fx->h);
	free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timer_fires_in_deadline_order),
		cmocka_unit_test(timer_equal_deadlines_fire_fifo),
		cmocka_unit_test(timer_cancel_from_callback_stops_other),
		cmocka_unit_test(timer_rearm_self_runs_while_due),
		cmocka_unit_test(
			timer_armed_by_callback_for_now_runs_same_call),
		cmocka_unit_test(timer_callback_may_free_its_owner),
		cmocka_unit_test(timer_random_ops_match_naive_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
