/*
 * bench_lnet: what a message costs on loopback, against raw TCP measured
 * in the same run.
 *
 *   node A  127.0.7.1@tcp ---- 127.0.7.2@tcp  node B   (one rail, LNet's
 *   node C  127.0.7.3@tcp ---- 127.0.7.4@tcp  node D    default tunables)
 *                                               (C-D: peer_credits 64)
 *
 *  - round trip of an 8-byte PUT + ACK and of an 8-byte GET + REPLY, one
 *    at a time (the next starts from the previous one's final event, on
 *    A's loop thread): median and p99;
 *  - rate of 4 KiB and 8-byte PUTs with ACK, WINDOW outstanding (kept
 *    full from the ACK events on the loop thread), counted at the ACKs;
 *    A-B has LNet's default peer_credits (8: at most 8 messages on the
 *    wire per peer NI and direction), C-D has peer_credits = WINDOW;
 *  - raw TCP baselines over one loopback connection between two threads
 *    (TCP_NODELAY, blocking calls): 8-byte ping-pong (median, p99), and
 *    4 KiB messages one way, one write() each, read in 64 KiB gulps;
 *    and the ping-pong with each end waiting in epoll_wait() before its
 *    recv(), the floor of any design that sleeps in epoll as ulnet's
 *    loop does (printed, not a goal).
 *
 * The machine is shared and noisy, so the kinds are interleaved: ROUNDS
 * rounds, each running a slice of every measurement, and the figures are
 * taken over all slices. Round trips run with every thread pinned, once
 * all on CPU 0 and once initiators on CPU 0, targets on CPU 1 (see
 * pin_self); rates run unpinned. The round trips run again with
 * ulnet.busy_poll set on both nodes (busy), and with rate and busy both
 * asked for (or no argument) the rates too. Goals (issue 15): median
 * latency <= raw TCP + 5 us, <= raw TCP + 2 us with busy-poll; 4 KiB
 * PUTs >= 200,000/s and >= 1.0 x raw TCP at credits 8, >= 2.5 x at
 * credits 64. It prints figures and ratios; it never fails on time.
 *
 * Usage: bench_lnet [rtt] [busy] [rate] (no argument: all three).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ulnet/ulnet.h"

#define PORTAL 30u
#define MBITS UINT64_C(0xbe)
#define ROUNDS 10u
#define RTT_SLICE 2000u	  /* round trips per kind and round */
#define RATE_SLICE 20000u /* PUTs or messages per kind and round */
#define BUSY_POLL_US 50	  /* ulnet.busy_poll (us) for the busy part */
#define STR_(x) #x
#define STR(x) STR_(x)

#define WINDOW 64u
#define BIG 4096u
#define TUNED_CREDITS WINDOW

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
	size_t mid = n / 2, at99 = n * 99 / 100;

	qsort(v, n, sizeof(*v), cmp_u64);
	*med = (double)v[mid] / 1000.0;
	*p99 = (double)v[at99] / 1000.0;
}

/*
 * Thread placement. A round trip costs very different times when the two
 * ends share a CPU (a wake-up is a local switch) and when they do not
 * (an inter-processor interrupt, slow in a guest), and the scheduler's
 * choice changes from run to run: so for round trips every thread is
 * pinned, and each placement is measured and printed on its own. cpu -1:
 * any CPU.
 */
