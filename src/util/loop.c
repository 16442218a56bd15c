/*
 * The event loop of loop.h: level-triggered epoll, the instance's timer
 * heap on CLOCK_MONOTONIC, before-sleep hooks and the command queue.
 *
 * Command queue: a mutex-protected singly linked FIFO of {fn, arg} and one
 * eventfd. A post appends and writes the eventfd only when no wake-up is
 * pending yet, so the eventfd's counter is non-zero exactly while
 * is_wake_pending is set; the commands phase clears both under the lock
 * and then runs the commands it took, outside the lock. A command posted
 * while commands run waits for the next iteration, and its eventfd write
 * keeps that iteration's epoll_wait from sleeping. The eventfd is in the
 * epoll set with a NULL data pointer; phase 5 skips it, because phase 2 of
 * the next iteration drains it.
 *
 * Stopped descriptors: the owner may free a struct ul_io once
 * ul_io_stop() has returned, even inside a callback of this iteration.
 * While phase 5 dispatches the ready array, ul_io_stop() clears every
 * later entry of that array that points at the stopped io, so the loop
 * never dereferences a stopped (maybe freed, maybe reused) io, and a
 * stopped io gets no callback that epoll reported before the stop. The
 * scan is bounded by LOOP_MAX_EVENTS.
 *
 * Threads: everything but the command queue, the stop flag and the owner
 * belongs to the loop thread. The owner is the creating thread until a
 * thread enters ul_loop_run() or ul_loop_run_once(), then that thread.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/loop.h"
#include "util/clock.h"

/* Ready descriptors handled per iteration; more wait for the next one. */
#define LOOP_MAX_EVENTS 64

struct loop_cmd {
	struct loop_cmd *next;
	ul_loop_cmd_fn fn;
	void *arg;
};

struct loop_hook {
	struct ul_list link; /* on ul_loop.hooks, registration order */
	ul_loop_hook_fn fn;  /* NULL: deleted during the hooks phase */
	void *arg;
};

struct loop_poll {
	struct ul_list link; /* on ul_loop.polls, registration order */
	ul_loop_poll_fn fn;
	void *arg;
};

struct ul_loop {
	int epfd;
	int evfd;
	struct ul_timer_heap timers; /* loop thread */

	/* The command queue; lock protects every field down to is_shutdown. */
	pthread_mutex_t lock;
	struct loop_cmd *cmd_head;
	struct loop_cmd **cmd_tail;
	bool is_wake_pending; /* the eventfd counter is non-zero */
	bool is_shutdown;     /* posts fail with -ESHUTDOWN */

	atomic_bool is_stop;	  /* any thread sets; ul_loop_run() reads */
	_Atomic(pthread_t) owner; /* the loop thread, see the file comment */

	/* Loop thread only. */
	struct ul_list hooks;
	bool is_in_hooks;	/* phase 3 is walking hooks: defer frees */
	bool has_dead_hooks;	/* a hook was deleted during phase 3 */
	bool is_wake_self;	/* next epoll_wait must not sleep */
	uint64_t busy_poll_ns;	/* 0: sleep whenever idle (default) */
	uint64_t busy_until_ns; /* spin, not sleep, until then */
	struct ul_list polls;	/* struct loop_poll.link */
	unsigned int spins;	/* spinning turns, for UL_LOOP_EPOLL_EVERY */
	int nready;		/* entries in ready[] during phase 5, else 0 */
	int ready_pos;		/* the entry being dispatched */
	struct epoll_event ready[LOOP_MAX_EVENTS];
};

int ul_loop_create(struct ul_loop **out)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct ul_loop *loop;
	int rc = -ENOMEM;

	loop = calloc(1, sizeof(*loop));
	if (!loop)
		goto err;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		rc = -errno;
		goto err_free;
	}
	loop->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (loop->evfd < 0) {
		rc = -errno;
		goto err_epfd;
	}
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->evfd, &ev) < 0) {
		rc = -errno;
		goto err_evfd;
	}
	rc = -pthread_mutex_init(&loop->lock, NULL);
	if (rc)
		goto err_evfd;

	ul_timer_heap_init(&loop->timers);
	loop->cmd_head = NULL;
	loop->cmd_tail = &loop->cmd_head;
	atomic_init(&loop->is_stop, false);
	atomic_init(&loop->owner, pthread_self());
	ul_list_init(&loop->hooks);
	ul_list_init(&loop->polls);
	ul_loop_update_time(loop);
	*out = loop;
	return 0;

