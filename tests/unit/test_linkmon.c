/*
 * The rtnetlink link monitor (src/runtime/linkmon.h).
 *
 * The parser runs on hand-built netlink datagrams, well-formed and broken
 * (a numbered table), then on every truncation of a valid datagram and on
 * random bytes, each in a heap block of exactly its length so ASan sees
 * any read past the end.
 *
 * The live test needs root: a forked child moves into a network namespace
 * of its own, where only loopback exists, and adds a veth pair:
 *
 *     ulm<pid>a <==veth==> ulm<pid>b
 *
 * With b up, it starts a loop and a monitor, then sets a up, down, up and
 * deletes it, and checks the monitor reports up, down, up, down for a. The
 * child reports through its exit status (0, 77 to skip, 100 + the failed
 * step) and its namespace, veth pair included, dies with it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <cmocka.h>

#include "runtime/linkmon.h"
#include "util/loop.h"
#include "util/clock.h"

/* A netlink datagram under construction. */
struct nb {
	uint8_t buf[1024];
	size_t len;
	size_t msg; /* offset of the open message's header */
};

static void nb_put(struct nb *b, const void *data, size_t n)
{
	assert_true(b->len + n + 3 <= sizeof(b->buf));
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	while (b->len % 4)
		b->buf[b->len++] = 0;
}

static void nb_begin(struct nb *b, uint16_t type)
{
	struct nlmsghdr nh = { .nlmsg_type = type };

	b->msg = b->len;
	nb_put(b, &nh, sizeof(nh));
}

static void nb_end(struct nb *b)
{
	uint32_t len = (uint32_t)(b->len - b->msg);

	memcpy(b->buf + b->msg + offsetof(struct nlmsghdr, nlmsg_len), &len,
	       sizeof(len));
}

/* An attribute; len may differ from the payload's size (rta_len lies). */
static void nb_attr_raw(struct nb *b, uint16_t type, const void *data, size_t n,
			uint16_t rta_len)
{
	struct rtattr rta = { .rta_len = rta_len, .rta_type = type };

	memcpy(b->buf + b->len, &rta, sizeof(rta));
	b->len += sizeof(rta);
	if (n)
		nb_put(b, data, n);
}

static void nb_attr(struct nb *b, uint16_t type, const void *data, size_t n)
{
	nb_attr_raw(b, type, data, n, (uint16_t)(sizeof(struct rtattr) + n));
}

static void nb_link(struct nb *b, uint16_t type, int ifindex,
		    unsigned int flags, const char *name, int operstate)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_index = ifindex,
				 .ifi_flags = flags };

	nb_begin(b, type);
	nb_put(b, &ifi, sizeof(ifi));
	if (name)
		nb_attr(b, IFLA_IFNAME, name, strlen(name) + 1);
	if (operstate >= 0) {
		uint8_t op = (uint8_t)operstate;

		nb_attr(b, IFLA_OPERSTATE, &op, 1);
	}
	nb_end(b);
}

static void nb_error(struct nb *b, int error)
{
	struct nlmsgerr e = { .error = error };

	nb_begin(b, NLMSG_ERROR);
	nb_put(b, &e, sizeof(e));
	nb_end(b);
}

/* What the parser reported. */
struct seen {
	int n;
	struct ul_linkmon_link last;
	char last_name[IFNAMSIZ];
};

static void seen_cb(void *arg, const struct ul_linkmon_link *link)
{
	struct seen *s = arg;

	s->n++;
	s->last = *link;
	s->last_name[0] = 0;
	if (link->ifname) {
		assert_true(strlen(link->ifname) < IFNAMSIZ);
		snprintf(s->last_name, sizeof(s->last_name), "%s",
			 link->ifname);
	}
}

/* Parse a copy of exactly len bytes on the heap, at an odd address. */
static int parse_exact(const void *data, size_t len, struct seen *s,
		       bool *is_done)
{
	uint8_t *copy = malloc(len + 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy + 1, data, len);
	memset(s, 0, sizeof(*s));
	/* The buffer ends where the block ends: ASan sees any overread. */
	rc = ul_linkmon_parse(copy + 1, len, seen_cb, s, is_done);
	free(copy);
	return rc;
}

