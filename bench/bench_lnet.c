/*
 * bench_lnet: what a message costs on loopback, against raw TCP measured
 * in the same run.
 *
 *   node A  127.0.7.1@tcp ---- 127.0.7.2@tcp  node B   (one rail)
 *
 *  - round trip of an 8-byte PUT + ACK and of an 8-byte GET + REPLY, one
 *    at a time (the next starts from the previous one's final event, on
 *    A's loop thread): median and p99;
 *  - rate of 4 KiB and 8-byte PUTs with ACK, WINDOW outstanding, counted
 *    at the initiator's ACK events;
 *  - raw TCP baselines over one loopback connection between two threads:
 *    8-byte ping-pong (median, p99) and 4 KiB messages pipelined one way.
 *
 * Goals (the runtime issue): median latency <= raw TCP + 5 us; >= 200,000
 * 4 KiB PUTs/s. It prints figures and ratios; it never fails on time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ulnet/ulnet.h"

#define PORTAL 30u
#define MBITS UINT64_C(0xbe)
#define RTT_OPS 20000u
#define RATE_OPS 200000u
#define WINDOW 64u
#define BIG 4096u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and p99 of n samples (sorted in place), in microseconds. */
static void pcts(uint64_t *v, size_t n, double *med, double *p99)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	*med = (double)v[n / 2] / 1000.0;
	*p99 = (double)v[n * 99 / 100] / 1000.0;
}

/* ---- ulnet ---------------------------------------------------------- */

enum run_kind { RUN_PUT_RTT, RUN_GET_RTT, RUN_PUT_RATE };

struct run {
	struct ulnet *a;
	enum run_kind kind;
	struct ulnet_handle md;
	struct ulnet_process_id target;
	uint32_t size;
	unsigned total;	   /* operations to run */
	unsigned started;  /* operations sent */
	unsigned finished; /* final events seen */
	unsigned failed;
	uint64_t t_start, t_op, t_end;
	uint64_t *samples;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	bool is_unlinked; /* the MD's last event came */
};

static void start_one(struct run *r)
{
	int rc;

	r->t_op = now_ns();
	r->started++;
	if (r->kind == RUN_GET_RTT)
		rc = ulnet_get(r->a, NULL, r->md, &r->target, PORTAL, MBITS, 0);
	else
		rc = ulnet_put(r->a, NULL, r->md, ULNET_ACK_REQ, &r->target,
			       PORTAL, MBITS, 0, 0);
	if (rc) {
		r->failed++;
		r->finished++;
	}
}

static void finish(struct run *r)
{
	r->t_end = now_ns();
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Keep the run going from its own events, on A's loop thread. */
static void run_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct run *r = ev->md_user_ptr;
	bool is_final;

	(void)u;
	if (ev->unlinked) {
		pthread_mutex_lock(&r->lock);
		r->is_unlinked = true;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		return;
	}
	is_final = (ev->type == ULNET_EVENT_SEND && ev->status) ||
		   ev->type == ULNET_EVENT_ACK || ev->type == ULNET_EVENT_REPLY;
	if (!is_final || r->done)
		return;
	if (ev->status)
		r->failed++;
	if (r->kind != RUN_PUT_RATE && r->finished < r->total)
		r->samples[r->finished] = now_ns() - r->t_op;
	r->finished++;
	if (r->finished == r->total) {
		finish(r);
		return;
	}
	if (r->started < r->total)
		start_one(r);
}

static void run_start(struct ulnet *u, void *arg)
{
	struct run *r = arg;
	unsigned i, window = r->kind == RUN_PUT_RATE ? WINDOW : 1;

	(void)u;
	r->t_start = now_ns();
	for (i = 0; i < window && r->started < r->total; i++)
		start_one(r);
}

static int make_node(const char *nid, uint16_t port, struct ulnet **out)
{
	struct ulnet_opts o;
	char conf[256], err[256];
	int rc;

	snprintf(conf, sizeof(conf),
		 "net:\n  - net type: tcp\n    local NI(s):\n"
		 "      - nid: %s\n",
		 nid);
	ulnet_opts_init(&o);
	o.conf_text = conf;
	o.accept_port = port;
	o.accept = ULNET_ACCEPT_ALL;
	o.src_port = ULNET_SRC_PORT_ANY;
	o.is_link_monitor_off = true;
	rc = ulnet_create(&o, out, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "bench_lnet: %s\n", err);
		return rc;
	}
	rc = ulnet_start(*out);
	if (rc)
		ulnet_destroy(*out);
	return rc;
}

