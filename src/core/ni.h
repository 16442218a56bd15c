/*
 * Local nets and local NIs (LNet's struct lnet_net and struct lnet_ni).
 *
 * A local net holds the NIs of one LNet network in configuration order;
 * the instance keeps its nets in configuration order too, and both orders
 * decide selection ties (reference/selection.md §1). The loopback net
 * "lo" with its NI 0@lo exists from ul_core_create() on and cannot be
 * added or deleted.
 *
 * Lifetime: nets and NIs are refcounted. The instance's list holds one
 * reference; an NI holds one on its net. Deleting unlinks the object from
 * every lookup and marks it dead, then drops the list's reference; the
 * memory goes when the last holder calls the put function (STYLE.md,
 * two-phase delete). Pointers returned by the find functions are borrowed:
 * valid until the next configuration change unless the caller takes a
 * reference.
 */
#ifndef UL_CORE_NI_H
#define UL_CORE_NI_H

#include <stdbool.h>
#include <stdint.h>

#include "ulnet/nid.h"
#include "ulnet/ulnet.h"
#include "util/list.h"

struct ul_core;
struct ul_err;
struct ul_node_ni;

/* The unset selection priority (LNET_MAX_SELECTION_PRIORITY). */
#define UL_PRIO_UNSET UINT32_MAX
/* Full health (LNET_MAX_HEALTH_VALUE); health runs 0..1000. */
#define UL_HEALTH_MAX 1000
/* A device whose NUMA node is unknown, or a buffer placed anywhere. */
#define UL_NUMA_ANY (-1)
/* Interface names are as long as Linux's (IFNAMSIZ, with the NUL). */
#define UL_IFNAME_SIZE 16

/*
 * Health statistics of a local NI: failed attempts counted by health
 * status (reference/health.md §4.2, "health stats" of net show -v 2).
 */
struct ul_ni_hstats {
	uint32_t interrupts; /* LOCAL_INTERRUPT */
	uint32_t dropped;    /* LOCAL_DROPPED */
	uint32_t aborted;    /* LOCAL_ABORTED */
	uint32_t no_route;   /* LOCAL_NO_ROUTE */
	uint32_t timeouts;   /* LOCAL_TIMEOUT */
	uint32_t error;	     /* LOCAL_ERROR */
};

/*
 * Latency samples of one operation (lnetctl.md §18 "Statistics"): how
 * long a PUT took from commit to its local send completion (PUT_EGRESS),
 * a GET to its REPLY (GET_RTT) and a PUT to its ACK (PUT_ACK), kept per
 * local NI and per peer NI and shown by net show / peer show -v as
 * put_egress_*, get_rtt_*, put_ack_*.
 */
enum ul_lat_op {
	UL_LAT_PUT_EGRESS,
	UL_LAT_GET_RTT,
	UL_LAT_PUT_ACK,
	UL_LAT_NR,
};

struct ul_lat {
	uint64_t samples;
	uint64_t sum_ns;
	uint64_t min_ns; /* 0 while there is no sample */
	uint64_t max_ns;
};

/* Add one sample of ns nanoseconds; 0 is no sample (LNet skips it). */
void ul_lat_record(struct ul_lat *l, uint64_t ns);
/* The mean of the samples, 0 without any. */
uint64_t ul_lat_avg_ns(const struct ul_lat *l);

enum ul_ni_status {
	UL_NI_STATUS_UP,   /* published as LNET_NI_STATUS_UP */
	UL_NI_STATUS_DOWN, /* published as LNET_NI_STATUS_DOWN */
};

/*
 * Per-net tunables (lnetctl.md §6.1: they belong to the net; every NI of
 * the net reports them). A negative field in a request means "not given".
 */
struct ul_net_tunables {
	int peer_tx_credits;	 /* credits toward one peer NI (peer_credits) */
	int credits;		 /* transmit credits of each NI */
	int peer_timeout_sec;	 /* peer_timeout */
	int peer_buffer_credits; /* router buffer credits per peer */
};

struct ul_net {
	struct ul_list core_link; /* on ul_core.nets, configuration order */
	struct ul_list nis;	  /* struct ul_ni.net_link, config order */
	uint32_t net_id;	  /* ulnet_net_make(type, num) */
	uint32_t nnis;		  /* NIs on nis */
	uint32_t sel_priority;	  /* UDSP net priority, lower better */
	uint32_t seq;		  /* round-robin stamp (selection.md §4.5) */
	struct ul_net_tunables tun;
	/*
	 * net_last_alive, for a router (routing.md §7.5, core/rtrchk.h):
	 * when an LNet ping last arrived on one of its NIs (ns, node
	 * time), valid once has_rtr_alive. Node thread.
	 */
	uint64_t rtr_alive_ns;
	bool has_rtr_alive;
	int refcount;
	bool is_dead; /* unlinked; freed on the last put */
};

