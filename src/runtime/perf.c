/*
 * Bulk PUT streams and their sink (perf.h).
 *
 * A stream's life: RUNNING (keeps `inflight` PUTs outstanding) until its
 * deadline, then DRAINING (no new PUT; waits for the outstanding ones);
 * when the last one has ended, done() runs and the stream is freed.
 *
 * Each PUT has a slot and an MD of its own, bound for it with threshold
 * 2 (SEND and ACK) and ULNET_MD_TRACK_RESPONSE, so the node's response
 * tracking (health.md §6) times out each lost PUT by itself: one ACK
 * says nothing about another PUT. A PUT's final event (ulnet.h) is its
 * ACK, a failed SEND, or, with no ACK, the MD's last event (UNLINK); the
 * slot is free again at the MD's last event (unlinked = 1), which for an
 * ACK is the same event and after a failed SEND is the UNLINK that
 * follows our unlink. A drain timer (a transaction timeout and a second
 * after the sending ends) unlinks whatever is still outstanding, so the
 * stream ends even if an answer never comes and nothing times it out.
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
};

/* One PUT in flight: from its MD's bind to the MD's last event. */
struct perf_slot {
	struct ul_perf_stream *st;
	struct ulnet_handle md;
	bool is_busy;	/* MD bound, its last event not come yet */
	bool has_final; /* the PUT's final event came */
};

struct ul_perf_stream {
	struct ul_node *node;
	struct ul_timer_heap *timers;
	struct ulnet_process_id target;
	enum stream_state state;
	uint8_t *buf;
	uint32_t size;
	uint32_t inflight;
	uint32_t nbusy;		 /* slots whose MD has not had its last event */
	struct perf_slot *slots; /* inflight of them */
	uint64_t start_ns;
	uint64_t end_ns;	     /* stop sending at this time */
	uint64_t send_end_ns;	     /* when sending stopped (DRAINING) */
	uint64_t last_ack_ns;	     /* last PUT ACKed, 0: none */
	uint64_t bytes_running;	     /* ACKed while RUNNING */
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

/* A PUT ended in an error: count it under its status. */
static void put_failed(struct ul_perf_stream *st, int status)
{
	struct ul_perf_result *r = &st->res;
	size_t i;

	r->failed++;
	if (!r->status)
		r->status = status;
	for (i = 0; i < r->nfails; i++) {
		if (r->fails[i].status == status) {
			r->fails[i].count++;
			return;
		}
	}
	if (r->nfails < UL_PERF_STATUS_MAX) {
		r->fails[r->nfails].status = status;
		r->fails[r->nfails].count = 1;
		r->nfails++;
	}
}

static void put_acked(struct ul_perf_stream *st, uint32_t mlength)
{
	st->res.puts++;
	st->res.bytes += mlength;
	st->last_ack_ns = st->timers->now_ns;
	if (st->state == STREAM_RUNNING)
		st->bytes_running += mlength;
}

/* The rate's window and bytes (perf.h struct ul_perf_result). */
static void finish_rate(struct ul_perf_stream *st)
{
	struct ul_perf_result *r = &st->res;

	if (!r->puts)
		return;
	/*
	 * The window ends at the end of sending when ACKs came after it and
	 * the bytes ACKed by then are known; else at the last ACK.
	 */
	if (st->last_ack_ns > st->send_end_ns && st->bytes_running) {
		r->send_ns = st->send_end_ns - st->start_ns;
		r->send_bytes = st->bytes_running;
	} else {
		r->send_ns = st->last_ack_ns - st->start_ns;
		r->send_bytes = r->bytes;
	}
}

static void finish(struct ul_perf_stream *st)
{
	ul_timer_cancel(st->timers, &st->drain_timer);
	st->res.elapsed_ns = st->timers->now_ns - st->start_ns;
	finish_rate(st);
	if (st->done)
		st->done(st->arg, &st->res);
	free(st->slots);
	free(st->buf);
	free(st);
}

/* Drain time is over: what has not answered yet never will. */
static void on_drain_timeout(struct ul_timer *t, uint64_t now_ns)
{
	struct ul_perf_stream *st =
		ul_container_of(t, struct ul_perf_stream, drain_timer);
	uint32_t i;

	(void)now_ns;
	if (!st->nbusy) {
		finish(st); /* stopped with nothing in flight */
		return;
	}
	/* Their last events follow from the node's queue. */
	for (i = 0; i < st->inflight; i++) {
		if (st->slots[i].is_busy && !st->slots[i].has_final)
			ul_node_md_unlink(st->node, st->slots[i].md);
	}
}

static void start_draining(struct ul_perf_stream *st, uint64_t delay_ns)
{
	st->state = STREAM_DRAINING;
	st->send_end_ns = st->timers->now_ns;
	/* On ENOMEM the stream waits for its answers' own timeouts. */
	(void)ul_timer_arm(st->timers, &st->drain_timer,
			   st->timers->now_ns + delay_ns);
}

static uint64_t drain_ns(struct ul_perf_stream *st)
{
	uint64_t tt = ul_node_core(st->node)->tun.transaction_timeout;

	return (tt + 1) * 1000000000u;
}

static void stream_event(struct ulnet *u, const struct ulnet_event *ev);

/* Bind a fresh MD for slot and send its PUT; 0 or the node's error. */
static int slot_put(struct ul_perf_stream *st, struct perf_slot *slot)
{
	struct ulnet_md md = { 0 };
	int rc;

	md.start = st->buf;
	md.length = st->size;
	md.threshold = 2; /* SEND and ACK */
	md.options = ULNET_MD_TRACK_RESPONSE;
	md.user_ptr = slot;
	md.handler = stream_event;
	md.numa_node = -1;
	rc = ul_node_md_bind(st->node, &md, ULNET_UNLINK, &slot->md);
	if (rc < 0)
		return rc;
	rc = ul_node_put(st->node, NULL, slot->md, ULNET_ACK_REQ, &st->target,
			 UL_PERF_PORTAL, UL_PERF_MATCH_BITS, 0, 0);
	if (rc < 0) {
		/* Nothing was sent: its UNLINK comes with has_final set. */
		slot->has_final = true;
		slot->is_busy = true;
		st->nbusy++;
		ul_node_md_unlink(st->node, slot->md);
		return rc;
	}
	slot->has_final = false;
	slot->is_busy = true;
	st->nbusy++;
	return 0;
}

/* Send until every slot has a PUT out, while the stream runs. */
static void refill(struct ul_perf_stream *st)
{
	uint32_t i;
	int rc;

	if (st->state == STREAM_RUNNING && st->timers->now_ns >= st->end_ns)
		start_draining(st, drain_ns(st));
	for (i = 0; i < st->inflight && st->state == STREAM_RUNNING; i++) {
		if (st->slots[i].is_busy)
			continue;
		st->res.started++;
		rc = slot_put(st, &st->slots[i]);
		if (rc < 0) {
			put_failed(st, rc);
			start_draining(st, drain_ns(st));
		}
	}
}

static void stream_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct perf_slot *slot = ev->md_user_ptr;
	struct ul_perf_stream *st = slot->st;

