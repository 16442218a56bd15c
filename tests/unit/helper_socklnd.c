/*
 * The socklnd test world of helper_socklnd.h: loop, socklnd, mock upcalls
 * recording everything, raw peer sockets.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper_socklnd.h"
#include "util/loop.h"
#include "util/err.h"

static struct sw_ni *sw_of(struct ul_lnd_ni *lni)
{
	return ul_container_of(lni, struct sw_ni, lni);
}

static int sw_parse(struct ul_lnd_ni *lni, const struct ul_wire_lnet_hdr *hdr,
		    const struct ulnet_nid *from_nid, struct ul_lnd_rx *rx)
{
	struct sw_ni *m = sw_of(lni);
	struct sw_rx *r;
	uint32_t len = hdr->payload_length;

	if (m->nparse >= SW_MAX_RX)
		return -EPROTO;
	r = &m->rx[m->nparse++];
	r->hdr = *hdr;
	r->from = *from_nid;
	r->parse_rc = m->parse_rc;
	if (m->parse_rc)
		return m->parse_rc;
	rx->rlen = len;
	rx->msg = r;
	if (m->drop_next > 0 || m->arena_used + len > SW_ARENA) {
		if (m->drop_next > 0)
			m->drop_next--;
		r->is_dropped = true;
		rx->mlen = 0;
		return 0;
	}
	r->buf = m->arena + m->arena_used;
	r->len = len;
	m->arena_used += len;
	r->iov[0].iov_base = r->buf;
	r->iov[0].iov_len = len / 2;
	r->iov[1].iov_base = r->buf + len / 2;
	r->iov[1].iov_len = len - len / 2;
	rx->iov = r->iov;
	rx->niov = 2;
	rx->mlen = len;
	return 0;
}

static void sw_rx_done(struct ul_lnd_ni *lni, struct ul_lnd_rx *rx, int status)
{
	struct sw_ni *m = sw_of(lni);
	struct sw_rx *r = rx->msg;

	r->status = status;
	r->ndone++;
	m->nrx_done++;
	if (m->w->on_rx_done)
		m->w->on_rx_done(m->w, (int)(m - m->w->nis),
				 m->w->on_rx_done_arg);
}

static void sw_tx_done(struct ul_lnd_ni *lni, struct ul_lnd_tx *tx, int status,
		       enum ul_hstatus hstatus)
{
	struct sw_world *w = sw_of(lni)->w;
	long idx = tx - w->txs;

	w->tx_ndone[idx]++;
	w->tx_status[idx] = status;
	w->tx_hs[idx] = hstatus;
	w->tx_undelivered[idx] = tx->is_undelivered;
	w->tx_done_ns[idx] = lni->timers->now_ns;
	w->ntx_done++;
	if (w->on_tx_done)
		w->on_tx_done(w, (int)idx, w->on_tx_done_arg);
}

static const struct ul_lnd_upcalls sw_upcalls = {
	.parse = sw_parse,
	.rx_done = sw_rx_done,
	.tx_done = sw_tx_done,
};

static void sw_log_line(void *ctx, const char *line)
{
	struct sw_world *w = ctx;
	size_t len = strlen(line);

	if (getenv("SW_VERBOSE"))
		fprintf(stderr, "log: %s\n", line);
	if (!w->closing_ns && w->loop && strstr(line, "closing"))
		w->closing_ns = ul_loop_timers(w->loop)->now_ns;
	if (w->loglen + len + 2 > sizeof(w->logbuf))
		return;
	memcpy(w->logbuf + w->loglen, line, len);
	w->loglen += len;
	w->logbuf[w->loglen++] = '\n';
	w->logbuf[w->loglen] = '\0';
}

bool sw_log_has(const struct sw_world *w, const char *needle)
{
	return strstr(w->logbuf, needle) != NULL;
}

struct sw_world *sw_world_new(void)
{
	struct sw_world *w = calloc(1, sizeof(*w));
	uint32_t x = 12345;

	if (!w)
		return NULL;
	w->payload = malloc(SW_PAYLOAD);
	if (!w->payload) {
		free(w);
		return NULL;
	}
	for (size_t i = 0; i < SW_PAYLOAD; i++) {
		x = x * 1103515245u + 12345u;
		w->payload[i] = (uint8_t)(x >> 16);
	}
	for (int i = 0; i < SW_MAX_RAW; i++)
		w->raw[i] = -1;
	/* Per process, so parallel test programs use other addresses. */
	w->b = (uint8_t)(16 + getpid() % 200);
	w->raw_incarnation = 0x1811223344556677ull;
	ul_socklnd_opts_init(&w->opts);
	w->opts.accept = ULNET_ACCEPT_ALL;
	w->opts.src_port = ULNET_SRC_PORT_ANY;
	w->opts.accept_port = (uint16_t)(20000 + (getpid() * 7) % 20000);
	w->opts.accept_timeout_ms = 300;
	/*
	 * The same tests again with scheduler threads (tests/CMakeLists),
	 * handing over even for one busy connection, as most tests have.
	 */
	w->opts.sched_min_conns = 1;
	if (getenv("UL_TEST_NSCHEDS"))
		w->opts.nscheds = (unsigned int)atoi(getenv("UL_TEST_NSCHEDS"));
	w->log.fn = sw_log_line;
	w->log.ctx = w;
	w->log.mask = UL_LOG_DEFAULT_MASK;
	w->opts.log = &w->log;
	return w;
}

