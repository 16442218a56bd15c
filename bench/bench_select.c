/*
 * bench_select: what pathway selection costs.
 *
 *  - ns per ul_select() for 1x1, 4x4 and 16x16 local NIs x peer NIs of
 *    one Multi-Rail peer (explanation off), each after UDSP rule sets of
 *    0, 64 and 1,024 rules that match none of the objects: rules are
 *    applied to objects when either changes, so the send path must not
 *    see them at all (DESIGN.md);
 *  - bytes of heap per peer with 4 NIDs, and per peer NI, over 100,000
 *    peers (glibc's mallinfo2 before and after);
 *  - time to add one rule that reaches all 100,000 peers (a destination
 *    net priority rule, applied to every peer net).
 *
 * Goals (the issue): <= 100 ns per selection at 4x4 whatever the rule
 * count; <= 200 ms to apply a rule to 100,000 peers; <= 1 KiB per peer
 * with 4 NIDs. It prints figures and the goal beside each; it never
 * fails on time. Run it with `make bench` (an optimised build).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "core/select.h"
#include "core/udsp.h"

#define SENDS 2000000u
#define PEERS 100000u

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static struct ulnet_nid nid_of(uint32_t net, uint32_t addr)
{
	struct ulnet_nid nid;

	memset(&nid, 0, sizeof(nid));
	nid.nid_type = (uint8_t)ulnet_net_type(net);
	nid.nid_num = (uint16_t)ulnet_net_num(net);
	nid.nid_addr[0] = addr;
	return nid;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_select: %s failed: %d\n", what, rc);
	exit(1);
}

/* Rules that match nothing here: sources and destinations on tcp9. */
static void add_unmatched_rules(struct ul_udsp_set *set, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char src[64];
		struct ul_udsp_rule *rule;
		int rc;

		snprintf(src, sizeof(src), "10.9.%u.%u@tcp9", i / 250, i % 250);
		rc = ul_udsp_rule_from_strings(i % 2 ? src : NULL,
					       i % 2 ? NULL : src, NULL, true,
					       i, -1, &rule, NULL);
		if (rc < 0)
			die("rule", rc);
		rc = ul_udsp_add(set, rule, NULL);
		ul_udsp_rule_free(rule);
		if (rc < 0)
			die("udsp add", rc);
	}
}

static void bench_selection(unsigned int nis, unsigned int rules)
{
	uint32_t tcp = ulnet_net_make(ULNET_LND_SOCK, 0);
	struct ul_udsp_set *set;
	struct ul_select_req req;
	struct ul_select_res res;
	struct ul_peer *peer;
	struct ul_core *c;
	struct ulnet_nid dst;
	double t0, t1;
	unsigned int i;
	int rc;

	rc = ul_core_create(&c);
	if (rc < 0)
		die("core", rc);
	rc = ul_udsp_attach(c, &set);
	if (rc < 0)
		die("udsp attach", rc);
	add_unmatched_rules(set, rules);
	for (i = 0; i < nis; i++) {
		struct ulnet_nid nid = nid_of(tcp, 0x0a000001 + i);

		rc = ul_ni_add(c, &nid, NULL, UL_NUMA_ANY, NULL, NULL, NULL);
		if (rc < 0)
			die("ni add", rc);
	}
	dst = nid_of(tcp, 0x0a010001);
	rc = ul_peer_add(c, &dst, true, false, &peer, NULL);
	if (rc < 0)
		die("peer add", rc);
	for (i = 1; i < nis; i++) {
		struct ulnet_nid nid = nid_of(tcp, 0x0a010001 + i);

		rc = ul_peer_ni_add(c, peer, &nid, NULL, NULL);
		if (rc < 0)
			die("peer ni add", rc);
	}
	ul_select_req_init(&req, &dst, UL_MSG_PUT);
	for (i = 0; i < SENDS / 10; i++) /* warm up */
		ul_select(c, &req, &res, NULL);
	t0 = now_ns();
	for (i = 0; i < SENDS; i++) {
		rc = ul_select(c, &req, &res, NULL);
		if (rc < 0)
			die("select", rc);
	}
	t1 = now_ns();
	printf("select %2ux%-2u  %4u rules: %7.1f ns/selection%s\n", nis, nis,
	       rules, (t1 - t0) / SENDS, nis == 4 ? "   (goal <= 100 ns)" : "");
	ul_udsp_detach(set);
	ul_core_destroy(c);
}

static void bench_peers(void)
{
	uint32_t tcp = ulnet_net_make(ULNET_LND_SOCK, 0);
	uint32_t o2ib = ulnet_net_make(ULNET_LND_O2IB, 0);
	struct ul_udsp_set *set;
	struct ul_udsp_rule *rule;
	struct mallinfo2 before, after;
	struct ul_core *c;
	double t0, t1, per_peer;
	unsigned int i, k;
	int rc;

	rc = ul_core_create(&c);
	if (rc < 0)
		die("core", rc);
	rc = ul_udsp_attach(c, &set);
	if (rc < 0)
		die("udsp attach", rc);
	before = mallinfo2();
	for (i = 0; i < PEERS; i++) {
		struct ulnet_nid prim = nid_of(tcp, 0x0b000000 + i);
		struct ul_peer *peer;

		rc = ul_peer_add(c, &prim, true, false, &peer, NULL);
		if (rc < 0)
			die("peer add", rc);
		for (k = 1; k < 4; k++) {
			struct ulnet_nid nid =
				nid_of(k < 2 ? tcp : o2ib,
				       0x0b000000 + i + k * 0x00400000);

			rc = ul_peer_ni_add(c, peer, &nid, NULL, NULL);
			if (rc < 0)
				die("peer ni add", rc);
		}
	}
	after = mallinfo2();
	per_peer = (double)(after.uordblks - before.uordblks) / PEERS;
	printf("memory: %.0f bytes per peer with 4 NIDs (goal <= 1024), %.0f "
	       "per peer NI\n",
	       per_peer, per_peer / 4);

	rc = ul_udsp_rule_from_strings(NULL, "o2ib", NULL, true, 3, -1, &rule,
				       NULL);
	if (rc < 0)
		die("rule", rc);
	t0 = now_ns();
	rc = ul_udsp_add(set, rule, NULL);
	t1 = now_ns();
	ul_udsp_rule_free(rule);
	if (rc < 0)
		die("udsp add", rc);
	printf("udsp: %.1f ms to apply one rule to %u peers (goal <= 200 ms)\n",
	       (t1 - t0) / 1e6, PEERS);
	ul_udsp_detach(set);
	ul_core_destroy(c);
}

int main(void)
{
	static const unsigned int sizes[] = { 1, 4, 16 };
	static const unsigned int rules[] = { 0, 64, 1024 };
	size_t i, k;

	for (i = 0; i < 3; i++)
		for (k = 0; k < 3; k++)
			bench_selection(sizes[i], rules[k]);
	bench_peers();
	return 0;
}
