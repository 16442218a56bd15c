/*
 * The event loop of one instance: epoll for file descriptors, the
 * instance's timer heap (util/timer.h) with the monotonic clock, and the
 * command queue through which other threads reach the loop thread (one
 * doorway, an eventfd, like libuv's uv_async_send).
 *
 * One iteration of ul_loop_run() is a short list of phases:
 *   1. timers: set heap.now_ns from CLOCK_MONOTONIC, run due timers;
 *   2. commands: run every command posted so far (FIFO);
 *   3. before-sleep hooks, in registration order (flush queued writes,
 *      deliver deferred events): bounded work each;
 *   4. epoll_wait until the next timer (0 if a hook asked for another
 *      turn with ul_loop_wake_self(), or while busy-polling, when most
 *      turns call the busy-poll functions instead);
 *   5. heap.now_ns refreshed after the sleep, then I/O callbacks for the
 *      ready descriptors (a timer they arm is relative to the wake-up).
 *
 * Everything but ul_loop_post(), ul_loop_stop() and ul_loop_is_loop_thread()
 * belongs to the loop thread (or to the creating thread before the loop
 * runs). Callbacks must not block.
 */
#ifndef UL_UTIL_LOOP_H
#define UL_UTIL_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "util/list.h"
#include "util/timer.h"

struct ul_loop;
struct ul_io;

/* events: EPOLLIN / EPOLLOUT / EPOLLERR / EPOLLHUP bits as epoll gives. */
typedef void (*ul_io_cb)(struct ul_io *io, uint32_t events);
/* A command run on the loop thread; is_shutdown when the loop is gone. */
typedef void (*ul_loop_cmd_fn)(void *arg, bool is_shutdown);
typedef void (*ul_loop_hook_fn)(void *arg);
/* A busy-poll function: true when it found (and handled) work. */
typedef bool (*ul_loop_poll_fn)(void *arg);

/*
 * A watched descriptor, embedded in its owner. The loop never closes fd.
 */
struct ul_io {
	int fd;
	uint32_t events; /* armed epoll events */
	ul_io_cb cb;
	struct ul_loop *loop;
	bool is_active;
};

/* Create a loop (epoll fd, eventfd, empty heap). 0, -errno. */
int ul_loop_create(struct ul_loop **out);
/*
 * Free the loop. Commands still queued run with is_shutdown = true, on the
 * calling thread. Descriptors must have been stopped already.
 */
void ul_loop_destroy(struct ul_loop *loop);

/* The loop's timer heap: arm timers here; heap->now_ns is "now". */
struct ul_timer_heap *ul_loop_timers(struct ul_loop *loop);
/* Refresh heap->now_ns from CLOCK_MONOTONIC and return it. */
uint64_t ul_loop_update_time(struct ul_loop *loop);

/*
 * Watch fd for events (EPOLLIN, EPOLLOUT, edge-free). 0 or -errno. io must
 * not be active; its fields are written only on success.
 */
int ul_io_start(struct ul_loop *loop, struct ul_io *io, int fd, uint32_t events,
		ul_io_cb cb);
/* Change the watched events. 0 or -errno. */
int ul_io_modify(struct ul_io *io, uint32_t events);
/*
 * Stop watching (idempotent). Safe inside any callback, including io's
 * own: a stopped io gets no further callback, even one already reported
 * ready in this iteration. The owner may free io as soon as this returns;
 * it must call it while fd is still open.
 */
void ul_io_stop(struct ul_io *io);

/*
 * Register a before-sleep hook (phase 3). Hooks live as long as the loop
 * or until ul_loop_hook_del(). 0 or -ENOMEM.
 */
int ul_loop_hook_add(struct ul_loop *loop, ul_loop_hook_fn fn, void *arg);
void ul_loop_hook_del(struct ul_loop *loop, ul_loop_hook_fn fn, void *arg);
/* Loop thread: do not sleep in the next epoll_wait (more work queued). */
void ul_loop_wake_self(struct ul_loop *loop);
/* Loop thread: ul_loop_wake_self() was called since the last sleep. */
bool ul_loop_is_wake_self(const struct ul_loop *loop);
/*
 * Loop thread: phase 3 is running. Work that a hook registered before the
 * caller's would have done in this turn, queued now, needs
 * ul_loop_wake_self(), or it waits for the next wake-up.
 */
bool ul_loop_in_hooks(const struct ul_loop *loop);

/*
 * Any thread: queue fn(arg) to run on the loop thread, in posting order.
 * 0; -ENOMEM; -ESHUTDOWN once ul_loop_stop() was called (fn not queued).
 */
int ul_loop_post(struct ul_loop *loop, ul_loop_cmd_fn fn, void *arg);

/*
 * Run iterations until ul_loop_stop(). Records the calling thread as the
 * loop thread. Returns 0, or -errno if epoll fails.
 */
int ul_loop_run(struct ul_loop *loop);
/*
 * Run one iteration, waiting at most timeout_ms (-1: until something
 * happens, capped by the next timer). For tests and for ul_loop_run().
 */
int ul_loop_run_once(struct ul_loop *loop, int timeout_ms);
/*
 * Busy-poll (loop thread, or before it runs): for usec microseconds
 * after any descriptor or command was ready, phase 4 polls (timeout 0)
 * instead of sleeping, so the next message is read without a wake-up;
 * then the loop sleeps as usual, so an idle loop burns no CPU. 0 (the
 * default) never spins. Worth it only where the thread has a CPU of its
 * own: two spinning loops on one CPU take turns by the scheduler's tick.
 */
void ul_loop_set_busy_poll(struct ul_loop *loop, uint32_t usec);
uint32_t ul_loop_busy_poll(const struct ul_loop *loop);
/*
 * Register a busy-poll function. While the busy-poll window is open,
 * phase 4 calls the poll functions instead of epoll_wait on all but
 * every UL_LOOP_EPOLL_EVERY-th spinning turn: an owner that knows where
 * the next input comes from (the sockets that just had traffic) reads it
 * with one system call instead of two (epoll_wait, then the read), and
 * epoll still reports everything else a few turns later. Work a poll
 * function found keeps the window open, as a ready descriptor does.
 * Never called while busy-poll is off. 0 or -ENOMEM; not to be added or
 * deleted from inside a poll function.
 */
#define UL_LOOP_EPOLL_EVERY 4
int ul_loop_poll_add(struct ul_loop *loop, ul_loop_poll_fn fn, void *arg);
void ul_loop_poll_del(struct ul_loop *loop, ul_loop_poll_fn fn, void *arg);
/* Any thread: make ul_loop_run() return after the current iteration. */
void ul_loop_stop(struct ul_loop *loop);
/*
 * True on the thread inside ul_loop_run() (or run_once); before any thread
 * has run the loop, true on the thread that created it. The last thread
 * that ran the loop stays the loop thread after it returns.
 */
bool ul_loop_is_loop_thread(const struct ul_loop *loop);

#endif /* UL_UTIL_LOOP_H */
