/*
 * Fuzz target: the lnet.conf parser (src/ctl/conf.h) on arbitrary bytes.
 * It must never crash or leak, and a parse must be a function of its
 * input: parsing the same bytes again, into the configuration the first
 * parse filled, gives the same result, and the data it returns respects
 * the documented ranges.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_lnd(const struct ul_conf_lnd_tunables *l)
{
	if (l->conns_per_peer < 0 || l->conns_per_peer > 127 || l->tos < -1 ||
	    l->tos > 255)
		abort();
}

static void check_net(const struct ul_conf_net *n)
{
	size_t i, j;

	if (ulnet_net_type(n->net) == ULNET_LND_LO)
		abort();
	check_lnd(&n->lnd_tunables);
	for (i = 0; i < n->nr_groups; i++) {
		check_lnd(&n->groups[i].lnd_tunables);
		for (j = 0; j < n->groups[i].nr_nis; j++) {
			const struct ul_conf_ni *ni = &n->groups[i].nis[j];

			if (ni->by == UL_CONF_NI_BY_IFACE &&
			    (!ni->ifname[0] ||
			     strlen(ni->ifname) >= UL_CONF_IFNAME_SIZE))
				abort();
			if (ni->by == UL_CONF_NI_BY_NID &&
			    ulnet_nid_net(&ni->nid) != n->net)
				abort();
		}
	}
	for (i = 0; i < n->nr_ranges; i++)
		if (!n->ranges[i].text ||
		    (n->ranges[i].is_ipv6 && (n->ranges[i].prefix_len < 1 ||
					      n->ranges[i].prefix_len > 128)))
			abort();
}

static void check(const struct ul_conf *c)
{
	size_t i;

	for (i = 0; i < c->nr_nets; i++)
		check_net(&c->nets[i]);
	for (i = 0; i < c->nr_ip2nets; i++)
		check_net(&c->ip2nets[i]);
	for (i = 0; i < c->nr_routes; i++)
		if (c->routes[i].hop == 0 || c->routes[i].hop > 255 ||
		    c->routes[i].hop < -1)
			abort();
	for (i = 0; i < c->nr_udsps; i++)
		if (!c->udsps[i].src && !c->udsps[i].dst && !c->udsps[i].rte)
			abort();
	if (c->nr_warnings > UL_CONF_MAX_WARNINGS ||
	    c->nr_order > UL_CONF_SEC_NR)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ul_err e1, e2;
	struct ul_conf c;
	size_t nets, routes, peers, udsps, warnings;
	int rc1, rc2;

	ul_conf_init(&c);
	rc1 = ul_conf_parse((const char *)data, size, &c, &e1);
	if (rc1 == 0)
		check(&c);
	nets = c.nr_nets;
	routes = c.nr_routes;
	peers = c.nr_peers;
	udsps = c.nr_udsps;
	warnings = c.nr_warnings;
	rc2 = ul_conf_parse((const char *)data, size, &c, &e2);
	if (rc1 != rc2 || (rc1 && strcmp(e1.msg, e2.msg) != 0))
		abort();
	if (c.nr_nets != nets || c.nr_routes != routes || c.nr_peers != peers ||
	    c.nr_udsps != udsps || c.nr_warnings != warnings)
		abort();
	ul_conf_fini(&c);
	return 0;
}