#define UPRUN (IFF_UP | IFF_RUNNING)

enum pmut {
	PM_NONE,
	PM_EMPTY,	  /* no bytes at all */
	PM_TRUNC,	  /* cut arg bytes off the end */
	PM_NLLEN,	  /* nlmsg_len = arg */
	PM_NLLEN_PLUS,	  /* nlmsg_len += arg, past the end */
	PM_RTALEN,	  /* first attribute's rta_len = arg */
	PM_NAME_NO_NUL,	  /* IFLA_IFNAME of arg bytes, no NUL */
	PM_NAME_EMPTY,	  /* IFLA_IFNAME holding only the NUL */
	PM_OPER_EMPTY,	  /* IFLA_OPERSTATE with no payload */
	PM_DONE_THEN,	  /* NLMSG_DONE, then a second link message */
	PM_ERROR_AFTER,	  /* an NLMSG_ERROR carrying arg after it */
	PM_ERROR_SHORT,	  /* an NLMSG_ERROR with 2 bytes of payload */
	PM_NOOP_BEFORE,	  /* an NLMSG_NOOP first */
	PM_TWICE,	  /* the message twice */
	PM_TRAILING,	  /* arg garbage bytes after the message */
	PM_ATTR_PAD,	  /* arg spare bytes inside the message, after attrs */
	PM_UNKNOWN_ATTR,  /* an IFLA_MTU first */
	PM_SHORT_IFINFO,  /* only 8 bytes of ifinfomsg */
	PM_NESTED_NAME,	  /* IFLA_IFNAME with the NLA_F_NESTED bit */
	PM_UNALIGNED_END, /* the last message's length not a multiple of 4 */
};

struct prow {
	uint16_t type;
	int ifindex;
	unsigned int flags;
	const char *name; /* NULL: no IFLA_IFNAME */
	int operstate;	  /* -1: no IFLA_OPERSTATE */
	enum pmut mut;
	int arg;
	/* expected */
	int rc;
	int n; /* links reported */
	bool is_up;
	bool is_del;
	const char *want_name; /* "" when absent */
	bool is_done;
};