err_evfd:
	close(loop->evfd);
err_epfd:
	close(loop->epfd);
err_free:
	free(loop);
err:
	return rc;
}

/* Take every queued command, oldest first; clears the pending wake-up. */
static struct loop_cmd *cmd_take(struct ul_loop *loop, bool is_shutdown)
{
	struct loop_cmd *head;

	pthread_mutex_lock(&loop->lock);
	if (is_shutdown)
		loop->is_shutdown = true;
	if (loop->is_wake_pending) {
		uint64_t count;

		/* EAGAIN cannot happen while a wake-up is pending. */
		if (read(loop->evfd, &count, sizeof(count)) < 0)
			count = 0;
		loop->is_wake_pending = false;
	}
	head = loop->cmd_head;
	loop->cmd_head = NULL;
	loop->cmd_tail = &loop->cmd_head;
	pthread_mutex_unlock(&loop->lock);
	return head;
}

static void cmd_run_list(struct loop_cmd *c, bool is_shutdown)
{
	while (c) {
		struct loop_cmd *next = c->next;

		c->fn(c->arg, is_shutdown);
		free(c);
		c = next;
	}
}

void ul_loop_destroy(struct ul_loop *loop)
{
	struct loop_hook *h, *tmp;
	struct loop_poll *p, *ptmp;
	struct loop_cmd *c;

	if (!loop)
		return;
	/* Refuse new posts first, then run until nothing is left. */
	while ((c = cmd_take(loop, true)))
		cmd_run_list(c, true);
	ul_list_for_each_entry_safe(h, tmp, &loop->hooks, link) {
		ul_list_del(&h->link);
		free(h);
	}
	ul_list_for_each_entry_safe(p, ptmp, &loop->polls, link) {
		ul_list_del(&p->link);
		free(p);
	}
	ul_timer_heap_fini(&loop->timers);
	pthread_mutex_destroy(&loop->lock);
	close(loop->evfd);
	close(loop->epfd);
	free(loop);
}

struct ul_timer_heap *ul_loop_timers(struct ul_loop *loop)
{
	return &loop->timers;
}

uint64_t ul_loop_update_time(struct ul_loop *loop)
{
	loop->timers.now_ns = ul_clock_monotonic_ns();
	return loop->timers.now_ns;
}

int ul_io_start(struct ul_loop *loop, struct ul_io *io, int fd, uint32_t events,
		ul_io_cb cb)
{
	struct epoll_event ev = { .events = events, .data.ptr = io };

	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	io->fd = fd;
	io->events = events;
	io->cb = cb;
	io->loop = loop;
	io->is_active = true;
	return 0;
}

int ul_io_modify(struct ul_io *io, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = io };

	if (!io->is_active)
		return -EINVAL;
	if (epoll_ctl(io->loop->epfd, EPOLL_CTL_MOD, io->fd, &ev) < 0)
		return -errno;
	io->events = events;
	return 0;
}

void ul_io_stop(struct ul_io *io)
{
	struct ul_loop *loop = io->loop;

	if (!io->is_active)
		return;
	/*
	 * The fd must still be open here; if the owner closed it first,
	 * the kernel dropped the registration itself (ENOENT/EBADF).
	 */
	(void)epoll_ctl(loop->epfd, EPOLL_CTL_DEL, io->fd, NULL);
	io->is_active = false;
	for (int i = loop->ready_pos + 1; i < loop->nready; i++) {
		if (loop->ready[i].data.ptr == io)
			loop->ready[i].data.ptr = NULL;
	}
}

