/*
 * ulnet_stop() racing with calls from other threads (ulnet.h "THREADS").
 *
 * A call made from another thread while the instance stops must either
 * run on the loop thread or fail with -ESHUTDOWN; it must never be left
 * in the command queue after the loop thread is gone:
 *   - a synchronous call (ulnet_ni_info) would block its caller until
 *     ulnet_destroy(), and ulnet_destroy() would then free the instance
 *     under the waking caller;
 *   - ulnet_call() would return 0 for a function that never runs.
 * Each round starts an instance (0@lo only), lets two threads hammer it
 * and stops it; after ulnet_stop() returns, both threads must finish
 * without ulnet_destroy(), and every ulnet_call() that returned 0 must
 * have run its function.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "ulnet/ulnet.h"

#define ROUNDS 300
/* Safety net only: with the race fixed the threads end at once. */
#define HANG_LIMIT_SEC 20

struct round {
	struct ulnet *u;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int nfinished; /* hammer threads done, under lock */
	atomic_uint ncalls;	/* round trips that completed */
	atomic_uint nposted;	/* ulnet_call() that returned 0 */
	atomic_uint nran;	/* functions that ran */
};

static void finish(struct round *r)
{
	pthread_mutex_lock(&r->lock);
	r->nfinished++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Synchronous calls until the instance refuses them. */
static void *sync_hammer(void *arg)
{
	struct round *r = arg;
	size_t n;

	while (ulnet_ni_info(r->u, NULL, 0, &n) == 0)
		atomic_fetch_add(&r->ncalls, 1);
	finish(r);
	return NULL;
}

static void counted_fn(struct ulnet *u, void *arg)
{
	struct round *r = arg;

	(void)u;
	atomic_fetch_add(&r->nran, 1);
}

/* Posted calls until the instance refuses them. */
static void *post_hammer(void *arg)
{
	struct round *r = arg;

	while (ulnet_call(r->u, counted_fn, r) == 0)
		atomic_fetch_add(&r->nposted, 1);
	finish(r);
	return NULL;
}

/* Wait for both threads; false if they are still blocked at the limit. */
static bool wait_finished(struct round *r)
{
	struct timespec until;
	bool is_done;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += HANG_LIMIT_SEC;
	pthread_mutex_lock(&r->lock);
	while (r->nfinished < 2 && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&r->cond, &r->lock, &until);
	is_done = r->nfinished == 2;
	pthread_mutex_unlock(&r->lock);
	return is_done;
}

static void calls_racing_stop_finish_before_destroy(void **state)
{
	unsigned int hung = 0, lost = 0;

	(void)state;
	for (int i = 0; i < ROUNDS; i++) {
		struct round r = { 0 };
		struct ulnet_opts o;
		pthread_t t1, t2;
		char err[256];
		bool is_done;

		pthread_mutex_init(&r.lock, NULL);
		pthread_cond_init(&r.cond, NULL);
		ulnet_opts_init(&o);
		o.is_link_monitor_off = true;
		o.accept = ULNET_ACCEPT_NONE;
		assert_int_equal(ulnet_create(&o, &r.u, err, sizeof(err)), 0);
		assert_int_equal(ulnet_start(r.u), 0);
		assert_int_equal(pthread_create(&t1, NULL, sync_hammer, &r), 0);
		assert_int_equal(pthread_create(&t2, NULL, post_hammer, &r), 0);
		/* Let both get going, so the stop lands among their calls. */
		while (atomic_load(&r.ncalls) < 4 ||
		       atomic_load(&r.nposted) < 4)
			sched_yield();
		ulnet_stop(r.u);
		is_done = wait_finished(&r);
		/* Unblocks a stuck caller (the bug), so the joins return. */
		ulnet_destroy(r.u);
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
		if (!is_done)
			hung++;
		if (atomic_load(&r.nran) != atomic_load(&r.nposted))
			lost++;
		pthread_cond_destroy(&r.cond);
		pthread_mutex_destroy(&r.lock);
		if (hung || lost)
			break;
	}
	assert_int_equal(hung, 0);
	assert_int_equal(lost, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(calls_racing_stop_finish_before_destroy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
