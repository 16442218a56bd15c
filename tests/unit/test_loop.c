/*
 * The event loop (src/util/loop.h) on real descriptors and the real
 * monotonic clock: I/O callbacks, stopping, timers (order and counts only,
 * never durations), the command queue from many threads, shutdown,
 * before-sleep hooks, wake_self, and ul_io_stop() inside callbacks. A
 * broken loop shows as a failed assertion; the few safety-net timers only
 * keep a broken loop from hanging until the ctest timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/loop.h"
#include "util/clock.h"

/* Long enough never to fire in a working loop. */
#define SAFETY_NS (30ull * 1000000000ull)

struct safety {
	struct ul_timer t;
	struct ul_loop *loop;
	bool has_fired;
};

static void safety_cb(struct ul_timer *t, uint64_t now_ns)
{
	struct safety *s = ul_container_of(t, struct safety, t);

	(void)now_ns;
	s->has_fired = true;
	ul_loop_stop(s->loop);
}

static void safety_arm(struct safety *s, struct ul_loop *loop)
{
	s->loop = loop;
	s->has_fired = false;
	ul_timer_init(&s->t, safety_cb);
	assert_int_equal(ul_timer_arm(ul_loop_timers(loop), &s->t,
				      ul_loop_update_time(loop) + SAFETY_NS),
			 0);
}

/*
 * The safety net neither fired nor was waited for: a loop that sleeps
 * until its next timer after a stop would return only at that deadline.
 */
static void safety_check(struct safety *s)
{
	assert_false(s->has_fired);
	assert_true(ul_loop_update_time(s->loop) < s->t.when_ns);
	ul_timer_cancel(ul_loop_timers(s->loop), &s->t);
}

struct pipe_io {
	struct ul_io io;
	int fds[2];
	int ncalls;
	uint32_t last_events;
	bool is_stop_loop;	/* ul_loop_stop() from the callback */
	bool is_stop_self;	/* ul_io_stop() on itself */
	struct pipe_io *victim; /* ul_io_stop() and free this one */
};

static void pipe_open(struct pipe_io *p)
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(pipe2(p->fds, O_NONBLOCK | O_CLOEXEC), 0);
}

static void pipe_close(struct pipe_io *p)
{
	close(p->fds[0]);
	close(p->fds[1]);
}

static void pipe_cb(struct ul_io *io, uint32_t events)
{
	struct pipe_io *p = ul_container_of(io, struct pipe_io, io);

	assert_true(ul_loop_is_loop_thread(io->loop));
	p->ncalls++;
	p->last_events = events;
	if (p->is_stop_loop)
		ul_loop_stop(io->loop);
	if (p->is_stop_self)
		ul_io_stop(io);
	if (p->victim) {
		ul_io_stop(&p->victim->io);
		pipe_close(p->victim);
		free(p->victim);
		p->victim = NULL;
	}
}

struct late_writer {
	int fd;
	uint64_t written_ns; /* the clock just before the write */
};

static void *late_writer_main(void *arg)
{
	struct late_writer *w = arg;
	char c = 'x';

	usleep(50 * 1000);
	w->written_ns = ul_clock_monotonic_ns();
	if (write(w->fd, &c, 1) != 1)
		w->written_ns = 0;
	return NULL;
}

struct now_io {
	struct ul_io io;
	uint64_t seen_ns; /* the loop's "now" inside the callback */
};

static void now_cb(struct ul_io *io, uint32_t events)
{
	struct now_io *n = ul_container_of(io, struct now_io, io);

	(void)events;
	n->seen_ns = ul_loop_timers(io->loop)->now_ns;
}

/*
 * A callback after a long sleep sees the time it woke at: a timer it arms
 * "5 s from now" must not be 5 s from before the sleep (the control
 * socket's client timeout once closed every connection after an idle
 * spell longer than itself).
 */
static void loop_now_is_refreshed_after_the_sleep(void **state)
{
	struct ul_loop *loop;
	struct pipe_io p;
	struct now_io n = { 0 };
	struct late_writer w;
	pthread_t th;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	pipe_open(&p);
	assert_int_equal(ul_io_start(loop, &n.io, p.fds[0], EPOLLIN, now_cb),
			 0);
	w.fd = p.fds[1];
	w.written_ns = 0;
	assert_int_equal(pthread_create(&th, NULL, late_writer_main, &w), 0);
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(w.written_ns != 0);
	assert_true(n.seen_ns >= w.written_ns);
	ul_io_stop(&n.io);
	pipe_close(&p);
	ul_loop_destroy(loop);
}

