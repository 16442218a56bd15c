/*
 * This host's interfaces for an import (conf_host.h): reading them with
 * getifaddrs(), and resolving a net block or an ip2nets rule against
 * them as lnetctl's lustre_lnet_resolve_ip2nets_rule() does.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_host.h"

int ul_conf_host_addrs(struct ul_conf_hostaddr **out, size_t *n)
{
	struct ifaddrs *ifs, *ifa;
	struct ul_conf_hostaddr *list, *h;
	size_t cap = 0, nr = 0;
	int i;

	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (ifa = ifs; ifa; ifa = ifa->ifa_next)
		cap++;
	list = calloc(cap ? cap : 1, sizeof(*list));
	if (!list) {
		freeifaddrs(ifs);
		return -ENOMEM;
	}
	for (ifa = ifs; ifa; ifa = ifa->ifa_next) {
		/* lnetctl skips an entry without address */
		if (!ifa->ifa_addr ||
		    strlen(ifa->ifa_name) >= UL_CONF_IFNAME_SIZE)
			continue;
		h = &list[nr++];
		snprintf(h->ifname, sizeof(h->ifname), "%s", ifa->ifa_name);
		h->is_up = ifa->ifa_flags & IFF_UP;
		h->is_loopback = ifa->ifa_flags & IFF_LOOPBACK;
		if (ifa->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *sin =
				(const void *)ifa->ifa_addr;

			h->family = UL_CONF_ADDR_IPV4;
			h->ipv4 = ntohl(sin->sin_addr.s_addr);
		} else if (ifa->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *sin6 =
				(const void *)ifa->ifa_addr;
			const uint8_t *b = sin6->sin6_addr.s6_addr;

			h->family = UL_CONF_ADDR_IPV6;
			for (i = 0; i < 4; i++)
				h->ipv6[i] = (uint32_t)b[4 * i] << 24 |
					     (uint32_t)b[4 * i + 1] << 16 |
					     (uint32_t)b[4 * i + 2] << 8 |
					     b[4 * i + 3];
		}
	}
	freeifaddrs(ifs);
	if (!nr) {
		free(list);
		list = NULL;
	}
	*out = list;
	*n = nr;
	return 0;
}

static bool ipv6_in(const struct ul_conf_ip_range *r, const uint32_t *a)
{
	unsigned int bits = r->prefix_len, i;
	uint32_t mask;

	for (i = 0; i < 4 && bits; i++) {
		mask = bits >= 32 ? UINT32_MAX : ~(UINT32_MAX >> bits);
		if ((a[i] & mask) != (r->addr6[i] & mask))
			return false;
		bits = bits >= 32 ? bits - 32 : 0;
	}
	return true;
}

/* An address in one of the ranges (each family against its own). */
static bool in_ranges(const struct ul_conf_hostaddr *h,
		      const struct ul_conf_ip_range *ranges, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (h->family == UL_CONF_ADDR_IPV4 && !ranges[i].is_ipv6 &&
		    ul_expr_match_octets(ranges[i].oct, h->ipv4))
			return true;
		if (h->family == UL_CONF_ADDR_IPV6 && ranges[i].is_ipv6 &&
		    ipv6_in(&ranges[i], h->ipv6))
			return true;
	}
	return false;
}

static bool has_ipv4(const struct ul_conf_hostaddr *addrs, size_t n,
		     const char *ifname)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addrs[i].family == UL_CONF_ADDR_IPV4 &&
		    strcmp(addrs[i].ifname, ifname) == 0)
			return true;
	return false;
}

static int add_out(struct ul_conf_resolved *out, size_t max, size_t *nr,
		   const char *ifname, const struct ul_expr *cpt)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (strcmp(out[i].ifname, ifname) == 0)
			return 0;
	if (*nr == max)
		return 0;
	snprintf(out[*nr].ifname, sizeof(out[*nr].ifname), "%s", ifname);
	out[*nr].cpt = cpt;
	(*nr)++;
	return 0;
}

/* A named interface: 0, or -ENOMSG with lnetctl's reason. */
static int match_named(const struct ul_conf_hostaddr *addrs, size_t n,
		       const char *ifname,
		       const struct ul_conf_ip_range *ranges, size_t nr_ranges,
		       struct ul_err *err)
{
	const struct ul_conf_hostaddr *seen = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(addrs[i].ifname, ifname) != 0)
			continue;
		seen = &addrs[i];
		/* lnetctl looks at the first entry's flags and stops */
		if (!addrs[i].is_up)
			break;
		if (!nr_ranges || in_ranges(&addrs[i], ranges, nr_ranges))
			return 0;
	}
	if (!seen)
		return ul_err_set(err, -ENOMSG, "No interface matching '%s'",
				  ifname);
	if (!seen->is_up)
		return ul_err_set(err, -ENOMSG,
				  "Matched interface '%s' is not UP", ifname);
	return ul_err_set(err, -ENOMSG,
			  "Interface '%s' doesn't match an IP pattern", ifname);
}

int ul_conf_resolve(const struct ul_conf_hostaddr *addrs, size_t n,
		    const struct ul_conf_ni *nis, size_t nr_nis,
		    const struct ul_conf_ip_range *ranges, size_t nr_ranges,
		    struct ul_conf_resolved *out, size_t max, size_t *nr,
		    struct ul_err *err)
{
	size_t i, got = 0;
	int rc;

	if (!nr_nis && !nr_ranges) {
		for (i = 0; i < n && !got; i++)
			if (addrs[i].is_up &&
			    addrs[i].family == UL_CONF_ADDR_IPV4 &&
			    strcmp(addrs[i].ifname, "lo") != 0)
				add_out(out, max, &got, addrs[i].ifname, NULL);
		if (!got)
			return ul_err_set(err, -ENOMSG,
					  "No UP interfaces were found");
	} else if (!nr_nis) {
		for (i = 0; i < n; i++)
			if (addrs[i].is_up &&
			    in_ranges(&addrs[i], ranges, nr_ranges))
				add_out(out, max, &got, addrs[i].ifname, NULL);
		if (!got)
			return ul_err_set(err, -ENOMSG,
					  "IP pattern(s) do not match "
					  "available interfaces");
	} else {
		for (i = 0; i < nr_nis; i++) {
			rc = match_named(addrs, n, nis[i].ifname, ranges,
					 nr_ranges, err);
			if (rc)
				return rc;
			add_out(out, max, &got, nis[i].ifname, nis[i].cpt);
		}
	}
	/* The NIDs come from the IPv4 address of each (SIOCGIFADDR). */
	for (i = 0; i < got; i++)
		if (!has_ipv4(addrs, n, out[i].ifname))
			return ul_err_set(err, -EINVAL,
					  "\"couldn't query intf %s\"",
					  out[i].ifname);
	*nr = got;
	return 0;
}
