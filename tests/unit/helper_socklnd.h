/*
 * A mock node for socklnd tests (test_socklnd*.c): one loop, one socklnd,
 * up to SW_NNI NIs on loopback addresses 127.<b>.<k>.1 (Linux routes all of
 * 127/8 to lo, no root needed), and an upcall table that records every
 * parse, rx_done and tx_done and gives each received payload its own
 * slice of an arena so tests can compare bytes afterwards. Also raw
 * sockets for playing a hostile or hand-driven peer. No cmocka here:
 * functions return -1/false on failure and tests assert.
 */
#ifndef HELPER_SOCKLND_H
#define HELPER_SOCKLND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/ni.h"
#include "lnd/socklnd.h"
#include "util/log.h"

#define SW_NNI 3
#define SW_MAX_RX 1024
#define SW_MAX_TX 1024
#define SW_ARENA (8u << 20)
#define SW_PAYLOAD (2u << 20)
#define SW_MAX_RAW 16
#define SW_LOG_SIZE 65536
/* Safety net for waits; tests never pass or fail by time. */
#define SW_WAIT_MS 15000

struct sw_world;

struct sw_rx {
	struct ul_wire_lnet_hdr hdr;
	struct ulnet_nid from;
	uint8_t *buf;
	uint32_t len;
	struct iovec iov[2];
	int parse_rc;
	int status;	 /* rx_done's */
	int ndone;	 /* rx_done calls for it */
	bool is_dropped; /* given mlen 0 */
};

struct sw_ni {
	struct ul_ni ni;
	struct ul_lnd_ni lni;
	struct sw_world *w;
	bool is_started;
	uint8_t *arena;
	size_t arena_used;
	struct sw_rx rx[SW_MAX_RX];
	int nparse;
	int nrx_done;
	int parse_rc;	  /* returned by parse for the next messages */
	int drop_next;	  /* messages still to drop (mlen 0) */
	uint16_t net_num; /* sw_ni_start() puts the NI on tcp<net_num> */
};

struct sw_world {
	struct ul_loop *loop;
	struct ul_socklnd *s;
	struct ul_socklnd_opts opts;
	struct ul_lnd lnd;
	struct ul_log log;
	struct sw_ni nis[SW_NNI];
	uint8_t b; /* second octet of every address of this world */
	struct ul_lnd_tx txs[SW_MAX_TX];
	struct iovec tx_iov[SW_MAX_TX][3];
	int tx_ndone[SW_MAX_TX];
	int tx_status[SW_MAX_TX];
	enum ul_hstatus tx_hs[SW_MAX_TX];
	bool tx_undelivered[SW_MAX_TX]; /* tx->is_undelivered at tx_done */
	uint64_t tx_done_ns[SW_MAX_TX]; /* loop clock at tx_done */
	bool tx_sent[SW_MAX_TX];
	int ntx_done;
	/* Called at the end of every tx_done upcall, when set. */
	void (*on_tx_done)(struct sw_world *w, int idx, void *arg);
	void *on_tx_done_arg;
	/* Called at the end of every rx_done upcall on NI ni, when set. */
	void (*on_rx_done)(struct sw_world *w, int ni, void *arg);
	void *on_rx_done_arg;
	/* Loop clock at the first log line saying "closing"; 0: none yet. */
	uint64_t closing_ns;
	uint64_t deadline_ns;	  /* given to the next sw_send_put() */
	bool is_put_ack;	  /* sw_send_put() asks for an ACK */
	uint64_t raw_incarnation; /* in sw_raw_handshake()'s hello */
	uint32_t raw_pid;	  /* the same; 0: ULNET_PID_LUSTRE */
	uint16_t raw_src_net;	  /* its src_nid's net number (tcp<n>) */
	uint8_t *payload;	  /* SW_PAYLOAD pseudo-random bytes */
	int raw[SW_MAX_RAW];
	char logbuf[SW_LOG_SIZE];
	size_t loglen;
};