static void loop_calls_back_readable_pipe(void **state)
{
	struct ul_loop *loop;
	struct pipe_io p;
	char c = 'x';

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	pipe_open(&p);
	assert_int_equal(ul_io_start(loop, &p.io, p.fds[0], EPOLLIN, pipe_cb),
			 0);
	assert_true(p.io.is_active);
	/* Nothing to read yet: an iteration with no wait calls nothing. */
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(p.ncalls, 0);
	assert_int_equal(write(p.fds[1], &c, 1), 1);
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(p.ncalls, 1);
	assert_true(p.last_events & EPOLLIN);
	/* Level-triggered: unread data reports again. */
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(p.ncalls, 2);
	ul_io_stop(&p.io);
	ul_io_stop(&p.io);
	assert_false(p.io.is_active);
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(p.ncalls, 2);
	pipe_close(&p);
	ul_loop_destroy(loop);
}

static void loop_reports_writable_then_modify(void **state)
{
	struct ul_loop *loop;
	struct pipe_io p;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	pipe_open(&p);
	assert_int_equal(ul_io_start(loop, &p.io, p.fds[1], EPOLLOUT, pipe_cb),
			 0);
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(p.ncalls, 1);
	assert_int_equal(p.last_events, EPOLLOUT);
	/* Asking for EPOLLIN on a write end: nothing more is reported. */
	assert_int_equal(ul_io_modify(&p.io, EPOLLIN), 0);
	assert_int_equal(p.io.events, EPOLLIN);
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(p.ncalls, 1);
	ul_io_stop(&p.io);
	assert_int_equal(ul_io_modify(&p.io, EPOLLOUT), -EINVAL);
	pipe_close(&p);
	ul_loop_destroy(loop);
}

static void loop_stop_inside_callback_returns_run(void **state)
{
	struct ul_loop *loop;
	struct pipe_io p;
	struct safety s;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	safety_arm(&s, loop);
	pipe_open(&p);
	p.is_stop_loop = true;
	assert_int_equal(ul_io_start(loop, &p.io, p.fds[1], EPOLLOUT, pipe_cb),
			 0);
	assert_int_equal(ul_loop_run(loop), 0);
	safety_check(&s);
	assert_int_equal(p.ncalls, 1);
	/* Stopped for good: run returns at once. */
	assert_int_equal(ul_loop_run(loop), 0);
	assert_int_equal(p.ncalls, 1);
	ul_io_stop(&p.io);
	pipe_close(&p);
	ul_loop_destroy(loop);
}

static void loop_io_stop_in_callback_silences_reported_io(void **state)
{
	struct ul_loop *loop;
	struct pipe_io *a = malloc(sizeof(*a));
	struct pipe_io *b = malloc(sizeof(*b));
	struct pipe_io *dead;
	char c = 'x';

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(ul_loop_create(&loop), 0);
	pipe_open(a);
	pipe_open(b);
	assert_int_equal(write(a->fds[1], &c, 1), 1);
	assert_int_equal(write(b->fds[1], &c, 1), 1);
	assert_int_equal(ul_io_start(loop, &a->io, a->fds[0], EPOLLIN, pipe_cb),
			 0);
	assert_int_equal(ul_io_start(loop, &b->io, b->fds[0], EPOLLIN, pipe_cb),
			 0);
	/*
	 * Both are ready in the same epoll_wait. Whichever runs first stops
	 * and frees the other: ASan catches a callback on the freed one.
	 */
	a->victim = b;
	b->victim = a;
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	if (a->victim == NULL) {
		dead = a;
		a = NULL;
	} else {
		dead = b;
		b = NULL;
	}
	assert_int_equal(dead->ncalls, 1);
	assert_null(dead->victim);
	ul_io_stop(&dead->io);
	pipe_close(dead);
	free(dead);
	ul_loop_destroy(loop);
}

