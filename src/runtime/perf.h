/*
 * The load service behind `ulnetctl selftest` and `perf put`: what
 * lnet_selftest's brw and ping tests do, as LNet messages to a sink that
 * every ulnetd posts.
 *
 * The sink is two match entries on portal UL_PERF_PORTAL: one takes any
 * PUT with UL_PERF_MATCH_BITS into a scratch buffer (truncating what does
 * not fit) and ACKs it; the other answers any GET with
 * UL_PERF_GET_BITS from a buffer holding the test pattern. A stream sends
 * one kind of operation to one or more sinks (round robin), keeping a
 * fixed number in flight, until its duration is over, and reports what
 * it moved:
 *
 *	UL_PERF_OP_PUT   brw write: size-byte PUTs, each ACKed;
 *	UL_PERF_OP_GET   brw read: size-byte GETs, each answered by a REPLY;
 *	UL_PERF_OP_PING  a round trip: a GET of 0 bytes.
 *
 * Every payload is the test pattern (ul_perf_pattern_byte). With a check
 * (lnet_selftest's check=simple or full), a written PUT asks the sink to
 * verify what landed (in the PUT's header data), and a read GET is
 * verified by the stream; mismatches are counted as check errors at the
 * side that found them. Each operation has an MD of its own, so that it
 * ends on its own final event (ulnet.h): its ACK or REPLY, a failed SEND,
 * or the UNLINK of a response timeout.
 *
 * Loop thread only, like the node.
 */
#ifndef UL_RUNTIME_PERF_H
#define UL_RUNTIME_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ulnet/ulnet.h"

struct ul_node;
struct ul_timer_heap;
struct ul_perf_sink;
struct ul_perf_stream;

/* Portal 62 and "ULPERF" in the match bits: clear of Lustre's portals. */
#define UL_PERF_PORTAL 62u
#define UL_PERF_MATCH_BITS UINT64_C(0x554c504552460000)
#define UL_PERF_GET_BITS UINT64_C(0x554c504552460001)
/* Index of PUT in struct ulnet_msg_stats arrays (wire message type). */
#define UL_PERF_PUT_IDX 1
/* Largest PUT or GET a stream sends (LNet's MTU). */
#define UL_PERF_MAX_SIZE ULNET_MTU
/* Most sinks one stream sends to (lnet_selftest's 1:N distribution). */
#define UL_PERF_TARGETS_MAX 64
/* Most operations one stream keeps in flight. */
#define UL_PERF_INFLIGHT_MAX 256
/* The page lnet_selftest's check=simple looks at both ends of. */
#define UL_PERF_CHECK_PAGE 4096u

enum ul_perf_op {
	UL_PERF_OP_PUT = 0,
	UL_PERF_OP_GET = 1,
	UL_PERF_OP_PING = 2,
};

/* Carried in a checked PUT's header data, so the sink knows to look. */
enum ul_perf_check {
	UL_PERF_CHECK_NONE = 0,
	UL_PERF_CHECK_SIMPLE = 1, /* 8 bytes at each end of every page */
	UL_PERF_CHECK_FULL = 2,	  /* every byte */
};

/* What a stream does; see ul_perf_stream_start(). */
struct ul_perf_spec {
	enum ul_perf_op op;
	enum ul_perf_check check;
	uint32_t size; /* bytes per PUT or GET (ignored for PING) */
	uint64_t duration_ns;
	uint32_t inflight;
	size_t ntargets; /* 1..UL_PERF_TARGETS_MAX */
	struct ulnet_process_id targets[UL_PERF_TARGETS_MAX];
};

/* What a sink took and served since it was posted. */
struct ul_perf_sink_stats {
	uint64_t puts;	    /* PUTs landed */
	uint64_t put_bytes; /* of them, bytes accepted */
	uint64_t gets;	    /* GETs answered */
	uint64_t get_bytes;
	uint64_t checked;      /* PUTs verified */
	uint64_t check_errors; /* of them, not the pattern */
};

