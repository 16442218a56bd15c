/*
 * lnet.conf parsing (src/ctl/conf.h) of whole files: the complete example
 * of reference/lnetctl.md §17.4 field by field, the same configuration in
 * flow style and in lnetctl's export layout, a sample in the style of
 * Lustre's lnet.conf, NIs by interface or by NID, section order and
 * repetition, and what a failed parse leaves behind.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctl/conf.h"

#define CONF_DIR ULNET_VECTORS_DIR "/../unit/conf/"

static void parse_file_ok(const char *name, struct ul_conf *c)
{
	struct ul_err err = { 0 };
	int rc;

	ul_conf_init(c);
	rc = ul_conf_parse_file(name, c, &err);
	if (rc)
		fail_msg("%s: rc %d: %s", name, rc, err.msg);
}

static void parse_ok(const char *text, struct ul_conf *c)
{
	struct ul_err err = { 0 };
	int rc;

	ul_conf_init(c);
	rc = ul_conf_parse(text, strlen(text), c, &err);
	if (rc)
		fail_msg("rc %d: %s\n%s", rc, err.msg, text);
}

static const char *nid_str(const struct ulnet_nid *nid, char *buf)
{
	return ulnet_nid_format(nid, buf, ULNET_NIDSTR_SIZE);
}

static const char *expr_str(const struct ul_expr *e, char *buf, size_t len)
{
	if (!e)
		return "-";
	ul_expr_format(e, buf, len);
	return buf;
}

static uint32_t net_id(const char *s)
{
	uint32_t net;

	assert_int_equal(ulnet_net_parse(s, &net, NULL, 0), 0);
	return net;
}

static void check_tunables(const struct ul_conf_tunables *t, int timeout,
			   int peer_credits, int buffer_credits, int credits)
{
	assert_int_equal(t->flags, UL_CONF_TUN_HAS_PEER_TIMEOUT |
					   UL_CONF_TUN_HAS_PEER_CREDITS |
					   UL_CONF_TUN_HAS_PEER_BUFFER_CREDITS |
					   UL_CONF_TUN_HAS_CREDITS);
	assert_int_equal(t->peer_timeout, timeout);
	assert_int_equal(t->peer_credits, peer_credits);
	assert_int_equal(t->peer_buffer_credits, buffer_credits);
	assert_int_equal(t->credits, credits);
}

static void check_iface_ni(const struct ul_conf_ni *ni, const char *ifname,
			   const char *cpt)
{
	char buf[64];

	assert_int_equal(ni->by, UL_CONF_NI_BY_IFACE);
	assert_string_equal(ni->ifname, ifname);
	assert_string_equal(expr_str(ni->cpt, buf, sizeof(buf)), cpt);
}

static void check_example_group(const struct ul_conf_ni_group *g,
				const char *ifname, const char *cpt)
{
	char buf[64];

	assert_int_equal(g->flags, UL_CONF_GROUP_HAS_TUNABLES |
					   UL_CONF_GROUP_HAS_LND_TUNABLES);
	assert_int_equal(g->nr_nis, 1);
	check_iface_ni(&g->nis[0], ifname, "-");
	check_tunables(&g->tunables, 180, 8, 0, 256);
	assert_int_equal(g->lnd_tunables.flags,
			 UL_CONF_LND_HAS_CONNS_PER_PEER | UL_CONF_LND_HAS_TOS);
	assert_int_equal(g->lnd_tunables.conns_per_peer, 4);
	assert_int_equal(g->lnd_tunables.tos, -1);
	assert_int_equal(g->lnd_tunables.nr_other, 0);
	assert_string_equal(expr_str(g->cpt, buf, sizeof(buf)), cpt);
}

/* Every field of lnetctl.md §17.4 (the file is the example verbatim). */
static void example_parses_to_exactly_the_expected_values(void **state)
{
	static const int global[UL_CONF_GLOBAL_NR] = {
		[UL_CONF_GLOBAL_NUMA_RANGE] = 0,
		[UL_CONF_GLOBAL_MAX_INTERFACES] = 4096,
		[UL_CONF_GLOBAL_DISCOVERY] = 1,
		[UL_CONF_GLOBAL_DROP_ASYM_ROUTE] = 0,
		[UL_CONF_GLOBAL_RETRY_COUNT] = 2,
		[UL_CONF_GLOBAL_TRANSACTION_TIMEOUT] = 150,
		[UL_CONF_GLOBAL_HEALTH_SENSITIVITY] = 100,
		[UL_CONF_GLOBAL_RECOVERY_INTERVAL] = 1,
		[UL_CONF_GLOBAL_ROUTER_SENSITIVITY] = 100,
		[UL_CONF_GLOBAL_RESPONSE_TRACKING] = 3,
		[UL_CONF_GLOBAL_RECOVERY_LIMIT] = 0,
		[UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL] = 900,
	};
	/* one step per section, one per global key (12), in order */
	static const enum ul_conf_section order[] = {
		UL_CONF_SEC_NET,     UL_CONF_SEC_IP2NETS, UL_CONF_SEC_ROUTE,
		UL_CONF_SEC_ROUTING, UL_CONF_SEC_BUFFERS, UL_CONF_SEC_PEER,
		UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,
		UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,
		UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,
		UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,  UL_CONF_SEC_GLOBAL,
		UL_CONF_SEC_UDSP,
	};
	char buf[ULNET_NIDSTR_SIZE];
	const struct ul_conf_net *n;
	const struct ul_conf_ip_range *r;
	struct ul_conf c;
	unsigned int i;

	(void)state;
	parse_file_ok(CONF_DIR "example.yaml", &c);

	/* net */
	assert_int_equal(c.nr_nets, 2);
	n = &c.nets[0];
	assert_int_equal(n->net, net_id("tcp"));
	assert_int_equal(n->flags, UL_CONF_NET_HAS_LOCAL_NIS);
	assert_int_equal(n->nr_nis, 0);
	assert_int_equal(n->nr_ranges, 0);
	assert_null(n->cpt);
	assert_int_equal(n->line, 2);
	assert_int_equal(n->nr_groups, 2);
	check_example_group(&n->groups[0], "eth0", "0");
	check_example_group(&n->groups[1], "eth1", "1");
	assert_int_equal(n->groups[1].nis[0].line, 16);
	n = &c.nets[1];
	assert_int_equal(n->net, net_id("tcp1"));
	assert_int_equal(n->nr_groups, 1);
	assert_int_equal(n->groups[0].flags, 0);
	assert_int_equal(n->groups[0].tunables.flags, 0);
	assert_int_equal(n->groups[0].lnd_tunables.flags, 0);
	assert_null(n->groups[0].cpt);
	assert_int_equal(n->groups[0].nr_nis, 1);
	check_iface_ni(&n->groups[0].nis[0], "eth2", "[0,1]");

	/* ip2nets */
	assert_int_equal(c.nr_ip2nets, 1);
	n = &c.ip2nets[0];
	assert_int_equal(n->net, net_id("tcp2"));
	assert_int_equal(n->nr_groups, 0);
	assert_int_equal(n->nr_nis, 1);
	check_iface_ni(&n->nis[0], "eth3", "-");
	assert_int_equal(n->nr_ranges, 1);
	r = &n->ranges[0];
	assert_false(r->is_ipv6);
	assert_string_equal(r->text, "10.20.*.*");
	assert_true(ul_expr_match_octets(r->oct, 0x0a140506));
	assert_false(ul_expr_match_octets(r->oct, 0x0a150506));
	assert_int_equal(n->tunables.flags, 0);
	assert_null(n->cpt);

	/* route */
	assert_int_equal(c.nr_routes, 1);
	assert_int_equal(c.routes[0].net, net_id("tcp9"));
	assert_string_equal(nid_str(&c.routes[0].gateway, buf),
			    "192.168.1.1@tcp");
	assert_int_equal(c.routes[0].flags, UL_CONF_ROUTE_HAS_HOP |
						    UL_CONF_ROUTE_HAS_PRIORITY |
						    UL_CONF_ROUTE_HAS_NET_ID |
						    UL_CONF_ROUTE_HAS_GW_NID);
	assert_int_equal(c.routes[0].hop, 1);
	assert_int_equal(c.routes[0].priority, 0);

	/* routing, buffers */
	assert_int_equal(c.flags, UL_CONF_HAS_ROUTING | UL_CONF_HAS_BUFFERS |
					  UL_CONF_HAS_TINY_BUFFERS |
					  UL_CONF_HAS_SMALL_BUFFERS |
					  UL_CONF_HAS_LARGE_BUFFERS);
	assert_true(c.routing_enable);
	assert_int_equal(c.tiny_buffers, 2048);
	assert_int_equal(c.small_buffers, 16384);
	assert_int_equal(c.large_buffers, 1024);

	/* peer */
	assert_int_equal(c.nr_peers, 2);
	assert_string_equal(nid_str(&c.peers[0].primary_nid, buf),
			    "192.168.1.20@tcp");
	assert_int_equal(c.peers[0].flags, UL_CONF_PEER_HAS_MULTI_RAIL);
	assert_true(c.peers[0].is_multi_rail);
	assert_int_equal(c.peers[0].nr_nis, 2);
	assert_string_equal(nid_str(&c.peers[0].nis[0], buf),
			    "192.168.1.20@tcp");
	assert_string_equal(nid_str(&c.peers[0].nis[1], buf),
			    "192.168.2.20@tcp");
	assert_string_equal(nid_str(&c.peers[1].primary_nid, buf),
			    "10.0.0.5@tcp1");
	assert_int_equal(c.peers[1].flags, UL_CONF_PEER_HAS_MULTI_RAIL);
	assert_false(c.peers[1].is_multi_rail);
	assert_int_equal(c.peers[1].nr_nis, 1);
	assert_string_equal(nid_str(&c.peers[1].nis[0], buf), "10.0.0.5@tcp1");

	/* global: every key given */
	assert_int_equal(c.global.flags, (1U << UL_CONF_GLOBAL_NR) - 1);
	for (i = 0; i < UL_CONF_GLOBAL_NR; i++)
		assert_int_equal(c.global.value[i], global[i]);

	/* udsp */
	assert_int_equal(c.nr_udsps, 2);
	assert_int_equal(c.udsps[0].idx, 0);
	assert_string_equal(c.udsps[0].src, "tcp");
	assert_null(c.udsps[0].dst);
	assert_null(c.udsps[0].rte);
	assert_int_equal(c.udsps[0].flags, UL_CONF_UDSP_HAS_PRIORITY);
	assert_int_equal(c.udsps[0].priority, 1);
	assert_int_equal(c.udsps[1].idx, 1);
	assert_null(c.udsps[1].src);
	assert_string_equal(c.udsps[1].dst, "192.168.1.[20-29]@tcp");
	assert_int_equal(c.udsps[1].priority, 2);

	/* document order */
	assert_int_equal(c.nr_steps, sizeof(order) / sizeof(order[0]));
	for (i = 0; i < c.nr_steps; i++)
		assert_int_equal(c.steps[i].sec, order[i]);
	assert_int_equal(c.steps[0].nr, 2);
	assert_int_equal(c.steps[6].key, UL_CONF_GLOBAL_NUMA_RANGE);
	assert_int_equal(c.steps[17].key,
			 UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL);
	assert_int_equal(c.steps[17].value, 900);
	assert_int_equal(c.steps[18].nr, 2);
	assert_false(c.refusal.is_set);
	/* what ulnet keeps and shows but does not act on */
	assert_int_equal(c.nr_warnings, 1);
	assert_int_equal(c.warnings[0].kind, UL_CONF_NOTE_NOT_APPLIED);
	assert_int_equal(c.warnings[0].line, 43);
	ul_conf_fini(&c);
}