static void loop_io_stop_self_then_free(void **state)
{
	struct ul_loop *loop;
	struct pipe_io p;
	char c = 'x';

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	pipe_open(&p);
	p.is_stop_self = true;
	assert_int_equal(write(p.fds[1], &c, 1), 1);
	assert_int_equal(ul_io_start(loop, &p.io, p.fds[0], EPOLLIN, pipe_cb),
			 0);
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(p.ncalls, 1);
	assert_false(p.io.is_active);
	pipe_close(&p);
	ul_loop_destroy(loop);
}

struct order_timer {
	struct ul_timer t;
	int id;
	int *log;
	int *nlog;
	bool is_last;
	struct ul_loop *loop;
};

static void order_cb(struct ul_timer *t, uint64_t now_ns)
{
	struct order_timer *o = ul_container_of(t, struct order_timer, t);

	assert_true(now_ns >= t->when_ns);
	assert_int_equal(ul_loop_timers(o->loop)->now_ns, now_ns);
	o->log[(*o->nlog)++] = o->id;
	if (o->is_last)
		ul_loop_stop(o->loop);
}

static void loop_timers_fire_in_deadline_order(void **state)
{
	static const uint64_t offs_us[] = { 3000, 1000, 0, 2000, 1000, 4000 };
	struct order_timer ot[6];
	struct ul_loop *loop;
	struct safety s;
	int log[6], nlog = 0;
	uint64_t now;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	safety_arm(&s, loop);
	now = ul_loop_update_time(loop);
	for (int i = 0; i < 6; i++) {
		ot[i] = (struct order_timer){ .id = i,
					      .log = log,
					      .nlog = &nlog,
					      .loop = loop,
					      .is_last = i == 5 };
		ul_timer_init(&ot[i].t, order_cb);
		assert_int_equal(ul_timer_arm(ul_loop_timers(loop), &ot[i].t,
					      now + offs_us[i] * 1000),
				 0);
	}
	assert_int_equal(ul_loop_run(loop), 0);
	safety_check(&s);
	assert_int_equal(nlog, 6);
	assert_int_equal(log[0], 2);
	assert_int_equal(log[1], 1);
	assert_int_equal(log[2], 4);
	assert_int_equal(log[3], 3);
	assert_int_equal(log[4], 0);
	assert_int_equal(log[5], 5);
	ul_timer_cancel(ul_loop_timers(loop), &s.t);
	ul_loop_destroy(loop);
}

struct wake_timer {
	struct ul_timer t;
	struct ul_loop *loop;
};

/* Fired: keep this iteration's epoll_wait from sleeping forever. */
static void wake_cb(struct ul_timer *t, uint64_t now_ns)
{
	struct wake_timer *w = ul_container_of(t, struct wake_timer, t);

	(void)now_ns;
	ul_loop_wake_self(w->loop);
}

static void loop_sub_ms_deadline_does_not_spin(void **state)
{
	struct ul_loop *loop;
	struct wake_timer w;
	int iterations = 0;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	w.loop = loop;
	ul_timer_init(&w.t, wake_cb);
	/*
	 * 1.5 ms away: the sleep rounds up to 2 ms, so the next iteration
	 * finds it due. Rounding down would spin through many iterations
	 * of 0 ms each while the last half millisecond passes.
	 */
	assert_int_equal(ul_timer_arm(ul_loop_timers(loop), &w.t,
				      ul_loop_update_time(loop) + 1500000),
			 0);
	while (ul_timer_is_armed(&w.t) && iterations < 1000) {
		assert_int_equal(ul_loop_run_once(loop, -1), 0);
		iterations++;
	}
	assert_false(ul_timer_is_armed(&w.t));
	assert_true(iterations <= 3);
	ul_loop_destroy(loop);
}

/* The command queue from 4 threads, 1000 commands each. */
#define NPOSTERS 4
#define NPOSTS 1000

struct post_fx {
	struct ul_loop *loop;
	int next_seq[NPOSTERS]; /* loop thread: the next seq expected */
	int total;
	bool is_out_of_order;
	bool is_off_loop_thread;
};

struct post_arg {
	struct post_fx *fx;
	int thread;
	int seq;
};

static void post_cmd(void *arg, bool is_shutdown)
{
	struct post_arg *pa = arg;
	struct post_fx *fx = pa->fx;

	assert_false(is_shutdown);
	if (!ul_loop_is_loop_thread(fx->loop))
		fx->is_off_loop_thread = true;
	if (fx->next_seq[pa->thread] != pa->seq)
		fx->is_out_of_order = true;
	fx->next_seq[pa->thread] = pa->seq + 1;
	if (++fx->total == NPOSTERS * NPOSTS)
		ul_loop_stop(fx->loop);
}

