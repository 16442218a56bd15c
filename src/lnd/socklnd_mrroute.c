/*
 * Multi-Rail source routing, as the kernel's tooling sets it up
 * (lustre-release lustre/scripts/ksocklnd-config, run by `lnetctl net add`
 * unless --skip-mr-route-setup or ksocklnd's skip_mr_route_setup says
 * not to): with several NIs on one subnet, Linux sends everything for that
 * subnet out of the first interface of its main table, whatever address a
 * socket is bound to, so every rail's traffic leaves through one
 * interface. A routing table per interface, holding the subnet's route out
 * of that interface, and a rule "from <NI address> lookup <table>" make
 * each NI's traffic leave through its own interface.
 *
 * ulnet does this itself, for the NIs that share a subnet with another NI
 * of this LND (given by interface), when they start; it removes what it
 * added when they stop or no longer share it. The table of an interface is
 * SOCK_MR_TABLE_BASE + its ifindex (the script numbers tables in
 * /etc/iproute2/rt_tables instead, which a daemon should not edit). It
 * copies no default gateway into the table (the script adds one when a
 * reachable gateway is on the subnet): peers beyond a gateway are reached
 * through the main table. Failures are logged and leave the NI running.
 *
 * Requests go over a NETLINK_ROUTE socket opened for the change, each
 * answered by the kernel's ack before the next: this runs at NI start and
 * stop only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lnd/socklnd_int.h"

#define MR_BUF_SIZE 512

struct mr_req {
	struct nlmsghdr nh;
	union {
		struct rtmsg rt;
		struct fib_rule_hdr frh;
	};
	uint8_t attrs[128];
};

static void put_attr(struct mr_req *r, uint16_t type, const void *data,
		     uint16_t len)
{
	struct rtattr *rta =
		(struct rtattr *)((uint8_t *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len =
		NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* An empty request of type with a header of hdr_size bytes and flags. */
static void req_init(struct mr_req *r, uint16_t type, size_t hdr_size,
		     uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(hdr_size);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = flags;
}

/* Send one request and wait for its ack: 0 or the kernel's -errno. */
static int mr_talk(struct mr_req *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	uint8_t buf[MR_BUF_SIZE];
	int fd, rc;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r->nh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	r->nh.nlmsg_seq = (uint32_t)time(NULL);
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (;;) {
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			rc = errno == EINTR ? 0 : -errno;
			if (rc)
				break;
			continue;
		}
		if ((size_t)n < sizeof(*nh) || nh->nlmsg_len > (size_t)n) {
			rc = -EPROTO;
			break;
		}
		if (nh->nlmsg_seq != r->nh.nlmsg_seq)
			continue;
		if (nh->nlmsg_type == NLMSG_ERROR &&
		    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
			rc = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			break;
		}
		rc = -EPROTO;
		break;
	}
	close(fd);
	return rc;
}

