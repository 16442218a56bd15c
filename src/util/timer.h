/*
 * Timers: one min-heap of deadlines per instance (STYLE.md: one timer heap
 * per instance). The heap also carries "now": whoever drives it (the epoll
 * loop with the monotonic clock, or a simulation with a virtual clock)
 * sets now_ns before it runs timers or calls into core, and core reads the
 * time only from here. That is how core stays deterministic.
 *
 * A timer is embedded in its owner and armed at an absolute time in
 * nanoseconds. A callback runs once per arming, on the thread that runs
 * the heap; it may re-arm its own timer, arm or cancel others, and free
 * its owner after cancelling nothing (the timer is already disarmed when
 * the callback runs). Nothing here locks.
 */
#ifndef UL_UTIL_TIMER_H
#define UL_UTIL_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ul_timer;

typedef void (*ul_timer_cb)(struct ul_timer *t, uint64_t now_ns);

struct ul_timer {
	uint64_t when_ns; /* absolute deadline while armed */
	uint64_t seq;	  /* arming order: equal deadlines fire FIFO */
	size_t idx;	  /* position in the heap, SIZE_MAX when idle */
	ul_timer_cb cb;
};

/*
 * A heap slot: the timer's key copied beside it, so that ordering the
 * heap reads the array alone (10,000 nodes' timers are spread over a
 * gigabyte: comparing through the pointers was a cache miss each).
 */
struct ul_timer_slot {
	uint64_t when_ns;
	uint64_t seq;
	struct ul_timer *t;
};

struct ul_timer_heap {
	struct ul_timer_slot *items; /* binary min-heap on (when_ns, seq) */
	size_t count;
	size_t cap;
	uint64_t next_seq;
	uint64_t now_ns; /* the current time, set by the driver */
};

/* The sentinel "no deadline" of ul_timer_heap_next(). */
#define UL_TIMER_NEVER UINT64_MAX

void ul_timer_heap_init(struct ul_timer_heap *h);
/* Free the array; armed timers are forgotten (their owners stay). */
void ul_timer_heap_fini(struct ul_timer_heap *h);

/* Prepare an embedded timer: idle, with its callback. */
void ul_timer_init(struct ul_timer *t, ul_timer_cb cb);
/*
 * Arm t at when_ns (re-arming moves it). 0 or -ENOMEM (t stays as it
 * was). A deadline at or before now fires on the next run.
 */
int ul_timer_arm(struct ul_timer_heap *h, struct ul_timer *t, uint64_t when_ns);
/* Disarm t if armed; harmless otherwise. */
void ul_timer_cancel(struct ul_timer_heap *h, struct ul_timer *t);
bool ul_timer_is_armed(const struct ul_timer *t);

/* Earliest deadline, or UL_TIMER_NEVER. */
uint64_t ul_timer_heap_next(const struct ul_timer_heap *h);
/*
 * Set h->now_ns = now_ns and run every timer due at or before it, in
 * deadline order; timers armed by callbacks for a time <= now_ns run in
 * the same call. Returns how many ran.
 */
size_t ul_timer_heap_run(struct ul_timer_heap *h, uint64_t now_ns);

#endif /* UL_UTIL_TIMER_H */
