/*
 * The tests/sim harness: several nodes (src/core/node.h) in one process
 * over one simlnd fabric, driven by one virtual clock, so that a
 * multi-node scenario runs the same way every time (DESIGN.md, "Tests
 * and benchmarks").
 *
 * A struct sim owns one timer heap (its now_ns is the time), one fabric
 * and its nodes. sim_node_add() builds a node from lnet.conf text the way
 * ulnetd does (parse, apply to a fresh core, wrap in a node), serves
 * every tcp net with simlnd and starts it. NIs are given by `nid:`, or by
 * `interfaces:` when the test passes the node's interfaces and addresses
 * (needed to pull a cable by interface name with ul_node_link_change()).
 *
 * sim_run() flushes every node's events, runs the earliest timer
 * (advancing the clock to it), and repeats. Every MD made with sim_md()
 * records its events on its node (struct sim_ev) and appends a line to
 * the sim's trace; two runs of one scenario with one seed give the same
 * trace byte for byte.
 *
 * Harness failures (a bad configuration, a startup error, something left
 * at the end) fail the cmocka test at once. Not thread-safe; nothing here
 * reads a clock.
 */
#ifndef HELPER_SIM_H
#define HELPER_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/node.h"
#include "lnd/simlnd.h"
#include "ulnet/ulnet.h"
#include "util/timer.h"

#define SIM_MAX_NODES 16
#define SIM_NAME_SIZE 32

/* One event as an MD's handler saw it. */
struct sim_ev {
	uint64_t at_ns;	       /* virtual time of delivery */
	struct ulnet_event ev; /* copy; pointers are the test's */
};

struct sim;

struct sim_node {
	struct sim *sim;
	char name[SIM_NAME_SIZE];
	struct ul_node *node;
	struct ul_log *log; /* with ULNET_SIM_LOG set, else NULL */
	struct sim_ev *evs; /* every event of this node's MDs, in order */
	size_t nevs;
	size_t cap;
};

struct sim {
	struct ul_timer_heap heap;
	struct ul_simfab *fab;
	struct sim_node *nodes[SIM_MAX_NODES];
	size_t nnodes;
	uint64_t next_cookie;
	char *trace; /* NUL-terminated, one line per event */
	size_t trace_len;
	size_t trace_cap;
	bool is_log; /* ULNET_SIM_LOG set: node logs go to stderr */
};

/* A fresh sim at time 0 with the fabric's loss generator seeded. */
struct sim *sim_create(uint64_t seed);
/*
 * Shut every node down (their final events are delivered and recorded),
 * check that the fabric and the heap are empty, free everything.
 */
void sim_destroy(struct sim *sim);

/* Build, configure and start a node from lnet.conf text. */
struct sim_node *sim_node_add(struct sim *sim, const char *name,
			      const char *yaml);
/*
 * The same, with the node's host interfaces: ifs is "eth0=10.0.0.1,
 * eth1=10.0.1.1" (NULL or "": none), for NIs given by `interfaces:`.
 */
struct sim_node *sim_node_add_ifs(struct sim *sim, const char *name,
				  const char *yaml, const char *ifs);

/* Run until no timer is due at or before until_ns; now_ns ends there. */
void sim_run(struct sim *sim, uint64_t until_ns);
/*
 * Run until nothing is left to do, or limit_ns of virtual time passed
 * (a node may keep periodic timers). Returns true if it went idle.
 */
bool sim_run_idle(struct sim *sim, uint64_t limit_ns);

/*
 * An MD over buf[0..len) whose events are recorded on the node, tagged
 * with tag (its user_ptr). options: ULNET_MD_*; threshold as ulnet_md.
 */
struct ulnet_md sim_md(struct sim_node *sn, void *buf, size_t len,
		       int threshold, uint32_t options, uintptr_t tag);

/* The node's recorded events with this tag / of this type and tag. */
size_t sim_ev_count(const struct sim_node *sn, uintptr_t tag);
size_t sim_ev_count_type(const struct sim_node *sn, uintptr_t tag,
			 enum ulnet_event_type type);
/* The last recorded event with this tag, or NULL. */
const struct sim_ev *sim_ev_last(const struct sim_node *sn, uintptr_t tag);

/*
 * Make the peer of nid on sn (created as a send creates it) discovered
 * and up to date, as after an earlier discovery round: for tests of what
 * happens to messages once a peer is known, whose traffic must not start
 * with a discovery ping.
 */
void sim_peer_known(struct sim_node *sn, const char *nid);

/* Parse a NID or fail the test. */
struct ulnet_nid sim_nid(const char *s);
/* The process id (NID, 12345) a test sends to. */
struct ulnet_process_id sim_pid(const char *nid);

/* Per-NI information of a node; the entry for nid, or fail the test. */
struct ulnet_ni_info sim_ni_info(struct sim_node *sn, const char *nid);

/* Deterministic test data: fill from seed; FNV-1a checksum. */
void sim_fill(void *buf, size_t len, uint32_t seed);
uint64_t sim_csum(const void *buf, size_t len);

#endif /* HELPER_SIM_H */
