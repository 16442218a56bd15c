/*
 * The LND interface: what every transport (socklnd, lolnd, simlnd)
 * offers the message layer, and the upcalls it makes into it
 * (DESIGN.md, "The LND interface").
 *
 * An LND is registered with a node for one LND type (struct ul_lnd: an
 * ops table plus the LND-wide context: socklnd's loop and options,
 * simlnd's fabric). The node starts each NI of that type with
 * ops->startup() and stops it with ops->shutdown(). Everything runs on
 * the node's thread; nothing here locks.
 *
 * Send: the node hands the LND one struct ul_lnd_tx per message with the
 * complete LNet header, the next hop and the payload as fragments of the
 * application's memory. ops->send() returns 0 and later calls
 * up->tx_done() exactly once, never from inside ops->send(); or it
 * returns an error and never calls it.
 *
 * Receive: when the LND has read and decoded an LNet header it calls
 * up->parse(). The node validates the header against its state,
 * matches it, and fills the struct ul_lnd_rx with where the payload goes
 * (mlen bytes into iov; the other rlen - mlen bytes are skipped). The LND
 * then reads the payload straight into those fragments and calls
 * up->rx_done() exactly once (also for a dropped message: then msg is
 * NULL and mlen 0). If up->parse() returns an error the message is
 * malformed: the LND closes the connection (reference/wire.md §10.5) and
 * calls nothing else for it.
 *
 * Failures carry a health status (reference/health.md §4.1, §10): how
 * the LND classifies them decides which health value drops.
 */
#ifndef UL_CORE_LND_H
#define UL_CORE_LND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/hstatus.h"
#include "ulnet/nid.h"
#include "util/list.h"
#include "wire/wire.h"

struct ul_err;
struct ul_ni;
struct ul_node;
struct ul_timer_heap;

struct ul_lnd_ni;
struct ul_lnd_tx;

struct ul_lnd_ops {
	const char *name; /* "socklnd", "lolnd", "simlnd" */
	/*
	 * Start one NI: set lni->data, bind listeners. 0, or -errno with a
	 * message in err and nothing left behind.
	 */
	int (*startup)(struct ul_lnd_ni *lni, struct ul_err *err);
	/*
	 * Stop one NI: close its connections. Every tx the LND holds for it
	 * completes with up->tx_done(-ESHUTDOWN, LOCAL_DROPPED) and every
	 * rx in progress with up->rx_done(-ESHUTDOWN) before it returns.
	 */
	void (*shutdown)(struct ul_lnd_ni *lni);
	/*
	 * Queue tx toward tx->target_nid. 0: up->tx_done() follows,
	 * exactly once, later. -errno (nothing follows): -EHOSTUNREACH when
	 * the LND can never reach that NID, -ENOMEM.
	 */
	int (*send)(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx);
	/*
	 * Optional: the interface of an NI went down or came back (link
	 * monitor). An LND may close connections on down.
	 */
	void (*link_change)(struct ul_lnd_ni *lni, bool is_up);
	/*
	 * Optional: the LND-wide timeout in seconds (`net set --lnd-timeout`;
	 * the caller turns 0 into LNet's lnd_timeout). ctx is ul_lnd.ctx.
	 */
	void (*set_timeout)(void *ctx, uint32_t sec);
	/* Optional, with set_timeout: the timeout in force, in seconds. */
	uint32_t (*get_timeout)(void *ctx);
};

/* An LND registered with a node for one LND type. */
struct ul_lnd {
	const struct ul_lnd_ops *ops;
	void *ctx;	   /* LND-wide state, owned by whoever registered */
	uint32_t lnd_type; /* enum ulnet_lnd_type it serves */
};

struct ul_lnd_rx;

/*
 * The upcalls an LND makes, through a table so that an LND can be tested
 * against a mock node. The node's table is ul_node_lnd_upcalls.
 */
