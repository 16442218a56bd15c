/* Shared set-up of the health and fault scenarios (helper_health.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/health.h"
#include "core/ni.h"
#include "core/peer.h"
#include "helper_health.h"

static void conf_of(char *buf, size_t size, bool is_mr, const char *self0,
		    const char *self1, const char *peer0, const char *peer1,
		    const char *extra)
{
	int len;

	if (is_mr)
		len = snprintf(buf, size,
			       "net:\n"
			       "  - net type: tcp\n"
			       "    local NI(s):\n"
			       "      - nid: %s\n"
			       "      - nid: %s\n"
			       "peer:\n"
			       "  - primary nid: %s\n"
			       "    Multi-Rail: True\n"
			       "    peer ni:\n"
			       "      - nid: %s\n"
			       "      - nid: %s\n"
			       "global:\n"
			       "    discovery: 0\n%s",
			       self0, self1, peer0, peer0, peer1,
			       extra ? extra : "");
	else
		len = snprintf(buf, size,
			       "net:\n"
			       "  - net type: tcp\n"
			       "    local NI(s):\n"
			       "      - nid: %s\n"
			       "peer:\n"
			       "  - primary nid: %s\n"
			       "    Multi-Rail: False\n"
			       "    peer ni:\n"
			       "      - nid: %s\n"
			       "global:\n"
			       "    discovery: 0\n%s",
			       self0, peer0, peer0, extra ? extra : "");
	assert_true(len > 0 && (size_t)len < size);
}

void hh_init(struct hh *h, bool is_mr, const char *extra_global)
{
	char ca[1024];

	memset(h, 0, sizeof(*h));
	h->is_mr = is_mr;
	h->sim = sim_create(7);
	conf_of(ca, sizeof(ca), is_mr, "10.0.0.1@tcp", "10.0.1.1@tcp",
		"10.0.0.2@tcp", "10.0.1.2@tcp", extra_global);
	conf_of(h->conf_b, sizeof(h->conf_b), is_mr, "10.0.0.2@tcp",
		"10.0.1.2@tcp", "10.0.0.1@tcp", "10.0.1.1@tcp", extra_global);
	h->a = sim_node_add(h->sim, "a", ca);
	h->b = sim_node_add(h->sim, "b", h->conf_b);
}

void hh_kill_b(struct hh *h)
{
	ul_node_shutdown(h->b->node);
}

void hh_restart_b(struct hh *h)
{
	char name[SIM_NAME_SIZE];

	hh_kill_b(h);
	snprintf(name, sizeof(name), "b%u", ++h->nrestarts);
	h->b = sim_node_add(h->sim, name, h->conf_b);
}

struct ulnet_handle hh_sink(struct sim_node *n, uintptr_t tag)
{
	static char sink[64];
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md;
	struct ulnet_handle hd;

	ulnet_nid_set_any(&any.nid);
	md = sim_md(n, sink, sizeof(sink), ULNET_MD_THRESH_INF, ULNET_MD_OP_PUT,
		    tag);
	assert_int_equal(ul_node_md_attach(n->node, 3, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &hd),
			 0);
	return hd;
}

void hh_put(struct sim_node *n, const char *to, uintptr_t tag)
{
	static char src[64];
	struct ulnet_process_id target = sim_pid(to);
	struct ulnet_handle hs;
	struct ulnet_md md;

	md = sim_md(n, src, sizeof(src), 2, 0, tag);
	assert_int_equal(ul_node_md_bind(n->node, &md, ULNET_UNLINK, &hs), 0);
	assert_int_equal(ul_node_put(n->node, NULL, hs, ULNET_ACK_REQ, &target,
				     3, 0, 0, 0),
			 0);
}

void hh_fini(struct hh *h)
{
	sim_destroy(h->sim);
}

struct ping_res {
	bool is_done;
	int status;
};

static void ping_cb(void *arg, int status, const struct ulnet_ping_result *r)
{
	struct ping_res *pr = arg;

	(void)r;
	pr->is_done = true;
	pr->status = status;
}

int hh_ping(struct hh *h, struct sim_node *n, const char *self, const char *nid)
{
	struct ulnet_process_id to = sim_pid(nid);
	struct ulnet_nid s;
	struct ping_res pr = { 0 };

	if (self)
		s = sim_nid(self);
	assert_int_equal(ul_node_ping(n->node, self ? &s : NULL, &to, 5000,
				      ping_cb, &pr),
			 0);
	for (int i = 0; i < 600 && !pr.is_done; i++)
		sim_run(h->sim, h->sim->heap.now_ns + 10 * HH_MS);
	assert_true(pr.is_done);
	return pr.status;
}

static void rule_nid(const char *s, struct ulnet_nid *out)
{
	if (!strcmp(s, "*"))
		ulnet_nid_set_any(out);
	else
		*out = sim_nid(s);
}

void hh_drop(struct sim_node *n, const char *src, const char *dst,
	     uint32_t msg_mask, uint32_t rate, int hs)
{
	struct ul_fault_attr a = { 0 };

	rule_nid(src, &a.src);
	rule_nid(dst, &a.dst);
	ulnet_nid_set_any(&a.local);
	a.msg_mask = msg_mask;
	a.rate = rate;
	if (hs >= 0)
		a.health_mask = 1u << hs;
	assert_int_equal(ul_node_fault_add(n->node, &a, NULL), 0);
}

void hh_delay(struct sim_node *n, const char *src, const char *dst,
	      uint32_t msg_mask, uint32_t rate, uint32_t latency_sec)
{
	struct ul_fault_attr a = { 0 };

	a.is_delay = true;
	rule_nid(src, &a.src);
	rule_nid(dst, &a.dst);
	ulnet_nid_set_any(&a.local);
	a.msg_mask = msg_mask;
	a.rate = rate;
	a.latency = latency_sec;
	assert_int_equal(ul_node_fault_add(n->node, &a, NULL), 0);
}

int hh_ni_health(struct sim_node *n, const char *nid)
{
	struct ulnet_nid x = sim_nid(nid);
	struct ul_ni *ni = ul_ni_find(ul_node_core(n->node), &x);

	assert_non_null(ni);
	return ni->healthv;
}

int hh_lpni_health(struct sim_node *n, const char *nid)
{
	struct ulnet_nid x = sim_nid(nid);
	struct ul_peer_ni *lpni = ul_peer_ni_find(ul_node_core(n->node), &x);

	assert_non_null(lpni);
	return lpni->healthv;
}

int hh_ni_health_sum(struct sim_node *n)
{
	struct ul_core *c = ul_node_core(n->node);
	struct ul_net *net;
	struct ul_ni *ni;
	int sum = 0;

	ul_list_for_each_entry(net, &c->nets, core_link)
		ul_list_for_each_entry(ni, &net->nis, net_link)
			if (ni != ul_core_lo_ni(c))
				sum += ni->healthv;
	return sum;
}

const struct ul_counters *hh_cnt(struct sim_node *n)
{
	return &ul_node_core(n->node)->counters;
}

struct recq_walk {
	unsigned int count;
	const struct ulnet_nid *want;
	bool is_found;
};

static void recq_one(void *arg, const struct ulnet_nid *nid)
{
	struct recq_walk *w = arg;

	w->count++;
	if (w->want && ulnet_nid_same(w->want, nid))
		w->is_found = true;
}

unsigned int hh_recq_len(struct sim_node *n, bool is_local)
{
	struct recq_walk w = { 0 };

	ul_health_recovery_list(n->node, is_local, recq_one, &w);
	return w.count;
}

bool hh_recq_has(struct sim_node *n, bool is_local, const char *nid)
{
	struct ulnet_nid x = sim_nid(nid);
	struct recq_walk w = { 0, &x, false };

	ul_health_recovery_list(n->node, is_local, recq_one, &w);
	return w.is_found;
}
