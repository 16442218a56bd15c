/*
 * This host's interfaces as lnetctl sees them when it imports a net
 * block or an ip2nets rule (reference/lnetctl.md §17.2): the entries of
 * getifaddrs() in its order, every family (a link entry tells an
 * interface that exists but has no address, or is down), and the
 * resolution of a block's interfaces and ip-ranges against them, in
 * lnetctl's words. The resolution is pure, so tests give it any host.
 */
#ifndef UL_CTL_CONF_HOST_H
#define UL_CTL_CONF_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/conf.h"
#include "util/err.h"

/* One getifaddrs() entry. */
enum ul_conf_addr_family {
	UL_CONF_ADDR_LINK, /* the interface itself (AF_PACKET), or another */
	UL_CONF_ADDR_IPV4,
	UL_CONF_ADDR_IPV6,
};

struct ul_conf_hostaddr {
	char ifname[UL_CONF_IFNAME_SIZE];
	bool is_up; /* IFF_UP */
	enum ul_conf_addr_family family;
	uint32_t ipv4;	  /* IPV4, host order */
	uint32_t ipv6[4]; /* IPV6, host-order words */
	bool is_loopback; /* IFF_LOOPBACK */
};

/*
 * The host's entries, in getifaddrs() order: 0 with a malloc'd array
 * (caller frees; NULL when there is none) and its length, or -errno.
 */
int ul_conf_host_addrs(struct ul_conf_hostaddr **out, size_t *n);

/*
 * One up interface with an IPv4 address, loopback ones last in the list
 * ul_conf_host_ifaddrs() gives: 0 with a malloc'd array (caller frees)
 * and its length, or -errno. For a program's own choice of interface
 * (ulnet_ni_add, `ulnetctl net show --ip2net`).
 */
struct ul_conf_ifaddr {
	char ifname[UL_CONF_IFNAME_SIZE];
	uint32_t ipv4;	  /* host order */
	bool is_loopback; /* IFF_LOOPBACK: LNet never uses these */
};

int ul_conf_host_ifaddrs(struct ul_conf_ifaddr **out, size_t *n);

/* An interface a block resolves to, with the CPTs of its suffix. */
struct ul_conf_resolved {
	char ifname[UL_CONF_IFNAME_SIZE];
	const struct ul_expr *cpt; /* the block's, or NULL */
};

/*
 * Resolve the interfaces of a net block or ip2nets rule (nis: its
 * entries by interface, in order; ranges: its ip-ranges) on the host
 * addrs[0..n), as lnetctl does before it sends anything:
 *   - no interface, no range: the first up IPv4 interface but "lo";
 *   - no interface: every up interface with an address in a range (IPv4
 *     or IPv6), each once;
 *   - interfaces: each must exist, be up and, with ranges, have an
 *     address in one.
 * Then each interface must have an IPv4 address: its NI takes that one
 * (lnetctl's import makes no IPv6 NIDs; neither does ulnet).
 *
 * 0 with out[0..*nr) (at most max); -ENOMSG when nothing matches (err:
 * "No UP interfaces were found", "IP pattern(s) do not match available
 * interfaces", "No interface matching '<if>'", "Matched interface '<if>'
 * is not UP", "Interface '<if>' doesn't match an IP pattern"); -EINVAL
 * for a matched interface without IPv4 address (err: lnetctl's
 * "\"couldn't query intf <if>\"", quotes included).
 */
int ul_conf_resolve(const struct ul_conf_hostaddr *addrs, size_t n,
		    const struct ul_conf_ni *nis, size_t nr_nis,
		    const struct ul_conf_ip_range *ranges, size_t nr_ranges,
		    struct ul_conf_resolved *out, size_t max, size_t *nr,
		    struct ul_err *err);

#endif /* UL_CTL_CONF_HOST_H */