/* Distinct failure statuses a result counts one by one. */
#define UL_PERF_STATUS_MAX 16

/* Failed operations that ended with one status. */
struct ul_perf_fail {
	int status; /* negative errno */
	uint64_t count;
};

/*
 * What a stream did. Every operation started ends once, so started =
 * completed + failed. The rate's window runs from the first operation to
 * the end of the sending (duration over, stop, or an operation refused)
 * or to the last completion, whichever is earlier, and send_bytes is
 * what completed within it: time spent waiting for lost operations to
 * time out never counts. If nothing completed within it, the window runs
 * to the last completion instead.
 */
struct ul_perf_result {
	int status;	       /* 0, or the first failure's errno */
	uint64_t started;      /* operations tried (a refused one failed) */
	uint64_t completed;    /* operations that got their ACK or REPLY */
	uint64_t bytes;	       /* payload bytes ACKed or received */
	uint64_t check_errors; /* REPLYs whose data failed the check */
	uint64_t failed;       /* operations that ended in an error */
	uint64_t elapsed_ns;   /* first send to last final event */
	uint64_t send_ns;      /* the rate's window (above) */
	uint64_t send_bytes;   /* bytes completed within it */
	/* failed by final status, first seen first (beyond the table: in
	 * failed only) */
	size_t nfails;
	struct ul_perf_fail fails[UL_PERF_STATUS_MAX];
};

typedef void (*ul_perf_done_cb)(void *arg, const struct ul_perf_result *res);

/* Byte i of every payload: the test pattern. */
static inline uint8_t ul_perf_pattern_byte(size_t i)
{
	return (uint8_t)(i * 131u + 7u);
}

/* Whether buf[0..len) is the pattern as far as check looks. */
bool ul_perf_check_ok(const uint8_t *buf, size_t len, enum ul_perf_check check);

/*
 * Post the sink (two 1 MiB buffers). 0, -ENOMEM or the node's error.
 * Its PUT buffer is scratch: checked PUTs land and are verified in turn,
 * on the loop thread, each before the next one's data is taken.
 */
int ul_perf_sink_create(struct ul_node *n, struct ul_perf_sink **out);
/* Unlink the sink and free it once its MDs' last events came. */
void ul_perf_sink_destroy(struct ul_perf_sink *s);
void ul_perf_sink_stats(const struct ul_perf_sink *s,
			struct ul_perf_sink_stats *out);
/* Tests: the GET buffer, to spoil the pattern a checked read sees. */
uint8_t *ul_perf_sink_get_buf(struct ul_perf_sink *s);

/*
 * Start the stream spec describes (size 1..UL_PERF_MAX_SIZE unless PING,
 * inflight 1..UL_PERF_INFLIGHT_MAX, 1..UL_PERF_TARGETS_MAX targets, taken
 * in turn) for its duration. done runs once, on the loop thread, never
 * inside this call (also when the node shuts down: status -ESHUTDOWN).
 * *out (may be NULL) names the stream until done runs. 0 or -EINVAL,
 * -ENOMEM, the node's error.
 */
int ul_perf_stream_start(struct ul_node *n, struct ul_timer_heap *timers,
			 const struct ul_perf_spec *spec, ul_perf_done_cb done,
			 void *arg, struct ul_perf_stream **out);
/* The common case: size-byte PUTs to one target, unchecked. */
int ul_perf_put_start(struct ul_node *n, struct ul_timer_heap *timers,
		      const struct ulnet_process_id *target, uint32_t size,
		      uint64_t duration_ns, uint32_t inflight,
		      ul_perf_done_cb done, void *arg,
		      struct ul_perf_stream **out);
/*
 * End the stream now, as if its duration were over: no new PUT, those in
 * flight drain; done still runs once, later. Only before done ran.
 */
void ul_perf_stream_stop(struct ul_perf_stream *st);

#endif /* UL_RUNTIME_PERF_H */