int ul_loop_hook_add(struct ul_loop *loop, ul_loop_hook_fn fn, void *arg)
{
	struct loop_hook *h = malloc(sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->fn = fn;
	h->arg = arg;
	ul_list_add_tail(&loop->hooks, &h->link);
	return 0;
}

void ul_loop_hook_del(struct ul_loop *loop, ul_loop_hook_fn fn, void *arg)
{
	struct loop_hook *h;

	ul_list_for_each_entry(h, &loop->hooks, link) {
		if (h->fn != fn || h->arg != arg)
			continue;
		if (loop->is_in_hooks) {
			/* Phase 3 holds a cursor on it: free after the walk. */
			h->fn = NULL;
			loop->has_dead_hooks = true;
		} else {
			ul_list_del(&h->link);
			free(h);
		}
		return;
	}
}

int ul_loop_poll_add(struct ul_loop *loop, ul_loop_poll_fn fn, void *arg)
{
	struct loop_poll *p = malloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->fn = fn;
	p->arg = arg;
	ul_list_add_tail(&loop->polls, &p->link);
	return 0;
}

void ul_loop_poll_del(struct ul_loop *loop, ul_loop_poll_fn fn, void *arg)
{
	struct loop_poll *p;

	ul_list_for_each_entry(p, &loop->polls, link) {
		if (p->fn == fn && p->arg == arg) {
			ul_list_del(&p->link);
			free(p);
			return;
		}
	}
}

void ul_loop_wake_self(struct ul_loop *loop)
{
	loop->is_wake_self = true;
}

bool ul_loop_is_wake_self(const struct ul_loop *loop)
{
	return loop->is_wake_self;
}

bool ul_loop_in_hooks(const struct ul_loop *loop)
{
	return loop->is_in_hooks;
}

/* Wake the loop thread; the caller holds loop->lock. */
static void wake_locked(struct ul_loop *loop)
{
	uint64_t one = 1;

	if (loop->is_wake_pending)
		return;
	/* Cannot fail: the counter is 0 and the fd is ours. */
	if (write(loop->evfd, &one, sizeof(one)) == sizeof(one))
		loop->is_wake_pending = true;
}

int ul_loop_post(struct ul_loop *loop, ul_loop_cmd_fn fn, void *arg)
{
	struct loop_cmd *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->next = NULL;
	c->fn = fn;
	c->arg = arg;
	pthread_mutex_lock(&loop->lock);
	if (loop->is_shutdown) {
		pthread_mutex_unlock(&loop->lock);
		free(c);
		return -ESHUTDOWN;
	}
	*loop->cmd_tail = c;
	loop->cmd_tail = &c->next;
	wake_locked(loop);
	pthread_mutex_unlock(&loop->lock);
	return 0;
}

void ul_loop_stop(struct ul_loop *loop)
{
	/* The flag before the wake-up, so the woken loop sees it. */
	atomic_store(&loop->is_stop, true);
	pthread_mutex_lock(&loop->lock);
	loop->is_shutdown = true;
	wake_locked(loop);
	pthread_mutex_unlock(&loop->lock);
}

bool ul_loop_is_loop_thread(const struct ul_loop *loop)
{
	return pthread_equal(atomic_load(&loop->owner), pthread_self());
}

/* Phase 3: every hook once, in registration order. */
static void run_hooks(struct ul_loop *loop)
{
	struct loop_hook *h, *tmp;

	loop->is_in_hooks = true;
	ul_list_for_each_entry(h, &loop->hooks, link) {
		if (h->fn)
			h->fn(h->arg);
	}
	loop->is_in_hooks = false;
	if (!loop->has_dead_hooks)
		return;
	loop->has_dead_hooks = false;
	ul_list_for_each_entry_safe(h, tmp, &loop->hooks, link) {
		if (!h->fn) {
			ul_list_del(&h->link);
			free(h);
		}
	}
}

/*
 * Phase 4's epoll timeout: 0 after ul_loop_wake_self() or ul_loop_stop(),
 * else the time to
 * the next deadline rounded up to whole milliseconds (rounding down would
 * wake just before the deadline and spin), capped by timeout_ms.
 */
static int sleep_timeout_ms(struct ul_loop *loop, int timeout_ms)
{
	uint64_t next, now, wait_ns, ms;

	/*
	 * A stop from this thread in phases 1-3 had its wake-up drained by
	 * phase 2: the flag itself must keep the loop from sleeping.
	 */
	if (loop->is_wake_self || atomic_load(&loop->is_stop)) {
		loop->is_wake_self = false;
		return 0;
	}
	/* Busy-poll: spin for a while after activity instead of sleeping. */
	if (loop->busy_poll_ns &&
	    ul_loop_update_time(loop) < loop->busy_until_ns)
		return 0;
	next = ul_timer_heap_next(&loop->timers);
	if (next == UL_TIMER_NEVER)
		return timeout_ms < 0 ? -1 : timeout_ms;
	now = ul_loop_update_time(loop);
	if (next <= now)
		return 0;
	wait_ns = next - now;
	ms = wait_ns / 1000000u + (wait_ns % 1000000u != 0);
	if (ms > INT_MAX)
		ms = INT_MAX;
	if (timeout_ms >= 0 && (uint64_t)timeout_ms < ms)
		return timeout_ms;
	return (int)ms;
}

/*
 * Phase 4 while spinning: the busy-poll functions instead of epoll_wait,
 * but not on every UL_LOOP_EPOLL_EVERY-th turn (nor without any), so
 * what they do not watch is still seen. True when this turn polled.
 */
static bool spin_polls(struct ul_loop *loop)
{
	struct loop_poll *p;
	bool is_found = false;

	if (ul_list_empty(&loop->polls) ||
	    ++loop->spins % UL_LOOP_EPOLL_EVERY == 0)
		return false;
	ul_list_for_each_entry(p, &loop->polls, link)
		is_found |= p->fn(p->arg);
	if (is_found)
		loop->busy_until_ns =
			ul_loop_update_time(loop) + loop->busy_poll_ns;
	return true;
}

/* Phase 5: callbacks for the ready descriptors that are still watched. */
static void dispatch(struct ul_loop *loop, int n)
{
	loop->nready = n;
	for (int i = 0; i < n; i++) {
		struct ul_io *io = loop->ready[i].data.ptr;
		uint32_t events;

		loop->ready_pos = i;
		if (!io)
			continue; /* the eventfd, or an io stopped since */
		/* Report only what is still asked for (ul_io_modify). */
		events = loop->ready[i].events &
			 (io->events | EPOLLERR | EPOLLHUP);
		if (events)
			io->cb(io, events);
	}
	loop->nready = 0;
	loop->ready_pos = 0;
}

int ul_loop_run_once(struct ul_loop *loop, int timeout_ms)
{
	struct loop_cmd *cmds;
	int n, timeout;

	atomic_store(&loop->owner, pthread_self());
	/* 1. timers */
	ul_timer_heap_run(&loop->timers, ul_loop_update_time(loop));
	/* 2. commands (a command is activity, as a ready descriptor) */
	cmds = cmd_take(loop, false);
	if (cmds && loop->busy_poll_ns)
		loop->busy_until_ns = loop->timers.now_ns + loop->busy_poll_ns;
	cmd_run_list(cmds, false);
	/* 3. before-sleep hooks */
	run_hooks(loop);
	/* 4. sleep, or spin */
	timeout = sleep_timeout_ms(loop, timeout_ms);
	if (!timeout && loop->busy_poll_ns &&
	    loop->timers.now_ns < loop->busy_until_ns && spin_polls(loop))
		return 0;
	n = epoll_wait(loop->epfd, loop->ready, LOOP_MAX_EVENTS, timeout);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (!n && !timeout)
		return 0; /* no sleep, nothing to call back: phase 1 reads the time */
	/*
	 * The sleep may have lasted seconds: callbacks that arm timers
	 * relative to "now" must see the time after it, not before.
	 * Anything ready (a socket, a command's wake-up) restarts the
	 * busy-poll window.
	 */
	ul_loop_update_time(loop);
	if (n > 0 && loop->busy_poll_ns)
		loop->busy_until_ns = loop->timers.now_ns + loop->busy_poll_ns;
	/* 5. I/O */
	dispatch(loop, n);
	return 0;
}

void ul_loop_set_busy_poll(struct ul_loop *loop, uint32_t usec)
{
	loop->busy_poll_ns = (uint64_t)usec * 1000u;
	loop->busy_until_ns = 0;
}

uint32_t ul_loop_busy_poll(const struct ul_loop *loop)
{
	return (uint32_t)(loop->busy_poll_ns / 1000u);
}

int ul_loop_run(struct ul_loop *loop)
{
	int rc = 0;

	atomic_store(&loop->owner, pthread_self());
	while (!rc && !atomic_load(&loop->is_stop))
		rc = ul_loop_run_once(loop, -1);
	return rc;
}