int sw_world_start(struct sw_world *w)
{
	if (ul_loop_create(&w->loop) < 0)
		return -1;
	if (ul_socklnd_create(w->loop, &w->opts, &w->s) < 0)
		return -1;
	w->lnd.ops = &ul_socklnd_ops;
	w->lnd.ctx = w->s;
	w->lnd.lnd_type = ULNET_LND_SOCK;
	return 0;
}

int sw_world_start2(struct sw_world *w)
{
	if (sw_world_start(w) < 0 || sw_ni_start(w, 0, 1) < 0 ||
	    sw_ni_start(w, 1, 2) < 0)
		return -1;
	return 0;
}

void sw_world_free(struct sw_world *w)
{
	if (!w)
		return;
	/* A failed test's hooks may point at its finished stack frame. */
	w->on_tx_done = NULL;
	w->on_rx_done = NULL;
	for (int i = 0; i < SW_NNI; i++)
		sw_ni_stop(w, i);
	for (int i = 0; i < SW_MAX_RAW; i++)
		if (w->raw[i] >= 0)
			close(w->raw[i]);
	ul_socklnd_destroy(w->s);
	if (w->loop)
		ul_loop_destroy(w->loop);
	for (int i = 0; i < SW_NNI; i++)
		free(w->nis[i].arena);
	free(w->payload);
	free(w);
}

uint32_t sw_ip(const struct sw_world *w, int k)
{
	return (127u << 24) | ((uint32_t)w->b << 16) | ((uint32_t)k << 8) | 1u;
}

void sw_nid(const struct sw_world *w, int k, struct ulnet_nid *nid)
{
	memset(nid, 0, sizeof(*nid));
	nid->nid_type = ULNET_LND_SOCK;
	nid->nid_addr[0] = sw_ip(w, k);
}

int sw_ni_start(struct sw_world *w, int i, int k)
{
	struct sw_ni *m = &w->nis[i];
	struct ul_err err = { 0 };
	int rc;

	if (!m->arena) {
		m->arena = malloc(SW_ARENA);
		if (!m->arena)
			return -ENOMEM;
	}
	m->w = w;
	sw_nid(w, k, &m->ni.nid);
	m->ni.nid.nid_num = m->net_num;
	m->lni.ni = &m->ni;
	m->lni.up = &sw_upcalls;
	m->lni.lnd = &w->lnd;
	m->lni.timers = ul_loop_timers(w->loop);
	m->lni.pid = ULNET_PID_LUSTRE;
	rc = ul_socklnd_ops.startup(&m->lni, &err);
	if (rc < 0) {
		fprintf(stderr, "startup: %s\n", err.msg);
		return rc;
	}
	m->is_started = true;
	return 0;
}

