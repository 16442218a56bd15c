/*
 * Two nodes for the discovery tests (test_discovery_*.c): A, from the
 * test's lnet.conf, and B with two NIs, 10.0.0.2@tcp and 10.0.1.2@tcp,
 * transaction_timeout 4. B has a sink MD on SIM_PAIR_PORTAL taking any
 * PUT (events tagged SIM_PAIR_TAG_SINK); A a bound source MD (tagged
 * SIM_PAIR_TAG_SRC) to send them from.
 */
#ifndef HELPER_PAIR_H
#define HELPER_PAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "helper_sim.h"

struct ul_peer;

#define SIM_PAIR_PORTAL 7
#define SIM_PAIR_TAG_SRC 1
#define SIM_PAIR_TAG_SINK 2

struct sim_pair {
	struct sim *sim;
	struct sim_node *a, *b;
	struct sim_node *src_node, *sink_node; /* a and b, or b and a */
	struct ulnet_handle src, sink;
	char srcbuf[64], sinkbuf[64];
};

/* B's lnet.conf, and A's with 10.0.0.1@tcp and 10.0.1.1@tcp (same
 * transaction_timeout), the A most tests use. */
extern const char sim_pair_conf_b[];
extern const char sim_pair_conf_a[];

void sim_pair_init(struct sim_pair *p, const char *a_conf);
/* The same with B from b_conf; is_b_sender swaps the MDs' sides. */
void sim_pair_init_with(struct sim_pair *p, const char *a_conf,
			const char *b_conf, bool is_b_sender);
/* lnet.conf of a B with nis NIs on tcp, 10.0.<i>.2@tcp, into conf. */
void sim_pair_conf_many(char *conf, size_t cap, int nis);
/* A PUT with ACK from A's source MD to nid's SIM_PAIR_PORTAL. */
void sim_pair_put(struct sim_pair *p, const char *nid);
/* sn's peer holding nid, or NULL. */
struct ul_peer *sim_pair_peer(struct sim_node *sn, const char *nid);
/* Unlink both MDs and destroy the simulation. */
void sim_pair_fini(struct sim_pair *p);

#endif /* HELPER_PAIR_H */