struct poster {
	pthread_t tid;
	struct post_fx *fx;
	struct post_arg args[NPOSTS];
	int thread;
	int nfailed;
	bool is_loop_thread_seen;
};

static void *poster_main(void *arg)
{
	struct poster *p = arg;

	p->is_loop_thread_seen = ul_loop_is_loop_thread(p->fx->loop);
	for (int i = 0; i < NPOSTS; i++) {
		p->args[i] = (struct post_arg){ .fx = p->fx,
						.thread = p->thread,
						.seq = i };
		if (ul_loop_post(p->fx->loop, post_cmd, &p->args[i]))
			p->nfailed++;
	}
	return NULL;
}

static void loop_post_from_threads_runs_each_once_in_order(void **state)
{
	struct post_fx fx = { 0 };
	struct poster *ps = calloc(NPOSTERS, sizeof(*ps));
	struct safety s;

	(void)state;
	assert_non_null(ps);
	assert_int_equal(ul_loop_create(&fx.loop), 0);
	safety_arm(&s, fx.loop);
	for (int i = 0; i < NPOSTERS; i++) {
		ps[i].fx = &fx;
		ps[i].thread = i;
		assert_int_equal(pthread_create(&ps[i].tid, NULL, poster_main,
						&ps[i]),
				 0);
	}
	assert_int_equal(ul_loop_run(fx.loop), 0);
	for (int i = 0; i < NPOSTERS; i++) {
		pthread_join(ps[i].tid, NULL);
		assert_int_equal(ps[i].nfailed, 0);
		assert_false(ps[i].is_loop_thread_seen);
		assert_int_equal(fx.next_seq[i], NPOSTS);
	}
	safety_check(&s);
	assert_int_equal(fx.total, NPOSTERS * NPOSTS);
	assert_false(fx.is_out_of_order);
	assert_false(fx.is_off_loop_thread);
	ul_loop_destroy(fx.loop);
	free(ps);
}

struct cmd_rec {
	int nrun;
	int nshutdown;
};

static void rec_cmd(void *arg, bool is_shutdown)
{
	struct cmd_rec *r = arg;

	r->nrun++;
	if (is_shutdown)
		r->nshutdown++;
}

static void loop_post_after_stop_fails_with_eshutdown(void **state)
{
	struct ul_loop *loop;
	struct cmd_rec before = { 0 }, after = { 0 };

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	assert_int_equal(ul_loop_post(loop, rec_cmd, &before), 0);
	ul_loop_stop(loop);
	assert_int_equal(ul_loop_post(loop, rec_cmd, &after), -ESHUTDOWN);
	/* What was queued before the stop still runs, normally. */
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(before.nrun, 1);
	assert_int_equal(before.nshutdown, 0);
	ul_loop_destroy(loop);
	assert_int_equal(after.nrun, 0);
	assert_int_equal(before.nrun, 1);
}

static void loop_destroy_runs_leftovers_with_is_shutdown(void **state)
{
	struct ul_loop *loop;
	struct cmd_rec r = { 0 };

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ul_loop_post(loop, rec_cmd, &r), 0);
	ul_loop_destroy(loop);
	assert_int_equal(r.nrun, 3);
	assert_int_equal(r.nshutdown, 3);
	ul_loop_destroy(NULL);
}

struct hook_rec {
	int n;
	int *order;
	int *norder;
	int id;
	bool is_wake_self;
	struct ul_loop *loop;
	bool saw_in_hooks;  /* ul_loop_in_hooks() inside the hook */
	bool saw_wake_self; /* ul_loop_is_wake_self() after its own */
};

static void hook_fn(void *arg)
{
	struct hook_rec *h = arg;

	h->n++;
	if (h->order)
		h->order[(*h->norder)++] = h->id;
	if (h->is_wake_self)
		ul_loop_wake_self(h->loop);
	if (h->loop) {
		h->saw_in_hooks = ul_loop_in_hooks(h->loop);
		h->saw_wake_self = ul_loop_is_wake_self(h->loop);
	}
}

static void self_del_hook(void *arg)
{
	struct hook_rec *h = arg;

	h->n++;
	ul_loop_hook_del(h->loop, self_del_hook, h);
}

