/*
 * socklnd internals shared by socklnd*.c: the LND, its NIs, peers,
 * connections and queued messages. Not for use outside src/lnd/socklnd*.
 *
 * Ownership: struct ul_socklnd owns its NIs (sock_ni, created by startup,
 * freed by shutdown); an NI owns its peers and its passive handshakes; a
 * peer owns its connections. A closed connection becomes a zombie on
 * s->zombies and is freed in the before-sleep hook, never inside a
 * callback that may still be on the stack. Failed and completed txs go to
 * s->done and reach tx_done at the end of the event that decided them
 * (sock_deliver()), so no upcall ever runs in the middle of a list walk.
 * All of it belongs to the loop thread; scheduler threads
 * (socklnd_sched.c) only run the writes handed to them in a job.
 */
#ifndef UL_LND_SOCKLND_INT_H
#define UL_LND_SOCKLND_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lnd/socklnd.h"
#include "util/loop.h"
#include "util/list.h"
#include "util/log.h"
#include "util/timer.h"
#include "wire/wire.h"

/* ksock header plus a nid4 LNet header: what precedes a V3 payload. */
#define SOCK_HDR_MAX (UL_WIRE_KSOCK_HDR_SIZE + UL_WIRE_LNET_HDR_NID4_SIZE)
/* Messages smaller than this in all go on CONTROL (min_bulk). */
#define SOCK_MIN_BULK 1024u
/* Period of each NI's housekeeping tick (stalls, deadlines, keepalive). */
#define SOCK_TICK_NS 200000000ull
/* Bytes one connection may read or write per callback: fairness. */
#define SOCK_IO_BUDGET (1u << 20)
/* Read-ahead buffer of a connection's receive side. */
#define SOCK_RX_STAGE_SIZE 16384u
/* iovec entries per writev/readv. */
#define SOCK_IOV_MAX 64
/*
 * Every LNet message completes only once TCP has acknowledged its last
 * byte (or a PUT or GET once its answer came), and gives its credits
 * back once written (docs/design-notes.md). While a PUT without an ACK
 * waits (its SEND event, the last, waits), or while a connection holds
 * SOCK_ACK_POLL_HELD txs, look after each flush and at least this
 * often; otherwise (ACKs and REPLYs: no one waits; PUTs and GETs: their
 * answer ends the wait) every opts.ack_poll_idle_ms: a 1 ms timer and a
 * look after each flush cost a loop thread that serves round trips 2 us
 * each (bench_lnet).
 */
#define SOCK_ACK_POLL_NS 1000000ull
/*
 * Under a stream of small messages (a receiver's ACKs), 5 ms of held
 * txs are thousands of messages and their descriptors, a working set
 * that no longer fits the caches and that malloc keeps growing and
 * trimming (a page fault per 4 KiB); looking once this many wait costs
 * one ioctl per this many messages and none on a round trip.
 * bench_lnet, 8 B PUT + ACK with 64 credits: 474,000/s without it,
 * 704,000/s with it (same hour).
 */
#define SOCK_ACK_POLL_HELD 32u
/* Route table of an interface for Multi-Rail routing: this + ifindex. */
#define SOCK_MR_TABLE_BASE 48000u
/* Consecutive refusals before we stop asking for more conns (§4.5). */
#define SOCK_MAX_REFUSALS 3

#define SOCK_NS_PER_MS 1000000ull
#define SOCK_NS_PER_SEC 1000000000ull

/*
 * A write or read of at least this many bytes goes to a scheduler thread
 * when sock_sched_wanted() (there are threads, and other connections are
 * busy too); smaller ones stay on the loop thread, where a hand-over
 * would cost more than the copy.
 */
#define SOCK_JOB_MIN_BYTES 65536u
/*
 * And at most this many: the bytes of a job are accounted (credits back,
 * txs on tx_unacked) only when it comes back.
 */
#define SOCK_JOB_MAX_BYTES (4u << 20)
/* sock_sched_wanted() counts busy connections over windows this long. */
#define SOCK_BULK_WINDOW_NS 10000000ull

struct sock_ni;
struct sock_peer;
struct sock_conn;
struct sock_sched;

/*
 * A listening socket on one address and port, shared by every NI on that
 * address (two nets on one interface, as LNet's single acceptor serves
 * them all): the acceptor request names the NI a connection is for.
 */