/* A canonical text of everything but line numbers, to compare parses. */
static void dump_net(FILE *f, const struct ul_conf_net *n)
{
	char buf[128];
	size_t i, j, k;

	fprintf(f, "net %x flags %x cpt %s\n", n->net, n->flags,
		expr_str(n->cpt, buf, sizeof(buf)));
	for (i = 0; i < n->nr_groups + 1; i++) {
		const struct ul_conf_ni_group *g =
			i < n->nr_groups ? &n->groups[i] : NULL;
		const struct ul_conf_tunables *t = g ? &g->tunables
						     : &n->tunables;
		const struct ul_conf_lnd_tunables *l = g ? &g->lnd_tunables
							 : &n->lnd_tunables;
		const struct ul_conf_ni *nis = g ? g->nis : n->nis;
		size_t nr = g ? g->nr_nis : n->nr_nis;

		if (g)
			fprintf(f, " group flags %x nid %s cpt %s\n", g->flags,
				nid_str(&g->nid, buf),
				expr_str(g->cpt, buf + 64, 64));
		fprintf(f, "  tun %x %d %d %d %d lnd %x %d %d\n", t->flags,
			t->peer_timeout, t->peer_credits,
			t->peer_buffer_credits, t->credits, l->flags,
			l->conns_per_peer, l->tos);
		for (k = 0; k < l->nr_other; k++)
			fprintf(f, "  other %s %lld\n", l->other[k].key,
				l->other[k].value);
		for (j = 0; j < nr; j++)
			fprintf(f, "  ni %d %s %s %s\n", nis[j].by,
				nis[j].ifname, nid_str(&nis[j].nid, buf),
				expr_str(nis[j].cpt, buf + 64, 64));
	}
	for (i = 0; i < n->nr_ranges; i++)
		fprintf(f, " range %s\n", n->ranges[i].text);
}