static const struct prow prows[] = {
	/* 0 */ { RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NONE, 0, 0, 1,
		  true, false, "eth0", false },
	{ RTM_NEWLINK, 3, IFF_UP, "eth0", IF_OPER_DOWN, PM_NONE, 0, 0, 1, false,
	  false, "eth0", false },
	{ RTM_NEWLINK, 3, IFF_RUNNING, "eth0", IF_OPER_UP, PM_NONE, 0, 0, 1,
	  false, false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_DOWN, PM_NONE, 0, 0, 1, false,
	  false, "eth0", false },
	{ RTM_NEWLINK, 1, UPRUN | IFF_LOOPBACK, "lo", IF_OPER_UNKNOWN, PM_NONE,
	  0, 0, 1, true, false, "lo", false },
	/* 5 */
	{ RTM_NEWLINK, 3, UPRUN, "eth0", -1, PM_NONE, 0, 0, 1, true, false,
	  "eth0", false },
	{ RTM_DELLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NONE, 0, 0, 1, false,
	  true, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, NULL, IF_OPER_UP, PM_NONE, 0, 0, 1, true,
	  false, "", false },
	{ RTM_NEWLINK, 0, UPRUN, "eth0", IF_OPER_UP, PM_NONE, 0, -EPROTO, 0,
	  false, false, "", false },
	{ RTM_NEWLINK, -1, UPRUN, "eth0", IF_OPER_UP, PM_NONE, 0, -EPROTO, 0,
	  false, false, "", false },
	/* 10 */
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_EMPTY, 0, 0, 0, false,
	  false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_TRUNC, 1, -EPROTO, 0,
	  false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NLLEN, 15, -EPROTO, 0,
	  false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NLLEN, 24, -EPROTO, 0,
	  false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NLLEN_PLUS, 4, -EPROTO,
	  0, false, false, "", false },
	/* 15 */
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_RTALEN, 3, -EPROTO, 0,
	  false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_RTALEN, 2000, -EPROTO,
	  0, false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NAME_NO_NUL, 4, -EPROTO,
	  0, false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NAME_EMPTY, 0, -EPROTO,
	  0, false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "sixteen_chars_xx", IF_OPER_UP, PM_NONE, 0,
	  -EPROTO, 0, false, false, "", false },
	/* 20 */
	{ RTM_NEWLINK, 3, UPRUN, "fifteen_chars_x", IF_OPER_UP, PM_NONE, 0, 0,
	  1, true, false, "fifteen_chars_x", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_OPER_EMPTY, 0, -EPROTO,
	  0, false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_DONE_THEN, 0, 0, 1,
	  true, false, "eth0", true },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_ERROR_AFTER, -EPERM,
	  -EPERM, 1, true, false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_ERROR_AFTER, 0, 0, 1,
	  true, false, "eth0", false },
	/* 25 */
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_ERROR_SHORT, 0, -EPROTO,
	  1, true, false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_ERROR_AFTER, 5, -EPROTO,
	  1, true, false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NOOP_BEFORE, 0, 0, 1,
	  true, false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_TWICE, 0, 0, 2, true,
	  false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_TRAILING, 8, -EPROTO, 1,
	  true, false, "eth0", false },
	/* 30 */
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_ATTR_PAD, 3, 0, 1, true,
	  false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_UNKNOWN_ATTR, 0, 0, 1,
	  true, false, "eth0", false },
	{ RTM_NEWADDR, 3, UPRUN, "eth0", IF_OPER_UP, PM_NONE, 0, 0, 0, false,
	  false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_SHORT_IFINFO, 0,
	  -EPROTO, 0, false, false, "", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_NESTED_NAME, 0, 0, 1,
	  true, false, "eth0", false },
	/* 35 */
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_UP, PM_UNALIGNED_END, 0, 0, 1,
	  true, false, "eth0", false },
	{ RTM_NEWLINK, 3, UPRUN, "eth0", IF_OPER_DORMANT, PM_NONE, 0, 0, 1,
	  false, false, "eth0", false },
};

static void set_nllen(struct nb *b, size_t msg, uint32_t len)
{
	memcpy(b->buf + msg + offsetof(struct nlmsghdr, nlmsg_len), &len,
	       sizeof(len));
}

