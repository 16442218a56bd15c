/*
 * Shared set-up of the health and fault scenarios (reference/health.md
 * §14, fault.md §11) on the simulator: node A (A0 10.0.0.1, A1 10.0.1.1)
 * and node B (B0 10.0.0.2, B1 10.0.1.2) on tcp, each knowing the other
 * as a configured peer; "mr" gives both nodes two NIs, otherwise one
 * each. Faults are added with the node's own operation, as ulnetctl's
 * `fault drop add` does through the control socket.
 */
#ifndef HELPER_HEALTH_H
#define HELPER_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "core/fault.h"
#include "helper_sim.h"

#define HH_SEC 1000000000ull
#define HH_MS 1000000ull

struct hh {
	struct sim *sim;
	struct sim_node *a, *b;
	bool is_mr;
	char conf_b[1024]; /* B's lnet.conf, for hh_restart_b() */
	unsigned int nrestarts;
};

/* Build A and B (two NIs each when is_mr), discovery off, defaults. */
void hh_init(struct hh *h, bool is_mr, const char *extra_global);
void hh_fini(struct hh *h);

/* A ping from n (source self or NULL) to nid; its final status. */
int hh_ping(struct hh *h, struct sim_node *n, const char *self,
	    const char *nid);

/*
 * `fault drop add -s src -d dst -m types -r rate [-e hs]` on n; src and
 * dst may be "*". hs < 0: no health mask.
 */
void hh_drop(struct sim_node *n, const char *src, const char *dst,
	     uint32_t msg_mask, uint32_t rate, int hs);
/* `fault delay add -s src -d dst -m types -r rate -l latency_sec`. */
void hh_delay(struct sim_node *n, const char *src, const char *dst,
	      uint32_t msg_mask, uint32_t rate, uint32_t latency_sec);

/*
 * B's process dies (its node shuts down: its NIs leave the fabric) and a
 * new incarnation starts with the same configuration; h->b becomes the
 * new node (the old one stays in the sim, stopped, until hh_fini).
 */
void hh_kill_b(struct hh *h);
void hh_restart_b(struct hh *h);

/*
 * A sink MD on n's portal 3 taking every PUT (events tagged tag), and a
 * PUT with ACK of 64 bytes from n to the NID to on that portal (events
 * tagged tag). The handle of the sink is returned.
 */
struct ulnet_handle hh_sink(struct sim_node *n, uintptr_t tag);
void hh_put(struct sim_node *n, const char *to, uintptr_t tag);

/* Health of a local NI / of n's peer NI for nid. */
int hh_ni_health(struct sim_node *n, const char *nid);
int hh_lpni_health(struct sim_node *n, const char *nid);
/* Sum of n's local NI health values (0@lo excluded). */
int hh_ni_health_sum(struct sim_node *n);
/* The global counters of n. */
const struct ul_counters *hh_cnt(struct sim_node *n);
/* How many NIDs are on n's local (or peer) recovery queue; is nid one? */
unsigned int hh_recq_len(struct sim_node *n, bool is_local);
bool hh_recq_has(struct sim_node *n, bool is_local, const char *nid);

#endif /* HELPER_HEALTH_H */