static char *dump(const struct ul_conf *c)
{
	char buf[ULNET_NIDSTR_SIZE], *out = NULL;
	size_t i, j, len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	for (i = 0; i < c->nr_nets; i++)
		dump_net(f, &c->nets[i]);
	for (i = 0; i < c->nr_ip2nets; i++)
		dump_net(f, &c->ip2nets[i]);
	for (i = 0; i < c->nr_routes; i++)
		fprintf(f, "route %x %s %x %d %u\n", c->routes[i].net,
			nid_str(&c->routes[i].gateway, buf), c->routes[i].flags,
			c->routes[i].hop, c->routes[i].priority);
	for (i = 0; i < c->nr_peers; i++) {
		fprintf(f, "peer %s %x %d\n",
			nid_str(&c->peers[i].primary_nid, buf),
			c->peers[i].flags, c->peers[i].is_multi_rail);
		for (j = 0; j < c->peers[i].nr_nis; j++)
			fprintf(f, " %s\n", nid_str(&c->peers[i].nis[j], buf));
	}
	fprintf(f, "flags %x routing %d buffers %d %d %d global %x\n", c->flags,
		c->routing_enable, c->tiny_buffers, c->small_buffers,
		c->large_buffers, c->global.flags);
	for (i = 0; i < UL_CONF_GLOBAL_NR; i++)
		fprintf(f, " %lld", c->global.value[i]);
	for (i = 0; i < c->nr_udsps; i++)
		fprintf(f, "\nudsp %d %s %s %s %x %lld", c->udsps[i].idx,
			c->udsps[i].src ? c->udsps[i].src : "-",
			c->udsps[i].dst ? c->udsps[i].dst : "-",
			c->udsps[i].rte ? c->udsps[i].rte : "-",
			c->udsps[i].flags, c->udsps[i].priority);
	for (i = 0; i < c->nr_steps; i++)
		fprintf(f, " %s", ul_conf_section_name(c->steps[i].sec));
	for (i = 0; i < c->nr_warnings; i++)
		fprintf(f, "\nwarning %s", c->warnings[i].text);
	fclose(f);
	return out;
}

