/*
 * socklnd's scheduler threads when resources run out (socklnd_sched.c):
 * a thread that cannot be started leaves the node without threads (a
 * warning, every copy on the loop thread), and a job that cannot be
 * allocated is done on the loop thread instead; either way every PUT
 * arrives byte-exact and ends once. pthread_create and calloc are
 * wrapped (tests/CMakeLists.txt) so that the test chooses which fail.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helper_socklnd.h"

#define MIB (1u << 20)

int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);

/*
 * pthread_create calls still to succeed before every later one fails;
 * -1: none fails.
 */
static int threads_ok = -1;
/*
 * Large single allocations (a job: its iovec array makes it 1 KiB or
 * more) still to succeed before every later one fails; -1: none fails.
 */
static int jobs_ok = -1;
static int nfailed;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	if (threads_ok == 0) {
		nfailed++;
		return EAGAIN;
	}
	if (threads_ok > 0)
		threads_ok--;
	return __real_pthread_create(t, attr, fn, arg);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (jobs_ok >= 0 && nmemb == 1 && size >= 1024) {
		if (jobs_ok == 0) {
			nfailed++;
			return NULL;
		}
		jobs_ok--;
	}
	return __real_calloc(nmemb, size);
}

static int setup(void **state)
{
	threads_ok = jobs_ok = -1;
	nfailed = 0;
	*state = sw_world_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	sw_world_free(*state);
	return 0;
}

struct rx_want {
	int ni, n;
};

static bool pred_rx_done(struct sw_world *w, void *arg)
{
	struct rx_want *rw = arg;

	return w->nis[rw->ni].nrx_done >= rw->n;
}

/* PUT idx of len from NI 0 to NI 1: it ends once, OK, byte-exact. */
static void put_ok(struct sw_world *w, int idx, uint32_t len)
{
	int ntx = w->ntx_done + 1;
	struct rx_want rw = { 1, w->nis[1].nrx_done + 1 };

	assert_int_equal(sw_send_put(w, 0, &w->nis[1].ni.nid, idx, len), 0);
	assert_true(sw_run_until(w, sw_pred_tx_done, &ntx));
	assert_true(sw_run_until(w, pred_rx_done, &rw));
	assert_int_equal(w->tx_ndone[idx], 1);
	assert_int_equal(w->tx_status[idx], 0);
	assert_true(sw_rx_ok(w, 1, idx, len));
}

/*
 * Only one of two threads can start: it is stopped again, the log says
 * so, and the node runs without threads (each NI start tries again).
 */
static void nomem_thread_start_fails(void **state)
{
	struct sw_world *w = *state;

	w->opts.nscheds = 2;
	threads_ok = 1;
	assert_int_equal(sw_world_start2(w), 0);
	assert_int_equal(nfailed, 2);
	assert_true(sw_log_has(w, "no scheduler threads"));
	assert_false(sw_log_has(w, "scheduler thread(s)"));
	put_ok(w, 0, MIB);
	assert_int_equal(sw_jobs(w, 0, 2, false), 0);
	assert_int_equal(sw_jobs(w, 1, 1, true), 0);
}

/*
 * No job can be allocated: the sender writes and the receiver reads on
 * the loop thread; once memory is back, the next PUT goes to the thread.
 */
static void nomem_job_alloc_fails(void **state)
{
	struct sw_world *w = *state;

	w->opts.nscheds = 1;
	assert_int_equal(sw_world_start2(w), 0);
	put_ok(w, 0, 4096); /* connected, nothing large yet */
	jobs_ok = 0;
	put_ok(w, 1, MIB);
	assert_true(nfailed > 0);
	assert_int_equal(sw_jobs(w, 0, 2, false), 0);
	assert_int_equal(sw_jobs(w, 1, 1, true), 0);
	jobs_ok = -1;
	put_ok(w, 2, MIB);
	assert_true(sw_jobs(w, 0, 2, false) > 0);
	assert_true(sw_jobs(w, 1, 1, true) > 0);
}

/*
 * The sender's write job is allocated, then no more: the receiver reads
 * the whole payload on the loop thread.
 */
static void nomem_read_job_alloc_fails(void **state)
{
	struct sw_world *w = *state;

	w->opts.nscheds = 1;
	assert_int_equal(sw_world_start2(w), 0);
	put_ok(w, 0, 4096);
	jobs_ok = 1;
	put_ok(w, 1, MIB);
	assert_true(nfailed > 0);
	assert_true(sw_jobs(w, 0, 2, false) > 0);
	assert_int_equal(sw_jobs(w, 1, 1, true), 0);
	jobs_ok = -1;
	put_ok(w, 2, MIB);
	assert_true(sw_jobs(w, 1, 1, true) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nomem_thread_start_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(nomem_job_alloc_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(nomem_read_job_alloc_fails,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
