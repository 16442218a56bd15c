/*
 * Test topologies for core and selection tests: node C of
 * reference/selection.md §6 with its peers and routes, built through the
 * core API. No cmocka and no main: every unit test program links every
 * helper. Failures abort (a broken fixture is not a test result).
 */
#ifndef HELPER_TOPO_H
#define HELPER_TOPO_H

#include "core/core.h"
#include "core/select.h"

/*
 * Node C: C1 10.1.0.1@o2ib, C2 10.1.0.2@o2ib, C3 192.168.1.1@tcp (nets
 * o2ib, tcp in that order). Peers: S1 MR (10.1.0.10@o2ib, 10.1.0.11@o2ib,
 * 192.168.1.10@tcp); MR routers R1 (10.1.0.100@o2ib, 172.16.0.100@o2ib1)
 * and R2 (10.1.0.101@o2ib, 172.16.0.101@o2ib1) with routes to o2ib1 in
 * the order [R1, R2], hops 1, priority 0; S2 MR (172.16.0.10@o2ib1,
 * 172.16.0.11@o2ib1); the non-MR router R3 192.168.1.200@tcp with the
 * route tcp1 via it; S3 MR (10.2.0.10@tcp1, 10.2.0.11@tcp1). N1, N2 and
 * N3 are not configured: the first send to them creates them.
 */
struct ht_c {
	struct ul_core *c;
	struct ul_ni *c1, *c2, *c3;
	struct ul_peer *s1, *r1, *r2, *s2, *s3;
	struct ul_route *rt_r1, *rt_r2, *rt_r3;
};

/* Parse a NID or abort. */
struct ulnet_nid ht_nid(const char *str);
/* Parse a net name or abort. */
uint32_t ht_net(const char *str);
/* Format a NID into a static buffer (for messages; not reentrant). */
const char *ht_str(const struct ulnet_nid *nid);

/* Build node C (route order fixed by appending). Aborts on failure. */
void ht_build_c(struct ht_c *t);
/* Destroy it. */
void ht_destroy_c(struct ht_c *t);

/* Add an NI or abort. */
struct ul_ni *ht_ni(struct ul_core *c, const char *nid, int numa_node);
/* Add a configured peer with primary and up to 7 more NIDs, or abort. */
struct ul_peer *ht_peer(struct ul_core *c, bool is_mr, const char *prim,
			const char *const *more);

/*
 * One send: a PUT (or type) from src (NULL: any) to dst via rtr (NULL:
 * any). Returns ul_select()'s code; *res filled on success.
 */
int ht_send(struct ul_core *c, const char *src, const char *dst,
	    const char *rtr, enum ul_msg_type type, struct ul_select_res *res);

#endif /* HELPER_TOPO_H */
