/*
 * Shared set-up of the router scenarios (reference/routing.md §10) on
 * the simulator. The topology, unless a test builds its own:
 *
 *   C 10.0.0.10@tcp --- 10.0.0.1@tcp R 10.1.0.1@tcp1 --- 10.1.0.20@tcp1 S
 *
 * C has a route to tcp1 through R, S one to tcp through R, R routes
 * (`routing: enable: 1`, so STARTING, which forwards already). Discovery
 * is off everywhere, so the only traffic is the test's. GETs and PUTs go
 * to an MD on S's portal 9 over a 1 MiB buffer filled with known bytes.
 */
#ifndef HELPER_ROUTER_H
#define HELPER_ROUTER_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "core/msg.h"
#include "helper_sim.h"

#define HR_SEC 1000000000ull
#define HR_MS 1000000ull
#define HR_PORTAL 9
#define HR_BUF (1u << 20)

struct hr {
	struct sim *sim;
	struct sim_node *c, *r, *s;
	unsigned char *sbuf; /* S's MD: PUTs land here, GETs read it */
	struct ulnet_handle smd;
};

/* C's lnet.conf: 10.0.0.10@tcp, a route to tcp1 through R, no discovery. */
extern const char hr_conf_c[];

/*
 * Build C, R, S; extra_r is appended to R's lnet.conf, extra_s to S's
 * (each may be NULL), e.g. a buffers: section or another NID.
 */
void hr_init(struct hr *h, const char *extra_r, const char *extra_s);
void hr_fini(struct hr *h);
/*
 * Run sim until every route of each of the n nodes is up: R says
 * RTE_DISABLED until its routing is ENABLED (110 s), and a sender's
 * router checker sees that at its next check (every 60 s). Fails the
 * test if that takes more than 300 virtual seconds.
 */
void hr_routes_up(struct sim *sim, struct sim_node *const *nodes, size_t n);
/* S's portal MD for PUTs and GETs, events tagged tag. */
void hr_sink(struct hr *h, struct sim_node *s, uintptr_t tag);

/*
 * A GET of len bytes (or a PUT with ACK of len bytes from buf) from n to
 * nid, its events tagged tag; the MD is unlinked by its last event.
 */
void hr_get(struct sim_node *n, const char *nid, void *buf, uint32_t len,
	    uintptr_t tag);
void hr_put(struct sim_node *n, const char *nid, void *buf, uint32_t len,
	    uintptr_t tag);
/*
 * The one final event of the operation tagged tag on n: its status (0
 * when the REPLY or ACK came). Fails the test unless exactly one event
 * with tag is final (an ACK, a REPLY, an UNLINK or a failed SEND).
 */
int hr_final(struct sim_node *n, uintptr_t tag);

/* Global counters and one peer NI's statistics on n. */
const struct ul_counters *hr_cnt(struct sim_node *n);
const struct ulnet_msg_stats *hr_lpni_stats(struct sim_node *n,
					    const char *nid);
/*
 * Router pools of one kind summed over CPTs: credits now, and the sum of
 * the pools' lowest credits below zero (0: no message ever waited).
 */
int hr_pool_credits(struct sim_node *n, enum ul_rtrpool_kind kind);
int hr_pool_mincredits(struct sim_node *n, enum ul_rtrpool_kind kind);

#endif /* HELPER_ROUTER_H */