struct sock_listener {
	struct ul_list link; /* on ul_socklnd.listeners */
	struct ul_socklnd *s;
	uint32_t ip;	     /* host order */
	uint16_t port;	     /* as asked: 0 means an ephemeral port */
	uint16_t bound_port; /* as bound */
	int fd;
	struct ul_io io;
	int refs; /* NIs using it */
};

/* Connections a busy-polling loop reads without asking epoll. */
#define SOCK_HOT_CONNS 2

struct ul_socklnd {
	struct ul_loop *loop;
	struct ul_socklnd_opts opts;
	struct ul_list nis;	   /* struct sock_ni.link */
	struct ul_list flush;	   /* conns with output to try: flush_link */
	struct ul_list done;	   /* struct sock_tx to complete: link */
	struct ul_list zombies;	   /* closed conns to free: link */
	struct ul_list listeners;  /* struct sock_listener.link */
	struct ul_list ack_wait;   /* conns with tx_unacked: ack_link */
	struct ul_list news;	   /* struct sock_news for peer_down */
	struct ul_list kept;	   /* conns with rx_kept: kept_link */
	struct ul_timer ack_timer; /* armed while ack_wait is not empty */
	/* Stall timeout of established conns (net set --lnd-timeout). */
	unsigned int timeout_sec;
	uint8_t skip_buf[65536]; /* sink for skipped payload bytes */
	/*
	 * Read-ahead buffer of the connection being read (socklnd_rx.c).
	 * One for all: a receive callback consumes what it staged before
	 * it returns (or copies the rest to the conn's rx_kept when it
	 * stops for output), and callbacks never nest, so a connection
	 * costs no buffer while it waits (thousands of peers, three
	 * connections each).
	 */
	uint8_t rx_stage[SOCK_RX_STAGE_SIZE];
	bool is_privileged; /* src ports 1023..512 */
	/* The kernel refused our routing tables (socklnd_mrroute.c). */
	bool is_mr_denied;
	/*
	 * This turn's before-sleep flush is over (set right after it,
	 * cleared before it): a tx queued from then on (a tx_done that our
	 * own hook delivers, or a later hook such as the node's, posting
	 * what returned credits released) wakes the loop for another turn.
	 */
	bool is_flushed;
	/* Freed tx descriptors kept for reuse (sock_tx_free()). */
	struct sock_tx *tx_pool;
	unsigned int tx_pool_len;
	/* Scheduler threads (socklnd_sched.c); NULL: every write here. */
	struct sock_sched *sched;
	/*
	 * The connections that read bytes last (socklnd_rx.c), which a
	 * busy-polling loop reads directly (sock_busy_poll). A slot is
	 * cleared when its connection is freed.
	 */
	struct sock_conn *hot[SOCK_HOT_CONNS];
	unsigned int hot_next; /* the slot the next newcomer takes */
};

/* Freed tx descriptors one socklnd keeps for the next messages. */
#define SOCK_TX_POOL_MAX 256

/*
 * One NI: its listeners, peers and passive handshakes. A passive
 * connection sits on the first NI of its listener until its acceptor
 * request names the NI it is for, then moves there.
 */
struct sock_ni {
	struct ul_list link; /* on ul_socklnd.nis */
	struct ul_socklnd *s;
	struct ul_lnd_ni *lni;
	struct ulnet_nid nid;
	uint32_t ip;	      /* host order, the NID's address */
	uint64_t incarnation; /* CLOCK_REALTIME ns at startup (§4.4) */
	/* accept_port and accept_port_bulk (NULL, or the same one twice) */
	struct sock_listener *listener[2];
	struct ul_list peers;	/* struct sock_peer.link */
	struct ul_list passive; /* handshaking struct sock_conn.link */
	struct ul_timer tick;
	bool is_stopping;
	/* The link went down: the next tick closes every connection. */
	bool is_link_down;
	/* Peers known only from connections they opened (!is_dialled). */
	unsigned int nhello_peers;
	/*
	 * Multi-Rail routing (socklnd_mrroute.c): the NI's interface, its
	 * subnet's prefix length, the table; mr_ifindex 0 when the NI has
	 * no interface (given by NID) or no subnet; has_mr while the table
	 * and rule are in place.
	 */
	char mr_ifname[16];
	int mr_ifindex;
	uint8_t mr_plen;
	uint32_t mr_table;
	bool has_mr;
	char nidstr[ULNET_NIDSTR_SIZE];
};

