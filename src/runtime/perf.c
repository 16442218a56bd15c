/*
 * Bulk PUT streams and their sink (perf.h).
 *
 * A stream's life: RUNNING (keeps `inflight` PUTs outstanding) until its
 * deadline, then DRAINING (no new PUT; waits for the outstanding ones),
 * then its MD is unlinked and, at the MD's last event (unlinked = 1),
 * done() runs and the stream is freed. The PUTs share one MD and so one
 * response tracker, which any ACK removes: a lost PUT among acknowledged
 * ones is never timed out by the node. A drain timer (a transaction
 * timeout and a second) unlinks the MD then and counts what is still
 * outstanding as failed. Each PUT ends in exactly one final
 * event (ulnet.h): its ACK, its failed SEND, or an UNLINK after a
 * response timeout; `outstanding` counts PUTs whose final event has not
 * come yet.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "runtime/perf.h"
#include "util/timer.h"

#define SINK_BYTES (1u << 20)

struct ul_perf_sink {
	struct ul_node *node;
	struct ulnet_handle md;
	uint8_t *buf;
};

enum stream_state {
	STREAM_RUNNING,
	STREAM_DRAINING,
	STREAM_UNLINKING,
};

struct ul_perf_stream {
	struct ul_node *node;
	struct ul_timer_heap *timers;
	struct ulnet_process_id target;
	struct ulnet_handle md;
	enum stream_state state;
	uint8_t *buf;
	uint32_t size;
	uint32_t inflight;
	uint32_t outstanding; /* PUTs without their final event yet */
	uint64_t start_ns;
	uint64_t end_ns;	     /* stop sending at this time */
	struct ul_timer drain_timer; /* armed while DRAINING */
	struct ul_perf_result res;
	ul_perf_done_cb done;
	void *arg;
};

static void sink_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct ul_perf_sink *s = ev->md_user_ptr;

	(void)u;
	if (ev->unlinked) {
		free(s->buf);
		free(s);
	}
}

int ul_perf_sink_create(struct ul_node *n, struct ul_perf_sink **out)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_perf_sink *s;
	struct ulnet_md md = { 0 };
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->buf = malloc(SINK_BYTES);
	if (!s->buf) {
		free(s);
		return -ENOMEM;
	}
	s->node = n;
	ulnet_nid_set_any(&any.nid);
	md.start = s->buf;
	md.length = SINK_BYTES;
	md.threshold = ULNET_MD_THRESH_INF;
	/* Every PUT lands at offset 0: the bytes are thrown away. */
	md.options = ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE |
		     ULNET_MD_MANAGE_REMOTE;
	md.user_ptr = s;
	md.handler = sink_event;
	md.numa_node = -1;
	rc = ul_node_md_attach(n, UL_PERF_PORTAL, &any, UL_PERF_MATCH_BITS, 0,
			       ULNET_INS_AFTER, &md, ULNET_RETAIN, &s->md);
	if (rc < 0) {
		free(s->buf);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void ul_perf_sink_destroy(struct ul_perf_sink *s)
{
	if (!s)
		return;
	/* The MD's last event frees it; if unlink fails it is gone already. */
	if (ul_node_md_unlink(s->node, s->md) < 0) {
		free(s->buf);
		free(s);
	}
}

static void fail_once(struct ul_perf_stream *st, int status)
{
	st->res.failed++;
	if (!st->res.status)
		st->res.status = status;
}

/* Drain time is over: what has not answered yet never will. */
static void on_drain_timeout(struct ul_timer *t, uint64_t now_ns)
{
	struct ul_perf_stream *st =
		ul_container_of(t, struct ul_perf_stream, drain_timer);

	if (st->state != STREAM_DRAINING)
		return;
	st->state = STREAM_UNLINKING;
	st->res.elapsed_ns = now_ns - st->start_ns;
	/* Its last event follows from the node's queue. */
	ul_node_md_unlink(st->node, st->md);
}

static void start_draining(struct ul_perf_stream *st)
{
	uint64_t tt = ul_node_core(st->node)->tun.transaction_timeout;

	st->state = STREAM_DRAINING;
	/* On ENOMEM the stream waits for its answers as before. */
	(void)ul_timer_arm(st->timers, &st->drain_timer,
			   st->timers->now_ns + (tt + 1) * 1000000000u);
}

/* Send until `inflight` PUTs are out, while the stream runs. */
static void refill(struct ul_perf_stream *st)
{
	int rc;

	if (st->state == STREAM_RUNNING && st->timers->now_ns >= st->end_ns)
		start_draining(st);
	while (st->state == STREAM_RUNNING && st->outstanding < st->inflight) {
		rc = ul_node_put(st->node, NULL, st->md, ULNET_ACK_REQ,
				 &st->target, UL_PERF_PORTAL,
				 UL_PERF_MATCH_BITS, 0, 0);
		if (rc < 0) {
			fail_once(st, rc);
			start_draining(st);
			break;
		}
		st->outstanding++;
	}
	if (st->state == STREAM_DRAINING && st->outstanding == 0) {
		st->state = STREAM_UNLINKING;
		st->res.elapsed_ns = st->timers->now_ns - st->start_ns;
		if (ul_node_md_unlink(st->node, st->md) < 0)
			st->state = STREAM_UNLINKING; /* last event came */
	}
}

static void stream_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct ul_perf_stream *st = ev->md_user_ptr;

	(void)u;
	switch (ev->type) {
	case ULNET_EVENT_SEND:
		/* A failed SEND is the PUT's final event. */
		if (ev->status < 0) {
			fail_once(st, ev->status);
			st->outstanding--;
		}
		break;
	case ULNET_EVENT_ACK:
		st->outstanding--;
		if (ev->status < 0) {
			fail_once(st, ev->status);
		} else {
			st->res.puts++;
			st->res.bytes += ev->mlength;
		}
		break;
	case ULNET_EVENT_UNLINK:
		/* A response timeout unlinked the MD (health.md §6). */
		if (st->state != STREAM_UNLINKING) {
			fail_once(st, -ETIMEDOUT);
			st->outstanding = 0;
			st->state = STREAM_UNLINKING;
			st->res.elapsed_ns = st->timers->now_ns - st->start_ns;
		}
		break;
	default:
		break;
	}
	if (ev->unlinked) {
		ul_timer_cancel(st->timers, &st->drain_timer);
		/* PUTs cut short by the drain timer. */
		if (st->outstanding) {
			st->res.failed += st->outstanding;
			if (!st->res.status)
				st->res.status = -ETIMEDOUT;
		}
		if (st->done) /* NULL: the start call failed and said so */
			st->done(st->arg, &st->res);
		free(st->buf);
		free(st);
		return;
	}
	refill(st);
}

