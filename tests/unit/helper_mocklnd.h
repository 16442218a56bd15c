/*
 * A mock LND for node tests: a fabric of mock NIs in one process, joined
 * over one timer heap with a virtual clock. A send is delivered to the
 * mock NI owning the target NID after a fixed delay (zero by default) by
 * a timer: parse on the receiving node, copy the payload, tx_done on the
 * sender, rx_done on the receiver. Switches make every send fail with a
 * given status and health status, lose every message (tx_done OK, never
 * delivered), or hold every send until released.
 *
 * The fabric also builds nodes (core, NIs, mock LND registered, started)
 * and runs the clock: mock_run() fires every timer due up to a time and
 * flushes every node after each step.
 */
#ifndef HELPER_MOCKLND_H
#define HELPER_MOCKLND_H

#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "core/node.h"
#include "core/lnd.h"
#include "util/log.h"
#include "util/timer.h"

#define MOCK_MAX_NODES 8

struct mock_fabric {
	struct ul_timer_heap timers;
	struct ul_list nis;	      /* struct mock_ni */
	struct ul_lnd lnd;	      /* register with ul_node_register_lnd */
	uint64_t delay_ns;	      /* send to arrival */
	int fail_status;	      /* != 0: every send fails with it ... */
	enum ul_hstatus fail_hstatus; /* ... and this health status */
	bool fail_undelivered;	      /* ... and tx->is_undelivered set */
	bool is_drop;		      /* sends complete OK, nothing arrives */
	bool is_hold;		      /* sends wait for mock_release() */
	size_t corrupt_at; /* != 0: byte corrupt_at - 1 of payloads flipped */
	uint32_t timeout_sec; /* the LND's timeout (set/get ops) */
	uint32_t in_flight;   /* sends not yet completed */
	uint32_t max_in_flight;
	uint32_t nsent;	     /* ops->send calls accepted */
	uint32_t nparse_err; /* parse returned an error (conn closed) */
	uint32_t nlink_change;
	struct ul_log log; /* every node's; lines counted, last kept */
	uint32_t nlog;
	char last_log[512];
	struct ul_node *nodes[MOCK_MAX_NODES];
	uint32_t nnodes;
	uint64_t next_cookie;
};

void mock_fabric_init(struct mock_fabric *f);
/* Destroy every node built here, then the heap. */
void mock_fabric_fini(struct mock_fabric *f);

/*
 * Build and start a node with NIs nids[0..n-1] ("10.0.0.1@tcp"), on
 * interfaces eth0, eth1, ... in that order, net tunables peer_credits and
 * credits (<= 0: defaults), pid ULNET_PID_LUSTRE, a unique interface
 * cookie, log lines into the fabric's log. NULL on failure.
 */
struct ul_node *mock_node(struct mock_fabric *f, const char *const *nids,
			  size_t n, int peer_credits, int credits);

/*
 * Make the peer of nid on n (created as a send creates it) discovered and
 * up to date, as after an earlier discovery round, so that a test of the
 * message layer sees only its own messages (no discovery ping first).
 */
void mock_peer_known(struct ul_node *n, const char *nid);

/* Run timers due up to now + for_ns (in order), flushing every node. */
void mock_run(struct mock_fabric *f, uint64_t for_ns);
/* Let held sends go (each after the delay). */
void mock_release(struct mock_fabric *f);

/*
 * Hand hdr to the node NI owning hdr->dest_nid (or dst_nid if not NULL)
 * as if it came from from_nid with payload (len bytes). Returns parse's
 * result; when 0 and the message was taken (rx->msg), the payload is
 * copied and rx_done(0) called; *is_taken says which.
 */
int mock_inject(struct mock_fabric *f, const struct ulnet_nid *dst_nid,
		const struct ul_wire_lnet_hdr *hdr,
		const struct ulnet_nid *from_nid, const void *payload,
		uint32_t len, bool *is_taken);

/* An event recorder: pass &rec as an MD's user_ptr, mock_record as
 * its handler. */
#define MOCK_REC_MAX 128
struct mock_rec {
	struct ulnet_event ev[MOCK_REC_MAX];
	int n;
	int nfinal[8]; /* events with unlinked set, by type */
	/* Optional hook run after recording (re-entrancy tests). */
	void (*hook)(struct mock_rec *r, const struct ulnet_event *ev);
	void *hook_arg;
};
void mock_record(struct ulnet *u, const struct ulnet_event *ev);
/* Count recorded events of one type. */
int mock_rec_count(const struct mock_rec *r, enum ulnet_event_type type);

/* Attach (ANY sender) or bind an MD recording into r; abort on error. */
struct ulnet_handle mock_attach(struct ul_node *n, uint32_t portal,
				uint64_t bits, void *buf, size_t len,
				uint32_t options, int threshold,
				struct mock_rec *r);
struct ulnet_handle mock_bind(struct ul_node *n, void *buf, size_t len,
			      uint32_t options, int threshold,
			      enum ulnet_unlink unlink, struct mock_rec *r);

/* Parse a NID or fail the test. */
struct ulnet_nid mock_nid(const char *s);

#endif /* HELPER_MOCKLND_H */