/* A peer NI, known while it has conns, handshakes or queued txs. */
struct sock_peer {
	struct ul_list link; /* on sock_ni.peers */
	struct sock_ni *ni;
	struct ulnet_nid nid;
	uint32_t ip;  /* host order */
	uint32_t pid; /* expected in hellos; UL_WIRE_PID_ANY: any */
	bool has_incarnation;
	uint64_t incarnation; /* the peer's, from its hellos */
	/*
	 * The incarnation of the last connection, kept after it closed so
	 * that a restart is recognised (peer_down); the peer is kept
	 * that long, a timeout after its last connection was lost.
	 */
	bool has_last_incarnation;
	uint64_t last_incarnation;
	uint64_t lost_ns;	   /* its last connection closed, 0: never */
	struct ul_list conns;	   /* established: sock_conn.link */
	struct ul_list connecting; /* active handshakes: sock_conn.link */
	struct ul_list txq;	   /* sock_tx waiting for a conn */
	struct ul_timer reconnect; /* fires at retry_ns */
	uint64_t retry_ns;	   /* no connect attempt before this */
	uint32_t backoff_ms;	   /* next failure waits this long */
	int nrefused;		   /* consecutive NONE replies */
	bool wants_conns;	   /* we sent to it: open the full set */
	/*
	 * We have dialled it, or had to send with no connection up: the
	 * kernel's route (conn_cb). Without one, the peer is known only from
	 * the connections it opened, and it is forgotten with the last of
	 * them (ksocknal_close_conn_locked).
	 */
	bool is_dialled;
	uint64_t last_rx_ns; /* any byte from the peer */
	/*
	 * TCP acknowledged more of what we wrote to it: with last_rx_ns,
	 * the kernel's ksnp_last_alive (socklnd_cb.c ksocknal_transmit).
	 */
	uint64_t last_ack_ns;
	uint64_t last_keepalive_ns;
	char nidstr[ULNET_NIDSTR_SIZE];
};

/* Connection life cycle (one enum; sock_conn_set_state() moves it). */
enum sock_conn_state {
	SOCK_CONN_CONNECTING,  /* active: TCP connect in progress */
	SOCK_CONN_RECV_HELLO,  /* active: request and hello sent, reading
				* the reply hello */
	SOCK_CONN_RECV_ACR,    /* passive: reading the acceptor request */
	SOCK_CONN_RECV_PHELLO, /* passive: reading the connector's hello */
	SOCK_CONN_ESTABLISHED, /* messages both ways */
	SOCK_CONN_CLOSED,      /* a zombie waiting to be freed */
};

/* Receive state of an established connection (wire.md §7.1). */
enum sock_rx_state {
	SOCK_RX_KSH,	  /* reading the 24-byte ksock header */
	SOCK_RX_LNET_HDR, /* reading the 72-byte LNet header */
	SOCK_RX_PAYLOAD,  /* reading mlen bytes into rx.iov */
	SOCK_RX_SKIP,	  /* discarding rlen - mlen bytes */
};

struct sock_conn {
	struct ul_list link; /* peer->conns/connecting, ni->passive, zombies */
	struct ul_list flush_link; /* on s->flush while output waits */
	struct sock_ni *ni;
	struct sock_peer *peer; /* NULL during a passive handshake */
	int fd;
	struct ul_io io;
	enum sock_conn_state state;
	uint32_t ctype; /* our view (wire.md §4.3); NONE before the hello */
	bool is_passive;
	bool is_user_port; /* passive, source port > 1023 (accept=all) */
	uint32_t local_ip, peer_ip; /* host order */
	uint16_t local_port, peer_port;
	int close_status; /* why it closed, for the txs it fails */

	/*
	 * Handshake. What we send in it (request and hello, or the reply)
	 * is small and goes out in one write on a fresh socket; a short
	 * write fails the handshake.
	 */
	struct ul_timer hs_timer; /* handshake deadline */
	uint64_t hs_start_ns;	  /* accepted or dialled: age for eviction */
	uint8_t hs_in[UL_WIRE_HELLO_MAX_SIZE + UL_WIRE_ACR_V2_SIZE];
	size_t hs_in_len;

