/*
 * Fuzz target: the lnet.conf parser (src/ctl/conf.h) on arbitrary bytes,
 * in both dialects. It must never crash or leak, and a read must be a
 * function of its input: reading the same bytes again, into the
 * configuration the first read filled, gives the same result; and the
 * data it returns holds together (every step names items that exist,
 * every note a step that does).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_nis(const struct ul_conf_net *n, const struct ul_conf_ni *nis,
		      size_t nr)
{
	size_t j;

	for (j = 0; j < nr; j++) {
		if (nis[j].by == UL_CONF_NI_BY_IFACE &&
		    (!nis[j].ifname[0] ||
		     strlen(nis[j].ifname) >= UL_CONF_IFNAME_SIZE))
			abort();
		if (nis[j].by == UL_CONF_NI_BY_NID &&
		    ulnet_nid_net(&nis[j].nid) != n->net)
			abort();
	}
}

static void check_net(const struct ul_conf_net *n)
{
	size_t i;

	check_nis(n, n->nis, n->nr_nis);
	for (i = 0; i < n->nr_groups; i++)
		check_nis(n, n->groups[i].nis, n->groups[i].nr_nis);
	for (i = 0; i < n->nr_ranges; i++)
		if (!n->ranges[i].text ||
		    (n->ranges[i].is_ipv6 && (n->ranges[i].prefix_len < 1 ||
					      n->ranges[i].prefix_len > 128)))
			abort();
}

static size_t items_of(const struct ul_conf *c, enum ul_conf_section sec)
{
	switch (sec) {
	case UL_CONF_SEC_NET:
		return c->nr_nets;
	case UL_CONF_SEC_IP2NETS:
		return c->nr_ip2nets;
	case UL_CONF_SEC_ROUTE:
		return c->nr_routes;
	case UL_CONF_SEC_PEER:
		return c->nr_peers;
	case UL_CONF_SEC_UDSP:
		return c->nr_udsps;
	default:
		return 0;
	}
}

static void check(const struct ul_conf *c)
{
	size_t i;

	for (i = 0; i < c->nr_nets; i++)
		check_net(&c->nets[i]);
	for (i = 0; i < c->nr_ip2nets; i++)
		check_net(&c->ip2nets[i]);
	for (i = 0; i < c->nr_steps; i++) {
		const struct ul_conf_step *s = &c->steps[i];

		if (s->sec >= UL_CONF_SEC_NR)
			abort();
		if (s->nr && s->first + s->nr > items_of(c, s->sec))
			abort();
		if (s->sec == UL_CONF_SEC_GLOBAL && s->key >= UL_CONF_GLOBAL_NR)
			abort();
	}
	for (i = 0; i < c->nr_udsps; i++)
		if (c->udsps[i].idx < -1 && c->dialect == UL_CONF_OLD_API)
			abort();
	if (c->nr_warnings > UL_CONF_MAX_WARNINGS)
		abort();
	for (i = 0; i < c->nr_warnings; i++)
		if (c->warnings[i].step > c->nr_steps)
			abort();
	if (c->refusal.is_set && (!c->refusal.msg[0] || !c->refusal.object))
		abort();
}

static void read_twice(const uint8_t *data, size_t size, enum ul_conf_dialect d)
{
	struct ul_err e1, e2;
	struct ul_conf c;
	size_t steps, nets, routes, peers, udsps, warnings;
	int rc1, rc2;

	ul_conf_init(&c);
	rc1 = ul_conf_read((const char *)data, size, d, &c, &e1);
	if (rc1 == 0)
		check(&c);
	steps = c.nr_steps;
	nets = c.nr_nets;
	routes = c.nr_routes;
	peers = c.nr_peers;
	udsps = c.nr_udsps;
	warnings = c.nr_warnings;
	rc2 = ul_conf_read((const char *)data, size, d, &c, &e2);
	if (rc1 != rc2 || (rc1 && strcmp(e1.msg, e2.msg) != 0))
		abort();
	if (c.nr_steps != steps || c.nr_nets != nets || c.nr_routes != routes ||
	    c.nr_peers != peers || c.nr_udsps != udsps ||
	    c.nr_warnings != warnings)
		abort();
	ul_conf_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_twice(data, size, UL_CONF_NETLINK);
	read_twice(data, size, UL_CONF_OLD_API);
	return 0;
}