struct ul_ni {
	struct ul_list net_link; /* on ul_net.nis */
	struct ul_net *net;	 /* holds a reference */
	struct ulnet_nid nid;
	char ifname[UL_IFNAME_SIZE]; /* "" for an NI given by NID only */
	int numa_node;		     /* device NUMA node or UL_NUMA_ANY */
	int tx_credits;		     /* may go negative: messages queued */
	int healthv;		     /* 0..UL_HEALTH_MAX */
	bool is_fatal;		     /* ni_fatal_error_on: device down */
	enum ul_ni_status status;
	uint32_t sel_priority; /* UDSP NI priority, lower better */
	uint32_t seq;	       /* round-robin stamp (selection.md §4.5) */
	/* LND tunables of this NI (lnetctl.md §6.1: per NI, not per net) */
	int conns_per_peer; /* 0: the LND's default */
	int tos;	    /* -1: the LND's default */
	uint64_t cpt_mask;  /* CPTs the NI is bound to; 0: every CPT */
	int refcount;
	bool is_dead;
	/* Message layer (core/node.h): set and read on the node's thread. */
	struct ul_node_ni *node_ni;   /* LND state while started, else NULL */
	struct ulnet_msg_stats stats; /* per message type, payload bytes */
	struct ul_ni_hstats hstats;
	struct ul_lat lat[UL_LAT_NR];
};

/* LNet's socklnd defaults for a net's tunables (lnetctl.md §6.1). */
void ul_net_tunables_default(struct ul_net_tunables *tun);
/*
 * Whether an NI added to net with tun (NULL or negative fields: LNet's
 * defaults) asks for the tunables the net has. LNet compares the two
 * as they are, so peer credits above the credits, which the net's first
 * NI had lowered, differ too (lnet_startup_lndnet).
 */
bool ul_net_tunables_match(const struct ul_net *net,
			   const struct ul_net_tunables *tun);
/*
 * The CPT of nid among ncpt partitions, as LNet's lnet_nid_cpt_hash()
 * gives it on a little-endian node (0 for one CPT): a 4-byte NID's
 * eight bytes summed, mod ncpt, except on kfi, whose 64-bit NID goes
 * through hash_long; a large (IPv6) NID hashes its address words and
 * its net with hash_32. `cpt-of-nid` and the order of `peer show`.
 */
unsigned int ul_nid_cpt_hash(const struct ulnet_nid *nid, unsigned int ncpt);

/*
 * Add an NI with this NID to its net, creating the net (last in order)
 * if needed; ifname may be NULL or "" (an NI given by NID). tun may be
 * NULL; it applies only when the net is created (later NIs keep the
 * net's values, as LNet does). Errors, with lnetctl's text in err:
 * -ENODEV for the lo net, -EUSERS when a route to the net exists,
 * -EEXIST for a NID or an interface already on the net, -ENOSPC when
 * max_interfaces - 1 NIs besides 0@lo exist (LNet counts lo against the
 * limit), -EINVAL for the ANY NID, -ENOMEM. Calls the observer's
 * on_net_add (new net) and on_ni_add. *out (may be NULL) is borrowed.
 */
int ul_ni_add(struct ul_core *c, const struct ulnet_nid *nid,
	      const char *ifname, int numa_node,
	      const struct ul_net_tunables *tun, struct ul_ni **out,
	      struct ul_err *err);
/*
 * Delete the NI with this NID; its net goes with its last NI, and then
 * the peers and routes on it as ul_peer_on_net_del() says. -ENOENT.
 */
int ul_ni_del(struct ul_core *c, const struct ulnet_nid *nid,
	      struct ul_err *err);
/*
 * Take back an NI that ul_ni_add() added and that could not start: as
 * ul_ni_del(), but a net that goes with it leaves peers and routes as
 * they were (ul_peer_on_net_undo()), as LNet drops a net that failed to
 * start. -ENOENT.
 */
int ul_ni_add_undo(struct ul_core *c, const struct ulnet_nid *nid);
/*
 * Delete a net and all its NIs, then the peers and routes on it
 * (ul_peer_on_net_del()): -ENODEV for lo, -EINVAL if unknown.
 */
int ul_net_del(struct ul_core *c, uint32_t net_id, struct ul_err *err);

struct ul_net *ul_net_find(const struct ul_core *c, uint32_t net_id);
struct ul_ni *ul_ni_find(const struct ul_core *c, const struct ulnet_nid *nid);
struct ul_ni *ul_ni_find_by_ifname(const struct ul_net *net,
				   const char *ifname);
/* The loopback NI 0@lo. */
struct ul_ni *ul_core_lo_ni(const struct ul_core *c);

/*
 * Health of a local net as selection sees it (health.md §1): the highest
 * health among its NIs without the fatal flag, 0 if all are fatal.
 */
int ul_net_healthv(const struct ul_net *net);

/* For ul_core_create() and ul_core_destroy(): the lo net; every net. */
int ul_ni_add_lo(struct ul_core *c);
void ul_net_del_all(struct ul_core *c);

void ul_net_get(struct ul_net *net);
void ul_net_put(struct ul_net *net);
void ul_ni_get(struct ul_ni *ni);
void ul_ni_put(struct ul_ni *ni);

#endif /* UL_CORE_NI_H */
