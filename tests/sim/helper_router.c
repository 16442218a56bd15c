/* Shared set-up of the router scenarios (helper_router.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper_router.h"
#include "core/peer.h"
#include "core/route.h"

const char hr_conf_c[] = "net:\n"
			 "  - net type: tcp\n"
			 "    local NI(s):\n"
			 "      - nid: 10.0.0.10@tcp\n"
			 "route:\n"
			 "  - net: tcp1\n"
			 "    gateway: 10.0.0.1@tcp\n"
			 "global:\n"
			 "    discovery: 0\n";

static const char conf_r[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.1@tcp\n"
			     "  - net type: tcp1\n"
			     "    local NI(s):\n"
			     "      - nid: 10.1.0.1@tcp1\n"
			     "global:\n"
			     "    discovery: 0\n"
			     "routing:\n"
			     "    enable: 1\n";

static const char conf_s[] = "net:\n"
			     "  - net type: tcp1\n"
			     "    local NI(s):\n"
			     "      - nid: 10.1.0.20@tcp1\n"
			     "route:\n"
			     "  - net: tcp\n"
			     "    gateway: 10.1.0.1@tcp1\n"
			     "global:\n"
			     "    discovery: 0\n";

static struct sim_node *add(struct sim *sim, const char *name, const char *base,
			    const char *extra)
{
	char conf[4096];

	snprintf(conf, sizeof(conf), "%s%s", base, extra ? extra : "");
	return sim_node_add(sim, name, conf);
}

void hr_init(struct hr *h, const char *extra_r, const char *extra_s)
{
	memset(h, 0, sizeof(*h));
	h->sim = sim_create(7);
	h->c = add(h->sim, "c", hr_conf_c, NULL);
	h->r = add(h->sim, "r", conf_r, extra_r);
	h->s = add(h->sim, "s", conf_s, extra_s);
	hr_routes_up(h->sim, (struct sim_node *const[]){ h->c, h->s }, 2);
	/* C's first PUT must not start with a discovery ping of S. */
	sim_peer_known(h->c, "10.1.0.20@tcp1");
	h->sbuf = malloc(HR_BUF);
	assert_non_null(h->sbuf);
	sim_fill(h->sbuf, HR_BUF, 42);
}

static bool routes_up(struct sim_node *sn)
{
	return ul_routes_all_up(ul_node_core(sn->node));
}

void hr_routes_up(struct sim *sim, struct sim_node *const *nodes, size_t n)
{
	for (int sec = 0; sec <= 300; sec++) {
		size_t up = 0;

		for (size_t i = 0; i < n; i++)
			up += routes_up(nodes[i]);
		if (up == n)
			return;
		sim_run(sim, sim->heap.now_ns + HR_SEC);
	}
	for (size_t i = 0; i < n; i++) {
		struct ul_core *c = ul_node_core(nodes[i]->node);
		struct ul_rnet *rnet;
		struct ul_route *r;
		char a[ULNET_NIDSTR_SIZE];

		ul_list_for_each_entry(rnet, &c->rnets, core_link)
			ul_list_for_each_entry(r, &rnet->routes, rnet_link)
				print_message("%s: route via %s: checked %d "
					      "gateway alive %d route alive "
					      "%d\n",
					      nodes[i]->name,
					      ulnet_nid_format(&r->gw_nid, a,
							       sizeof(a)),
					      r->gateway->is_rtr_checked,
					      r->gateway->is_alive,
					      ul_route_is_alive(c, r));
	}
	fail_msg("routes not up after 300 s");
}

void hr_sink(struct hr *h, struct sim_node *s, uintptr_t tag)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = sim_md(s, h->sbuf, HR_BUF, ULNET_MD_THRESH_INF,
				    ULNET_MD_OP_PUT | ULNET_MD_OP_GET |
					    ULNET_MD_MANAGE_REMOTE,
				    tag);

	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_node_md_attach(s->node, HR_PORTAL, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &h->smd),
			 0);
}

void hr_fini(struct hr *h)
{
	sim_destroy(h->sim);
	free(h->sbuf);
}

static void op(struct sim_node *n, const char *nid, void *buf, uint32_t len,
	       uintptr_t tag, bool is_get)
{
	struct ulnet_process_id to = sim_pid(nid);
	struct ulnet_md md = sim_md(n, buf, len, 2, 0, tag);
	struct ulnet_handle hd;

	assert_int_equal(ul_node_md_bind(n->node, &md, ULNET_UNLINK, &hd), 0);
	if (is_get)
		assert_int_equal(ul_node_get(n->node, NULL, hd, &to, HR_PORTAL,
					     0, 0),
				 0);
	else
		assert_int_equal(ul_node_put(n->node, NULL, hd, ULNET_ACK_REQ,
					     &to, HR_PORTAL, 0, 0, 0),
				 0);
}

void hr_get(struct sim_node *n, const char *nid, void *buf, uint32_t len,
	    uintptr_t tag)
{
	op(n, nid, buf, len, tag, true);
}

void hr_put(struct sim_node *n, const char *nid, void *buf, uint32_t len,
	    uintptr_t tag)
{
	op(n, nid, buf, len, tag, false);
}

int hr_final(struct sim_node *n, uintptr_t tag)
{
	const struct ulnet_event *last = NULL;
	size_t nfinal = 0;

	for (size_t i = 0; i < n->nevs; i++) {
		const struct ulnet_event *ev = &n->evs[i].ev;

		if ((uintptr_t)ev->md_user_ptr != tag)
			continue;
		/* ulnet.h: the answer, a failed SEND, or the UNLINK. */
		if (ev->type != ULNET_EVENT_SEND || ev->status) {
			nfinal++;
			last = ev;
		}
	}
	assert_int_equal(nfinal, 1);
	return last->status;
}

const struct ul_counters *hr_cnt(struct sim_node *n)
{
	return &ul_node_core(n->node)->counters;
}

const struct ulnet_msg_stats *hr_lpni_stats(struct sim_node *n, const char *nid)
{
	static const struct ulnet_msg_stats none;
	struct ulnet_nid x = sim_nid(nid);
	struct ul_peer_ni *lpni = ul_peer_ni_find(ul_node_core(n->node), &x);

	if (!lpni || !lpni->msgs)
		return &none;
	return &lpni->msgs->stats;
}

static int pool_sum(struct sim_node *n, enum ul_rtrpool_kind kind, bool is_min)
{
	const struct ul_routing *r = &ul_node_core(n->node)->routing;
	int sum = 0;

	for (unsigned int cpt = 0; cpt < r->ncpt; cpt++) {
		const struct ul_rtrpool *p = &r->pools[cpt][kind];

		if (!is_min)
			sum += p->credits;
		else if (p->mincredits < 0)
			sum += p->mincredits;
	}
	return sum;
}

int hr_pool_credits(struct sim_node *n, enum ul_rtrpool_kind kind)
{
	return pool_sum(n, kind, false);
}

int hr_pool_mincredits(struct sim_node *n, enum ul_rtrpool_kind kind)
{
	return pool_sum(n, kind, true);
}
