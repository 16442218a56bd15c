/*
 * socklnd: the kernel's socklnd protocol (V3 over IPv4 TCP) as an LND, so
 * that a ulnet node talks to other ulnet nodes and to kernel Lustre nodes
 * (reference/wire.md; failure classes from reference/health.md §10).
 *
 * One struct ul_socklnd serves every NI of type tcp on one loop. The
 * integrator creates it with ul_socklnd_create() and registers
 *	struct ul_lnd { &ul_socklnd_ops, socklnd, ULNET_LND_SOCK }
 * with the node; the node then starts each tcp NI through the ops. Each
 * NI listens on its own IPv4 address (the NID's) on accept_port, connects
 * out from that address, and speaks V3 only: a V1/V2/V4 connector gets
 * our V3 hello with ctype NONE, which is how the kernel answers a version
 * it does not speak (wire.md §4.6).
 *
 * Everything runs on the loop thread but the large writes and payload
 * reads that opts.nscheds scheduler threads may do (socklnd_sched.c). Every upcall
 * comes from the loop thread, never from inside ops->send(); tx_done is
 * delivered at the end of the I/O callback, timer or before-sleep hook
 * that decided it. Do not call ops->shutdown() from inside an upcall.
 */
#ifndef UL_LND_SOCKLND_H
#define UL_LND_SOCKLND_H

#include <stddef.h>
#include <stdint.h>

#include "core/lnd.h"
#include "ulnet/nid.h"
#include "ulnet/ulnet.h"

struct ul_loop;
struct ul_log;
struct ul_socklnd;

struct ul_socklnd_opts {
	uint16_t accept_port;		 /* acceptor port, CONTROL conns; 988 */
	uint16_t accept_port_bulk;	 /* BULK/ANY conns; 0: accept_port */
	enum ulnet_accept accept;	 /* SECURE, ALL, NONE */
	enum ulnet_src_port src_port;	 /* AUTO: privileged when euid 0 */
	unsigned int conns_per_peer;	 /* BULK_IN and BULK_OUT each, for an
					 * NI without its own; 0: from the
					 * link speed, as LNet; 0 */
	int typed_conns;		 /* 1: CONTROL+BULK, 0: one ANY conn */
	unsigned int sock_timeout_sec;	 /* stall on an established conn; 50 */
	unsigned int keepalive_sec;	 /* silence before a NOOP; 30, 0 off */
	unsigned int keepalive_retry_ms; /* between NOOPs unanswered; 10000 */
	unsigned int accept_timeout_ms;	 /* passive handshake bound; 5000 */
	/*
	 * Passive handshakes in progress, in all (every NI) and from one
	 * source address. A connection past either limit evicts the oldest
	 * handshake (of that address, or the oldest that sent nothing yet)
	 * instead of being refused, so a flood of silent connections
	 * cannot keep a new peer out. 256 and 16; 0: no limit.
	 */
	unsigned int max_handshakes;
	unsigned int max_handshakes_per_addr;
	/*
	 * Peers of one NI known only from the connections they opened (we
	 * never dialled them): a hello from a new NID past this is answered
	 * NONE. 65536; 0: no limit. Such a peer is forgotten as soon as its
	 * last connection closes, as the kernel forgets it.
	 */
	unsigned int max_hello_peers;
	/*
	 * 1: leave the host's routing alone. 0 (the default, as ksocklnd's
	 * skip_mr_route_setup): NIs given by interface that share a subnet
	 * get a routing table and a source rule each, so that each NI's
	 * traffic leaves through its own interface (socklnd_mrroute.c;
	 * needs CAP_NET_ADMIN, else a warning).
	 */
	unsigned int skip_mr_route_setup;
	/*
	 * Held txs that no one waits for (ACKs, REPLYs, requests whose
	 * answer is late) are looked at this often (SIOCOUTQ), unless a
	 * connection holds SOCK_ACK_POLL_HELD of them; 5.
	 */
	unsigned int ack_poll_idle_ms;
	/*
	 * Scheduler threads that write and read for the connections
	 * (ksocklnd's nscheds, but in all rather than per CPT): a write of
	 * SOCK_JOB_MIN_BYTES or more, or the read of a payload with that
	 * much still to come, is handed to one of them while
	 * sched_min_conns connections are that busy, so two busy
	 * connections copy on two CPUs. 0 (the default): no thread, every
	 * write and read on the loop thread. Read when the first NI starts.
	 */
	unsigned int nscheds;
	/*
	 * Hand over only while this many connections or more move bulk
	 * data (sock_sched_wanted()): one busy connection alone copies on
	 * the loop thread. 2; 1 (or 0): whenever there is bulk data.
	 */
	unsigned int sched_min_conns;
	unsigned int min_reconnect_ms; /* 1000 */
	unsigned int max_reconnect_ms; /* 60000 */
	int nodelay;		       /* TCP_NODELAY; 1 */
	const struct ul_log *log;      /* NULL: no log; must outlive s */
};