static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct pin_req {
	int cpu;
	bool done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void pin_on_loop(struct ulnet *u, void *arg)
{
	struct pin_req *p = arg;

	(void)u;
	pin_self(p->cpu);
	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* Pin u's loop thread (ulnet_call is asynchronous: wait for it). */
static int pin_loop(struct ulnet *u, int cpu)
{
	struct pin_req p = { .cpu = cpu };
	int rc;

	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	rc = ulnet_call(u, pin_on_loop, &p);
	pthread_mutex_lock(&p.lock);
	while (rc == 0 && !p.done)
		pthread_cond_wait(&p.cond, &p.lock);
	pthread_mutex_unlock(&p.lock);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	return rc;
}

/* ---- ulnet ---------------------------------------------------------- */

enum run_kind { RUN_PUT_RTT, RUN_GET_RTT, RUN_PUT_RATE };

struct node_pair {
	struct ulnet *a, *b;
	struct ulnet_process_id target; /* b, seen from a */
};

struct run {
	struct ulnet *a;
	enum run_kind kind;
	struct ulnet_handle md;
	struct ulnet_process_id target;
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
	if (r->samples && r->finished < r->total)
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

/*
 * Run total operations of one kind from p->a to p->b; 0 and the elapsed
 * time in *ns, per-operation round trips in samples (may be NULL).
 */
static int measure(const struct node_pair *p, enum run_kind kind, uint32_t size,
		   unsigned total, uint64_t *samples, uint64_t *ns,
		   unsigned *failed)
{
	static uint8_t src[BIG];
	struct run r;
	struct ulnet_md md = { 0 };
	int rc;

	memset(&r, 0, sizeof(r));
	r.a = p->a;
	r.kind = kind;
	r.total = total;
	r.samples = samples;
	r.target = p->target;
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	md.start = src;
	md.length = size;
	md.threshold = ULNET_MD_THRESH_INF;
	md.user_ptr = &r;
	md.handler = run_event;
	md.numa_node = -1;
	rc = ulnet_md_bind(p->a, &md, ULNET_RETAIN, &r.md);
	if (rc)
		goto out;
	rc = ulnet_call(p->a, run_start, &r);
	if (rc) {
		ulnet_md_unlink(p->a, r.md);
		goto out;
	}
	pthread_mutex_lock(&r.lock);
	while (!r.done)
		pthread_cond_wait(&r.cond, &r.lock);
	pthread_mutex_unlock(&r.lock);
	*ns += r.t_end - r.t_start;
	*failed += r.failed;
	/* r must outlive the MD: wait for its last event. */
	rc = ulnet_md_unlink(p->a, r.md);
	pthread_mutex_lock(&r.lock);
	while (rc == 0 && !r.is_unlinked)
		pthread_cond_wait(&r.cond, &r.lock);
	pthread_mutex_unlock(&r.lock);
	rc = 0;
out:
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	return rc;
}

static int make_node(const char *nid, uint16_t port, int peer_credits,
		     struct ulnet **out)
{
	struct ulnet_opts o;
	char conf[512], tun[128] = "", err[256];
	int rc;

	if (peer_credits > 0)
		snprintf(tun, sizeof(tun),
			 "        tunables:\n"
			 "          peer_credits: %d\n"
			 "          credits: 256\n",
			 peer_credits);
	snprintf(conf, sizeof(conf),
		 "net:\n  - net type: tcp\n    local NI(s):\n"
		 "      - nid: %s\n%s",
		 nid, tun);
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
	if (rc) {
		fprintf(stderr, "bench_lnet: start %s: %s\n", nid,
			ulnet_strerror(rc));
		ulnet_destroy(*out);
	}
	return rc;
}

static void ignore_event(struct ulnet *u, const struct ulnet_event *ev)
{
	(void)u;
	(void)ev;
}

/* Two started nodes; b has a sink MD that takes every PUT and GET. */
static int make_pair(const char *nid_a, const char *nid_b, uint16_t port,
		     int peer_credits, struct node_pair *p)
{
	static uint8_t sink[BIG];
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = { 0 };
	struct ulnet_handle h;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = make_node(nid_b, port, peer_credits, &p->b);
	if (rc)
		return rc;
	rc = make_node(nid_a, port, peer_credits, &p->a);
	if (rc)
		goto fail;
	ulnet_nid_set_any(&any.nid);
	md.start = sink;
	md.length = sizeof(sink);
	md.threshold = ULNET_MD_THRESH_INF;
	md.options = ULNET_MD_OP_PUT | ULNET_MD_OP_GET |
		     ULNET_MD_MANAGE_REMOTE | ULNET_MD_TRUNCATE;
	md.handler = ignore_event;
	md.numa_node = -1;
	rc = ulnet_md_attach(p->b, PORTAL, &any, MBITS, 0, ULNET_INS_AFTER, &md,
			     ULNET_RETAIN, &h);
	if (rc)
		goto fail;
	rc = ulnet_nid_parse(nid_b, &p->target.nid, NULL, 0);
	if (rc)
		goto fail;
	p->target.pid = ULNET_PID_LUSTRE;
	return 0;
fail:
	ulnet_destroy(p->a);
	ulnet_destroy(p->b);
	return rc;
}

/* ---- raw TCP -------------------------------------------------------- */

enum tcp_wait {
	TCP_BLOCK, /* blocking recv() */
	TCP_SPIN,  /* recv(MSG_DONTWAIT) in a loop: both ends poll */
	TCP_EPOLL, /* epoll_wait(), then recv(): what an event loop pays */
};

struct tcp_pair {
	int srv, cli, acc;
	pthread_t th;
	bool is_echo;	    /* the peer thread answers each 8-byte message */
	enum tcp_wait wait; /* how both ends wait for the next message */
	int ep_cli, ep_acc; /* TCP_EPOLL: each end's epoll set, else -1 */
	int cpu;	    /* where the peer thread runs */
	/* The sink thread's byte count, for the stream baseline. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t rx_bytes;
};

static int read_full(int fd, void *buf, size_t n, enum tcp_wait wait, int ep)
{
	uint8_t *b = buf;

	while (n) {
		struct epoll_event ev;
		ssize_t k;

		if (wait == TCP_EPOLL && epoll_wait(ep, &ev, 1, -1) < 0)
			return -1;
		k = recv(fd, b, n, wait == TCP_BLOCK ? 0 : MSG_DONTWAIT);
		if (k < 0 && wait != TCP_BLOCK && errno == EAGAIN)
			continue;
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

/* The far end: echo 8-byte messages, or count a stream, until EOF. */
static void *tcp_peer(void *arg)
{
	static uint8_t big[64 * 1024];
	struct tcp_pair *p = arg;
	uint8_t buf[8];

	pin_self(p->cpu);
	for (;;) {
		ssize_t k;

		if (p->is_echo) {
			if (read_full(p->acc, buf, sizeof(buf), p->wait,
				      p->ep_acc) ||
			    write_full(p->acc, buf, sizeof(buf)))
				break;
			continue;
		}
		k = read(p->acc, big, sizeof(big));
		if (k <= 0)
			break;
		pthread_mutex_lock(&p->lock);
		p->rx_bytes += (uint64_t)k;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* An epoll set watching fd for input, or -1. */
static int epoll_for(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(ep);
		return -1;
	}
	return ep;
}

static int tcp_pair_open(struct tcp_pair *p, bool is_echo, enum tcp_wait wait,
			 int cpu)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1;

	memset(p, 0, sizeof(*p));
	p->is_echo = is_echo;
	p->wait = wait;
	p->ep_cli = p->ep_acc = -1;
	p->cpu = cpu;
	p->acc = -1;
	sa.sin_addr.s_addr = htonl(0x7f000709);
	p->srv = socket(AF_INET, SOCK_STREAM, 0);
	p->cli = socket(AF_INET, SOCK_STREAM, 0);
	if (p->srv < 0 || p->cli < 0 ||
	    bind(p->srv, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(p->srv, 1) ||
	    getsockname(p->srv, (struct sockaddr *)&sa, &len) ||
	    connect(p->cli, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	p->acc = accept(p->srv, NULL, NULL);
	if (p->acc < 0)
		goto fail;
	setsockopt(p->cli, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(p->acc, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (wait == TCP_EPOLL) {
		p->ep_cli = epoll_for(p->cli);
		p->ep_acc = epoll_for(p->acc);
		if (p->ep_cli < 0 || p->ep_acc < 0)
			goto fail;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->th, NULL, tcp_peer, p) == 0)
		return 0;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
fail:
	perror("bench_lnet: TCP baseline");
	if (p->ep_cli >= 0)
		close(p->ep_cli);
	if (p->ep_acc >= 0)
		close(p->ep_acc);
	if (p->acc >= 0)
		close(p->acc);
	if (p->cli >= 0)
		close(p->cli);
	if (p->srv >= 0)
		close(p->srv);
	return -1;
}

static void tcp_pair_close(struct tcp_pair *p)
{
	shutdown(p->cli, SHUT_WR); /* the peer thread sees EOF */
	pthread_join(p->th, NULL);
	close(p->cli);
	close(p->acc);
	close(p->srv);
	if (p->ep_cli >= 0)
		close(p->ep_cli);
	if (p->ep_acc >= 0)
		close(p->ep_acc);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
}

/* n ping-pongs of 8 bytes; each round trip into samples. */
static int tcp_pingpong(struct tcp_pair *p, uint64_t *samples, unsigned n)
{
	uint8_t buf[8] = { 0 };

	for (unsigned i = 0; i < n; i++) {
		uint64_t t = now_ns();

		if (write_full(p->cli, buf, 8) ||
		    read_full(p->cli, buf, 8, p->wait, p->ep_cli))
			return -1;
		samples[i] = now_ns() - t;
	}
	return 0;
}

/* n messages of BIG bytes, one write each; adds the time until read. */
static int tcp_stream(struct tcp_pair *p, unsigned n, uint64_t *ns)
{
	static uint8_t buf[BIG];
	uint64_t t = now_ns(), target;

	pthread_mutex_lock(&p->lock);
	target = p->rx_bytes + (uint64_t)n * BIG;
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < n; i++)
		if (write_full(p->cli, buf, BIG))
			return -1;
	pthread_mutex_lock(&p->lock);
	while (p->rx_bytes < target)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	*ns += now_ns() - t;
	return 0;
}

/* ---- main ----------------------------------------------------------- */

struct rtt_figures {
	double put_med, put_p99, get_med, get_p99, tcp_med, tcp_p99;
	double ep_med, ep_p99; /* TCP waiting in epoll_wait; not when spin */
	bool is_tcp_spin;      /* the TCP baseline polled instead of blocking */
};

struct figures {
	struct rtt_figures rtt[2];   /* one CPU, two CPUs */
	struct rtt_figures rtt_busy; /* two CPUs, busy-poll */
	double put4k, put8, put4k_tuned, put8_tuned, tcp4k;
	unsigned failed;
};

/*
 * Pin the initiators (A, C, this thread) on cpu_a and the targets (B, D,
 * the TCP peer thread, set at its creation) on cpu_b.
 */
static int place(const struct node_pair *ab, const struct node_pair *cd,
		 int cpu_a, int cpu_b)
{
	pin_self(cpu_a);
	if (pin_loop(ab->a, cpu_a) || pin_loop(cd->a, cpu_a) ||
	    pin_loop(ab->b, cpu_b) || pin_loop(cd->b, cpu_b))
		return -1;
	return 0;
}

static int bench_rtt(const struct node_pair *ab, int cpu_b, bool is_spin,
		     struct rtt_figures *r, unsigned *failed)
{
	const size_t n = (size_t)ROUNDS * RTT_SLICE;
	uint64_t *put = calloc(n, sizeof(*put));
	uint64_t *get = calloc(n, sizeof(*get));
	uint64_t *tcp = calloc(n, sizeof(*tcp));
	uint64_t *ep = calloc(n, sizeof(*ep));
	struct tcp_pair tp, tpe;
	uint64_t ns = 0;
	int rc = -1;

	r->is_tcp_spin = is_spin;
	if (!put || !get || !tcp || !ep ||
	    tcp_pair_open(&tp, true, is_spin ? TCP_SPIN : TCP_BLOCK, cpu_b))
		goto out;
	/* Without busy-poll, also the floor of any epoll loop. */
	if (!is_spin && tcp_pair_open(&tpe, true, TCP_EPOLL, cpu_b))
		goto close;
	for (unsigned i = 0; i < ROUNDS; i++) {
		size_t at = (size_t)i * RTT_SLICE;

		if (measure(ab, RUN_PUT_RTT, 8, RTT_SLICE, put + at, &ns,
			    failed) ||
		    measure(ab, RUN_GET_RTT, 8, RTT_SLICE, get + at, &ns,
			    failed) ||
		    tcp_pingpong(&tp, tcp + at, RTT_SLICE) ||
		    (!is_spin && tcp_pingpong(&tpe, ep + at, RTT_SLICE)))
			goto close_e;
	}
	pcts(put, n, &r->put_med, &r->put_p99);
	pcts(get, n, &r->get_med, &r->get_p99);
	pcts(tcp, n, &r->tcp_med, &r->tcp_p99);
	if (!is_spin)
		pcts(ep, n, &r->ep_med, &r->ep_p99);
	rc = 0;
close_e:
	if (!is_spin)
		tcp_pair_close(&tpe);
close:
	tcp_pair_close(&tp);
out:
	free(put);
	free(get);
	free(tcp);
	free(ep);
	return rc;
}

static double per_s(unsigned n, uint64_t ns)
{
	return ns ? (double)n / ((double)ns / 1e9) : 0.0;
}

static int bench_rate(const struct node_pair *ab, const struct node_pair *cd,
		      int cpu_b, struct figures *f)
{
	uint64_t ns[5] = { 0 };
	const unsigned n = ROUNDS * RATE_SLICE;
	struct tcp_pair tp;

	if (tcp_pair_open(&tp, false, TCP_BLOCK, cpu_b))
		return -1;
	for (unsigned i = 0; i < ROUNDS; i++) {
		if (measure(ab, RUN_PUT_RATE, BIG, RATE_SLICE, NULL, &ns[0],
			    &f->failed) ||
		    measure(cd, RUN_PUT_RATE, BIG, RATE_SLICE, NULL, &ns[1],
			    &f->failed) ||
		    measure(ab, RUN_PUT_RATE, 8, RATE_SLICE, NULL, &ns[2],
			    &f->failed) ||
		    measure(cd, RUN_PUT_RATE, 8, RATE_SLICE, NULL, &ns[3],
			    &f->failed) ||
		    tcp_stream(&tp, RATE_SLICE, &ns[4])) {
			tcp_pair_close(&tp);
			return -1;
		}
	}
	tcp_pair_close(&tp);
	f->put4k = per_s(n, ns[0]);
	f->put4k_tuned = per_s(n, ns[1]);
	f->put8 = per_s(n, ns[2]);
	f->put8_tuned = per_s(n, ns[3]);
	f->tcp4k = per_s(n, ns[4]);
	return 0;
}

static void print_rtt(const struct rtt_figures *r, const char *where,
		      int goal_us)
{
	printf("  round trip, one at a time, %s\n", where);
	printf("  %-36s %9s %9s  %s\n", "", "median us", "p99 us",
	       "median - raw TCP median");
	printf("  %-36s %9.1f %9.1f  %+.1f us (goal <= +%d)\n",
	       "ulnet PUT 8 B + ACK", r->put_med, r->put_p99,
	       r->put_med - r->tcp_med, goal_us);
	printf("  %-36s %9.1f %9.1f  %+.1f us (goal <= +%d)\n",
	       "ulnet GET 8 B + REPLY", r->get_med, r->get_p99,
	       r->get_med - r->tcp_med, goal_us);
	printf("  %-36s %9.1f %9.1f\n",
	       r->is_tcp_spin ? "raw TCP 8 B ping-pong, both polling"
			      : "raw TCP 8 B ping-pong",
	       r->tcp_med, r->tcp_p99);
	if (!r->is_tcp_spin)
		printf("  %-36s %9.1f %9.1f  %+.1f us (an epoll loop's "
		       "floor)\n",
		       "raw TCP ping-pong, epoll_wait first", r->ep_med,
		       r->ep_p99, r->ep_med - r->tcp_med);
}

static void print_rate(const struct figures *f, const char *where)
{
	printf("  rate, %u outstanding, %s\n", WINDOW, where);
	printf("  %-36s %9s  %s\n", "", "per s", "x raw TCP 4 KiB messages/s");
	printf("  %-36s %9.0f  %.2f x (goal >= 200000/s and >= 1.0 x)\n",
	       "ulnet PUT 4 KiB + ACK, credits 8", f->put4k,
	       f->put4k / f->tcp4k);
	printf("  %-36s %9.0f  %.2f x (goal >= 2.5 x)\n",
	       "ulnet PUT 4 KiB + ACK, credits 64", f->put4k_tuned,
	       f->put4k_tuned / f->tcp4k);
	printf("  %-36s %9.0f\n", "ulnet PUT 8 B + ACK, credits 8", f->put8);
	printf("  %-36s %9.0f\n", "ulnet PUT 8 B + ACK, credits 64",
	       f->put8_tuned);
	printf("  %-36s %9.0f\n", "raw TCP 4 KiB messages, one way", f->tcp4k);
}

/* ulnet.busy_poll on both nodes of a pair; 0 or -1. */
static int set_busy_poll(const struct node_pair *p, int64_t usec)
{
	char err[256];

	if (ulnet_param_set(p->a, "ulnet.busy_poll", usec, err, sizeof(err)) ||
	    ulnet_param_set(p->b, "ulnet.busy_poll", usec, err, sizeof(err))) {
		fprintf(stderr, "bench_lnet: busy_poll: %s\n", err);
		return -1;
	}
	return 0;
}

/* No argument: everything. Else only the parts named. */
static bool want(int argc, char **argv, const char *part)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], part))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	uint16_t port = (uint16_t)(20000 + getpid() % 20000);
	struct node_pair ab, cd;
	struct figures f;
	uint64_t ns = 0;
	cpu_set_t set;
	bool two_cpus;
	int rc = 1;

	memset(&f, 0, sizeof(f));
	/* CPUs 0 and 1 both usable: measure the two-CPU placement too. */
	two_cpus = sched_getaffinity(0, sizeof(set), &set) == 0 &&
		   CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
	if (make_pair("127.0.7.1@tcp", "127.0.7.2@tcp", port, 0, &ab))
		return 1;
	if (make_pair("127.0.7.3@tcp", "127.0.7.4@tcp", port, TUNED_CREDITS,
		      &cd))
		goto destroy_ab;
	printf("bench_lnet: two ulnet nodes per pair on loopback, one tcp "
	       "rail, socklnd V3;\n  raw TCP in the same run; %u interleaved "
	       "rounds\n",
	       ROUNDS);
	/* Warm up: connections, caches. */
	if (measure(&ab, RUN_PUT_RTT, 8, 2000, NULL, &ns, &f.failed) ||
	    measure(&cd, RUN_PUT_RTT, 8, 2000, NULL, &ns, &f.failed))
		goto destroy;
	if (want(argc, argv, "rtt")) {
		if (place(&ab, &cd, 0, 0) ||
		    bench_rtt(&ab, 0, false, &f.rtt[0], &f.failed))
			goto destroy;
		print_rtt(&f.rtt[0], "every thread on CPU 0", 5);
		if (two_cpus) {
			if (place(&ab, &cd, 0, 1) ||
			    bench_rtt(&ab, 1, false, &f.rtt[1], &f.failed))
				goto destroy;
			print_rtt(&f.rtt[1],
				  "initiators on CPU 0, targets on 1", 5);
		}
	}
	if (want(argc, argv, "busy") && two_cpus) {
		/*
		 * ulnet.busy_poll: each loop polls for BUSY_POLL_US after
		 * activity instead of sleeping. Two CPUs only: with every
		 * thread on one, spinning loops take turns by the
		 * scheduler's tick (100 us round trips, 8 ms for polling
		 * TCP), which measures nothing worth having. The TCP
		 * baseline polls too (recv MSG_DONTWAIT in a loop), the
		 * best a TCP ping-pong does without sleeping.
		 */
		if (set_busy_poll(&ab, BUSY_POLL_US) || place(&ab, &cd, 0, 1) ||
		    bench_rtt(&ab, 1, true, &f.rtt_busy, &f.failed))
			goto destroy;
		print_rtt(&f.rtt_busy,
			  "initiators on CPU 0, targets on 1, "
			  "ulnet.busy_poll=" STR(BUSY_POLL_US),
			  2);
		if (f.rtt[1].tcp_med > 0)
			printf("  %-36s %+.1f us against raw TCP blocking "
			       "(above)\n",
			       "ulnet PUT 8 B + ACK, busy-poll",
			       f.rtt_busy.put_med - f.rtt[1].tcp_med);
		if (set_busy_poll(&ab, 0))
			goto destroy;
	}
	if (want(argc, argv, "rate")) {
		/*
		 * Unpinned: on a shared machine a pinned pipeline stalls
		 * whenever another process holds its CPU.
		 */
		if (place(&ab, &cd, -1, -1) || bench_rate(&ab, &cd, -1, &f))
			goto destroy;
		print_rate(&f, "threads unpinned");
	}
	if (want(argc, argv, "rate") && want(argc, argv, "busy") && two_cpus) {
		/*
		 * The rates again with every loop polling: at credits 8 a
		 * window drains in batches of 8, and each batch that finds
		 * the other side asleep pays a wake-up (two CPUs only, as
		 * above).
		 */
		struct figures fb;

		memset(&fb, 0, sizeof(fb));
		if (set_busy_poll(&ab, BUSY_POLL_US) ||
		    set_busy_poll(&cd, BUSY_POLL_US) ||
		    bench_rate(&ab, &cd, -1, &fb))
			goto destroy;
		print_rate(&fb, "threads unpinned, ulnet.busy_poll=" STR(
					BUSY_POLL_US));
		f.failed += fb.failed;
		if (set_busy_poll(&ab, 0) || set_busy_poll(&cd, 0))
			goto destroy;
	}
	if (f.failed)
		printf("  (%u operations failed)\n", f.failed);
	rc = 0;
destroy:
	ulnet_destroy(cd.a);
	ulnet_destroy(cd.b);
destroy_ab:
	ulnet_destroy(ab.a);
	ulnet_destroy(ab.b);
	if (rc)
		fprintf(stderr, "bench_lnet: a measurement failed\n");
	return rc;
}