static void same_as_example(const char *name)
{
	struct ul_conf a, b;
	char *da, *db;

	parse_file_ok(CONF_DIR "example.yaml", &a);
	parse_file_ok(name, &b);
	da = dump(&a);
	db = dump(&b);
	assert_string_equal(db, da);
	free(da);
	free(db);
	ul_conf_fini(&a);
	ul_conf_fini(&b);
}

static void flow_style_gives_the_same_result_as_block_style(void **state)
{
	(void)state;
	same_as_example(CONF_DIR "example_flow.yaml");
}

static void export_layout_gives_the_same_result_as_block_style(void **state)
{
	(void)state;
	same_as_example(CONF_DIR "example_pyyaml.yaml");
}

/* Two NIs with nid and interfaces: the interfaces define them. */
static void lustre_sample_keeps_o2ib_tunables_as_warnings(void **state)
{
	char buf[ULNET_NIDSTR_SIZE];
	const struct ul_conf_ni_group *g;
	struct ul_conf c;

	(void)state;
	parse_file_ok(CONF_DIR "lustre_sample.yaml", &c);
	assert_int_equal(c.nr_nets, 1);
	assert_int_equal(c.nets[0].net, net_id("o2ib3"));
	assert_int_equal(c.nets[0].nr_groups, 2);
	g = &c.nets[0].groups[0];
	assert_int_equal(g->flags, UL_CONF_GROUP_HAS_NID |
					   UL_CONF_GROUP_HAS_TUNABLES |
					   UL_CONF_GROUP_HAS_LND_TUNABLES);
	assert_string_equal(nid_str(&g->nid, buf), "10.9.1.7@o2ib3");
	assert_int_equal(g->nr_nis, 1);
	check_iface_ni(&g->nis[0], "ib0", "-");
	check_tunables(&g->tunables, 100, 63, 0, 2048);
	assert_int_equal(g->lnd_tunables.flags, 0);
	assert_int_equal(g->lnd_tunables.nr_other, 6);
	assert_string_equal(g->lnd_tunables.other[0].key, "peercredits_hiw");
	assert_int_equal(g->lnd_tunables.other[0].value, 32);
	assert_string_equal(g->lnd_tunables.other[1].key, "map_on_demand");
	assert_int_equal(g->lnd_tunables.other[1].value, 1); /* "yes" */
	assert_int_equal(g->lnd_tunables.other[1].line, 18);
	assert_string_equal(g->lnd_tunables.other[5].key, "fmr_cache");
	assert_int_equal(g->lnd_tunables.other[5].value, 0);
	g = &c.nets[0].groups[1];
	assert_int_equal(g->lnd_tunables.other[1].value, 16);
	assert_string_equal(expr_str(g->cpt, buf, sizeof(buf)), "[2,3]");

	assert_int_equal(c.nr_routes, 1);
	assert_int_equal(c.routes[0].hop, -1);
	assert_int_equal(c.routes[0].net, net_id("o2ib"));
	assert_int_equal(c.nr_peers, 2);
	assert_true(c.peers[1].is_multi_rail);
	assert_string_equal(nid_str(&c.peers[1].nis[1], buf), "10.9.2.1@o2ib3");

	/* six o2iblnd keys in each of two NIs */
	assert_int_equal(c.nr_warnings, 12);
	assert_int_equal(c.warnings[0].line, 17);
	assert_int_equal(c.warnings[0].column, 15);
	assert_string_equal(c.warnings[0].text,
			    "net[0].local NI(s)[0].lnd tunables."
			    "peercredits_hiw: o2iblnd tunable, not applicable "
			    "to user space; kept");
	ul_conf_fini(&c);
}

