/*
 * The rtnetlink link monitor of linkmon.h.
 *
 * Two sockets: the monitor socket, bound to RTMGRP_LINK before anything
 * else so no change is missed, watched by the loop; and a short-lived
 * socket per RTM_GETLINK dump, so dump replies never mix with
 * notifications. A notification that repeats what the dump already showed
 * changes nothing, so the order of the two does not matter.
 *
 * The table holds one entry per ifindex: name and last reported state.
 * Callbacks fire only when an entry's state changes. If the kernel drops
 * notifications (ENOBUFS on the monitor socket: its buffer overran), the
 * monitor dumps again and reports every difference, including interfaces
 * that vanished meanwhile.
 *
 * Datagrams come only from the kernel (nl_pid 0); anything else, and any
 * malformed datagram, is dropped and counted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "runtime/linkmon.h"
#include "util/loop.h"

/* Large enough for any rtnetlink datagram the kernel builds for us. */
#define LINKMON_BUF_SIZE 32768
/* Datagrams read per readiness callback: bounded work per iteration. */
#define LINKMON_MAX_READS 64
/* The dump is answered at once; this only guards against a stuck kernel. */
#define LINKMON_DUMP_TIMEOUT_SEC 5

struct link_state {
	int ifindex;
	bool is_up;   /* last reported (or seeded) state */
	bool is_seen; /* present in the dump being taken */
	char name[IFNAMSIZ];
};

struct ul_linkmon {
	struct ul_loop *loop;
	struct ul_io io;
	int fd; /* the monitor socket */
	ul_linkmon_cb cb;
	void *arg;
	struct link_state *links; /* unordered; a host has few interfaces */
	size_t nlinks;
	size_t cap;
	bool is_reporting;   /* false while seeding: no callbacks */
	bool is_in_dispatch; /* inside the io callback: defer the free */
	bool is_dead;	     /* destroyed from a callback */
	uint32_t dump_seq;
	unsigned int nbad; /* datagrams dropped as malformed or foreign */
	uint8_t buf[LINKMON_BUF_SIZE];
};

/* The parser. */

/* Netlink pads messages and attributes to 4 bytes; size_t cannot wrap. */
static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Read the attributes after the ifinfomsg of one link message. */
static int parse_link_attrs(const uint8_t *p, size_t len,
			    struct ul_linkmon_link *link)
{
	size_t off = 0;

	/* Fewer bytes than an rtattr header at the end are padding. */
	while (len - off >= sizeof(struct rtattr)) {
		struct rtattr rta;
		const uint8_t *payload;
		size_t plen;

		memcpy(&rta, p + off, sizeof(rta));
		if (rta.rta_len < sizeof(rta) || rta.rta_len > len - off)
			return -EPROTO;
		payload = p + off + sizeof(rta);
		plen = rta.rta_len - sizeof(rta);
		switch (rta.rta_type & NLA_TYPE_MASK) {
		case IFLA_IFNAME: {
			const uint8_t *nul = memchr(payload, 0, plen);

			if (!nul || nul == payload || nul - payload >= IFNAMSIZ)
				return -EPROTO;
			link->ifname = (const char *)payload;
			break;
		}
		case IFLA_OPERSTATE:
			if (plen < 1)
				return -EPROTO;
			link->operstate = payload[0];
			break;
		default:
			break;
		}
		off += align4(rta.rta_len);
		if (off > len)
			off = len;
	}
	return 0;
}

_Static_assert(sizeof(struct ifinfomsg) % 4 == 0,
	       "rtnetlink attributes follow ifinfomsg without padding");

static int parse_link(const uint8_t *p, size_t len, bool is_del,
		      struct ul_linkmon_link *link)
{
	struct ifinfomsg ifi;
	bool is_oper_up;
	int rc;

	if (len < sizeof(ifi))
		return -EPROTO;
	memcpy(&ifi, p, sizeof(ifi));
	if (ifi.ifi_index <= 0)
		return -EPROTO;
	link->ifindex = ifi.ifi_index;
	link->ifname = NULL;
	link->flags = ifi.ifi_flags;
	link->operstate = -1;
	link->is_del = is_del;
	/* The attributes follow the ifinfomsg, which needs no padding. */
	rc = parse_link_attrs(p + sizeof(ifi), len - sizeof(ifi), link);
	if (rc)
		return rc;
	is_oper_up = link->operstate < 0 || link->operstate == IF_OPER_UP ||
		     link->operstate == IF_OPER_UNKNOWN;
	link->is_up = !is_del && (link->flags & IFF_UP) &&
		      (link->flags & IFF_RUNNING) && is_oper_up;
	return 0;
}