struct ul_lnd_upcalls {
	/*
	 * An LNet header arrived on lni from the peer NI from_nid (the NID
	 * the connection belongs to; routed traffic has another src_nid in
	 * hdr). 0 with *rx filled, or -EPROTO: close the connection.
	 */
	int (*parse)(struct ul_lnd_ni *lni, const struct ul_wire_lnet_hdr *hdr,
		     const struct ulnet_nid *from_nid, struct ul_lnd_rx *rx);
	/*
	 * The payload of rx is in place (status 0) or the connection failed
	 * before it was (negative errno; health REMOTE_ERROR).
	 */
	void (*rx_done)(struct ul_lnd_ni *lni, struct ul_lnd_rx *rx,
			int status);
	/*
	 * tx left (status 0, UL_HSTATUS_OK) or failed (negative errno and the
	 * health status that classifies the failure, health.md §10).
	 */
	void (*tx_done)(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx, int status,
			enum ul_hstatus hstatus);
	/*
	 * Optional (NULL: not called): every byte of tx is in the transport,
	 * which holds its tx_done until the peer is known to have them (or
	 * fails it resendably if they die with the connection). The node
	 * gives tx's credits back now. At most once per tx, before its
	 * tx_done; it must not call into the LND.
	 */
	void (*tx_sent)(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx);
	/*
	 * Optional (NULL: not called): what the LND learned about the
	 * process behind the peer NI nid. is_restarted false: its last
	 * connection was reset or closed by the peer, or a reconnect was
	 * refused; it may come back, so answers may still come.
	 * is_restarted true: it came back as a new incarnation (a hello
	 * with another incarnation); nothing sent to the old one will be
	 * answered. Called after the tx_done of every tx that this news
	 * decided, never from inside an op; it must not call into the LND.
	 */
	void (*peer_down)(struct ul_lnd_ni *lni, const struct ulnet_nid *nid,
			  bool is_restarted);
};

/* One NI as its LND sees it; the node owns it. */
struct ul_lnd_ni {
	struct ul_ni *ni;     /* core NI: nid, ifname, net tunables */
	struct ul_node *node; /* the node's; opaque to the LND */
	const struct ul_lnd_upcalls *up; /* how to reach the node */
	const struct ul_lnd *lnd;	 /* ops and LND-wide context */
	struct ul_timer_heap *timers;	 /* the instance's heap; now_ns */
	uint32_t pid;			 /* our LNet pid, ULNET_PID_LUSTRE */
	void *data;			 /* the LND's, set by startup */
};

/*
 * One message to transmit. The node owns it and everything it points to
 * until up->tx_done(); the LND may link it through lnd_link meanwhile.
 */
struct ul_lnd_tx {
	struct ul_list lnd_link;     /* the LND's queues */
	struct ul_wire_lnet_hdr hdr; /* complete; payload_length = nob */
	struct ulnet_nid target_nid; /* next hop: a peer NI on lni's net */
	uint32_t target_pid;
	const struct iovec *iov; /* payload fragments (app memory) */
	uint32_t niov;
	uint32_t nob;	      /* payload bytes, hdr.payload_length */
	uint64_t deadline_ns; /* message deadline (health.md §3) */
	/*
	 * Set by the LND before it fails tx with NETWORK_TIMEOUT when the
	 * peer cannot have taken the message (its connection timed out with
	 * the bytes unacknowledged): the node may then resend it, which
	 * LNet never does for a network timeout. The node clears it.
	 */
	bool is_undelivered;
};

/*
 * One message being received, filled by up->parse(). The iov array
 * belongs to the node and stays valid until up->rx_done().
 */
struct ul_lnd_rx {
	const struct iovec *iov; /* where mlen bytes go */
	uint32_t niov;
	uint32_t mlen; /* bytes to deliver into iov */
	uint32_t rlen; /* payload bytes on the wire (skip rlen - mlen) */
	void *msg;     /* the node's; NULL when the message is dropped */
};

#endif /* UL_CORE_LND_H */