static void ni_is_defined_by_nid_when_no_interface_is_given(void **state)
{
	char buf[ULNET_NIDSTR_SIZE];
	const struct ul_conf_ni_group *g;
	struct ul_conf c;

	(void)state;
	parse_ok("net:\n"
		 "  - net type: tcp\n"
		 "    local NI(s):\n"
		 "      - nid: 198.18.0.1@tcp\n"
		 "      - nid: 198.18.1.1@tcp\n"
		 "        CPT: [1]\n",
		 &c);
	assert_int_equal(c.nets[0].nr_groups, 2);
	g = &c.nets[0].groups[0];
	assert_int_equal(g->flags, UL_CONF_GROUP_HAS_NID);
	assert_int_equal(g->nr_nis, 1);
	assert_int_equal(g->nis[0].by, UL_CONF_NI_BY_NID);
	assert_string_equal(nid_str(&g->nis[0].nid, buf), "198.18.0.1@tcp");
	assert_string_equal(g->nis[0].ifname, "");
	assert_int_equal(g->nis[0].line, 4);
	g = &c.nets[0].groups[1];
	assert_int_equal(g->nis[0].by, UL_CONF_NI_BY_NID);
	assert_string_equal(nid_str(&g->nis[0].nid, buf), "198.18.1.1@tcp");
	assert_string_equal(expr_str(g->cpt, buf, sizeof(buf)), "1");
	assert_int_equal(c.nr_warnings, 0);
	ul_conf_fini(&c);
}