void sw_ni_stop(struct sw_world *w, int i)
{
	struct sw_ni *m = &w->nis[i];

	if (!m->is_started)
		return;
	ul_socklnd_ops.shutdown(&m->lni);
	m->is_started = false;
}

size_t sw_payload_off(int idx)
{
	return ((size_t)idx * 4099u) % (SW_PAYLOAD / 2);
}

int sw_send_put(struct sw_world *w, int i, const struct ulnet_nid *to, int idx,
		uint32_t len)
{
	struct ul_lnd_tx *tx = &w->txs[idx];
	struct iovec *iov = w->tx_iov[idx];
	uint8_t *p = w->payload + sw_payload_off(idx);
	int rc;

	memset(tx, 0, sizeof(*tx));
	tx->hdr.type = UL_WIRE_MSG_PUT;
	tx->hdr.dest_nid = *to;
	tx->hdr.src_nid = w->nis[i].ni.nid;
	tx->hdr.dest_pid = ULNET_PID_LUSTRE;
	tx->hdr.src_pid = ULNET_PID_LUSTRE;
	tx->hdr.payload_length = len;
	tx->hdr.msg.put.ack_wmd.wh_interface_cookie =
		UL_WIRE_HANDLE_COOKIE_NONE;
	tx->hdr.msg.put.ack_wmd.wh_object_cookie = UL_WIRE_HANDLE_COOKIE_NONE;
	if (w->is_put_ack) {
		tx->hdr.msg.put.ack_wmd.wh_interface_cookie = 1;
		tx->hdr.msg.put.ack_wmd.wh_object_cookie = (uint64_t)idx + 1;
	}
	tx->hdr.msg.put.match_bits = (uint64_t)idx;
	tx->hdr.msg.put.ptl_index = 4;
	tx->target_nid = *to;
	tx->target_pid = ULNET_PID_LUSTRE;
	iov[0].iov_base = p;
	iov[0].iov_len = len / 3;
	iov[1].iov_base = p + len / 3;
	iov[1].iov_len = len / 3;
	iov[2].iov_base = p + 2 * (len / 3);
	iov[2].iov_len = len - 2 * (len / 3);
	tx->iov = iov;
	tx->niov = 3;
	tx->nob = len;
	tx->deadline_ns = w->deadline_ns;
	rc = ul_socklnd_ops.send(&w->nis[i].lni, tx);
	if (rc == 0)
		w->tx_sent[idx] = true;
	return rc;
}

const struct sw_rx *sw_rx_find(const struct sw_ni *m, int idx)
{
	for (int i = 0; i < m->nparse; i++)
		if (m->rx[i].hdr.msg.put.match_bits == (uint64_t)idx)
			return &m->rx[i];
	return NULL;
}

bool sw_rx_ok(const struct sw_world *w, int i, int idx, uint32_t len)
{
	const struct sw_rx *r = sw_rx_find(&w->nis[i], idx);

	if (!r || r->ndone != 1 || r->status != 0 || r->len != len ||
	    r->hdr.payload_length != len)
		return false;
	return len == 0 ||
	       memcmp(r->buf, w->payload + sw_payload_off(idx), len) == 0;
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool sw_run_until(struct sw_world *w, bool (*pred)(struct sw_world *, void *),
		  void *arg)
{
	uint64_t end = wall_ms() + SW_WAIT_MS;

	while (!pred(w, arg)) {
		if (wall_ms() > end)
			return false;
		ul_loop_run_once(w->loop, 10);
	}
	return true;
}

void sw_run_for(struct sw_world *w, int ms)
{
	uint64_t end = wall_ms() + (uint64_t)ms;

	while (wall_ms() < end)
		ul_loop_run_once(w->loop, 10);
}

uint64_t sw_jobs(struct sw_world *w, int ni, int peer_k, bool is_rx)
{
	struct ul_socklnd_conn_info info[16];
	struct ulnet_nid peer;
	uint64_t jobs = 0;
	int n;

	sw_nid(w, peer_k, &peer);
	n = ul_socklnd_conns(w->s, &w->nis[ni].ni.nid, &peer, info, 16);
	for (int i = 0; i < n && i < 16; i++)
		jobs += is_rx ? info[i].rx_jobs : info[i].tx_jobs;
	return jobs;
}

bool sw_pred_tx_done(struct sw_world *w, void *arg)
{
	return w->ntx_done >= *(int *)arg;
}

static int raw_keep(struct sw_world *w, int fd)
{
	for (int i = 0; i < SW_MAX_RAW; i++)
		if (w->raw[i] < 0) {
			w->raw[i] = fd;
			return fd;
		}
	close(fd);
	return -1;
}

static void sin_of(struct sockaddr_in *sa, uint32_t ip, uint16_t port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(ip);
	sa->sin_port = htons(port);
}

int sw_raw_connect(struct sw_world *w, int from_k, int to_k)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	sin_of(&sa, sw_ip(w, from_k), 0);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto err;
	sin_of(&sa, sw_ip(w, to_k), w->opts.accept_port);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto err;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		goto err;
	return raw_keep(w, fd);
err:
	close(fd);
	return -1;
}

