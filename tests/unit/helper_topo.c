/*
 * The fixtures of helper_topo.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "helper_topo.h"

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "helper_topo: %s: %s\n", what, arg ? arg : "");
	abort();
}

struct ulnet_nid ht_nid(const char *str)
{
	struct ulnet_nid nid;

	if (ulnet_nid_parse(str, &nid, NULL, 0))
		die("bad NID", str);
	return nid;
}

uint32_t ht_net(const char *str)
{
	uint32_t net;

	if (ulnet_net_parse(str, &net, NULL, 0))
		die("bad net", str);
	return net;
}

const char *ht_str(const struct ulnet_nid *nid)
{
	static char buf[ULNET_NIDSTR_SIZE];

	return ulnet_nid_format(nid, buf, sizeof(buf));
}

struct ul_ni *ht_ni(struct ul_core *c, const char *nid, int numa_node)
{
	struct ulnet_nid n = ht_nid(nid);
	struct ul_ni *ni;

	if (ul_ni_add(c, &n, NULL, numa_node, NULL, &ni, NULL))
		die("ni add", nid);
	return ni;
}

struct ul_peer *ht_peer(struct ul_core *c, bool is_mr, const char *prim,
			const char *const *more)
{
	struct ulnet_nid n = ht_nid(prim);
	struct ul_peer *peer;

	if (ul_peer_add(c, &n, is_mr, false, &peer, NULL))
		die("peer add", prim);
	for (int i = 0; more && more[i]; i++) {
		n = ht_nid(more[i]);
		if (ul_peer_ni_add(c, peer, &n, NULL, NULL))
			die("peer ni add", more[i]);
	}
	return peer;
}

static struct ul_route *route(struct ul_core *c, const char *net,
			      const char *gw)
{
	struct ulnet_nid n = ht_nid(gw);
	struct ul_route *r;

	if (ul_route_add(c, ht_net(net), &n, 1, 0, &r, NULL))
		die("route add", gw);
	return r;
}

void ht_build_c(struct ht_c *t)
{
	static const char *const s1[] = { "10.1.0.11@o2ib", "192.168.1.10@tcp",
					  NULL };
	static const char *const r1[] = { "172.16.0.100@o2ib1", NULL };
	static const char *const r2[] = { "172.16.0.101@o2ib1", NULL };
	static const char *const s2[] = { "172.16.0.11@o2ib1", NULL };
	static const char *const s3[] = { "10.2.0.11@tcp1", NULL };

	if (ul_core_create(&t->c))
		die("core create", NULL);
	ul_core_set_route_append(t->c, true);
	t->c1 = ht_ni(t->c, "10.1.0.1@o2ib", UL_NUMA_ANY);
	t->c2 = ht_ni(t->c, "10.1.0.2@o2ib", UL_NUMA_ANY);
	t->c3 = ht_ni(t->c, "192.168.1.1@tcp", UL_NUMA_ANY);
	t->s1 = ht_peer(t->c, true, "10.1.0.10@o2ib", s1);
	t->r1 = ht_peer(t->c, true, "10.1.0.100@o2ib", r1);
	t->r2 = ht_peer(t->c, true, "10.1.0.101@o2ib", r2);
	t->s2 = ht_peer(t->c, true, "172.16.0.10@o2ib1", s2);
	t->s3 = ht_peer(t->c, true, "10.2.0.10@tcp1", s3);
	t->rt_r1 = route(t->c, "o2ib1", "10.1.0.100@o2ib");
	t->rt_r2 = route(t->c, "o2ib1", "10.1.0.101@o2ib");
	t->rt_r3 = route(t->c, "tcp1", "192.168.1.200@tcp");
}

void ht_destroy_c(struct ht_c *t)
{
	ul_core_destroy(t->c);
	t->c = NULL;
}

int ht_send(struct ul_core *c, const char *src, const char *dst,
	    const char *rtr, enum ul_msg_type type, struct ul_select_res *res)
{
	struct ulnet_nid d = ht_nid(dst);
	struct ul_select_req req;

	ul_select_req_init(&req, &d, type);
	if (src)
		req.src_nid = ht_nid(src);
	if (rtr)
		req.rtr_nid = ht_nid(rtr);
	return ul_select(c, &req, res, NULL);
}