/* The subnet route of ni in its table: add (RTM_NEWROUTE) or delete. */
static int mr_route(const struct sock_ni *ni, uint16_t type)
{
	struct mr_req r;
	uint32_t dst =
		htonl(ni->ip & (ni->mr_plen ? ~0u << (32 - ni->mr_plen) : 0));
	uint32_t src = htonl(ni->ip);
	uint32_t table = ni->mr_table;
	uint32_t oif = (uint32_t)ni->mr_ifindex;

	req_init(&r, type, sizeof(struct rtmsg),
		 type == RTM_NEWROUTE ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	r.rt.rtm_family = AF_INET;
	r.rt.rtm_dst_len = ni->mr_plen;
	r.rt.rtm_table = RT_TABLE_UNSPEC; /* RTA_TABLE holds it */
	r.rt.rtm_protocol = RTPROT_KERNEL;
	r.rt.rtm_scope = RT_SCOPE_LINK;
	r.rt.rtm_type = RTN_UNICAST;
	put_attr(&r, RTA_DST, &dst, sizeof(dst));
	put_attr(&r, RTA_OIF, &oif, sizeof(oif));
	put_attr(&r, RTA_PREFSRC, &src, sizeof(src));
	put_attr(&r, RTA_TABLE, &table, sizeof(table));
	return mr_talk(&r);
}

/* The rule "from <ni address> lookup <table>": add or delete. */
static int mr_rule(const struct sock_ni *ni, uint16_t type)
{
	struct mr_req r;
	uint32_t src = htonl(ni->ip);
	uint32_t table = ni->mr_table;

	req_init(&r, type, sizeof(struct fib_rule_hdr),
		 type == RTM_NEWRULE ? NLM_F_CREATE | NLM_F_EXCL : 0);
	r.frh.family = AF_INET;
	r.frh.src_len = 32;
	r.frh.table = RT_TABLE_UNSPEC;
	r.frh.action = FR_ACT_TO_TBL;
	put_attr(&r, FRA_SRC, &src, sizeof(src));
	put_attr(&r, FRA_TABLE, &table, sizeof(table));
	return mr_talk(&r);
}

void sock_mr_probe(struct sock_ni *ni, const char *ifname)
{
	struct ifaddrs *ifa, *p;

	ni->mr_ifindex = 0;
	if (!ifname || !*ifname || getifaddrs(&ifa) < 0)
		return;
	for (p = ifa; p; p = p->ifa_next) {
		const struct sockaddr_in *a = (const void *)p->ifa_addr;
		const struct sockaddr_in *m = (const void *)p->ifa_netmask;
		uint32_t mask;

		if (!a || !m || a->sin_family != AF_INET ||
		    strcmp(p->ifa_name, ifname) != 0 ||
		    ntohl(a->sin_addr.s_addr) != ni->ip)
			continue;
		mask = ntohl(m->sin_addr.s_addr);
		ni->mr_plen = (uint8_t)__builtin_popcount(mask);
		ni->mr_ifindex = (int)if_nametoindex(ifname);
		snprintf(ni->mr_ifname, sizeof(ni->mr_ifname), "%s", ifname);
		break;
	}
	freeifaddrs(ifa);
	/* A host route (/32) has no subnet to share. */
	if (ni->mr_plen == 0 || ni->mr_plen >= 32)
		ni->mr_ifindex = 0;
	ni->mr_table = SOCK_MR_TABLE_BASE + (uint32_t)ni->mr_ifindex;
}

static bool same_subnet(const struct sock_ni *a, const struct sock_ni *b)
{
	uint32_t mask = ~0u << (32 - a->mr_plen);

	return a->mr_plen == b->mr_plen && a->mr_ifindex != b->mr_ifindex &&
	       (a->ip & mask) == (b->ip & mask);
}

static void mr_log(const struct sock_ni *ni, const char *what, int rc)
{
	const struct ul_log *lg = ni->s->opts.log;
	char addr[INET_ADDRSTRLEN];
	struct in_addr in = { htonl(ni->ip) };

	inet_ntop(AF_INET, &in, addr, sizeof(addr));
	if (rc)
		ul_log(lg, UL_D_WARNING,
		       "socklnd %s: cannot %s the route table %u of %s (from "
		       "%s): %s; its traffic may leave through another "
		       "interface of the subnet",
		       ni->nidstr, what, ni->mr_table, ni->mr_ifname, addr,
		       strerror(-rc));
	else
		ul_log(lg, UL_D_INFO,
		       "socklnd %s: %s route table %u (%s/%u dev %s) and rule "
		       "from %s",
		       ni->nidstr, what, ni->mr_table, addr, ni->mr_plen,
		       ni->mr_ifname, addr);
}

static void mr_add(struct sock_ni *ni)
{
	int rc;

	(void)mr_rule(ni, RTM_DELRULE); /* as the script: exactly one */
	rc = mr_route(ni, RTM_NEWROUTE);
	if (rc == 0)
		rc = mr_rule(ni, RTM_NEWRULE);
	if (rc) {
		(void)mr_route(ni, RTM_DELROUTE);
		mr_log(ni, "set up", rc);
		/*
		 * Without CAP_NET_ADMIN every other NI would fail the same
		 * way at each start: say it once and stop trying.
		 */
		if (rc == -EPERM || rc == -EACCES) {
			ni->s->is_mr_denied = true;
			ul_log(ni->s->opts.log, UL_D_WARNING,
			       "socklnd: no Multi-Rail routing tables without "
			       "CAP_NET_ADMIN; --param "
			       "ksocklnd.skip_mr_route_setup=1 says so "
			       "quietly");
		}
		return;
	}
	ni->has_mr = true;
	mr_log(ni, "set up", 0);
}

void sock_mr_remove(struct sock_ni *ni)
{
	int rc, rc2;

	if (!ni->has_mr)
		return;
	ni->has_mr = false;
	rc = mr_rule(ni, RTM_DELRULE);
	if (rc == -ENOENT)
		rc = 0; /* someone removed it already */
	rc2 = mr_route(ni, RTM_DELROUTE);
	if (rc == 0 && rc2 != -ESRCH)
		rc = rc2;
	mr_log(ni, rc ? "remove" : "removed", rc);
}

void sock_mr_update(struct ul_socklnd *s)
{
	struct sock_ni *ni, *o;

	if (s->opts.skip_mr_route_setup || s->is_mr_denied)
		return;
	ul_list_for_each_entry(ni, &s->nis, link) {
		bool is_shared = false;

		if (!ni->mr_ifindex || ni->is_stopping)
			continue;
		ul_list_for_each_entry(o, &s->nis, link)
			if (o != ni && o->mr_ifindex && !o->is_stopping &&
			    same_subnet(ni, o))
				is_shared = true;
		if (is_shared && !ni->has_mr) {
			mr_add(ni);
			if (s->is_mr_denied)
				return;
		} else if (!is_shared && ni->has_mr)
			sock_mr_remove(ni);
	}
}