int sw_raw_listen(struct sw_world *w, int k)
{
	struct sockaddr_in sa;
	int on = 1, rcvbuf = 65536;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	/* Small, so a peer that stops reading stops the sender soon. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	sin_of(&sa, sw_ip(w, k), w->opts.accept_port);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 8) < 0) {
		close(fd);
		return -1;
	}
	return raw_keep(w, fd);
}

struct raw_accept {
	int lfd;
	int fd;
};

static bool pred_accept(struct sw_world *w, void *arg)
{
	struct raw_accept *ra = arg;

	(void)w;
	ra->fd = accept4(ra->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	return ra->fd >= 0;
}

int sw_raw_accept(struct sw_world *w, int lfd)
{
	struct raw_accept ra = { lfd, -1 };

	if (!sw_run_until(w, pred_accept, &ra))
		return -1;
	return raw_keep(w, ra.fd);
}

int sw_raw_write(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

bool sw_raw_poll(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	uint8_t sink[4096];

	for (;;) {
		uint8_t *dst = *len < cap ? buf + *len : sink;
		size_t room = *len < cap ? cap - *len : sizeof(sink);
		ssize_t n = recv(fd, dst, room, MSG_DONTWAIT);

		if (n == 0)
			return true;
		if (n < 0)
			return errno != EAGAIN && errno != EWOULDBLOCK &&
			       errno != EINTR;
		if (*len < cap)
			*len += (size_t)n;
	}
}

struct raw_wait {
	int fd;
	uint8_t *buf;
	size_t cap;
	size_t *len;
	size_t want; /* 0: wait for EOF */
	bool is_closed;
};

static bool pred_raw(struct sw_world *w, void *arg)
{
	struct raw_wait *rw = arg;

	(void)w;
	rw->is_closed = sw_raw_poll(rw->fd, rw->buf, rw->cap, rw->len);
	if (rw->want)
		return *rw->len >= rw->want || rw->is_closed;
	return rw->is_closed;
}

bool sw_raw_wait_closed(struct sw_world *w, int fd, uint8_t *buf, size_t cap,
			size_t *len)
{
	struct raw_wait rw = { fd, buf, cap, len, 0, false };

	return sw_run_until(w, pred_raw, &rw);
}

bool sw_raw_read(struct sw_world *w, int fd, uint8_t *buf, size_t want)
{
	size_t len = 0;
	struct raw_wait rw = { fd, buf, want, &len, want, false };

	return sw_run_until(w, pred_raw, &rw) && len >= want;
}