static void interfaces_win_over_nid_which_stays_informational(void **state)
{
	char buf[ULNET_NIDSTR_SIZE];
	const struct ul_conf_ni_group *g;
	struct ul_conf c;

	(void)state;
	parse_ok("net:\n"
		 "  - net type: tcp\n"
		 "    local NI(s):\n"
		 "      - nid: 198.18.0.1@tcp\n"
		 "        interfaces: {0: eth0, 1: 'eth1[0,1]'}\n",
		 &c);
	g = &c.nets[0].groups[0];
	assert_int_equal(g->flags, UL_CONF_GROUP_HAS_NID);
	assert_string_equal(nid_str(&g->nid, buf), "198.18.0.1@tcp");
	assert_int_equal(g->nr_nis, 2);
	check_iface_ni(&g->nis[0], "eth0", "-");
	check_iface_ni(&g->nis[1], "eth1", "[0,1]");
	ul_conf_fini(&c);
}

static void net_level_keys_are_kept_apart_from_groups(void **state)
{
	char buf[64];
	const struct ul_conf_net *n;
	struct ul_conf c;

	(void)state;
	parse_ok("net:\n"
		 "- net type: tcp3\n"
		 "  interfaces: {0: eth0}\n"
		 "  tunables: {peer_credits: 16}\n"
		 "  lnd tunables: {conns_per_peer: 127, tos: 255}\n"
		 "  CPT: '[0-3]'\n",
		 &c);
	n = &c.nets[0];
	assert_int_equal(n->net, net_id("tcp3"));
	assert_int_equal(n->flags, UL_CONF_NET_HAS_TUNABLES |
					   UL_CONF_NET_HAS_LND_TUNABLES);
	assert_int_equal(n->nr_groups, 0);
	assert_int_equal(n->nr_nis, 1);
	check_iface_ni(&n->nis[0], "eth0", "-");
	assert_int_equal(n->tunables.flags, UL_CONF_TUN_HAS_PEER_CREDITS);
	assert_int_equal(n->tunables.peer_credits, 16);
	assert_int_equal(n->lnd_tunables.conns_per_peer, 127);
	assert_int_equal(n->lnd_tunables.tos, 255);
	assert_string_equal(expr_str(n->cpt, buf, sizeof(buf)), "[0-3]");
	ul_conf_fini(&c);
}

/*
 * Every occurrence of a section is a step where it stands; a key after a
 * route section goes into that section (lnetctl streams it), unread.
 */