static void loop_hooks_run_each_iteration_in_order(void **state)
{
	struct ul_loop *loop;
	struct hook_rec a = { 0 }, b = { 0 }, once = { 0 };
	int order[8], norder = 0;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	a = (struct hook_rec){ .id = 1, .order = order, .norder = &norder };
	b = (struct hook_rec){ .id = 2, .order = order, .norder = &norder };
	once.loop = loop;
	assert_int_equal(ul_loop_hook_add(loop, hook_fn, &a), 0);
	assert_int_equal(ul_loop_hook_add(loop, self_del_hook, &once), 0);
	assert_int_equal(ul_loop_hook_add(loop, hook_fn, &b), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(b.n, 3);
	/* It deleted itself during the hooks phase: ran once. */
	assert_int_equal(once.n, 1);
	assert_int_equal(norder, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(order[i], i % 2 ? 2 : 1);
	ul_loop_hook_del(loop, hook_fn, &a);
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(b.n, 4);
	/* b stays registered: destroy frees it. */
	ul_loop_destroy(loop);
}

/*
 * ul_loop_in_hooks() is true only while phase 3 runs; the wake_self flag
 * reads back until the epoll_wait it spares has consumed it.
 */
static void loop_reports_hooks_phase_and_wake_self(void **state)
{
	struct ul_loop *loop;
	struct hook_rec h = { 0 };

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	h.loop = loop;
	assert_int_equal(ul_loop_hook_add(loop, hook_fn, &h), 0);
	assert_false(ul_loop_in_hooks(loop));
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_true(h.saw_in_hooks);
	assert_false(h.saw_wake_self);
	assert_false(ul_loop_in_hooks(loop));
	h.is_wake_self = true;
	assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_true(h.saw_wake_self);
	/* The sleep it spared consumed it. */
	assert_false(ul_loop_is_wake_self(loop));
	ul_loop_wake_self(loop);
	assert_true(ul_loop_is_wake_self(loop));
	ul_loop_destroy(loop);
}

static void loop_wake_self_skips_the_sleep(void **state)
{
	struct ul_loop *loop;
	struct hook_rec h = { 0 };
	struct safety s;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	safety_arm(&s, loop);
	h.loop = loop;
	h.is_wake_self = true;
	assert_int_equal(ul_loop_hook_add(loop, hook_fn, &h), 0);
	/*
	 * No descriptor is ready and the only timer is the distant safety
	 * net: each iteration returns at once only because of wake_self.
	 */
	for (int i = 0; i < 5; i++)
		assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(h.n, 5);
	safety_check(&s);
	ul_loop_destroy(loop);
}

/*
 * Busy-poll: for the window after activity (a command here) iterations
 * with nothing ready return without sleeping; with busy-poll off, or the
 * window past, the loop sleeps until its timeout again.
 */
static void loop_busy_poll_spins_after_activity_then_sleeps(void **state)
{
	struct ul_loop *loop;
	struct cmd_rec r = { 0 };
	struct safety s;
	uint64_t t;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	safety_arm(&s, loop);
	assert_int_equal(ul_loop_busy_poll(loop), 0);
	/* A window no stall of this machine outlasts. */
	ul_loop_set_busy_poll(loop, 20u * 1000000u);
	assert_int_equal(ul_loop_busy_poll(loop), 20u * 1000000u);
	assert_int_equal(ul_loop_post(loop, rec_cmd, &r), 0);
	/* Without the spin, each of these sleeps until the safety net. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(r.nrun, 1);
	safety_check(&s);

	/* Off: an idle iteration sleeps its whole timeout. */
	ul_loop_set_busy_poll(loop, 0);
	t = ul_loop_update_time(loop);
	assert_int_equal(ul_loop_run_once(loop, 30), 0);
	assert_true(ul_loop_update_time(loop) - t >= 30ull * 1000000ull);

	/* A 1 us window, long past by the next sleep: it sleeps again. */
	ul_loop_set_busy_poll(loop, 1);
	assert_int_equal(ul_loop_post(loop, rec_cmd, &r), 0);
	assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(r.nrun, 2);
	usleep(2000);
	t = ul_loop_update_time(loop);
	assert_int_equal(ul_loop_run_once(loop, 30), 0);
	assert_true(ul_loop_update_time(loop) - t >= 30ull * 1000000ull);
	ul_loop_destroy(loop);
}

struct poll_rec {
	int n;
};

static bool poll_fn(void *arg)
{
	struct poll_rec *r = arg;

	r->n++;
	return false;
}

/*
 * Busy-poll functions: on spinning turns the loop calls them instead of
 * epoll_wait, but every UL_LOOP_EPOLL_EVERY-th spinning turn still asks
 * epoll, so a descriptor they do not read (the pipe here) is reported
 * within that many turns. With busy-poll off, or once deleted, they are
 * never called and every turn asks epoll.
 */
static void loop_busy_poll_functions_then_epoll(void **state)
{
	const int every = UL_LOOP_EPOLL_EVERY;
	struct ul_loop *loop;
	struct cmd_rec c = { 0 };
	struct poll_rec r = { 0 };
	struct pipe_io p;
	struct safety s;
	char x = 'x';

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	safety_arm(&s, loop);
	pipe_open(&p);
	assert_int_equal(ul_io_start(loop, &p.io, p.fds[0], EPOLLIN, pipe_cb),
			 0);
	assert_int_equal(ul_loop_poll_add(loop, poll_fn, &r), 0);
	assert_int_equal(write(p.fds[1], &x, 1), 1);

	/* Off: epoll on every turn (the pipe stays readable), no polls. */
	for (int i = 0; i < every; i++)
		assert_int_equal(ul_loop_run_once(loop, 0), 0);
	assert_int_equal(p.ncalls, every);
	assert_int_equal(r.n, 0);

	/* On, a window no stall of this machine outlasts, opened by c. */
	ul_loop_set_busy_poll(loop, 20u * 1000000u);
	assert_int_equal(ul_loop_post(loop, rec_cmd, &c), 0);
	for (int i = 0; i < 2 * every; i++)
		assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(r.n, 2 * (every - 1));
	assert_int_equal(p.ncalls, every + 2);

	/* Deleted: epoll on every turn again. */
	ul_loop_poll_del(loop, poll_fn, &r);
	for (int i = 0; i < every; i++)
		assert_int_equal(ul_loop_run_once(loop, -1), 0);
	assert_int_equal(r.n, 2 * (every - 1));
	assert_int_equal(p.ncalls, 2 * every + 2);
	safety_check(&s);
	ul_io_stop(&p.io);
	pipe_close(&p);
	ul_loop_destroy(loop);
}

static void *is_loop_thread_main(void *arg)
{
	return ul_loop_is_loop_thread(arg) ? arg : NULL;
}

static void loop_thread_is_creator_then_runner(void **state)
{
	struct ul_loop *loop;
	pthread_t tid;
	void *ret;

	(void)state;
	assert_int_equal(ul_loop_create(&loop), 0);
	assert_true(ul_loop_is_loop_thread(loop));
	assert_int_equal(pthread_create(&tid, NULL, is_loop_thread_main, loop),
			 0);
	assert_int_equal(pthread_join(tid, &ret), 0);
	assert_null(ret);
	ul_loop_destroy(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loop_calls_back_readable_pipe),
		cmocka_unit_test(
			loop_busy_poll_spins_after_activity_then_sleeps),
		cmocka_unit_test(loop_busy_poll_functions_then_epoll),
		cmocka_unit_test(loop_now_is_refreshed_after_the_sleep),
		cmocka_unit_test(loop_reports_writable_then_modify),
		cmocka_unit_test(loop_stop_inside_callback_returns_run),
		cmocka_unit_test(loop_io_stop_in_callback_silences_reported_io),
		cmocka_unit_test(loop_io_stop_self_then_free),
		cmocka_unit_test(loop_timers_fire_in_deadline_order),
		cmocka_unit_test(loop_sub_ms_deadline_does_not_spin),
		cmocka_unit_test(
			loop_post_from_threads_runs_each_once_in_order),
		cmocka_unit_test(loop_post_after_stop_fails_with_eshutdown),
		cmocka_unit_test(loop_destroy_runs_leftovers_with_is_shutdown),
		cmocka_unit_test(loop_hooks_run_each_iteration_in_order),
		cmocka_unit_test(loop_reports_hooks_phase_and_wake_self),
		cmocka_unit_test(loop_wake_self_skips_the_sleep),
		cmocka_unit_test(loop_thread_is_creator_then_runner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