/* The LND; register it as struct ul_lnd { &ul_socklnd_ops, s, SOCK }. */
extern const struct ul_lnd_ops ul_socklnd_ops;

/* LNet's defaults (wire.md §2), accept SECURE, src_port AUTO. */
void ul_socklnd_opts_init(struct ul_socklnd_opts *opts);

/*
 * Create the LND on loop (which must outlive it), with a copy of opts.
 * 0 and *out, -EINVAL for inconsistent options, -ENOMEM.
 */
int ul_socklnd_create(struct ul_loop *loop, const struct ul_socklnd_opts *opts,
		      struct ul_socklnd **out);
/*
 * Free the LND. Every NI must have been shut down first. Call it on the
 * loop thread; NULL is fine.
 */
void ul_socklnd_destroy(struct ul_socklnd *s);

/*
 * LNet's socklnd default for an NI's conns_per_peer, given its link speed
 * in Mb/s: floor(log2(speed / 1000)) / 2 + 1, a speed below 1 Gb/s or
 * unknown (<= 0) counting as 1 Gb/s; 10 Gb/s gives 2, 100 Gb/s gives 4
 * (lnetctl.md §6.1 Defaults). An NI started without a count of its own
 * gets this for the speed sysfs gives its interface then.
 */
unsigned int ul_socklnd_conns_for_speed(int speed_mbps);

/*
 * The options in force, to be changed on the loop thread only
 * (runtime/params.c): each is read where it is used, so a change reaches
 * the next connection (nodelay, max_handshakes*, max_hello_peers,
 * accept_timeout_ms), the next failed attempt (min/max_reconnect_ms),
 * the next tick (keepalive_sec) or the next NI started (conns_per_peer).
 * The ports, accept, src_port, typed_conns and log must not change.
 */
struct ul_socklnd_opts *ul_socklnd_live_opts(struct ul_socklnd *s);

/* ---- Introspection, for tests and for "ulnetctl" style listings ----- */

struct ul_socklnd_conn_info {
	uint32_t ctype;	     /* our own view: enum ul_wire_conn_type */
	int is_passive;	     /* the peer connected to us */
	uint16_t local_port; /* host order */
	uint16_t peer_port;
	uint64_t tx_bytes; /* bytes written, headers included */
	uint64_t rx_bytes; /* bytes read after the handshake */
	uint64_t tx_msgs;  /* LNET messages completely written */
	uint64_t rx_msgs;  /* LNET messages completely received */
	uint64_t tx_noops; /* NOOPs written */
	uint64_t rx_noops; /* NOOPs received */
	size_t txq_len;	   /* messages queued, not yet fully written */
	uint64_t tx_jobs;  /* writes handed to a scheduler thread */
	uint64_t rx_jobs;  /* payload reads handed to a scheduler thread */
	int tos;	   /* IP_TOS of the socket now */
};

/*
 * The established connections between the local NI ni_nid and the peer
 * NI peer_nid: fills up to cap entries of out (out may be NULL with cap
 * 0) and returns how many there are, or -ENOENT for an unknown local NI.
 */
int ul_socklnd_conns(const struct ul_socklnd *s, const struct ulnet_nid *ni_nid,
		     const struct ulnet_nid *peer_nid,
		     struct ul_socklnd_conn_info *out, size_t cap);
/* Established connections of every NI, and handshakes in progress. */
size_t ul_socklnd_nconns(const struct ul_socklnd *s);
size_t ul_socklnd_nhandshakes(const struct ul_socklnd *s);
/* Peers every NI knows (with connections, queued messages, or kept). */
size_t ul_socklnd_npeers(const struct ul_socklnd *s);
/*
 * The stall timeout of established connections, in seconds: the
 * sock_timeout_sec option, then what `net set --lnd-timeout` sets through
 * the LND's set_timeout op.
 */
unsigned int ul_socklnd_timeout(const struct ul_socklnd *s);
/* The listening port of the NI ni_nid (after startup), or -ENOENT. */
int ul_socklnd_listen_port(const struct ul_socklnd *s,
			   const struct ulnet_nid *ni_nid);

#endif /* UL_LND_SOCKLND_H */