int ul_linkmon_parse(const void *buf, size_t len, ul_linkmon_parse_cb cb,
		     void *arg, bool *is_done)
{
	const uint8_t *p = buf;
	bool done = false;
	size_t off = 0;

	while (off < len && !done) {
		struct ul_linkmon_link link;
		struct nlmsghdr nh;
		const uint8_t *body;
		size_t body_len;
		int32_t error;
		int rc;

		if (len - off < sizeof(nh))
			return -EPROTO;
		memcpy(&nh, p + off, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len - off)
			return -EPROTO;
		body = p + off + sizeof(nh);
		body_len = nh.nlmsg_len - sizeof(nh);
		switch (nh.nlmsg_type) {
		case NLMSG_DONE:
			done = true;
			break;
		case NLMSG_ERROR:
			if (body_len < sizeof(error))
				return -EPROTO;
			memcpy(&error, body, sizeof(error));
			if (error > 0 || error < -4095)
				return -EPROTO;
			if (error)
				return error;
			break;
		case RTM_NEWLINK:
		case RTM_DELLINK:
			rc = parse_link(body, body_len,
					nh.nlmsg_type == RTM_DELLINK, &link);
			if (rc)
				return rc;
			cb(arg, &link);
			break;
		default:
			break;
		}
		/* The last message of a datagram may go unpadded. */
		off += align4(nh.nlmsg_len);
		if (off > len)
			off = len;
	}
	if (is_done)
		*is_done = done;
	return 0;
}

/* The table. */

static struct link_state *link_find(struct ul_linkmon *lm, int ifindex)
{
	for (size_t i = 0; i < lm->nlinks; i++) {
		if (lm->links[i].ifindex == ifindex)
			return &lm->links[i];
	}
	return NULL;
}

static struct link_state *link_add(struct ul_linkmon *lm, int ifindex,
				   const char *name)
{
	struct link_state *ls;

	if (lm->nlinks == lm->cap) {
		size_t cap = lm->cap ? lm->cap * 2 : 8;
		struct link_state *links;

		links = reallocarray(lm->links, cap, sizeof(*links));
		if (!links)
			return NULL;
		lm->links = links;
		lm->cap = cap;
	}
	ls = &lm->links[lm->nlinks++];
	memset(ls, 0, sizeof(*ls));
	ls->ifindex = ifindex;
	strncpy(ls->name, name, sizeof(ls->name) - 1);
	return ls;
}

static void link_remove(struct ul_linkmon *lm, struct link_state *ls)
{
	*ls = lm->links[--lm->nlinks];
}

static void report(struct ul_linkmon *lm, const char *name, bool is_up)
{
	if (lm->is_reporting && !lm->is_dead)
		lm->cb(lm->arg, name, is_up);
}

/* Apply one parsed link message to the table; report what changed. */
static void on_link(void *arg, const struct ul_linkmon_link *link)
{
	struct ul_linkmon *lm = arg;
	struct link_state *ls = link_find(lm, link->ifindex);
	char old[IFNAMSIZ];

	if (link->is_del) {
		bool was_up;

		if (!ls)
			return;
		was_up = ls->is_up;
		memcpy(old, ls->name, sizeof(old));
		link_remove(lm, ls);
		if (was_up)
			report(lm, old, false);
		return;
	}
	if (!ls) {
		/* Nameless and unknown: nothing to report it by. */
		if (!link->ifname)
			return;
		ls = link_add(lm, link->ifindex, link->ifname);
		if (!ls) {
			lm->nbad++;
			return;
		}
		ls->is_up = link->is_up;
		ls->is_seen = true;
		if (ls->is_up)
			report(lm, ls->name, true);
		return;
	}
	ls->is_seen = true;
	if (link->ifname && strcmp(ls->name, link->ifname) != 0) {
		/* A rename: the old name goes down, the new one may come up. */
		bool was_up = ls->is_up;

		memcpy(old, ls->name, sizeof(old));
		memset(ls->name, 0, sizeof(ls->name));
		strncpy(ls->name, link->ifname, sizeof(ls->name) - 1);
		ls->is_up = link->is_up;
		if (was_up)
			report(lm, old, false);
		if (link->is_up)
			report(lm, link->ifname, true);
		return;
	}
	if (ls->is_up != link->is_up) {
		ls->is_up = link->is_up;
		report(lm, ls->name, ls->is_up);
	}
}

/* The sockets. */