	/*
	 * Transmit. Progress is TCP's: the bytes the peer acknowledged
	 * (stats.tx_bytes minus SIOCOUTQ) growing, read by the NI tick, or
	 * output starting with nothing outstanding.
	 */
	struct ul_list txq;	   /* struct sock_tx.link, in write order */
	struct ul_list tx_unacked; /* LNet txs written whole, awaiting
				    * TCP's acknowledgement: sock_tx.link */
	struct ul_list ack_link;   /* on s->ack_wait while tx_unacked */
	uint64_t txq_nob;	   /* bytes queued, not yet written */
	uint64_t tx_acked_bytes;   /* of stats.tx_bytes, at the last look */
	uint32_t nheld_req;	   /* PUTs without ACK on tx_unacked */
	uint32_t nunacked;	   /* txs on tx_unacked */
	uint64_t tx_progress_ns;   /* last acknowledgement progress */
	bool is_pollout;	   /* EPOLLOUT armed after EAGAIN */
	/*
	 * The write a scheduler thread does for this conn (allocated at
	 * the first one), and whether it is out: then the head of txq is
	 * being written elsewhere and nothing here writes to fd, removes
	 * one of the txs it covers or closes fd before sock_sched_wait().
	 */
	struct sock_job *job;
	bool is_job_out;
	uint64_t job_nob;     /* bytes of txq's head the job out writes */
	uint64_t bulk_window; /* the last sock_sched_wanted() window, + 1 */

	/* Receive. */
	enum sock_rx_state rx_state;
	uint8_t rx_hbuf[SOCK_HDR_MAX];
	size_t rx_hlen; /* bytes in rx_hbuf for this header */
	struct ul_wire_ksock_hdr rx_ksh;
	struct ul_wire_lnet_hdr rx_hdr;
	struct ul_lnd_rx rx; /* filled by parse */
	bool has_rx;	     /* parse done, rx_done owed */
	uint32_t rx_iov_idx; /* payload position in rx.iov */
	size_t rx_iov_off;
	uint32_t rx_left;	 /* bytes left in this stage */
	uint64_t rx_progress_ns; /* last byte read */
	/*
	 * The payload read a scheduler thread does for this conn, and
	 * whether it is out: then EPOLLIN is not watched, nothing here
	 * reads from fd, and neither rx_done nor rx_abort runs, nor a
	 * close, before it is back (sock_conn_rjob_reclaim()).
	 */
	struct sock_job *rjob;
	bool is_rjob_out;
	bool is_draining; /* sock_conn_drain(): every read here */
	/*
	 * This conn's bytes in the read-ahead buffer: the shared
	 * s->rx_stage, or rx_kept when set (socklnd_rx.c). In the shared
	 * one only during a receive callback.
	 */
	uint32_t rx_stage_off; /* first unused byte */
	uint32_t rx_stage_len; /* bytes read into rx_stage */
	/*
	 * Staged bytes this conn kept when it stopped for output (their
	 * own copy, as rx_stage is shared), or NULL; then the conn is on
	 * s->kept and the before-sleep hook reads on from them.
	 */
	uint8_t *rx_kept;
	struct ul_list kept_link;

	struct ul_socklnd_conn_info stats;
};

/* News of a peer for the node, delivered after the txs (core/lnd.h). */
struct sock_news {
	struct ul_list link; /* on s->news */
	struct sock_ni *ni;
	struct ulnet_nid nid;
	bool is_restarted;
};

/* One message on a queue: the node's tx (NULL for a NOOP) and its header. */
struct sock_tx {
	struct ul_list link; /* peer->txq, conn->txq, s->done */
	struct ul_lnd_tx *tx;
	struct sock_ni *ni;
	uint8_t hdr[SOCK_HDR_MAX];
	uint32_t hdr_len;
	uint64_t nob;	    /* header + payload */
	uint64_t written;   /* bytes of it on the wire */
	uint64_t end_bytes; /* conn's stats.tx_bytes at its last byte */
	int status;	    /* s->done: tx_done's status and hstatus */
	enum ul_hstatus hstatus;
};

/* socklnd.c */
struct sock_peer *sock_peer_find(struct sock_ni *ni,
				 const struct ulnet_nid *nid);
struct sock_peer *sock_peer_find_or_add(struct sock_ni *ni,
					const struct ulnet_nid *nid,
					uint32_t pid);
void sock_peer_connect_next(struct sock_peer *peer, uint64_t now_ns);
void sock_peer_fail_txs(struct sock_peer *peer, int status, enum ul_hstatus hs);
void sock_deliver(struct ul_socklnd *s);
void sock_tx_complete(struct sock_tx *st, int status, enum ul_hstatus hs);
/* Queue peer_down news for the node (is_restarted: a new incarnation). */
void sock_peer_news(struct sock_peer *peer, bool is_restarted);
enum ul_hstatus sock_hstatus_of_errno(int err);
uint64_t sock_now(const struct sock_ni *ni);
/* BULK_IN and BULK_OUT conns each: the NI's conns_per_peer (set at start). */
unsigned int sock_ni_conns_per_peer(const struct sock_ni *ni);