static void ignore_event(struct ulnet *u, const struct ulnet_event *ev)
{
	(void)u;
	(void)ev;
}

/* Run one measurement; 0 and the elapsed time in *ns. */
static int measure(struct ulnet *a, enum run_kind kind, uint32_t size,
		   unsigned total, uint64_t *samples, uint64_t *ns,
		   unsigned *failed)
{
	static uint8_t src[BIG];
	struct run r;
	struct ulnet_md md = { 0 };
	int rc;

	memset(&r, 0, sizeof(r));
	r.a = a;
	r.kind = kind;
	r.size = size;
	r.total = total;
	r.samples = samples;
	ulnet_nid_parse("127.0.7.2@tcp", &r.target.nid, NULL, 0);
	r.target.pid = ULNET_PID_LUSTRE;
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	md.start = src;
	md.length = size;
	md.threshold = ULNET_MD_THRESH_INF;
	md.user_ptr = &r;
	md.handler = run_event;
	md.numa_node = -1;
	rc = ulnet_md_bind(a, &md, ULNET_RETAIN, &r.md);
	if (rc)
		return rc;
	rc = ulnet_call(a, run_start, &r);
	if (rc)
		return rc;
	pthread_mutex_lock(&r.lock);
	while (!r.done)
		pthread_cond_wait(&r.cond, &r.lock);
	pthread_mutex_unlock(&r.lock);
	*ns = r.t_end - r.t_start;
	*failed = r.failed;
	/* r must outlive the MD: wait for its last event. */
	rc = ulnet_md_unlink(a, r.md);
	pthread_mutex_lock(&r.lock);
	while (rc == 0 && !r.is_unlinked)
		pthread_cond_wait(&r.cond, &r.lock);
	pthread_mutex_unlock(&r.lock);
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	return 0;
}

/* ---- raw TCP -------------------------------------------------------- */

struct tcp_pair {
	int srv, cli, acc;
};