int sw_raw_handshake(struct sw_world *w, int fd, int from_k, int to_k,
		     uint32_t ctype, struct ul_wire_hello *reply)
{
	struct ul_wire_acr acr = { .version = UL_WIRE_ACCEPTOR_VERSION };
	struct ul_wire_hello h;
	uint8_t buf[UL_WIRE_ACR_SIZE + UL_WIRE_HELLO_MAX_SIZE];
	int alen, hlen;

	sw_nid(w, to_k, &acr.nid);
	memset(&h, 0, sizeof(h));
	h.version = UL_WIRE_PROTO_V3;
	sw_nid(w, from_k, &h.src_nid);
	h.src_nid.nid_num = w->raw_src_net;
	sw_nid(w, to_k, &h.dst_nid);
	h.src_pid = w->raw_pid ? w->raw_pid : ULNET_PID_LUSTRE;
	h.src_incarnation = w->raw_incarnation;
	h.ctype = ctype;
	alen = ul_wire_acr_encode(&acr, buf, sizeof(buf), NULL);
	if (alen < 0)
		return -1;
	hlen = ul_wire_hello_encode(&h, buf + alen, sizeof(buf) - (size_t)alen,
				    NULL);
	if (hlen < 0 || sw_raw_write(fd, buf, (size_t)alen + (size_t)hlen) < 0)
		return -1;
	if (!sw_raw_read(w, fd, buf, UL_WIRE_HELLO_NID4_SIZE))
		return -1;
	return ul_wire_hello_decode(buf, UL_WIRE_HELLO_NID4_SIZE, reply, NULL) <
			       0
		       ? -1
		       : 0;
}

int sw_raw_accept_peer(struct sw_world *w, int lfd, int k)
{
	struct ul_wire_hello h, reply;
	uint8_t buf[UL_WIRE_ACR_SIZE + UL_WIRE_HELLO_MAX_SIZE];
	int fd = sw_raw_accept(w, lfd);

	if (fd < 0 ||
	    !sw_raw_read(w, fd, buf,
			 UL_WIRE_ACR_SIZE + UL_WIRE_HELLO_NID4_SIZE) ||
	    ul_wire_hello_decode(buf + UL_WIRE_ACR_SIZE,
				 UL_WIRE_HELLO_NID4_SIZE, &h, NULL) < 0)
		return -1;
	memset(&reply, 0, sizeof(reply));
	reply.version = UL_WIRE_PROTO_V3;
	sw_nid(w, k, &reply.src_nid);
	reply.dst_nid = h.src_nid;
	reply.src_pid = ULNET_PID_LUSTRE;
	reply.src_incarnation = w->raw_incarnation;
	reply.ctype = ul_wire_conn_type_inverse(h.ctype);
	if (ul_wire_hello_encode(&reply, buf, sizeof(buf), NULL) !=
		    (int)UL_WIRE_HELLO_NID4_SIZE ||
	    sw_raw_write(fd, buf, UL_WIRE_HELLO_NID4_SIZE) < 0)
		return -1;
	return fd;
}

size_t sw_build_put(const struct sw_world *w, int from_k, int to_k,
		    uint32_t len, uint64_t match, uint8_t *buf, size_t cap)
{
	struct ul_wire_ksock_hdr ksh = { .type = UL_WIRE_KSOCK_LNET };
	struct ul_wire_lnet_hdr hdr;
	int klen, hlen;

	memset(&hdr, 0, sizeof(hdr));
	hdr.type = UL_WIRE_MSG_PUT;
	sw_nid(w, from_k, &hdr.src_nid);
	sw_nid(w, to_k, &hdr.dest_nid);
	hdr.src_pid = ULNET_PID_LUSTRE;
	hdr.dest_pid = ULNET_PID_LUSTRE;
	hdr.payload_length = len;
	hdr.msg.put.match_bits = match;
	klen = ul_wire_ksock_hdr_encode(&ksh, UL_WIRE_PROTO_V3, false, buf, cap,
					NULL);
	if (klen < 0)
		return 0;
	hlen = ul_wire_lnet_hdr_encode(&hdr, false, buf + klen,
				       cap - (size_t)klen, NULL);
	if (hlen < 0 || (size_t)(klen + hlen) + len > cap)
		return 0;
	memset(buf + klen + hlen, 0x5a, len);
	return (size_t)(klen + hlen) + len;
}