	(void)u;
	if (!slot->has_final) {
		if (ev->type == ULNET_EVENT_ACK) {
			slot->has_final = true;
			if (ev->status < 0)
				put_failed(st, ev->status);
			else
				put_acked(st, ev->mlength);
		} else if (ev->status < 0 || ev->unlinked) {
			/*
			 * A failed SEND, or the MD's last event without an
			 * ACK: a response timeout or our drain timer (status
			 * 0 from an unlink: a timeout all the same).
			 */
			slot->has_final = true;
			put_failed(st,
				   ev->status < 0 ? ev->status : -ETIMEDOUT);
			if (!ev->unlinked)
				ul_node_md_unlink(st->node, slot->md);
		}
	}
	if (ev->unlinked) {
		slot->is_busy = false;
		st->nbusy--;
	}
	refill(st);
	if (st->state == STREAM_DRAINING && !st->nbusy)
		finish(st);
}

int ul_perf_stream_start(struct ul_node *n, struct ul_timer_heap *timers,
			 const struct ulnet_process_id *target, uint32_t size,
			 uint64_t duration_ns, uint32_t inflight,
			 ul_perf_done_cb done, void *arg,
			 struct ul_perf_stream **out)
{
	struct ul_perf_stream *st;
	uint32_t i;
	int rc = -ENOMEM;

	if (!size || size > UL_PERF_MAX_SIZE || !inflight || inflight > 256)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->buf = malloc(size);
	st->slots = calloc(inflight, sizeof(*st->slots));
	if (!st->buf || !st->slots)
		goto err_free;
	for (i = 0; i < size; i++)
		st->buf[i] = (uint8_t)(i * 131u + 7u);
	for (i = 0; i < inflight; i++)
		st->slots[i].st = st;
	st->node = n;
	st->timers = timers;
	st->target = *target;
	st->size = size;
	st->inflight = inflight;
	st->arg = arg;
	st->start_ns = timers->now_ns;
	st->end_ns = timers->now_ns + duration_ns;
	ul_timer_init(&st->drain_timer, on_drain_timeout);
	/* The first PUT is sent here; its events come later, from the loop. */
	rc = slot_put(st, &st->slots[0]);
	if (rc < 0 && !st->nbusy)
		goto err_free; /* the bind failed: no MD, no event */
	if (rc < 0) {
		/* The MD's UNLINK finds done NULL and frees the stream. */
		st->state = STREAM_DRAINING;
		return rc;
	}
	st->res.started = 1;
	st->done = done;
	if (out)
		*out = st;
	refill(st);
	return 0;

err_free:
	free(st->slots);
	free(st->buf);
	free(st);
	return rc;
}

void ul_perf_stream_stop(struct ul_perf_stream *st)
{
	if (st->state != STREAM_RUNNING)
		return;
	/* Nothing in flight: finish from the loop, never inside the call. */
	start_draining(st, st->nbusy ? drain_ns(st) : 0);
}