/* socklnd_acceptor.c */
int sock_acceptor_start(struct sock_ni *ni, struct ul_err *err);
void sock_acceptor_stop(struct sock_ni *ni);
void sock_passive_on_io(struct sock_conn *conn, uint32_t events);
/* The port the NI's CONTROL listener is bound to, or -ENOENT. */
int sock_acceptor_port(const struct sock_ni *ni);

/* socklnd_mrroute.c */
/* Find ni's interface index and subnet (ifname NULL or "": none). */
void sock_mr_probe(struct sock_ni *ni, const char *ifname);
/*
 * Set up routing for every running NI that shares its subnet with another
 * one, and remove it from those that no longer do (opts.skip_mr_route_setup:
 * nothing).
 */
void sock_mr_update(struct ul_socklnd *s);
/* Remove ni's table and rule, if it has them. */
void sock_mr_remove(struct sock_ni *ni);

/* socklnd_conn.c */
int sock_conn_connect(struct sock_peer *peer, uint32_t ctype);
void sock_conn_close(struct sock_conn *conn, int status, enum ul_hstatus hs);
/*
 * Close conn and every other established connection to its peer from the
 * same address, as the kernel's ksocknal_close_conn_and_siblings does
 * after a protocol error or a checksum mismatch: whatever sent garbage
 * on one of them is not trusted on the others.
 */
void sock_conn_close_siblings(struct sock_conn *conn, int status,
			      enum ul_hstatus hs);
/* Read what conn's socket holds now (not from the receive path). */
void sock_conn_drain(struct sock_conn *conn);
/*
 * Close an established connection for a reason of this side's (a stall,
 * its link going down) after reading what its socket holds: our TCP
 * acknowledged those bytes, so the peer counts the messages in them as
 * delivered and never sends them again. Not from inside the receive path.
 */
void sock_conn_close_drained(struct sock_conn *conn, int status,
			     enum ul_hstatus hs);
void sock_conn_established(struct sock_conn *conn,
			   const struct ul_wire_hello *hello);
bool sock_conn_set_state(struct sock_conn *conn, enum sock_conn_state st);
void sock_socket_setup(struct sock_ni *ni, int fd);
/* The NI's ToS (net add --tos) on fd; -1 leaves the system's. */
void sock_socket_set_tos(const struct sock_ni *ni, int fd);
int sock_hello_build(struct sock_ni *ni, const struct ulnet_nid *dst,
		     uint32_t ctype, uint8_t *buf, size_t cap);
void sock_conn_on_io(struct ul_io *io, uint32_t events);
struct sock_conn *sock_conn_alloc(struct sock_ni *ni, int fd, bool is_passive,
				  uint64_t timeout_ns);
int sock_hs_write(struct sock_conn *conn, const void *buf, size_t len);
int sock_hs_read(struct sock_conn *conn, size_t want);
void sock_peer_close_conns(struct sock_peer *peer, int status,
			   enum ul_hstatus hs);
unsigned int sock_peer_count_type(const struct sock_peer *peer, uint32_t ctype);
const char *sock_ctype_name(uint32_t ctype);

/* socklnd_tx.c */
struct sock_tx *sock_tx_alloc_lnet(struct sock_ni *ni, struct ul_lnd_tx *tx);
struct sock_tx *sock_tx_alloc_noop(struct sock_ni *ni, uint64_t cookie);
/*
 * Give a tx descriptor back to socklnd s's pool (or free it). s is
 * passed, not read from st->ni: a tx_done upcall before may have ended
 * that NI.
 */
void sock_tx_free(struct ul_socklnd *s, struct sock_tx *st);
/* Free the pooled descriptors (at destroy). */
void sock_tx_pool_drain(struct ul_socklnd *s);
struct sock_conn *sock_conn_choose(struct sock_peer *peer,
				   const struct sock_tx *st);
void sock_conn_queue_tx(struct sock_conn *conn, struct sock_tx *st);
void sock_peer_dispatch(struct sock_peer *peer);
void sock_conn_flush(struct sock_conn *conn, uint64_t budget);
/* Cut iov[0..cnt) to at most max bytes; returns the new count. */
int sock_iov_cap(struct iovec *iov, int cnt, uint64_t max);
void sock_conn_fail_txs(struct sock_conn *conn, int status, enum ul_hstatus hs);
/*
 * Bytes written, not yet acknowledged; refreshes tx_progress_ns and
 * completes the txs of tx_unacked that TCP acknowledged.
 */
