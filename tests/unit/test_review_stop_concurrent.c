/*
 * ulnet_stop() from two threads at once (ulnet.h: any thread may call
 * any function; stop is idempotent).
 *
 * When ulnet_stop() returns, every MD has had its last event and the loop
 * thread is joined, so the application may free its buffers. A second
 * ulnet_stop() that arrives while the first is still shutting down must
 * therefore wait for it, not return at once while the loop thread still
 * delivers events.
 *
 * An attached MD's UNLINK handler (run by the first stop, on the loop
 * thread) holds the shutdown until the test releases it; meanwhile a
 * second thread calls ulnet_stop(). It must still be inside the call
 * when the handler is released.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "ulnet/ulnet.h"

/* How long the second stop is given to return early (it must not). */
#define EARLY_WAIT_SEC 1
/* Safety net for waits that must end. */
#define LIMIT_SEC 20

struct ctx {
	struct ulnet *u;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool is_in_handler;
	bool is_released;
	bool is_second_done;
	bool was_second_done_early; /* seen by the handler */
};

static bool wait_flag(struct ctx *c, const bool *flag, int sec)
{
	struct timespec until;
	int rc = 0;
	bool v;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += sec;
	pthread_mutex_lock(&c->lock);
	while (!*flag && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&c->cond, &c->lock, &until);
	v = *flag;
	pthread_mutex_unlock(&c->lock);
	return v;
}

static void set_flag(struct ctx *c, bool *flag)
{
	pthread_mutex_lock(&c->lock);
	*flag = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void hold_cb(struct ulnet *u, const struct ulnet_event *ev)
{
	struct ctx *c = ev->md_user_ptr;

	(void)u;
	if (ev->type != ULNET_EVENT_UNLINK)
		return;
	set_flag(c, &c->is_in_handler);
	(void)wait_flag(c, &c->is_released, LIMIT_SEC);
	pthread_mutex_lock(&c->lock);
	c->was_second_done_early = c->is_second_done;
	pthread_mutex_unlock(&c->lock);
}

static void *stopper(void *arg)
{
	struct ctx *c = arg;

	ulnet_stop(c->u);
	return NULL;
}

static void *second_stopper(void *arg)
{
	struct ctx *c = arg;

	ulnet_stop(c->u);
	set_flag(c, &c->is_second_done);
	return NULL;
}

static void second_stop_waits_for_the_first(void **state)
{
	static uint8_t buf[64];
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ctx c = { 0 };
	struct ulnet_md md = { 0 };
	struct ulnet_opts o;
	struct ulnet_handle h;
	pthread_t t1, t2;
	char err[256];

	(void)state;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	ulnet_opts_init(&o);
	o.is_link_monitor_off = true;
	o.accept = ULNET_ACCEPT_NONE;
	assert_int_equal(ulnet_create(&o, &c.u, err, sizeof(err)), 0);
	assert_int_equal(ulnet_start(c.u), 0);
	ulnet_nid_set_any(&any.nid);
	md.start = buf;
	md.length = sizeof(buf);
	md.threshold = ULNET_MD_THRESH_INF;
	md.options = ULNET_MD_OP_PUT;
	md.user_ptr = &c;
	md.handler = hold_cb;
	md.numa_node = -1;
	assert_int_equal(ulnet_md_attach(c.u, 7, &any, 1, 0, ULNET_INS_AFTER,
					 &md, ULNET_RETAIN, &h),
			 0);
	assert_int_equal(pthread_create(&t1, NULL, stopper, &c), 0);
	assert_true(wait_flag(&c, &c.is_in_handler, LIMIT_SEC));
	assert_int_equal(pthread_create(&t2, NULL, second_stopper, &c), 0);
	/* Give the second stop every chance to return early. */
	(void)wait_flag(&c, &c.is_second_done, EARLY_WAIT_SEC);
	set_flag(&c, &c.is_released);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ulnet_destroy(c.u);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.lock);
	assert_false(c.was_second_done_early);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(second_stop_waits_for_the_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