static int tcp_pair_open(struct tcp_pair *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1;

	sa.sin_addr.s_addr = htonl(0x7f000701);
	p->srv = socket(AF_INET, SOCK_STREAM, 0);
	p->cli = socket(AF_INET, SOCK_STREAM, 0);
	if (p->srv < 0 || p->cli < 0 ||
	    bind(p->srv, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(p->srv, 1) ||
	    getsockname(p->srv, (struct sockaddr *)&sa, &len) ||
	    connect(p->cli, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	p->acc = accept(p->srv, NULL, NULL);
	if (p->acc < 0)
		return -errno;
	setsockopt(p->cli, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(p->acc, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

static void tcp_pair_close(struct tcp_pair *p)
{
	close(p->cli);
	close(p->acc);
	close(p->srv);
}

static int read_full(int fd, void *buf, size_t n)
{
	uint8_t *b = buf;

	while (n) {
		ssize_t k = read(fd, b, n);

		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
	const uint8_t *b = buf;

	while (n) {
		ssize_t k = write(fd, b, n);

		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

struct echo_arg {
	int fd;
	size_t size;
	unsigned count;
	bool is_echo; /* answer each message; else just read them */
};

static void *tcp_peer(void *arg)
{
	struct echo_arg *e = arg;
	uint8_t buf[BIG];
	unsigned i;

	for (i = 0; i < e->count; i++) {
		if (read_full(e->fd, buf, e->size))
			break;
		if (e->is_echo && write_full(e->fd, buf, e->size))
			break;
	}
	return NULL;
}

static int tcp_pingpong(uint64_t *samples, unsigned n)
{
	struct tcp_pair p;
	struct echo_arg e;
	pthread_t th;
	uint8_t buf[8] = { 0 };
	unsigned i;

	if (tcp_pair_open(&p))
		return -1;
	e = (struct echo_arg){ p.acc, 8, n, true };
	pthread_create(&th, NULL, tcp_peer, &e);
	for (i = 0; i < n; i++) {
		uint64_t t = now_ns();

		if (write_full(p.cli, buf, 8) || read_full(p.cli, buf, 8))
			break;
		samples[i] = now_ns() - t;
	}
	pthread_join(th, NULL);
	tcp_pair_close(&p);
	return i == n ? 0 : -1;
}

static int tcp_stream(size_t size, unsigned n, uint64_t *ns)
{
	static uint8_t buf[BIG];
	struct tcp_pair p;
	struct echo_arg e;
	pthread_t th;
	uint64_t t;
	unsigned i;

	if (tcp_pair_open(&p))
		return -1;
	e = (struct echo_arg){ p.acc, size, n, false };
	t = now_ns();
	pthread_create(&th, NULL, tcp_peer, &e);
	for (i = 0; i < n; i++)
		if (write_full(p.cli, buf, size))
			break;
	pthread_join(th, NULL);
	*ns = now_ns() - t;
	tcp_pair_close(&p);
	return i == n ? 0 : -1;
}

/* ---- main ----------------------------------------------------------- */

int main(void)
{
	static uint8_t sink[BIG];
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	uint16_t port = (uint16_t)(20000 + getpid() % 20000);
	uint64_t *samples = calloc(RTT_OPS, sizeof(*samples));
	double put_med, put_p99, get_med, get_p99, tcp_med, tcp_p99;
	double put4k_rate, put8_rate, tcp4k_rate;
	struct ulnet *a, *b;
	struct ulnet_md md = { 0 };
	struct ulnet_handle sink_h;
	unsigned failed = 0, f;
	uint64_t ns;

	if (!samples || make_node("127.0.7.2@tcp", port, &b) ||
	    make_node("127.0.7.1@tcp", port, &a))
		return 1;
	ulnet_nid_set_any(&any.nid);
	md.start = sink;
	md.length = sizeof(sink);
	md.threshold = ULNET_MD_THRESH_INF;
	md.options = ULNET_MD_OP_PUT | ULNET_MD_OP_GET |
		     ULNET_MD_MANAGE_REMOTE | ULNET_MD_TRUNCATE;
	md.handler = ignore_event;
	md.numa_node = -1;
	if (ulnet_md_attach(b, PORTAL, &any, MBITS, 0, ULNET_INS_AFTER, &md,
			    ULNET_RETAIN, &sink_h))
		return 1;

	printf("bench_lnet: two nodes on loopback, one tcp rail, socklnd V3; "
	       "raw TCP baselines in the same run\n");
	/* Warm up: connections, caches. */
	if (measure(a, RUN_PUT_RTT, 8, 2000, samples, &ns, &f))
		return 1;

	measure(a, RUN_PUT_RTT, 8, RTT_OPS, samples, &ns, &f);
	failed += f;
	pcts(samples, RTT_OPS, &put_med, &put_p99);
	measure(a, RUN_GET_RTT, 8, RTT_OPS, samples, &ns, &f);
	failed += f;
	pcts(samples, RTT_OPS, &get_med, &get_p99);
	measure(a, RUN_PUT_RATE, BIG, RATE_OPS, NULL, &ns, &f);
	failed += f;
	put4k_rate = RATE_OPS / ((double)ns / 1e9);
	measure(a, RUN_PUT_RATE, 8, RATE_OPS, NULL, &ns, &f);
	failed += f;
	put8_rate = RATE_OPS / ((double)ns / 1e9);

	if (tcp_pingpong(samples, RTT_OPS) ||
	    tcp_stream(BIG, RATE_OPS * 4, &ns)) {
		fprintf(stderr, "bench_lnet: TCP baseline failed\n");
		return 1;
	}
	pcts(samples, RTT_OPS, &tcp_med, &tcp_p99);
	tcp4k_rate = RATE_OPS * 4 / ((double)ns / 1e9);

	printf("  %-34s %10s %10s %s\n", "round trip, one at a time",
	       "median us", "p99 us", "vs raw TCP ping-pong");
	printf("  %-34s %10.1f %10.1f %+.1f us (goal <= +5)\n",
	       "ulnet PUT 8 B + ACK", put_med, put_p99, put_med - tcp_med);
	printf("  %-34s %10.1f %10.1f %+.1f us (goal <= +5)\n",
	       "ulnet GET 8 B + REPLY", get_med, get_p99, get_med - tcp_med);
	printf("  %-34s %10.1f %10.1f\n", "raw TCP 8 B ping-pong", tcp_med,
	       tcp_p99);
	printf("  %-34s %10s\n", "rate, pipelined", "msgs/s");
	printf("  %-34s %10.0f  %.0f %% of raw TCP 4 KiB messages "
	       "(goal >= 200000/s)\n",
	       "ulnet PUT 4 KiB + ACK, 64 out", put4k_rate,
	       100.0 * put4k_rate / tcp4k_rate);
	printf("  %-34s %10.0f\n", "ulnet PUT 8 B + ACK, 64 out", put8_rate);
	printf("  %-34s %10.0f\n", "raw TCP 4 KiB messages, one way",
	       tcp4k_rate);
	if (failed)
		printf("  (%u operations failed)\n", failed);
	ulnet_destroy(a);
	ulnet_destroy(b);
	free(samples);
	return 0;
}
