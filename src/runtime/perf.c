/*
 * Load streams and their sink (perf.h).
 *
 * A stream's life: RUNNING (keeps `inflight` operations outstanding)
 * until its deadline, then DRAINING (nothing new; waits for the
 * outstanding ones); when the last one has ended, done() runs and the
 * stream is freed.
 *
 * Each operation has a slot and an MD of its own, bound for it with
 * threshold 2 (SEND and ACK, or SEND and REPLY) and
 * ULNET_MD_TRACK_RESPONSE, so the node's response tracking (health.md
 * §6) times out each lost one by itself: one ACK says nothing about
 * another PUT. An operation's final event (ulnet.h) is its ACK or REPLY,
 * a failed SEND, or, with no answer, the MD's last event (UNLINK); the
 * slot is free again at the MD's last event (unlinked = 1), which for an
 * answer is the same event and after a failed SEND is the UNLINK that
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
	struct ulnet_handle put_md;
	struct ulnet_handle get_md;
	int nlive; /* MDs whose last event has not come */
	uint8_t *put_buf;
	uint8_t *get_buf; /* the pattern, what GETs read */
	struct ul_perf_sink_stats stats;
};

enum stream_state {
	STREAM_RUNNING,
	STREAM_DRAINING,
};

/* One operation in flight: from its MD's bind to the MD's last event. */
struct perf_slot {
	struct ul_perf_stream *st;
	struct ulnet_handle md;
	uint8_t *rx;	/* where a GET's REPLY lands */
	bool is_busy;	/* MD bound, its last event not come yet */
	bool has_final; /* the operation's final event came */
};

struct ul_perf_stream {
	struct ul_node *node;
	struct ul_timer_heap *timers;
	struct ul_perf_spec spec;
	size_t next_target; /* round robin over spec.targets */
	enum stream_state state;
	uint8_t *buf;	/* the pattern: PUT payload, the check's reference */
	uint8_t *rxbuf; /* unchecked GETs share it; checked ones have theirs */
	uint32_t nbusy; /* slots whose MD has not had its last event */
	struct perf_slot *slots; /* spec.inflight of them */
	uint64_t start_ns;
	uint64_t end_ns;	     /* stop sending at this time */
	uint64_t send_end_ns;	     /* when sending stopped (DRAINING) */
	uint64_t last_ack_ns;	     /* last completion, 0: none */
	uint64_t bytes_running;	     /* completed while RUNNING */
	struct ul_timer drain_timer; /* armed while DRAINING */
	struct ul_perf_result res;
	ul_perf_done_cb done;
	void *arg;
};

static bool range_ok(const uint8_t *buf, const uint8_t *ref, size_t from,
		     size_t to)
{
	return from >= to || memcmp(buf + from, ref + from, to - from) == 0;
}

/* ref: the pattern, len bytes of it at least. */
static bool check_against(const uint8_t *buf, const uint8_t *ref, size_t len,
			  enum ul_perf_check check)
{
	size_t page, end;

	if (check == UL_PERF_CHECK_NONE)
		return true;
	if (check == UL_PERF_CHECK_FULL)
		return range_ok(buf, ref, 0, len);
	for (page = 0; page < len; page += UL_PERF_CHECK_PAGE) {
		end = page + UL_PERF_CHECK_PAGE < len
			      ? page + UL_PERF_CHECK_PAGE
			      : len;
		if (!range_ok(buf, ref, page, page + 8 < end ? page + 8 : end))
			return false;
		if (!range_ok(buf, ref, end >= page + 8 ? end - 8 : page, end))
			return false;
	}
	return true;
}

static void fill_pattern(uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = ul_perf_pattern_byte(i);
}

bool ul_perf_check_ok(const uint8_t *buf, size_t len, enum ul_perf_check check)
{
	uint8_t ref[UL_PERF_CHECK_PAGE];
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < sizeof(ref) ? len - off : sizeof(ref);
		/* The pattern repeats every 256 bytes: a page is a period. */
		fill_pattern(ref, n);
		if (!check_against(buf + off, ref, n, check))
			return false;
	}
	return true;
}

