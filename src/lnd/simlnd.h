/*
 * simlnd: an LND over a fabric in memory, driven by a virtual clock, so
 * that tests/sim can run many nodes in one process deterministically
 * (DESIGN.md, "The LND interface" and "Tests and benchmarks").
 *
 * The fabric (struct ul_simfab) is the wire. Every NI started on it is an
 * endpoint named by its NID. Between two NIDs runs a link in each
 * direction with a bandwidth, a latency, a loss probability and an up/down
 * switch; pairs never set use the fabric's default properties. Every NI
 * also has its own switch (a cable pull).
 *
 * A message sent from A to B occupies the A->B link for
 * (UL_SIMLND_HDR_BYTES + payload) / bandwidth, after whatever that link
 * still carries: transmit completes at max(now, link free) + that time.
 * The sender gets tx_done(0, OK) then, and B gets the header and payload
 * one latency later. A lost message (drawn from the fabric's seeded
 * generator, so a seed gives the same losses every run) also completes
 * with OK and is never delivered. A message to an unknown NID, over a
 * link that is down or to an NI that is down fails one latency after the
 * send with -EHOSTUNREACH and REMOTE_DROPPED; from an NI that is down,
 * with LOCAL_DROPPED. Messages in flight to an NI that went down or shut
 * down are dropped silently.
 *
 * Two NIs that exchanged a message are connected, as over a socklnd
 * connection, and hear of each other through up->peer_down: when one
 * shuts down (its process died), the other one latency later; when one
 * restarted (shut down and started again with the same NID), the other
 * as soon as a message passes between them, before it is delivered.
 * ul_simfab_conn_reset() resets a connection without losing anything.
 *
 * Every deadline is a timer on the fabric's heap, whose now_ns is the
 * time; nothing here reads a clock, makes a thread or calls an upcall
 * from inside ops->send(). Not thread-safe: the simulation drives it.
 */
#ifndef UL_LND_SIMLND_H
#define UL_LND_SIMLND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lnd.h"

struct ul_timer_heap;
struct ul_simfab;

/* Bytes each message costs on a link on top of its payload. */
#define UL_SIMLND_HDR_BYTES 96u

struct ul_simlink_props {
	uint64_t bandwidth;  /* bytes per second; 0 is infinite */
	uint64_t latency_ns; /* from transmit complete to delivery */
	double loss;	     /* probability 0..1 that a message is lost */
	bool is_up;	     /* false: every message fails at once */
};

/* What one direction of a link carried (A->B counts sends from A). */
struct ul_simlink_stats {
	uint64_t msgs;	    /* messages whose transmit completed */
	uint64_t bytes;	    /* their payload bytes */
	uint64_t delivered; /* messages handed to the destination */
	uint64_t drops;	    /* lost, failed, or dropped before delivery */
};

/* The LND; register it as struct ul_lnd { &ul_simlnd_ops, fab, type }. */
extern const struct ul_lnd_ops ul_simlnd_ops;

/*
 * Create an empty fabric on heap (the virtual clock; NIs started on it
 * must use the same heap) with the loss generator seeded by seed. The
 * default link properties are: infinite bandwidth, 1 us latency, no
 * loss, up. 0 or -ENOMEM.
 */
int ul_simfab_create(struct ul_timer_heap *heap, uint64_t seed,
		     struct ul_simfab **out);
/*
 * Free the fabric and every message still in it (their timers are
 * cancelled, no upcall runs). Every NI must have been shut down first.
 * NULL is fine.
 */
void ul_simfab_destroy(struct ul_simfab *fab);

/* Properties of every pair that ul_simfab_link_set() never named. */
void ul_simfab_default_set(struct ul_simfab *fab,
			   const struct ul_simlink_props *p);
/*
 * Set the link between a and b, both directions, from now on (messages
 * already transmitting keep their times). 0, -EINVAL (loss outside 0..1),
 * -ENOMEM.
 */
int ul_simfab_link_set(struct ul_simfab *fab, const struct ulnet_nid *a,
		       const struct ulnet_nid *b,
		       const struct ul_simlink_props *p);
/* The properties messages from src to dst get now. */
void ul_simfab_link_get(const struct ul_simfab *fab,
			const struct ulnet_nid *src,
			const struct ulnet_nid *dst,
			struct ul_simlink_props *out);
/* What the src->dst direction carried so far (zeros if never used). */
void ul_simfab_link_stats(const struct ul_simfab *fab,
			  const struct ulnet_nid *src,
			  const struct ulnet_nid *dst,
			  struct ul_simlink_stats *out);

/*
 * Pull (false) or plug back (true) the cable of the NI nid: while it is
 * down, its sends fail and messages to it are dropped. 0 or -ENOENT (no
 * NI with that NID on the fabric).
 */
int ul_simfab_ni_set_up(struct ul_simfab *fab, const struct ulnet_nid *nid,
			bool is_up);

/*
 * Reset the connection between the NIs a and b (a TCP RST): each end
 * that is connected to the other hears peer_down(not restarted) one
 * latency later; nothing in flight is lost. 0, or -ENOENT when they were
 * not connected.
 */
int ul_simfab_conn_reset(struct ul_simfab *fab, const struct ulnet_nid *a,
			 const struct ulnet_nid *b);

/* Messages in the fabric (transmitting, failing or in flight or news). */
size_t ul_simfab_pending(const struct ul_simfab *fab);
/* NIs started on the fabric and not shut down. */
size_t ul_simfab_nis(const struct ul_simfab *fab);

#endif /* UL_LND_SIMLND_H */