/* Receive one datagram from the kernel; its length, or -errno. */
static ssize_t recv_from_kernel(struct ul_linkmon *lm, int fd)
{
	struct sockaddr_nl sa = { 0 };
	socklen_t salen = sizeof(sa);
	ssize_t n;

	n = recvfrom(fd, lm->buf, sizeof(lm->buf), MSG_TRUNC,
		     (struct sockaddr *)&sa, &salen);
	if (n < 0)
		return -errno;
	if (salen < sizeof(sa) || sa.nl_family != AF_NETLINK || sa.nl_pid != 0)
		return -EPERM;
	if ((size_t)n > sizeof(lm->buf))
		return -EMSGSIZE;
	return n;
}

/*
 * Dump every link through on_link, on a socket of its own. Entries the
 * dump does not show are removed (and reported down if they were up).
 */
static int dump_links(struct ul_linkmon *lm)
{
	struct timeval tv = { .tv_sec = LINKMON_DUMP_TIMEOUT_SEC };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	bool is_done = false;
	int fd, rc;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		rc = -errno;
		goto out_close;
	}
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = ++lm->dump_seq;
	req.ifi.ifi_family = AF_UNSPEC;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		rc = -errno;
		goto out_close;
	}
	for (size_t i = 0; i < lm->nlinks; i++)
		lm->links[i].is_seen = false;
	while (!is_done) {
		ssize_t n = recv_from_kernel(lm, fd);

		if (n == -EINTR || n == -EPERM)
			continue;
		if (n < 0) {
			rc = n == -EAGAIN ? -ETIMEDOUT : (int)n;
			goto out_close;
		}
		rc = ul_linkmon_parse(lm->buf, (size_t)n, on_link, lm,
				      &is_done);
		if (rc)
			goto out_close;
	}
	for (size_t i = 0; i < lm->nlinks;) {
		struct link_state *ls = &lm->links[i];
		char old[IFNAMSIZ];
		bool was_up = ls->is_up;

		if (ls->is_seen) {
			i++;
			continue;
		}
		memcpy(old, ls->name, sizeof(old));
		link_remove(lm, ls);
		if (was_up)
			report(lm, old, false);
	}
	rc = 0;
out_close:
	close(fd);
	return rc;
}

static void free_linkmon(struct ul_linkmon *lm)
{
	close(lm->fd);
	free(lm->links);
	free(lm);
}

static void on_readable(struct ul_io *io, uint32_t events)
{
	struct ul_linkmon *lm = ul_container_of(io, struct ul_linkmon, io);

	(void)events;
	lm->is_in_dispatch = true;
	for (int i = 0; i < LINKMON_MAX_READS && !lm->is_dead; i++) {
		ssize_t n = recv_from_kernel(lm, lm->fd);

		if (n == -EAGAIN || n == -EWOULDBLOCK)
			break;
		if (n == -ENOBUFS || n == -EMSGSIZE) {
			/* Notifications were lost: compare with a dump. */
			if (dump_links(lm))
				lm->nbad++;
			continue;
		}
		if (n < 0) {
			if (n != -EINTR)
				lm->nbad++;
			continue;
		}
		if (ul_linkmon_parse(lm->buf, (size_t)n, on_link, lm, NULL))
			lm->nbad++;
	}
	lm->is_in_dispatch = false;
	if (lm->is_dead)
		free_linkmon(lm);
}

int ul_linkmon_create(struct ul_loop *loop, ul_linkmon_cb cb, void *arg,
		      struct ul_linkmon **out)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK };
	struct ul_linkmon *lm;
	int rc = -ENOMEM;

	lm = calloc(1, sizeof(*lm));
	if (!lm)
		goto err;
	lm->loop = loop;
	lm->cb = cb;
	lm->arg = arg;
	lm->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_ROUTE);
	if (lm->fd < 0) {
		rc = -errno;
		goto err_free;
	}
	if (bind(lm->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		goto err_close;
	}
	rc = dump_links(lm);
	if (rc)
		goto err_links;
	lm->is_reporting = true;
	rc = ul_io_start(loop, &lm->io, lm->fd, EPOLLIN, on_readable);
	if (rc)
		goto err_links;
	*out = lm;
	return 0;

err_links:
	free(lm->links);
err_close:
	close(lm->fd);
err_free:
	free(lm);
err:
	return rc;
}

void ul_linkmon_destroy(struct ul_linkmon *lm)
{
	if (!lm)
		return;
	ul_io_stop(&lm->io);
	if (lm->is_in_dispatch) {
		/* on_readable still runs below us: it frees on the way out. */
		lm->is_dead = true;
		return;
	}
	free_linkmon(lm);
}

int ul_linkmon_is_up(struct ul_linkmon *lm, const char *ifname, bool *is_up)
{
	for (size_t i = 0; i < lm->nlinks; i++) {
		if (strcmp(lm->links[i].name, ifname) == 0) {
			*is_up = lm->links[i].is_up;
			return 0;
		}
	}
	return -ENOENT;
}