static void sink_free(struct ul_perf_sink *s)
{
	free(s->put_buf);
	free(s->get_buf);
	free(s);
}

static void sink_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct ul_perf_sink *s = ev->md_user_ptr;
	struct ul_perf_sink_stats *st = &s->stats;

	(void)u;
	if (ev->type == ULNET_EVENT_PUT && ev->status == 0) {
		st->puts++;
		st->put_bytes += ev->mlength;
		if (ev->hdr_data == UL_PERF_CHECK_SIMPLE ||
		    ev->hdr_data == UL_PERF_CHECK_FULL) {
			st->checked++;
			if (!check_against(s->put_buf, s->get_buf, ev->mlength,
					   (enum ul_perf_check)ev->hdr_data))
				st->check_errors++;
		}
	} else if (ev->type == ULNET_EVENT_GET && ev->status == 0) {
		st->gets++;
		st->get_bytes += ev->mlength;
	}
	if (ev->unlinked && --s->nlive == 0)
		sink_free(s);
}

static int sink_attach(struct ul_perf_sink *s, uint8_t *buf, uint64_t bits,
		       unsigned int op, struct ulnet_handle *out)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = { 0 };

	ulnet_nid_set_any(&any.nid);
	md.start = buf;
	md.length = SINK_BYTES;
	md.threshold = ULNET_MD_THRESH_INF;
	/* Every PUT lands at offset 0, every GET reads from there. */
	md.options = op | ULNET_MD_TRUNCATE | ULNET_MD_MANAGE_REMOTE;
	md.user_ptr = s;
	md.handler = sink_event;
	md.numa_node = -1;
	return ul_node_md_attach(s->node, UL_PERF_PORTAL, &any, bits, 0,
				 ULNET_INS_AFTER, &md, ULNET_RETAIN, out);
}

int ul_perf_sink_create(struct ul_node *n, struct ul_perf_sink **out)
{
	struct ul_perf_sink *s;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->put_buf = malloc(SINK_BYTES);
	s->get_buf = malloc(SINK_BYTES);
	if (!s->put_buf || !s->get_buf) {
		sink_free(s);
		return -ENOMEM;
	}
	fill_pattern(s->get_buf, SINK_BYTES);
	s->node = n;
	rc = sink_attach(s, s->put_buf, UL_PERF_MATCH_BITS, ULNET_MD_OP_PUT,
			 &s->put_md);
	if (rc < 0) {
		sink_free(s);
		return rc;
	}
	s->nlive = 1;
	rc = sink_attach(s, s->get_buf, UL_PERF_GET_BITS, ULNET_MD_OP_GET,
			 &s->get_md);
	if (rc < 0) {
		/* Its UNLINK event frees the sink. */
		ul_node_md_unlink(n, s->put_md);
		return rc;
	}
	s->nlive = 2;
	*out = s;
	return 0;
}

void ul_perf_sink_destroy(struct ul_perf_sink *s)
{
	int gone = 0;

	if (!s)
		return;
	/* Each MD's last event frees it; if unlink fails it is gone. */
	if (ul_node_md_unlink(s->node, s->put_md) < 0)
		gone++;
	if (ul_node_md_unlink(s->node, s->get_md) < 0)
		gone++;
	s->nlive -= gone;
	if (s->nlive == 0)
		sink_free(s);
}

void ul_perf_sink_stats(const struct ul_perf_sink *s,
			struct ul_perf_sink_stats *out)
{
	*out = s->stats;
}

uint8_t *ul_perf_sink_get_buf(struct ul_perf_sink *s)
{
	return s->get_buf;
}

/* An operation ended in an error: count it under its status. */
static void op_failed(struct ul_perf_stream *st, int status)
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

static void op_completed(struct ul_perf_stream *st, struct perf_slot *slot,
			 const struct ulnet_event *ev)
{
	const struct ul_perf_spec *sp = &st->spec;

	st->res.completed++;
	st->res.bytes += ev->mlength;
	st->last_ack_ns = st->timers->now_ns;
	if (st->state == STREAM_RUNNING)
		st->bytes_running += ev->mlength;
	if (ev->type == ULNET_EVENT_REPLY && sp->op == UL_PERF_OP_GET &&
	    sp->check != UL_PERF_CHECK_NONE &&
	    (ev->mlength != sp->size ||
	     !check_against(slot->rx, st->buf, ev->mlength, sp->check)))
		st->res.check_errors++;
}