/* Allocate a world with default options (accept ALL, src ANY). */
struct sw_world *sw_world_new(void);
/* Create the loop and the socklnd from w->opts. 0 or -1. */
int sw_world_start(struct sw_world *w);
/* sw_world_start(), then NI 0 on address 1 and NI 1 on 2. 0 or -1. */
int sw_world_start2(struct sw_world *w);
/* Shut every NI down, destroy everything, close raw sockets. */
void sw_world_free(struct sw_world *w);

/* 127.<b>.<k>.1@tcp */
void sw_nid(const struct sw_world *w, int k, struct ulnet_nid *nid);
uint32_t sw_ip(const struct sw_world *w, int k);
/* Start NI i with address k. 0 or -errno. */
int sw_ni_start(struct sw_world *w, int i, int k);
void sw_ni_stop(struct sw_world *w, int i);

/*
 * Send a PUT of len bytes from NI i to nid as tx idx (match bits idx),
 * payload from w->payload at sw_payload_off(idx), in 3 fragments.
 */
int sw_send_put(struct sw_world *w, int i, const struct ulnet_nid *to, int idx,
		uint32_t len);
size_t sw_payload_off(int idx);
/* The record of the message with match bits idx received on NI i. */
const struct sw_rx *sw_rx_find(const struct sw_ni *m, int idx);
/* Payload of idx arrived intact on NI i (record, length, bytes, done). */
bool sw_rx_ok(const struct sw_world *w, int i, int idx, uint32_t len);

/* Run the loop until pred(w, arg) or the safety net. */
bool sw_run_until(struct sw_world *w, bool (*pred)(struct sw_world *, void *),
		  void *arg);
/* Run the loop for about ms milliseconds. */
void sw_run_for(struct sw_world *w, int ms);
bool sw_pred_tx_done(struct sw_world *w, void *arg); /* arg: int *n */
/*
 * Writes (is_rx false) or payload reads that NI ni's connections with
 * the peer of address k handed to scheduler threads.
 */
uint64_t sw_jobs(struct sw_world *w, int ni, int peer_k, bool is_rx);

/* Raw sockets: blocking connect from address k (port any), then
 * non-blocking. Returns the fd (registered for cleanup) or -1. */
int sw_raw_connect(struct sw_world *w, int from_k, int to_k);
/* A raw listener on address k (a 64 KiB receive buffer), or -1. */
int sw_raw_listen(struct sw_world *w, int k);
/* Run the loop until lfd has a connection; its fd (registered) or -1. */
int sw_raw_accept(struct sw_world *w, int lfd);
/* Write all of buf (blocking). 0 or -1. */
int sw_raw_write(int fd, const void *buf, size_t len);
/*
 * Read what is available into buf (up to cap, appending at *len); true
 * once the peer closed (EOF or a reset).
 */
bool sw_raw_poll(int fd, uint8_t *buf, size_t cap, size_t *len);
/* Run the loop until fd sees EOF; bytes read land in buf. */
bool sw_raw_wait_closed(struct sw_world *w, int fd, uint8_t *buf, size_t cap,
			size_t *len);
/* Run the loop until want bytes arrived on fd. */
bool sw_raw_read(struct sw_world *w, int fd, uint8_t *buf, size_t want);
/*
 * Act as a peer with NID of address from_k: send the acceptor request
 * for address to_k and a V3 hello of ctype, read the reply into *reply.
 */
int sw_raw_handshake(struct sw_world *w, int fd, int from_k, int to_k,
		     uint32_t ctype, struct ul_wire_hello *reply);
/*
 * Accept on lfd as the peer of address k: read the connector's acceptor
 * request and hello, answer with the hello the kernel would (the inverse
 * connection type). The accepted fd (registered) or -1.
 */
int sw_raw_accept_peer(struct sw_world *w, int lfd, int k);
/* Build an LNET message (PUT of len bytes of fill) into buf; its length. */
size_t sw_build_put(const struct sw_world *w, int from_k, int to_k,
		    uint32_t len, uint64_t match, uint8_t *buf, size_t cap);

bool sw_log_has(const struct sw_world *w, const char *needle);

#endif /* HELPER_SOCKLND_H */