static void build_row(const struct prow *r, struct nb *b)
{
	struct ifinfomsg ifi = { .ifi_index = r->ifindex,
				 .ifi_flags = r->flags };
	uint8_t op = (uint8_t)r->operstate;
	uint32_t mtu = 1500;
	uint32_t nllen;

	memset(b, 0, sizeof(*b));
	switch (r->mut) {
	case PM_EMPTY:
		return;
	case PM_NOOP_BEFORE:
		nb_begin(b, NLMSG_NOOP);
		nb_end(b);
		break;
	case PM_RTALEN:
	case PM_NAME_NO_NUL:
	case PM_NAME_EMPTY:
	case PM_OPER_EMPTY:
	case PM_ATTR_PAD:
	case PM_UNKNOWN_ATTR:
	case PM_SHORT_IFINFO:
	case PM_NESTED_NAME:
	case PM_UNALIGNED_END:
		/* The link message is built by hand below. */
		nb_begin(b, r->type);
		if (r->mut == PM_SHORT_IFINFO) {
			nb_put(b, &ifi, 8);
			nb_end(b);
			return;
		}
		nb_put(b, &ifi, sizeof(ifi));
		if (r->mut == PM_UNKNOWN_ATTR)
			nb_attr(b, IFLA_MTU, &mtu, sizeof(mtu));
		if (r->mut == PM_RTALEN)
			nb_attr_raw(b, IFLA_IFNAME, r->name,
				    strlen(r->name) + 1, (uint16_t)r->arg);
		else if (r->mut == PM_NAME_NO_NUL)
			nb_attr(b, IFLA_IFNAME, r->name, (size_t)r->arg);
		else if (r->mut == PM_NAME_EMPTY)
			nb_attr(b, IFLA_IFNAME, "", 1);
		else if (r->mut == PM_NESTED_NAME)
			nb_attr(b, IFLA_IFNAME | NLA_F_NESTED, r->name,
				strlen(r->name) + 1);
		else
			nb_attr(b, IFLA_IFNAME, r->name, strlen(r->name) + 1);
		if (r->mut == PM_OPER_EMPTY)
			nb_attr(b, IFLA_OPERSTATE, NULL, 0);
		else
			nb_attr(b, IFLA_OPERSTATE, &op, 1);
		if (r->mut == PM_ATTR_PAD)
			b->len += (size_t)r->arg;
		nb_end(b);
		if (r->mut == PM_UNALIGNED_END) {
			/* Drop the last attribute's padding: 4n + 1 bytes. */
			b->len -= 3;
			set_nllen(b, b->msg, (uint32_t)(b->len - b->msg));
		}
		return;
	default:
		break;
	}
	nb_link(b, r->type, r->ifindex, r->flags, r->name, r->operstate);
	switch (r->mut) {
	case PM_TRUNC:
		b->len -= (size_t)r->arg;
		break;
	case PM_NLLEN:
		set_nllen(b, b->msg, (uint32_t)r->arg);
		break;
	case PM_NLLEN_PLUS:
		memcpy(&nllen, b->buf + b->msg, sizeof(nllen));
		set_nllen(b, b->msg, nllen + (uint32_t)r->arg);
		break;
	case PM_DONE_THEN:
		nb_begin(b, NLMSG_DONE);
		nb_put(b, &(int){ 0 }, sizeof(int));
		nb_end(b);
		nb_link(b, RTM_NEWLINK, 9, 0, "late0", -1);
		break;
	case PM_ERROR_AFTER:
		nb_error(b, r->arg);
		break;
	case PM_ERROR_SHORT:
		nb_begin(b, NLMSG_ERROR);
		b->buf[b->len++] = 0;
		b->buf[b->len++] = 0;
		nb_end(b);
		break;
	case PM_TWICE:
		nb_link(b, r->type, r->ifindex, r->flags, r->name,
			r->operstate);
		break;
	case PM_TRAILING:
		memset(b->buf + b->len, 0xa5, (size_t)r->arg);
		b->len += (size_t)r->arg;
		break;
	default:
		break;
	}
}

static void linkmon_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(prows) / sizeof(prows[0]); i++) {
		const struct prow *r = &prows[i];
		struct nb b;
		struct seen s;
		bool is_done = false;
		int rc;

		build_row(r, &b);
		rc = parse_exact(b.buf, b.len, &s, &is_done);
		if (rc != r->rc || s.n != r->n) {
			fail_msg("row %zu: rc %d (want %d), %d links (want %d)",
				 i, rc, r->rc, s.n, r->n);
		}
		if (rc == 0 && is_done != r->is_done)
			fail_msg("row %zu: is_done %d", i, is_done);
		if (!r->n)
			continue;
		if (s.last.ifindex != r->ifindex || s.last.is_up != r->is_up ||
		    s.last.is_del != r->is_del ||
		    strcmp(s.last_name, r->want_name) != 0 ||
		    s.last.flags != r->flags)
			fail_msg("row %zu: ifindex %d up %d del %d name '%s'",
				 i, s.last.ifindex, s.last.is_up, s.last.is_del,
				 s.last_name);
	}
}

static void linkmon_parse_every_truncation(void **state)
{
	struct nb b;
	struct seen s;

	(void)state;
	memset(&b, 0, sizeof(b));
	nb_link(&b, RTM_NEWLINK, 2, UPRUN, "rail0", IF_OPER_UP);
	nb_link(&b, RTM_DELLINK, 4, 0, "rail1", IF_OPER_DOWN);
	for (size_t len = 0; len <= b.len; len++) {
		int rc = parse_exact(b.buf, len, &s, NULL);

		/* Whole messages are reported; a cut one is refused. */
		assert_true(rc == 0 || rc == -EPROTO);
		assert_true(s.n <= 2);
		if (len == b.len) {
			assert_int_equal(rc, 0);
			assert_int_equal(s.n, 2);
			assert_true(s.last.is_del);
			assert_string_equal(s.last_name, "rail1");
		}
	}
}

