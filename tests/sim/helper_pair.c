/* The two-node set-up of the discovery tests (helper_pair.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/core.h"
#include "helper_pair.h"

const char sim_pair_conf_b[] = "net:\n"
			       "  - net type: tcp\n"
			       "    local NI(s):\n"
			       "      - nid: 10.0.0.2@tcp\n"
			       "      - nid: 10.0.1.2@tcp\n"
			       "global:\n"
			       "    transaction_timeout: 4\n";

const char sim_pair_conf_a[] = "net:\n"
			       "  - net type: tcp\n"
			       "    local NI(s):\n"
			       "      - nid: 10.0.0.1@tcp\n"
			       "      - nid: 10.0.1.1@tcp\n"
			       "global:\n"
			       "    transaction_timeout: 4\n";

void sim_pair_put(struct sim_pair *p, const char *nid)
{
	struct ulnet_process_id to = sim_pid(nid);

	assert_int_equal(ul_node_put(p->a->node, NULL, p->src, ULNET_ACK_REQ,
				     &to, SIM_PAIR_PORTAL, 0, 0, 0),
			 0);
}

struct ul_peer *sim_pair_peer(struct sim_node *sn, const char *nid)
{
	struct ulnet_nid id = sim_nid(nid);

	return ul_peer_find(ul_node_core(sn->node), &id);
}

void sim_pair_init_with(struct sim_pair *p, const char *a_conf,
			const char *b_conf, bool is_b_sender)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md;

	memset(p, 0, sizeof(*p));
	p->sim = sim_create(1);
	p->a = sim_node_add(p->sim, "a", a_conf);
	p->b = sim_node_add(p->sim, "b", b_conf);
	p->src_node = is_b_sender ? p->b : p->a;
	p->sink_node = is_b_sender ? p->a : p->b;
	ulnet_nid_set_any(&any.nid);
	md = sim_md(p->sink_node, p->sinkbuf, sizeof(p->sinkbuf),
		    ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE,
		    SIM_PAIR_TAG_SINK);
	assert_int_equal(ul_node_md_attach(p->sink_node->node, SIM_PAIR_PORTAL,
					   &any, 0, 0, ULNET_INS_AFTER, &md,
					   ULNET_RETAIN, &p->sink),
			 0);
	md = sim_md(p->src_node, p->srcbuf, sizeof(p->srcbuf),
		    ULNET_MD_THRESH_INF, 0, SIM_PAIR_TAG_SRC);
	assert_int_equal(ul_node_md_bind(p->src_node->node, &md, ULNET_RETAIN,
					 &p->src),
			 0);
}

void sim_pair_init(struct sim_pair *p, const char *a_conf)
{
	sim_pair_init_with(p, a_conf, sim_pair_conf_b, false);
}

void sim_pair_conf_many(char *conf, size_t cap, int nis)
{
	size_t off;
	int n;

	off = (size_t)snprintf(conf, cap,
			       "net:\n  - net type: tcp\n    local NI(s):\n");
	assert_true(off < cap);
	for (int i = 0; i < nis; i++) {
		n = snprintf(conf + off, cap - off,
			     "      - nid: 10.0.%d.2@tcp\n", i);
		assert_true(n > 0 && (size_t)n < cap - off);
		off += (size_t)n;
	}
}

void sim_pair_fini(struct sim_pair *p)
{
	assert_int_equal(ul_node_md_unlink(p->src_node->node, p->src), 0);
	assert_int_equal(ul_node_md_unlink(p->sink_node->node, p->sink), 0);
	sim_destroy(p->sim);
}
