/*
 * nfqloss: packet loss and reordering for the failure lab
 * (docs/failure-lab.md), where the kernel has no sch_netem.
 *
 *   nfqloss --queue N[-M] [--loss P] [--reorder R] [--hold K]
 *	     [--hold-ms T] [--seed S] [--segment]
 *
 * It binds the NFQUEUE queues N..M of the network namespace it runs in
 * (an iptables rule such as `-o rail0 -j NFQUEUE --queue-num 0
 * --queue-bypass` sends packets there) and gives every packet a verdict:
 *  - dropped with probability P;
 *  - otherwise held with probability R, and let through once K more
 *    packets of the same queue have had their verdict, or after T ms,
 *    whichever comes first: the held packet arrives behind them;
 *  - otherwise let through at once.
 * One queue per rail keeps reordering within the rail's flows. Decisions
 * come from a PRNG seeded by --seed, so a run can be repeated packet for
 * packet as long as the packets arrive in the same order.
 *
 * GSO packets are queued whole (up to 64 KiB each) unless --segment asks
 * the kernel to cut them to wire-sized packets first (far more packets
 * through this process). A queue that overflows lets packets through
 * (fail-open) rather than dropping more than asked.
 *
 * Prints one line when the queues are bound, and the counts per queue and
 * in total on SIGTERM or SIGINT, then lets every held packet through and
 * exits 0. Must run as root inside the namespace (ip netns exec).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <libnfnetlink/libnfnetlink.h>

#define NFQLOSS_MAX_QUEUES 16
#define NFQLOSS_MAX_HELD 32 /* per queue; a full queue holds no more */
#define NFQLOSS_RCVBUF_BYTES (8u << 20)

struct held {
	uint32_t id;	      /* packet id, from the kernel */
	unsigned int left;    /* verdicts still to pass before release */
	uint64_t deadline_ms; /* CLOCK_MONOTONIC release bound */
};

struct counts {
	uint64_t packets;  /* verdicts asked for */
	uint64_t dropped;  /* NF_DROP given */
	uint64_t held;	   /* held back to be reordered */
	uint64_t after_k;  /* held ones let through after K packets */
	uint64_t after_ms; /* held ones let through by the time bound */
};

struct queue {
	uint16_t num;
	struct nfq_q_handle *qh;
	struct held held[NFQLOSS_MAX_HELD];
	unsigned int nheld;
	struct counts c;
};

struct lab {
	double loss;	      /* drop probability, [0, 1] */
	double reorder;	      /* hold probability, [0, 1] */
	unsigned int hold_k;  /* packets a held one waits behind */
	unsigned int hold_ms; /* longest a packet is held */
	uint64_t rng;	      /* xorshift64* state, never 0 */
	struct queue q[NFQLOSS_MAX_QUEUES];
	unsigned int nq;
	uint64_t verdict_errors;
	uint64_t overruns; /* ENOBUFS: the kernel dropped messages */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* splitmix64 turns any seed, 0 included, into a good non-zero state. */
static uint64_t seed_state(uint64_t seed)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 1;
}

