/*
 * The host's interfaces as lnet.conf application needs them: every
 * interface that is up with an IPv4 address, loopback last, because LNet
 * never picks loopback for a default net.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_apply.h"

int ul_conf_host_ifaddrs(struct ul_conf_ifaddr **out, size_t *n)
{
	struct ifaddrs *ifs, *ifa;
	struct ul_conf_ifaddr *list;
	size_t cap = 0, nr = 0, pass;

	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (ifa = ifs; ifa; ifa = ifa->ifa_next)
		cap++;
	list = calloc(cap ? cap : 1, sizeof(*list));
	if (!list) {
		freeifaddrs(ifs);
		return -ENOMEM;
	}
	for (pass = 0; pass < 2; pass++) {
		for (ifa = ifs; ifa; ifa = ifa->ifa_next) {
			const struct sockaddr_in *sin;
			bool is_lo = ifa->ifa_flags & IFF_LOOPBACK;

			if (!ifa->ifa_addr ||
			    ifa->ifa_addr->sa_family != AF_INET ||
			    !(ifa->ifa_flags & IFF_UP) ||
			    is_lo != (pass == 1) ||
			    strlen(ifa->ifa_name) >= UL_CONF_IFNAME_SIZE)
				continue;
			sin = (const struct sockaddr_in *)(const void *)
				      ifa->ifa_addr;
			snprintf(list[nr].ifname, sizeof(list[nr].ifname), "%s",
				 ifa->ifa_name);
			list[nr].ipv4 = ntohl(sin->sin_addr.s_addr);
			list[nr].is_loopback = is_lo;
			nr++;
		}
	}
	freeifaddrs(ifs);
	*out = list;
	*n = nr;
	return 0;
}
