/*
 * The host's interfaces as lnet.conf application needs them: every
 * interface that is up with an IPv4 address, loopback last, because LNet
 * never picks loopback for a default net. A view of ul_conf_host_addrs().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl/conf_host.h"
#include "ctl/conf_host.h"

int ul_conf_host_ifaddrs(struct ul_conf_ifaddr **out, size_t *n)
{
	struct ul_conf_hostaddr *addrs = NULL;
	struct ul_conf_ifaddr *list;
	size_t naddrs = 0, nr = 0, i;
	int pass, rc;

	rc = ul_conf_host_addrs(&addrs, &naddrs);
	if (rc)
		return rc;
	list = calloc(naddrs ? naddrs : 1, sizeof(*list));
	if (!list) {
		free(addrs);
		return -ENOMEM;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < naddrs; i++) {
			const struct ul_conf_hostaddr *h = &addrs[i];

			if (h->family != UL_CONF_ADDR_IPV4 || !h->is_up ||
			    h->is_loopback != (pass == 1))
				continue;
			snprintf(list[nr].ifname, sizeof(list[nr].ifname), "%s",
				 h->ifname);
			list[nr].ipv4 = h->ipv4;
			list[nr].is_loopback = h->is_loopback;
			nr++;
		}
	}
	free(addrs);
	*out = list;
	*n = nr;
	return 0;
}