int ul_perf_stream_start(struct ul_node *n, struct ul_timer_heap *timers,
			 const struct ulnet_process_id *target, uint32_t size,
			 uint64_t duration_ns, uint32_t inflight,
			 ul_perf_done_cb done, void *arg,
			 struct ul_perf_stream **out)
{
	struct ul_perf_stream *st;
	struct ulnet_md md = { 0 };
	uint32_t i;
	int rc;

	if (!size || size > UL_PERF_MAX_SIZE || !inflight || inflight > 256)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->buf = malloc(size);
	if (!st->buf) {
		free(st);
		return -ENOMEM;
	}
	for (i = 0; i < size; i++)
		st->buf[i] = (uint8_t)(i * 131u + 7u);
	st->node = n;
	st->timers = timers;
	st->target = *target;
	st->size = size;
	st->inflight = inflight;
	st->done = done;
	st->arg = arg;
	st->start_ns = timers->now_ns;
	st->end_ns = timers->now_ns + duration_ns;
	ul_timer_init(&st->drain_timer, on_drain_timeout);
	md.start = st->buf;
	md.length = size;
	md.threshold = ULNET_MD_THRESH_INF;
	md.user_ptr = st;
	md.handler = stream_event;
	md.numa_node = -1;
	rc = ul_node_md_bind(n, &md, ULNET_RETAIN, &st->md);
	if (rc < 0) {
		free(st->buf);
		free(st);
		return rc;
	}
	/* The first PUT is sent here; its events come later, from the loop. */
	rc = ul_node_put(n, NULL, st->md, ULNET_ACK_REQ, target, UL_PERF_PORTAL,
			 UL_PERF_MATCH_BITS, 0, 0);
	if (rc < 0) {
		ul_node_md_unlink(n, st->md); /* nothing in flight: no done() */
		st->done = NULL;
		return rc;
	}
	st->outstanding = 1;
	if (out)
		*out = st;
	refill(st);
	return 0;
}

void ul_perf_stream_stop(struct ul_perf_stream *st)
{
	if (st->state != STREAM_RUNNING)
		return;
	start_draining(st);
	refill(st); /* nothing in flight: unlink now */
}