static void repeated_sections_are_steps_in_document_order(void **state)
{
	struct ul_conf c;

	(void)state;
	parse_ok("route: [{net: tcp1, gateway: 198.18.0.9@tcp}]\n"
		 "global: {retry_count: 1}\n"
		 "net: [{net type: tcp, interfaces: {0: eth0}}]\n"
		 "route: [{net: tcp2, gateway: 198.18.0.9@tcp}]\n"
		 "retry_count: 3\n"
		 "numa: {}\n"
		 "buffers: {tiny: 5}\n"
		 "buffers: {small: 6}\n",
		 &c);
	assert_int_equal(c.nr_routes, 2);
	assert_int_equal(c.routes[1].net, net_id("tcp2"));
	assert_int_equal(c.routes[1].flags,
			 UL_CONF_ROUTE_HAS_NET_ID | UL_CONF_ROUTE_HAS_GW_NID);
	assert_int_equal(c.routes[1].hop, -1);
	assert_int_equal(c.global.value[UL_CONF_GLOBAL_RETRY_COUNT], 1);
	assert_int_equal(c.nr_warnings, 3); /* and one per buffers */
	assert_string_equal(c.warnings[0].text,
			    "'retry_count' goes into the 'route' request; "
			    "skipped");
	/* numa without range sets 0, as lnetctl */
	assert_int_equal(c.global.flags,
			 1U << UL_CONF_GLOBAL_RETRY_COUNT |
				 1U << UL_CONF_GLOBAL_NUMA_RANGE);
	/* the second buffers section resets what it does not name */
	assert_int_equal(c.flags,
			 UL_CONF_HAS_BUFFERS | UL_CONF_HAS_SMALL_BUFFERS);
	assert_int_equal(c.tiny_buffers, 0);
	assert_int_equal(c.small_buffers, 6);
	assert_int_equal(c.nr_steps, 7);
	assert_int_equal(c.steps[0].sec, UL_CONF_SEC_ROUTE);
	assert_int_equal(c.steps[1].sec, UL_CONF_SEC_GLOBAL);
	assert_int_equal(c.steps[1].value, 1);
	assert_int_equal(c.steps[2].sec, UL_CONF_SEC_NET);
	assert_int_equal(c.steps[3].sec, UL_CONF_SEC_ROUTE);
	assert_int_equal(c.steps[3].first, 1);
	assert_int_equal(c.steps[4].sec, UL_CONF_SEC_NUMA);
	assert_int_equal(c.steps[4].value, 0);
	assert_int_equal(c.steps[5].sec, UL_CONF_SEC_BUFFERS);
	assert_int_equal(c.steps[5].buffers[0], 5);
	assert_int_equal(c.steps[6].buffers[0], 0);
	assert_int_equal(c.steps[6].buffers[1], 6);
	ul_conf_fini(&c);
}

static void empty_documents_give_an_empty_configuration(void **state)
{
	static const char *const docs[] = {
		"",    "# nothing\n", "---\n...\n",
		"~\n", "{}\n",	      "route: []\npeer:\n",
	};
	struct ul_conf c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		parse_ok(docs[i], &c);
		assert_int_equal(c.nr_nets + c.nr_routes + c.nr_peers, 0);
		assert_int_equal(c.nr_warnings, 0);
		ul_conf_fini(&c);
	}
}

static void failed_parse_leaves_the_configuration_untouched(void **state)
{
	struct ul_err err = { 0 };
	struct ul_conf c;
	const char *bad = "route: [{net: tcp1, gateway: 198.18.0.9@tcp}]\n"
			  "net: [{net type: bogus}]\n";

	(void)state;
	parse_ok("route: [{net: tcp5, gateway: 198.18.0.9@tcp}]\n", &c);
	assert_int_equal(ul_conf_parse(bad, strlen(bad), &c, &err), -EINVAL);
	assert_int_equal(c.nr_routes, 1);
	assert_int_equal(c.routes[0].net, net_id("tcp5"));
	/* a success replaces what was there */
	assert_int_equal(ul_conf_parse("{}", 2, &c, &err), 0);
	assert_int_equal(c.nr_routes, 0);
	ul_conf_fini(&c);
	/* fini twice, and on a zeroed struct */
	ul_conf_fini(&c);
}

static void missing_file_is_reported_like_lnetctl(void **state)
{
	struct ul_err err = { 0 };
	struct ul_conf c;

	(void)state;
	ul_conf_init(&c);
	assert_int_equal(ul_conf_parse_file("/nonexistent/x.yaml", &c, &err),
			 -ENOENT);
	assert_string_equal(err.msg, "cannot open '/nonexistent/x.yaml': No "
				     "such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(example_parses_to_exactly_the_expected_values),
		cmocka_unit_test(
			flow_style_gives_the_same_result_as_block_style),
		cmocka_unit_test(
			export_layout_gives_the_same_result_as_block_style),
		cmocka_unit_test(lustre_sample_keeps_o2ib_tunables_as_warnings),
		cmocka_unit_test(
			ni_is_defined_by_nid_when_no_interface_is_given),
		cmocka_unit_test(
			interfaces_win_over_nid_which_stays_informational),
		cmocka_unit_test(net_level_keys_are_kept_apart_from_groups),
		cmocka_unit_test(repeated_sections_are_steps_in_document_order),
		cmocka_unit_test(empty_documents_give_an_empty_configuration),
		cmocka_unit_test(
			failed_parse_leaves_the_configuration_untouched),
		cmocka_unit_test(missing_file_is_reported_like_lnetctl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
