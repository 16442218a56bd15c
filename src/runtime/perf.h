/*
 * A bulk-transfer service on top of the node, for ulnetd's demo and for
 * measuring rails: what lnet_selftest's brw test does, reduced to PUTs.
 *
 * Every node runs a sink: a match entry on portal UL_PERF_PORTAL that
 * takes any PUT with UL_PERF_MATCH_BITS into a scratch buffer (truncating
 * what does not fit) and ACKs it. A stream sends PUTs of one size to a
 * peer's sink, keeping a fixed number in flight, until its duration is
 * over, and reports what it moved. Each PUT asks for an ACK, so the
 * stream paces itself on what the target actually took, and has an MD of
 * its own, so that it ends on its own final event (ulnet.h): its ACK, a
 * failed SEND, or the UNLINK of a response timeout.
 *
 * Loop thread only, like the node.
 */
#ifndef UL_RUNTIME_PERF_H
#define UL_RUNTIME_PERF_H

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
/* Index of PUT in struct ulnet_msg_stats arrays (wire message type). */
#define UL_PERF_PUT_IDX 1
/* Largest PUT a stream sends (LNet's MTU). */
#define UL_PERF_MAX_SIZE ULNET_MTU

/* Distinct failure statuses a result counts one by one. */
#define UL_PERF_STATUS_MAX 16

/* Failed PUTs that ended with one status. */
struct ul_perf_fail {
	int status; /* negative errno */
	uint64_t count;
};

/*
 * What a stream did. Every PUT started ends once, so started = puts +
 * failed. The rate's window runs from the first PUT to the end of the
 * sending (duration over, stop, or a PUT refused) or to the last ACK,
 * whichever is earlier, and send_bytes is what was ACKed within it: time
 * spent waiting for lost PUTs to time out never counts. If nothing was
 * ACKed within it, the window runs to the last ACK instead.
 */
struct ul_perf_result {
	int status;	     /* 0, or the first failure's errno */
	uint64_t started;    /* PUTs tried (a refused one failed at once) */
	uint64_t puts;	     /* PUTs ACKed */
	uint64_t bytes;	     /* payload bytes ACKed */
	uint64_t failed;     /* PUTs that ended in an error */
	uint64_t elapsed_ns; /* first send to last final event */
	uint64_t send_ns;    /* the rate's window (above) */
	uint64_t send_bytes; /* bytes ACKed within it */
	/* failed by final status, first seen first (beyond the table: in
	 * failed only) */
	size_t nfails;
	struct ul_perf_fail fails[UL_PERF_STATUS_MAX];
};

typedef void (*ul_perf_done_cb)(void *arg, const struct ul_perf_result *res);

/* Post the sink (a 1 MiB scratch buffer). 0, -ENOMEM or the node's error. */
int ul_perf_sink_create(struct ul_node *n, struct ul_perf_sink **out);
/* Unlink the sink and free it once its MD's last event came. */
void ul_perf_sink_destroy(struct ul_perf_sink *s);

/*
 * Start a stream of size-byte PUTs (1..UL_PERF_MAX_SIZE) to target's sink
 * for duration_ns, with inflight (1..256) outstanding. done runs once,
 * on the loop thread, never inside this call (also when the node shuts
 * down: status -ESHUTDOWN). *out (may be NULL) names the stream until
 * done runs. 0 or -EINVAL, -ENOMEM, the node's error.
 */
int ul_perf_stream_start(struct ul_node *n, struct ul_timer_heap *timers,
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