/* The rate's window and bytes (perf.h struct ul_perf_result). */
static void finish_rate(struct ul_perf_stream *st)
{
	struct ul_perf_result *r = &st->res;

	if (!r->completed)
		return;
	/*
	 * The window ends at the end of sending when completions came after
	 * it and the bytes completed by then are known; else at the last.
	 */
	if (st->last_ack_ns > st->send_end_ns && st->bytes_running) {
		r->send_ns = st->send_end_ns - st->start_ns;
		r->send_bytes = st->bytes_running;
	} else {
		r->send_ns = st->last_ack_ns - st->start_ns;
		r->send_bytes = r->bytes;
	}
}

static void stream_free(struct ul_perf_stream *st)
{
	uint32_t i;

	if (st->slots && st->rxbuf != NULL)
		for (i = 0; i < st->spec.inflight; i++)
			if (st->slots[i].rx != st->rxbuf)
				free(st->slots[i].rx);
	free(st->slots);
	free(st->rxbuf);
	free(st->buf);
	free(st);
}

static void finish(struct ul_perf_stream *st)
{
	ul_timer_cancel(st->timers, &st->drain_timer);
	st->res.elapsed_ns = st->timers->now_ns - st->start_ns;
	finish_rate(st);
	if (st->done)
		st->done(st->arg, &st->res);
	stream_free(st);
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
	for (i = 0; i < st->spec.inflight; i++) {
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

/* Send one operation to the next target; 0 or the node's error. */
static int send_op(struct ul_perf_stream *st, struct perf_slot *slot)
{
	const struct ul_perf_spec *sp = &st->spec;
	const struct ulnet_process_id *target;

	target = &sp->targets[st->next_target];
	st->next_target = (st->next_target + 1) % sp->ntargets;
	if (sp->op == UL_PERF_OP_PUT)
		/* The check mode rides in the header data for the sink. */
		return ul_node_put(st->node, NULL, slot->md, ULNET_ACK_REQ,
				   target, UL_PERF_PORTAL, UL_PERF_MATCH_BITS,
				   0, (uint64_t)sp->check);
	return ul_node_get(st->node, NULL, slot->md, target, UL_PERF_PORTAL,
			   UL_PERF_GET_BITS, 0);
}

/* Bind a fresh MD for slot and send its operation; 0 or an error. */
static int slot_send(struct ul_perf_stream *st, struct perf_slot *slot)
{
	const struct ul_perf_spec *sp = &st->spec;
	struct ulnet_md md = { 0 };
	int rc;

	md.start = sp->op == UL_PERF_OP_GET ? slot->rx : st->buf;
	md.length = sp->op == UL_PERF_OP_PING ? 0 : sp->size;
	md.threshold = 2; /* SEND and ACK, or SEND and REPLY */
	md.options = ULNET_MD_TRACK_RESPONSE;
	md.user_ptr = slot;
	md.handler = stream_event;
	md.numa_node = -1;
	rc = ul_node_md_bind(st->node, &md, ULNET_UNLINK, &slot->md);
	if (rc < 0)
		return rc;
	rc = send_op(st, slot);
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

/* Send until every slot has an operation out, while the stream runs. */
static void refill(struct ul_perf_stream *st)
{
	uint32_t i;
	int rc;

	if (st->state == STREAM_RUNNING && st->timers->now_ns >= st->end_ns)
		start_draining(st, drain_ns(st));
	for (i = 0; i < st->spec.inflight && st->state == STREAM_RUNNING; i++) {
		if (st->slots[i].is_busy)
			continue;
		st->res.started++;
		rc = slot_send(st, &st->slots[i]);
		if (rc < 0) {
			op_failed(st, rc);
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
		if (ev->type == ULNET_EVENT_ACK ||
		    ev->type == ULNET_EVENT_REPLY) {
			slot->has_final = true;
			if (ev->status < 0)
				op_failed(st, ev->status);
			else
				op_completed(st, slot, ev);
		} else if (ev->status < 0 || ev->unlinked) {
			/*
			 * A failed SEND, or the MD's last event without an
			 * answer: a response timeout or our drain timer
			 * (status 0 from an unlink: a timeout all the same).
			 */
			slot->has_final = true;
			op_failed(st, ev->status < 0 ? ev->status : -ETIMEDOUT);
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

static bool spec_ok(const struct ul_perf_spec *sp)
{
	if (sp->op != UL_PERF_OP_PUT && sp->op != UL_PERF_OP_GET &&
	    sp->op != UL_PERF_OP_PING)
		return false;
	if (sp->check != UL_PERF_CHECK_NONE &&
	    sp->check != UL_PERF_CHECK_SIMPLE &&
	    sp->check != UL_PERF_CHECK_FULL)
		return false;
	if (sp->op != UL_PERF_OP_PING &&
	    (!sp->size || sp->size > UL_PERF_MAX_SIZE))
		return false;
	return sp->inflight && sp->inflight <= UL_PERF_INFLIGHT_MAX &&
	       sp->ntargets && sp->ntargets <= UL_PERF_TARGETS_MAX;
}

/* The buffers: the pattern, and where REPLYs land for a GET stream. */
static int stream_buffers(struct ul_perf_stream *st)
{
	const struct ul_perf_spec *sp = &st->spec;
	size_t len = sp->op == UL_PERF_OP_PING ? 1 : sp->size;
	uint32_t i;

	st->buf = malloc(len);
	st->slots = calloc(sp->inflight, sizeof(*st->slots));
	if (!st->buf || !st->slots)
		return -ENOMEM;
	fill_pattern(st->buf, len);
	if (sp->op != UL_PERF_OP_GET)
		return 0;
	st->rxbuf = malloc(len);
	if (!st->rxbuf)
		return -ENOMEM;
	/* A checked REPLY must not share its buffer with another one. */
	for (i = 0; i < sp->inflight; i++) {
		st->slots[i].rx = sp->check == UL_PERF_CHECK_NONE ? st->rxbuf
								  : malloc(len);
		if (!st->slots[i].rx)
			return -ENOMEM;
	}
	return 0;
}

int ul_perf_stream_start(struct ul_node *n, struct ul_timer_heap *timers,
			 const struct ul_perf_spec *spec, ul_perf_done_cb done,
			 void *arg, struct ul_perf_stream **out)
{
	struct ul_perf_stream *st;
	uint32_t i;
	int rc;

	if (!spec_ok(spec))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->spec = *spec;
	rc = stream_buffers(st);
	if (rc < 0)
		goto err_free;
	for (i = 0; i < spec->inflight; i++)
		st->slots[i].st = st;
	st->node = n;
	st->timers = timers;
	st->arg = arg;
	st->start_ns = timers->now_ns;
	st->end_ns = timers->now_ns + spec->duration_ns;
	ul_timer_init(&st->drain_timer, on_drain_timeout);
	/* The first one is sent here; its events come later, from the loop. */
	rc = slot_send(st, &st->slots[0]);
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
	stream_free(st);
	return rc;
}

int ul_perf_put_start(struct ul_node *n, struct ul_timer_heap *timers,
		      const struct ulnet_process_id *target, uint32_t size,
		      uint64_t duration_ns, uint32_t inflight,
		      ul_perf_done_cb done, void *arg,
		      struct ul_perf_stream **out)
{
	struct ul_perf_spec spec = { .op = UL_PERF_OP_PUT,
				     .size = size,
				     .duration_ns = duration_ns,
				     .inflight = inflight,
				     .ntargets = 1 };

	spec.targets[0] = *target;
	return ul_perf_stream_start(n, timers, &spec, done, arg, out);
}

void ul_perf_stream_stop(struct ul_perf_stream *st)
{
	if (st->state != STREAM_RUNNING)
		return;
	/* Nothing in flight: finish from the loop, never inside the call. */
	start_draining(st, st->nbusy ? drain_ns(st) : 0);
}