uint64_t sock_conn_tx_unacked(struct sock_conn *conn, uint64_t now_ns);
/*
 * sock_conn_tx_unacked() on the conns of s->ack_wait and arm ack_timer.
 * is_all false (after a flush): only the conns holding a PUT that asked
 * for no ACK, whose SEND event waits and nothing else ends, or
 * SOCK_ACK_POLL_HELD txs; held ACKs and REPLYs have no one waiting and
 * are otherwise looked at by the timer alone, which keeps the ioctl off
 * the round trip.
 */
void sock_ack_poll(struct ul_socklnd *s, bool is_all);
/*
 * The peer sent an ACK or REPLY to the handle wmd: the oldest held
 * request of ours that asked for it there was delivered; it completes OK
 * (tx_done, at once: its SEND event comes before the answer's) without
 * waiting for TCP's acknowledgement. The caller checks its connection
 * is still up afterwards.
 */
void sock_peer_answered(struct sock_peer *peer,
			const struct ul_wire_handle *wmd);
void sock_flush_all(struct ul_socklnd *s);

/* socklnd_sched.c: writes on scheduler threads (loop thread's side) */
/* Start opts.nscheds threads, once (0: none). 0 or -errno. */
int sock_sched_start(struct ul_socklnd *s);
/* Stop and join the threads; every job must have come back. */
void sock_sched_stop(struct ul_socklnd *s);
/*
 * Tests: while held, no thread starts a queued job (a close then takes
 * it back unstarted); a stop still runs what is queued.
 */
void sock_sched_hold(struct ul_socklnd *s, bool is_held);
/*
 * conn is about to write or read SOCK_JOB_MIN_BYTES or more: true if
 * that goes to a thread, because there are threads and opts.
 * sched_min_conns or more connections (conn included) had that much to
 * write or read within one SOCK_BULK_WINDOW_NS window, this one or the
 * one before. One busy connection
 * alone keeps its copies on the loop thread, which then has nothing else
 * to do: a hand-over would only add a wake-up.
 */
bool sock_sched_wanted(struct sock_conn *conn);
/*
 * Hand conn's write (is_read false) or read of iov[0..cnt) to a thread.
 * 0, or -ENOMEM (nothing handed over: do it here).
 */
int sock_sched_post(struct sock_conn *conn, bool is_read,
		    const struct iovec *iov, int cnt);
/*
 * Wait until conn's job that way is back (a queued one is taken back
 * unstarted) and return the bytes it moved, with its result in *err (as
 * sock_conn_job_done()'s; -EAGAIN if it never ran); conn->is_job_out
 * or is_rjob_out is false after it.
 */
uint64_t sock_sched_wait(struct sock_conn *conn, bool is_read, int *err);
/* socklnd_tx.c: a job came back with n bytes written and err (0, -errno). */
void sock_conn_job_done(struct sock_conn *conn, uint64_t n, int err);
/*
 * Before conn closes: wait for its job, if one is out, and account what
 * it wrote (no flush after it).
 */
void sock_conn_job_reclaim(struct sock_conn *conn);

/*
 * socklnd_conn.c: watch EPOLLIN unless a read job is out, and EPOLLOUT
 * if is_pollout; 0 or -errno.
 */
int sock_conn_watch(struct sock_conn *conn, bool is_pollout);

/* socklnd_rx.c */
void sock_conn_recv(struct sock_conn *conn);
/* The before-sleep hook, after the flush: read on from kept bytes. */
void sock_rx_kept_run(struct ul_socklnd *s);
/* conn is closing (sock_conn_close) or read its kept bytes: they go. */
void sock_conn_unkeep(struct sock_conn *conn);
/* The loop's busy-poll function (util/loop.h): read the hot conns. */
bool sock_busy_poll(void *arg);
/* conn is being freed (its NI may be gone): no hot slot may keep it. */
void sock_conn_unhot(struct ul_socklnd *s, const struct sock_conn *conn);
void sock_conn_rx_abort(struct sock_conn *conn, int status);
/*
 * A read job came back with n bytes read and err (0: its iovec is full,
 * -EAGAIN: the socket is empty, else the end or the read's -errno).
 */
void sock_conn_rjob_done(struct sock_conn *conn, uint64_t n, int err);
/*
 * Wait for conn's read job, if one is out, and account what it read
 * (before a close or a drain).
 */
void sock_conn_rjob_reclaim(struct sock_conn *conn);

#endif /* UL_LND_SOCKLND_INT_H */
