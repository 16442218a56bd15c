/*
 * The timer heap of timer.h: a binary min-heap of slots (the key and a
 * pointer to an embedded timer), ordered by (when_ns, seq). Each timer
 * remembers its slot (idx), so arming, re-arming and cancelling are
 * O(log n) without a search.
 *
 * Running pops the root while it is due and disarms it before its
 * callback, so a callback sees the heap in a consistent state and may arm,
 * re-arm or cancel any timer, or free its own owner.
 */
#include <errno.h>
#include <stdlib.h>

#include "util/timer.h"

#define TIMER_HEAP_MIN_CAP 16

static bool slot_before(const struct ul_timer_slot *a,
			const struct ul_timer_slot *b)
{
	if (a->when_ns != b->when_ns)
		return a->when_ns < b->when_ns;
	return a->seq < b->seq;
}

static void heap_place(struct ul_timer_heap *h, size_t i,
		       const struct ul_timer_slot *s)
{
	h->items[i] = *s;
	s->t->idx = i;
}

/* Move the timer at slot i towards the root while it beats its parent. */
static void sift_up(struct ul_timer_heap *h, size_t i)
{
	struct ul_timer_slot s = h->items[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!slot_before(&s, &h->items[parent]))
			break;
		heap_place(h, i, &h->items[parent]);
		i = parent;
	}
	heap_place(h, i, &s);
}

/* Move the timer at slot i towards the leaves while a child beats it. */
static void sift_down(struct ul_timer_heap *h, size_t i)
{
	struct ul_timer_slot s = h->items[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= h->count)
			break;
		if (child + 1 < h->count &&
		    slot_before(&h->items[child + 1], &h->items[child]))
			child++;
		if (!slot_before(&h->items[child], &s))
			break;
		heap_place(h, i, &h->items[child]);
		i = child;
	}
	heap_place(h, i, &s);
}

/* Restore the order around slot i after its timer changed or moved in. */
static void heap_fix(struct ul_timer_heap *h, size_t i)
{
	if (i > 0 && slot_before(&h->items[i], &h->items[(i - 1) / 2]))
		sift_up(h, i);
	else
		sift_down(h, i);
}

/* Take the armed timer t out of the heap and mark it idle. */
static void heap_remove(struct ul_timer_heap *h, struct ul_timer *t)
{
	size_t i = t->idx;
	struct ul_timer_slot last = h->items[--h->count];

	t->idx = SIZE_MAX;
	if (last.t == t)
		return;
	heap_place(h, i, &last);
	heap_fix(h, i);
}

void ul_timer_heap_init(struct ul_timer_heap *h)
{
	h->items = NULL;
	h->count = 0;
	h->cap = 0;
	h->next_seq = 0;
	h->now_ns = 0;
}

void ul_timer_heap_fini(struct ul_timer_heap *h)
{
	/* Owners may still look at their timers: leave them idle. */
	for (size_t i = 0; i < h->count; i++)
		h->items[i].t->idx = SIZE_MAX;
	free(h->items);
	h->items = NULL;
	h->count = 0;
	h->cap = 0;
}

void ul_timer_init(struct ul_timer *t, ul_timer_cb cb)
{
	t->when_ns = 0;
	t->seq = 0;
	t->idx = SIZE_MAX;
	t->cb = cb;
}

bool ul_timer_is_armed(const struct ul_timer *t)
{
	return t->idx != SIZE_MAX;
}

int ul_timer_arm(struct ul_timer_heap *h, struct ul_timer *t, uint64_t when_ns)
{
	if (ul_timer_is_armed(t)) {
		/* A re-arm counts as a new arming for FIFO ties. */
		t->when_ns = when_ns;
		t->seq = h->next_seq++;
		h->items[t->idx].when_ns = t->when_ns;
		h->items[t->idx].seq = t->seq;
		heap_fix(h, t->idx);
		return 0;
	}
	if (h->count == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : TIMER_HEAP_MIN_CAP;
		struct ul_timer_slot *items;

		items = reallocarray(h->items, cap, sizeof(*items));
		if (!items)
			return -ENOMEM;
		h->items = items;
		h->cap = cap;
	}
	t->when_ns = when_ns;
	t->seq = h->next_seq++;
	heap_place(h, h->count++,
		   &(struct ul_timer_slot){ t->when_ns, t->seq, t });
	sift_up(h, t->idx);
	return 0;
}

void ul_timer_cancel(struct ul_timer_heap *h, struct ul_timer *t)
{
	if (ul_timer_is_armed(t))
		heap_remove(h, t);
}

uint64_t ul_timer_heap_next(const struct ul_timer_heap *h)
{
	return h->count ? h->items[0].when_ns : UL_TIMER_NEVER;
}

size_t ul_timer_heap_run(struct ul_timer_heap *h, uint64_t now_ns)
{
	size_t ran = 0;

	h->now_ns = now_ns;
	/*
	 * Re-read the root every turn: a callback may have armed an earlier
	 * timer, cancelled the next one or emptied the heap.
	 */
	while (h->count && h->items[0].when_ns <= now_ns) {
		struct ul_timer *t = h->items[0].t;

		heap_remove(h, t);
		ran++;
		t->cb(t, now_ns);
	}
	return ran;
}