static void linkmon_parse_random_bytes(void **state)
{
	uint64_t rng = 0x243f6a8885a308d3ull;
	struct nb base;

	(void)state;
	memset(&base, 0, sizeof(base));
	nb_link(&base, RTM_NEWLINK, 2, UPRUN, "rail0", IF_OPER_UP);
	nb_link(&base, RTM_NEWLINK, 5, IFF_UP, "rail2", IF_OPER_DOWN);
	const size_t blen = base.len;

	if (blen == 0 || blen > sizeof(base.buf)) {
		fail();
		return;
	}
	for (int iter = 0; iter < 20000; iter++) {
		struct nb b = base;
		struct seen s;
		size_t len;
		int rc;

		/* Flip a few bytes of a valid datagram and cut it somewhere. */
		for (int k = 0; k < 4; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			b.buf[(rng % 4096) * blen / 4096] =
				(uint8_t)(rng >> 32);
		}
		/* 0 to blen bytes, scaled so no division needs blen != 0. */
		len = (size_t)((rng >> 40) % 4096) * (blen + 1) / 4096;
		rc = parse_exact(b.buf, len, &s, NULL);
		assert_true(rc <= 0);
		assert_true(s.n <= 2);
	}
}

/* The live test, in a child process inside its own network namespace. */

#define LIVE_MAX 64
#define LIVE_SKIP 77
#define LIVE_FAIL 100
#define LIVE_WAIT_NS (20ull * 1000000000ull) /* a safety net only */

struct live {
	char a[IFNAMSIZ];
	char b[IFNAMSIZ];
	struct {
		char name[IFNAMSIZ];
		bool is_up;
	} ev[LIVE_MAX];
	int nev;
	int step;
};

static void live_cb(void *arg, const char *ifname, bool is_up)
{
	struct live *lv = arg;

	if (lv->nev == LIVE_MAX)
		return;
	snprintf(lv->ev[lv->nev].name, IFNAMSIZ, "%s", ifname);
	lv->ev[lv->nev].is_up = is_up;
	lv->nev++;
}

static void live_check(struct live *lv, bool is_ok, const char *what)
{
	lv->step++;
	if (is_ok)
		return;
	fprintf(stderr, "linkmon live step %d failed: %s\n", lv->step, what);
	_exit(LIVE_FAIL + lv->step);
}