/* A uniform double in [0, 1) from xorshift64*. */
static double rnd(struct lab *lab)
{
	uint64_t x = lab->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	lab->rng = x;
	return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static void verdict(struct lab *lab, struct queue *q, uint32_t id,
		    uint32_t what)
{
	if (nfq_set_verdict(q->qh, id, what, 0, NULL) < 0)
		lab->verdict_errors++;
}

/* Let held packet i through and close the gap in the array. */
static void release(struct lab *lab, struct queue *q, unsigned int i)
{
	verdict(lab, q, q->held[i].id, NF_ACCEPT);
	q->held[i] = q->held[--q->nheld];
}

/* One more packet of q had its verdict: count the held ones down. */
static void held_count_down(struct lab *lab, struct queue *q)
{
	unsigned int i = 0;

	while (i < q->nheld) {
		if (--q->held[i].left == 0) {
			q->c.after_k++;
			release(lab, q, i);
		} else {
			i++;
		}
	}
}

static void held_expire(struct lab *lab, uint64_t now)
{
	unsigned int n, i;

	for (n = 0; n < lab->nq; n++) {
		struct queue *q = &lab->q[n];

		i = 0;
		while (i < q->nheld) {
			if (q->held[i].deadline_ms <= now) {
				q->c.after_ms++;
				release(lab, q, i);
			} else {
				i++;
			}
		}
	}
}

/* Milliseconds until the first held packet is due; -1 when none is. */
static int held_timeout_ms(const struct lab *lab, uint64_t now)
{
	uint64_t first = UINT64_MAX;
	unsigned int n, i;

	for (n = 0; n < lab->nq; n++)
		for (i = 0; i < lab->q[n].nheld; i++)
			if (lab->q[n].held[i].deadline_ms < first)
				first = lab->q[n].held[i].deadline_ms;
	if (first == UINT64_MAX)
		return -1;
	return first <= now ? 0 : (int)(first - now);
}

static void held_release_all(struct lab *lab)
{
	unsigned int n;

	for (n = 0; n < lab->nq; n++)
		while (lab->q[n].nheld)
			release(lab, &lab->q[n], 0);
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *nfmsg,
		     struct nfq_data *nfa, void *data)
{
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	struct lab *lab = data;
	struct queue *q = NULL;
	unsigned int n;
	uint32_t id;

	(void)nfmsg;
	for (n = 0; n < lab->nq; n++)
		if (lab->q[n].qh == qh)
			q = &lab->q[n];
	if (!q || !ph)
		return 0;
	id = ntohl(ph->packet_id);
	q->c.packets++;
	if (lab->loss > 0 && rnd(lab) < lab->loss) {
		q->c.dropped++;
		verdict(lab, q, id, NF_DROP);
		held_count_down(lab, q);
		return 0;
	}
	if (lab->reorder > 0 && q->nheld < NFQLOSS_MAX_HELD &&
	    rnd(lab) < lab->reorder) {
		/* Counted down by the K packets after it, not by itself. */
		q->held[q->nheld].id = id;
		q->held[q->nheld].left = lab->hold_k;
		q->held[q->nheld].deadline_ms = now_ms() + lab->hold_ms;
		q->nheld++;
		q->c.held++;
		return 0;
	}
	verdict(lab, q, id, NF_ACCEPT);
	held_count_down(lab, q);
	return 0;
}

static void counts_print(const char *what, const struct counts *c)
{
	printf("nfqloss: %s: packets %" PRIu64 " dropped %" PRIu64
	       " held %" PRIu64 " released_after_k %" PRIu64
	       " released_after_ms %" PRIu64 "\n",
	       what, c->packets, c->dropped, c->held, c->after_k, c->after_ms);
}

static void lab_report(const struct lab *lab)
{
	struct counts sum = { 0 };
	char what[32];
	unsigned int n;

	for (n = 0; n < lab->nq; n++) {
		const struct counts *c = &lab->q[n].c;

		snprintf(what, sizeof(what), "queue %u", lab->q[n].num);
		counts_print(what, c);
		sum.packets += c->packets;
		sum.dropped += c->dropped;
		sum.held += c->held;
		sum.after_k += c->after_k;
		sum.after_ms += c->after_ms;
	}
	counts_print("total", &sum);
	if (lab->overruns || lab->verdict_errors)
		printf("nfqloss: overruns %" PRIu64 " verdict_errors %" PRIu64
		       "\n",
		       lab->overruns, lab->verdict_errors);
	fflush(stdout);
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Bind queues first..last; returns 0 or -1 having said why. */
static int lab_bind(struct lab *lab, struct nfq_handle *h, unsigned int first,
		    unsigned int last, bool is_segment)
{
	uint32_t flags = NFQA_CFG_F_FAIL_OPEN |
			 (is_segment ? 0 : NFQA_CFG_F_GSO);
	unsigned int num;

	for (num = first; num <= last; num++) {
		struct queue *q = &lab->q[lab->nq];

		q->num = (uint16_t)num;
		q->qh = nfq_create_queue(h, q->num, on_packet, lab);
		if (!q->qh) {
			fprintf(stderr, "nfqloss: cannot bind queue %u: %s\n",
				num, strerror(errno));
			return -1;
		}
		lab->nq++;
		/* The headers are enough: verdicts need only the id. */
		if (nfq_set_mode(q->qh, NFQNL_COPY_META, 0) < 0 ||
		    nfq_set_queue_maxlen(q->qh, 4096) < 0) {
			fprintf(stderr, "nfqloss: cannot set up queue %u: %s\n",
				num, strerror(errno));
			return -1;
		}
		/* Older kernels lack the flags; loss and reorder still work. */
		if (nfq_set_queue_flags(q->qh, flags, flags) < 0)
			fprintf(stderr,
				"nfqloss: queue %u: flags not set: %s\n", num,
				strerror(errno));
	}
	return 0;
}

/* Read and judge packets until a signal; returns 0 or -1. */
static int lab_run(struct lab *lab, struct nfq_handle *h,
		   const sigset_t *waitmask)
{
	static char buf[1 << 16] __attribute__((aligned));
	struct pollfd pfd = { .fd = nfq_fd(h), .events = POLLIN };
	struct timespec ts, *tsp;
	int timeout, n;

	while (!stop_signal) {
		timeout = held_timeout_ms(lab, now_ms());
		tsp = NULL;
		if (timeout >= 0) {
			ts.tv_sec = timeout / 1000;
			ts.tv_nsec = (long)(timeout % 1000) * 1000000L;
			tsp = &ts;
		}
		n = ppoll(&pfd, 1, tsp, waitmask);
		if (n < 0 && errno != EINTR) {
			perror("nfqloss: ppoll");
			return -1;
		}
		if (n > 0) {
			/* Drain what is there without blocking again. */
			for (;;) {
				n = (int)recv(pfd.fd, buf, sizeof(buf),
					      MSG_DONTWAIT);
				if (n > 0) {
					nfq_handle_packet(h, buf, n);
					continue;
				}
				if (n < 0 && errno == ENOBUFS) {
					lab->overruns++;
					continue;
				}
				if (n < 0 && errno != EAGAIN &&
				    errno != EINTR) {
					perror("nfqloss: recv");
					return -1;
				}
				break;
			}
		}
		held_expire(lab, now_ms());
	}
	return 0;
}

static int parse_prob(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0 && v <= 1.0))
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "N" or "N-M", at most NFQLOSS_MAX_QUEUES queues. */
static int parse_queues(const char *s, unsigned int *first, unsigned int *last)
{
	unsigned long a, b;
	char buf[32], *dash;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -EINVAL;
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (parse_uint(buf, 65535, &a))
		return -EINVAL;
	b = a;
	if (dash && parse_uint(dash + 1, 65535, &b))
		return -EINVAL;
	if (b < a || b - a >= NFQLOSS_MAX_QUEUES)
		return -EINVAL;
	*first = (unsigned int)a;
	*last = (unsigned int)b;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nfqloss --queue N[-M] [--loss P] [--reorder R] "
		"[--hold K]\n"
		"               [--hold-ms T] [--seed S] [--segment]\n"
		"  --queue N[-M]  NFQUEUE numbers to bind (at most %d)\n"
		"  --loss P       drop a packet with probability P (0..1)\n"
		"  --reorder R    hold a packet with probability R (0..1)\n"
		"  --hold K       release a held packet after K more "
		"(default 3)\n"
		"  --hold-ms T    or after T ms, whichever first (default 20)\n"
		"  --seed S       PRNG seed (default 1)\n"
		"  --segment      let the kernel cut GSO packets first\n",
		NFQLOSS_MAX_QUEUES);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "queue", required_argument, NULL, 'q' },
		{ "loss", required_argument, NULL, 'l' },
		{ "reorder", required_argument, NULL, 'r' },
		{ "hold", required_argument, NULL, 'k' },
		{ "hold-ms", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "segment", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int first = 0, last = 0, n;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long v, seed = 1;
	bool has_queue = false, is_segment = false;
	sigset_t block, waitmask;
	struct nfq_handle *h;
	static struct lab lab;
	int opt, rc = 1;

	lab.hold_k = 3;
	lab.hold_ms = 20;
	while ((opt = getopt_long(argc, argv, "q:l:r:k:m:s:gh", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'q':
			if (parse_queues(optarg, &first, &last))
				goto bad_arg;
			has_queue = true;
			break;
		case 'l':
			if (parse_prob(optarg, &lab.loss))
				goto bad_arg;
			break;
		case 'r':
			if (parse_prob(optarg, &lab.reorder))
				goto bad_arg;
			break;
		case 'k':
			if (parse_uint(optarg, 1000, &v) || v == 0)
				goto bad_arg;
			lab.hold_k = (unsigned int)v;
			break;
		case 'm':
			if (parse_uint(optarg, 10000, &v) || v == 0)
				goto bad_arg;
			lab.hold_ms = (unsigned int)v;
			break;
		case 's':
			if (parse_uint(optarg, ULONG_MAX, &seed))
				goto bad_arg;
			break;
		case 'g':
			is_segment = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!has_queue || optind != argc) {
		usage(stderr);
		return 2;
	}
	lab.rng = seed_state(seed);

	/*
	 * SIGTERM and SIGINT stay blocked except inside ppoll, so a signal
	 * can never slip in between the check and the wait.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	h = nfq_open();
	if (!h) {
		fprintf(stderr, "nfqloss: nfq_open: %s (root needed)\n",
			strerror(errno));
		return 1;
	}
	if (lab_bind(&lab, h, first, last, is_segment))
		goto out_close;
	nfnl_rcvbufsiz(nfq_nfnlh(h), NFQLOSS_RCVBUF_BYTES);
	printf("nfqloss: queues %u-%u bound: loss %.4f reorder %.4f hold %u "
	       "packets or %u ms, seed %lu%s\n",
	       first, last, lab.loss, lab.reorder, lab.hold_k, lab.hold_ms,
	       seed, is_segment ? ", segmented" : "");
	fflush(stdout);
	if (lab_run(&lab, h, &waitmask) == 0)
		rc = 0;
	held_release_all(&lab);
	lab_report(&lab);
out_close:
	for (n = 0; n < lab.nq; n++)
		nfq_destroy_queue(lab.q[n].qh);
	nfq_close(h);
	return rc;

bad_arg:
	for (n = 0; opts[n].name && opts[n].val != opt; n++)
		;
	fprintf(stderr, "nfqloss: bad value '%s' for --%s\n", optarg,
		opts[n].name ? opts[n].name : "?");
	return 2;
}
