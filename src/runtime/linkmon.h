/*
 * Link-state monitor: watches the kernel's interfaces over rtnetlink
 * (NETLINK_ROUTE, group RTMGRP_LINK) and tells its owner, on the loop
 * thread, when an interface goes up or down, so a rail's NI can follow its
 * link without polling (DESIGN.md).
 *
 * "Up" means administratively up (IFF_UP) with a working link
 * (IFF_RUNNING, and an operstate of UP or UNKNOWN when the kernel gives
 * one). An interface that appears up counts as a change from down; one
 * that is deleted while up is reported down.
 */
#ifndef UL_RUNTIME_LINKMON_H
#define UL_RUNTIME_LINKMON_H

#include <stdbool.h>
#include <stddef.h>

struct ul_loop;
struct ul_linkmon;

/*
 * Called on the loop thread when ifname's up/down state differs from what
 * was last reported (or seeded) for its ifindex. ifname lives only for the
 * call. The callback may call ul_linkmon_is_up() and ul_linkmon_destroy().
 */
typedef void (*ul_linkmon_cb)(void *arg, const char *ifname, bool is_up);

/*
 * Open the netlink socket, subscribe to link changes, then seed the state
 * of every interface with a RTM_GETLINK dump (no callback for the seed;
 * the dump blocks for at most a few seconds) and watch the socket on loop.
 * Loop thread (or before the loop runs). 0 or -errno; *out on success.
 */
int ul_linkmon_create(struct ul_loop *loop, ul_linkmon_cb cb, void *arg,
		      struct ul_linkmon **out);
/* Stop watching and free (NULL is fine). Loop thread, also from cb. */
void ul_linkmon_destroy(struct ul_linkmon *lm);
/* The last known state of ifname: 0 and *is_up, or -ENOENT. */
int ul_linkmon_is_up(struct ul_linkmon *lm, const char *ifname, bool *is_up);

/* One RTM_NEWLINK or RTM_DELLINK message, as ul_linkmon_parse() reads it. */
struct ul_linkmon_link {
	int ifindex;	    /* > 0 */
	const char *ifname; /* IFLA_IFNAME inside the buffer, NUL-terminated,
			       1 to IFNAMSIZ - 1 bytes; NULL when absent */
	unsigned int flags; /* ifi_flags: IFF_* */
	int operstate;	    /* IFLA_OPERSTATE (IF_OPER_*), -1 when absent */
	bool is_up;	    /* see the file comment; false for a delete */
	bool is_del;	    /* RTM_DELLINK */
};

typedef void (*ul_linkmon_parse_cb)(void *arg,
				    const struct ul_linkmon_link *link);

/*
 * Parse one netlink datagram of len bytes (any alignment) and call cb for
 * each link message, in order; other message types are skipped. Every
 * nlmsghdr and rtattr is bounds-checked: nothing outside buf is read.
 * Stops at NLMSG_DONE (then *is_done = true; is_done may be NULL).
 * Returns 0; -EPROTO for a malformed message (those before it were
 * reported); or the negative errno an NLMSG_ERROR carries (an ACK, error
 * 0, is skipped). *is_done is set only when 0 is returned.
 */
int ul_linkmon_parse(const void *buf, size_t len, ul_linkmon_parse_cb cb,
		     void *arg, bool *is_done);

#endif /* UL_RUNTIME_LINKMON_H */