static int live_ip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run one ip(8) command; 0 when it succeeded. */
static int live_ip(const char *fmt, ...)
{
	char cmd[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int live_count(const struct live *lv, const char *name)
{
	int n = 0;

	for (int i = 0; i < lv->nev; i++)
		n += strcmp(lv->ev[i].name, name) == 0;
	return n;
}

/* The k-th event for name (0-based): 1 up, 0 down, -1 none. */
static int live_event(const struct live *lv, const char *name, int k)
{
	for (int i = 0; i < lv->nev; i++) {
		if (strcmp(lv->ev[i].name, name) != 0)
			continue;
		if (k-- == 0)
			return lv->ev[i].is_up;
	}
	return -1;
}

/* Run the loop until name has had want events (or the safety net). */
static void live_wait(struct live *lv, struct ul_loop *loop, const char *name,
		      int want)
{
	uint64_t deadline = ul_clock_monotonic_ns() + LIVE_WAIT_NS;

	while (live_count(lv, name) < want &&
	       ul_clock_monotonic_ns() < deadline) {
		if (ul_loop_run_once(loop, 100))
			live_check(lv, false, "run_once");
	}
	live_check(lv, live_count(lv, name) == want, "event count");
}

/* Run the loop until the monitor forgets name (or the safety net). */
static void live_wait_gone(struct live *lv, struct ul_loop *loop,
			   struct ul_linkmon *lm, const char *name)
{
	uint64_t deadline = ul_clock_monotonic_ns() + LIVE_WAIT_NS;
	bool is_up;

	while (ul_linkmon_is_up(lm, name, &is_up) == 0 &&
	       ul_clock_monotonic_ns() < deadline) {
		if (ul_loop_run_once(loop, 100))
			live_check(lv, false, "run_once");
	}
	live_check(lv, ul_linkmon_is_up(lm, name, &is_up) == -ENOENT,
		   "forgotten after delete");
}

static void live_child(void)
{
	static const int want[] = { 1, 0, 1, 0 };
	struct ul_loop *loop;
	struct ul_linkmon *lm;
	struct live lv;
	bool is_up;

	memset(&lv, 0, sizeof(lv));
	snprintf(lv.a, sizeof(lv.a), "ulm%da", (int)(getpid() % 100000));
	snprintf(lv.b, sizeof(lv.b), "ulm%db", (int)(getpid() % 100000));
	if (unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr, "linkmon live: unshare(CLONE_NEWNET): %s\n",
			strerror(errno));
		_exit(LIVE_SKIP);
	}
	if (live_ip("ip link add %s type veth peer name %s", lv.a, lv.b)) {
		fprintf(stderr, "linkmon live: cannot add a veth pair\n");
		_exit(LIVE_SKIP);
	}
	live_check(&lv, live_ip("ip link set %s up", lv.b) == 0, "set b up");
	live_check(&lv, ul_loop_create(&loop) == 0, "loop create");
	live_check(&lv, ul_linkmon_create(loop, live_cb, &lv, &lm) == 0,
		   "linkmon create");
	/* Seeded from the dump, without callbacks. */
	live_check(&lv, ul_linkmon_is_up(lm, lv.a, &is_up) == 0 && !is_up,
		   "a seeded down");
	live_check(&lv, ul_linkmon_is_up(lm, "lo", &is_up) == 0 && !is_up,
		   "lo seeded down");
	live_check(&lv, ul_linkmon_is_up(lm, "ulm-none", &is_up) == -ENOENT,
		   "unknown name");
	live_check(&lv, lv.nev == 0, "no callback for the seed");

	live_check(&lv, live_ip("ip link set %s up", lv.a) == 0, "set a up");
	live_wait(&lv, loop, lv.a, 1);
	live_check(&lv, ul_linkmon_is_up(lm, lv.a, &is_up) == 0 && is_up,
		   "a is up");
	live_check(&lv, live_ip("ip link set %s down", lv.a) == 0,
		   "set a down");
	live_wait(&lv, loop, lv.a, 2);
	live_check(&lv, live_ip("ip link set %s up", lv.a) == 0,
		   "set a up again");
	live_wait(&lv, loop, lv.a, 3);
	/* Deleting a (and with it b) while up reports it down. */
	live_check(&lv, live_ip("ip link del %s", lv.a) == 0, "del a");
	live_wait(&lv, loop, lv.a, 4);
	for (int k = 0; k < 4; k++)
		live_check(&lv, live_event(&lv, lv.a, k) == want[k],
			   "a went up, down, up, down");
	live_check(&lv, ul_linkmon_is_up(lm, lv.a, &is_up) == -ENOENT,
		   "a forgotten after delete");
	/*
	 * b follows its peer's carrier, so how many of its changes the
	 * kernel shows depends on timing; but it alternates, starts up
	 * and, once deleted, ends down.
	 */
	live_wait_gone(&lv, loop, lm, lv.b);
	for (int k = 0; live_event(&lv, lv.b, k) >= 0; k++)
		live_check(&lv, live_event(&lv, lv.b, k) == !(k % 2),
			   "b alternates from up");
	live_check(&lv, live_count(&lv, lv.b) % 2 == 0, "b ends down");

	ul_linkmon_destroy(lm);
	ul_loop_destroy(loop);
	_exit(0);
}

static void linkmon_live_veth_up_down(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: the live linkmon test needs root to "
			      "make a network namespace\n");
		skip();
	}
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		live_child();
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == LIVE_SKIP) {
		print_message("skipped: no network namespace or veth here\n");
		skip();
	}
	if (WEXITSTATUS(status) != 0)
		fail_msg("live child failed at step %d",
			 WEXITSTATUS(status) - LIVE_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(linkmon_parse_table),
		cmocka_unit_test(linkmon_parse_every_truncation),
		cmocka_unit_test(linkmon_parse_random_bytes),
		cmocka_unit_test(linkmon_live_veth_up_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
