/*
 * Every worked example of reference/selection.md §6 on node C (see
 * helper_topo.h), as numbered rows: each row is one send and the
 * (local NI, next hop, header destination) the reference gives, so the
 * order of successive sends (round robin) is pinned too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "helper_topo.h"

struct row {
	const char *src; /* NULL: any */
	const char *dst;
	const char *rtr; /* NULL: any */
	enum ul_msg_type type;
	int rc;
	const char *ni;	  /* transmit NI */
	const char *next; /* next hop (gateway NI when routed) */
	const char *hdst; /* header destination */
};

#define PUT UL_MSG_PUT
#define GET UL_MSG_GET
#define ACK UL_MSG_ACK
#define REPLY UL_MSG_REPLY

static void expect_nid(int row, const char *what, const struct ulnet_nid *got,
		       const char *want)
{
	struct ulnet_nid w = ht_nid(want);
	char buf[ULNET_NIDSTR_SIZE];

	if (!ulnet_nid_same(got, &w))
		fail_msg("row %d: %s is %s, expected %s", row, what,
			 ulnet_nid_format(got, buf, sizeof(buf)), want);
}

static void check_row(struct ul_core *c, int i, const struct row *r)
{
	struct ul_select_res res;
	int rc = ht_send(c, r->src, r->dst, r->rtr, r->type, &res);

	if (rc != r->rc)
		fail_msg("row %d: rc %d, expected %d", i, rc, r->rc);
	if (rc)
		return;
	expect_nid(i, "local NI", &res.ni->nid, r->ni);
	expect_nid(i, "next hop", &res.lpni->nid, r->next);
	expect_nid(i, "header destination", &res.hdr_dst_nid, r->hdst);
}

static void run_rows(struct ul_core *c, const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_row(c, (int)i, &rows[i]);
}

#define RUN(c, rows) run_rows((c), (rows), sizeof(rows) / sizeof((rows)[0]))

static int setup(void **state)
{
	static struct ht_c t;

	ht_build_c(&t);
	*state = &t;
	return 0;
}

static int teardown(void **state)
{
	ht_destroy_c(*state);
	return 0;
}

static struct ul_peer_ni *lpni_of(struct ul_core *c, const char *nid)
{
	struct ulnet_nid n = ht_nid(nid);
	struct ul_peer_ni *lpni = ul_peer_ni_find(c, &n);

	assert_non_null(lpni);
	return lpni;
}

/* §6.1 Example A: nets, NIs and peer NIs all take turns. */
static void select_example_a_rotates_nets_nis_and_peer_nis(void **state)
{
	struct ht_c *t = *state;
	static const struct row first[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
	};
	static const struct row rest[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
	};
	struct ul_peer_ni *lpni;

	RUN(t->c, first);
	/* The stamps the reference lists after message 1 (§4.5). */
	lpni = lpni_of(t->c, "10.1.0.10@o2ib");
	assert_int_equal(lpni->peer_net->seq, 1);
	assert_int_equal(lpni->seq, 1);
	assert_int_equal(t->c1->net->seq, 1);
	assert_int_equal(t->c1->seq, 1);
	assert_int_equal(t->c2->seq, 0);
	RUN(t->c, rest);
}

/* Example A, `udsp add --src tcp --priority 0`. */
static void select_example_a_src_net_priority_keeps_tcp(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
	};

	t->c3->net->sel_priority = 0;
	RUN(t->c, rows);
}

/* Example A, plus `udsp add --dst o2ib --priority 0`: dst side first. */
static void select_example_a_dst_net_priority_outranks_src(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
	};

	t->c3->net->sel_priority = 0;
	lpni_of(t->c, "10.1.0.10@o2ib")->peer_net->sel_priority = 0;
	RUN(t->c, rows);
}

/* Example A, `udsp add --src 10.1.0.2@o2ib --priority 0`. */
static void select_example_a_ni_priority_picks_c2_on_o2ib(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
	};

	t->c2->sel_priority = 0;
	RUN(t->c, rows);
}

/*
 * Example A, pair rule `--src 10.1.0.1@o2ib --dst 10.1.0.11@o2ib`: from
 * C1, .11 is preferred; from C2 the peer NIs go by round robin (which,
 * interleaved with C1's sends, is always .10 here).
 */
static void select_example_a_pair_rule_prefers_11_from_c1(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
	};

	assert_int_equal(
		ul_peer_ni_add_pref_nid(lpni_of(t->c, "10.1.0.11@o2ib"),
					&t->c1->nid, false),
		0);
	RUN(t->c, rows);
}

static void numa_sends(struct ht_c *t, const char *const *want_ni, int n)
{
	struct ulnet_nid dst = ht_nid("10.1.0.10@o2ib");
	struct ul_select_req req;
	struct ul_select_res res;

	ul_select_req_init(&req, &dst, UL_MSG_PUT);
	req.md_numa_node = 0;
	for (int i = 0; i < n; i++) {
		assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
		expect_nid(i, "local NI", &res.ni->nid, want_ni[i]);
	}
}

/* Example A NUMA variant: C1 at distance 10, C2 at 20, numa_range 0. */
static void select_example_a_numa_prefers_near_ni(void **state)
{
	struct ht_c *t = *state;
	static const char *const want[] = {
		"10.1.0.1@o2ib",   "192.168.1.1@tcp", "10.1.0.1@o2ib",
		"192.168.1.1@tcp", "10.1.0.1@o2ib",
	};

	t->c1->numa_node = 0;
	t->c2->numa_node = 1;
	numa_sends(t, want, 5);
}

/* ... and with `lnetctl set numa_range 30` both clamp to 30. */
static void select_example_a_numa_range_makes_nis_equal(void **state)
{
	struct ht_c *t = *state;
	static const char *const want[] = {
		"10.1.0.1@o2ib",   "192.168.1.1@tcp", "10.1.0.2@o2ib",
		"192.168.1.1@tcp", "10.1.0.1@o2ib",
	};

	t->c1->numa_node = 0;
	t->c2->numa_node = 1;
	assert_int_equal(ul_tunables_set(&t->c->tun, UL_TUNABLE_NUMA_RANGE, 30,
					 NULL),
			 0);
	numa_sends(t, want, 5);
}

/* Example A health variant: health precedes NI priority. */
static void select_example_a_health_beats_ni_priority(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.10@o2ib", "10.1.0.10@o2ib" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.10@tcp", "192.168.1.10@tcp" },
		{ NULL, "10.1.0.10@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
	};

	t->c1->healthv = 900;
	t->c1->sel_priority = 0;
	RUN(t->c, rows);
}

/* §6.2 Example B: the first NI chosen for N1 sticks. */
static void select_example_b_non_mr_peer_sticks_to_first_ni(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.20@o2ib", NULL, GET, 0, "10.1.0.1@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
		{ NULL, "10.1.0.20@o2ib", NULL, GET, 0, "10.1.0.1@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
		{ NULL, "10.1.0.20@o2ib", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
	};
	struct ul_peer_ni *n1;

	RUN(t->c, rows);
	n1 = lpni_of(t->c, "10.1.0.20@o2ib");
	assert_false(ul_peer_ni_peer(n1)->is_mr);
	assert_int_equal(n1->pref_nids.count, 1);
	assert_true(n1->is_pref_non_mr);
	assert_true(ul_peer_ni_is_pref_nid(n1, &t->c1->nid));
	assert_int_equal(t->c2->seq, 0); /* C2 less used, still not taken */
}

/* Example B: N1 first seen by a message arriving on C2 sticks to C2. */
static void select_example_b_peer_created_by_receipt_uses_rx_ni(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.20@o2ib", NULL, GET, 0, "10.1.0.2@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
		{ NULL, "10.1.0.20@o2ib", NULL, GET, 0, "10.1.0.2@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
	};
	struct ulnet_nid n1 = ht_nid("10.1.0.20@o2ib");
	struct ul_peer_ni *lpni;

	assert_int_equal(ul_peer_ni_find_or_create(t->c, &n1, t->c2, &lpni), 0);
	assert_true(lpni->is_pref_non_mr);
	RUN(t->c, rows);
}

/* Example B: pair rule `--src 10.1.0.2@o2ib --dst 10.1.0.20@o2ib`. */
static void select_example_b_pair_rule_sets_preferred_nid(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.1.0.20@o2ib", NULL, GET, 0, "10.1.0.2@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
		{ NULL, "10.1.0.20@o2ib", NULL, GET, 0, "10.1.0.2@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
	};
	struct ulnet_nid n1 = ht_nid("10.1.0.20@o2ib");
	struct ul_peer_ni *lpni;

	assert_int_equal(ul_peer_ni_find_or_create(t->c, &n1, NULL, &lpni), 0);
	assert_int_equal(ul_peer_ni_add_pref_nid(lpni, &t->c2->nid, false), 0);
	RUN(t->c, rows);
	assert_false(lpni->is_pref_non_mr);
}

/* §4.6 / §12 quirk 5: pings ignore the sticky NI (and keep it). */
static void select_reserved_portal_ignores_sticky_ni(void **state)
{
	struct ht_c *t = *state;
	struct ulnet_nid n1 = ht_nid("10.1.0.20@o2ib");
	struct ul_select_req req;
	struct ul_select_res res;

	ul_select_req_init(&req, &n1, UL_MSG_GET);
	assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
	assert_ptr_equal(res.ni, t->c1);
	req.is_reserved_portal = true;
	assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
	assert_ptr_equal(res.ni, t->c2); /* §4.1 round robin */
	assert_true(ul_peer_ni_is_pref_nid(res.lpni, &t->c1->nid));
	req.is_reserved_portal = false;
	assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
	assert_ptr_equal(res.ni, t->c1);
}

/* §4.6 / §12 quirk 4: a deleted sticky NI is not replaced. */
static void select_stale_sticky_nid_is_not_replaced(void **state)
{
	struct ht_c *t = *state;
	struct ulnet_nid c1 = ht_nid("10.1.0.1@o2ib");
	struct ulnet_nid n1 = ht_nid("10.1.0.20@o2ib");
	struct ul_select_req req;
	struct ul_select_res res;

	ul_select_req_init(&req, &n1, UL_MSG_PUT);
	assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
	assert_ptr_equal(res.ni, t->c1);
	assert_int_equal(ul_ni_del(t->c, &c1, NULL), 0);
	t->c1 = NULL;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
		assert_ptr_equal(res.ni, t->c2);
		assert_true(ul_peer_ni_is_pref_nid(res.lpni, &c1));
	}
}

/* §6.3 Example C: final NID, route and local NI all take turns. */
static void select_example_c_mr_peer_behind_mr_routers(void **state)
{
	struct ht_c *t = *state;
	static const struct row first[] = {
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.101@o2ib", "172.16.0.10@o2ib1" },
	};
	static const struct row rest[] = {
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.101@o2ib", "172.16.0.10@o2ib1" },
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
	};

	RUN(t->c, first);
	assert_int_equal(t->rt_r2->seq, 1); /* R2.lr_seq := 1 */
	assert_int_equal(t->rt_r1->seq, 0);
	RUN(t->c, rest);
	assert_int_equal(t->rt_r1->seq, 4);
	assert_int_equal(t->rt_r2->seq, 3);
}

/*
 * Example C, `udsp add --dst 172.16.0.11@o2ib1 --rte 10.1.0.100@o2ib`:
 * .11 always goes through R1. (Sends to .10 interleaved with them take
 * the other route each time: R1's stamp keeps passing R2's.)
 */
static void select_example_c_preferred_router_wins_for_11(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.101@o2ib", "172.16.0.10@o2ib1" },
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.101@o2ib", "172.16.0.10@o2ib1" },
		{ NULL, "172.16.0.10@o2ib1", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
		/* .11 pinned by the caller: still R1, never R2. */
		{ "10.1.0.1@o2ib", "172.16.0.11@o2ib1", NULL, PUT, 0,
		  "10.1.0.1@o2ib", "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
		{ "10.1.0.1@o2ib", "172.16.0.11@o2ib1", NULL, PUT, 0,
		  "10.1.0.1@o2ib", "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
	};
	struct ulnet_nid r1 = ht_nid("10.1.0.100@o2ib");

	assert_int_equal(ul_peer_ni_add_pref_rtr(
				 lpni_of(t->c, "172.16.0.11@o2ib1"), &r1),
			 0);
	RUN(t->c, rows);
}

/* Example C, MR node / non-MR router / MR peer (S3 via R3). */
static void select_example_c_mr_peer_behind_non_mr_router(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.2.0.10@tcp1", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.200@tcp", "10.2.0.10@tcp1" },
		{ NULL, "10.2.0.10@tcp1", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.200@tcp", "10.2.0.11@tcp1" },
		{ NULL, "10.2.0.10@tcp1", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.200@tcp", "10.2.0.10@tcp1" },
	};

	RUN(t->c, rows);
}

/* §6.4 Example D: the local NI sticks, the routers take turns. */
static void select_example_d_non_mr_peer_behind_mr_routers(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "172.16.0.20@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.101@o2ib", "172.16.0.20@o2ib1" },
		{ NULL, "172.16.0.20@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.100@o2ib", "172.16.0.20@o2ib1" },
		{ NULL, "172.16.0.20@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.101@o2ib", "172.16.0.20@o2ib1" },
		{ NULL, "172.16.0.20@o2ib1", NULL, PUT, 0, "10.1.0.1@o2ib",
		  "10.1.0.100@o2ib", "172.16.0.20@o2ib1" },
	};
	struct ul_peer_ni *n2;

	RUN(t->c, rows);
	n2 = lpni_of(t->c, "172.16.0.20@o2ib1");
	assert_true(ul_peer_ni_is_pref_nid(n2, &t->c1->nid));
	assert_true(n2->is_pref_non_mr);
}

/* Example D, non-MR router + non-MR peer (N3 via R3). */
static void select_example_d_non_mr_peer_behind_non_mr_router(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ NULL, "10.2.0.20@tcp1", NULL, PUT, 0, "192.168.1.1@tcp",
		  "192.168.1.200@tcp", "10.2.0.20@tcp1" },
		{ NULL, "10.2.0.20@tcp1", NULL, GET, 0, "192.168.1.1@tcp",
		  "192.168.1.200@tcp", "10.2.0.20@tcp1" },
	};

	RUN(t->c, rows);
	assert_true(ul_peer_ni_is_pref_nid(lpni_of(t->c, "10.2.0.20@tcp1"),
					   &t->c3->nid));
}

/* §6.5 Example E: a given source pins the pair. */
static void select_example_e_source_pins_the_pair(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ "10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, PUT, 0,
		  "10.1.0.2@o2ib", "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
		{ "10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, PUT, 0,
		  "10.1.0.2@o2ib", "10.1.0.11@o2ib", "10.1.0.11@o2ib" },
		{ "10.1.0.2@o2ib", "10.1.0.20@o2ib", NULL, PUT, 0,
		  "10.1.0.2@o2ib", "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
		/* N1 now sticks to C2, for unpinned sends too. */
		{ NULL, "10.1.0.20@o2ib", NULL, PUT, 0, "10.1.0.2@o2ib",
		  "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
		/* Pinned on tcp, destination on o2ib: REMOTE, no route. */
		{ "192.168.1.1@tcp", "10.1.0.11@o2ib", NULL, PUT, -EHOSTUNREACH,
		  NULL, NULL, NULL },
		/* Not a local NID. */
		{ "10.1.0.99@o2ib", "10.1.0.11@o2ib", NULL, PUT, -EINVAL, NULL,
		  NULL, NULL },
	};

	t->c2->healthv = 100;	 /* regardless of health, */
	t->c1->sel_priority = 0; /* priorities */
	t->c2->seq = 1000;	 /* and round robin */
	RUN(t->c, rows);
}

/* §6.6 Example G: pinned source, routed; the destination NID is kept. */
static void select_example_g_source_pins_routed_destination(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ "10.1.0.2@o2ib", "172.16.0.11@o2ib1", NULL, GET, 0,
		  "10.1.0.2@o2ib", "10.1.0.101@o2ib", "172.16.0.11@o2ib1" },
		{ "10.1.0.2@o2ib", "172.16.0.11@o2ib1", NULL, GET, 0,
		  "10.1.0.2@o2ib", "10.1.0.100@o2ib", "172.16.0.11@o2ib1" },
		{ "10.1.0.2@o2ib", "172.16.0.11@o2ib1", NULL, GET, 0,
		  "10.1.0.2@o2ib", "10.1.0.101@o2ib", "172.16.0.11@o2ib1" },
	};

	RUN(t->c, rows);
}

/* §6.7 Example H: responses go back the way the request came. */
static void select_example_h_responses_reuse_previous_hop(void **state)
{
	struct ht_c *t = *state;
	static const struct row rows[] = {
		{ "10.1.0.2@o2ib", "172.16.0.10@o2ib1", "10.1.0.101@o2ib",
		  REPLY, 0, "10.1.0.2@o2ib", "10.1.0.101@o2ib",
		  "172.16.0.10@o2ib1" },
		{ "10.1.0.2@o2ib", "172.16.0.10@o2ib1", "10.1.0.101@o2ib",
		  REPLY, 0, "10.1.0.2@o2ib", "10.1.0.101@o2ib",
		  "172.16.0.10@o2ib1" },
		{ "10.1.0.1@o2ib", "10.1.0.20@o2ib", "10.1.0.20@o2ib", ACK, 0,
		  "10.1.0.1@o2ib", "10.1.0.20@o2ib", "10.1.0.20@o2ib" },
	};
	struct ul_select_res res;

	RUN(t->c, rows);
	/* Mode R: no route consulted, no route stamp changed. */
	assert_int_equal(t->rt_r1->seq, 0);
	assert_int_equal(t->rt_r2->seq, 0);
	/* Responses set no sticky NI. */
	assert_int_equal(lpni_of(t->c, "10.1.0.20@o2ib")->pref_nids.count, 0);
	assert_int_equal(ht_send(t->c, "10.1.0.2@o2ib", "172.16.0.10@o2ib1",
				 "10.1.0.101@o2ib", REPLY, &res),
			 0);
	assert_int_equal(res.route_mode, UL_ROUTE_MODE_R);
	assert_null(res.route);
	assert_int_equal(res.scase, UL_CASE_SPEC_ROUTER);
	assert_true(res.send_case & UL_SEND_RESP);
}

/* §6.7: a previous hop that is no longer a router: route lookup. */
static void select_response_via_unknown_router_looks_up_route(void **state)
{
	struct ht_c *t = *state;
	struct ul_select_res res;

	assert_int_equal(ht_send(t->c, "10.1.0.2@o2ib", "172.16.0.10@o2ib1",
				 "10.1.0.55@o2ib", REPLY, &res),
			 0);
	assert_int_equal(res.route_mode, UL_ROUTE_MODE_F);
	assert_ptr_equal(res.route, t->rt_r2);
	assert_ptr_equal(res.ni, t->c2);
	/* No stamp: a router was given, even though it was not used. */
	assert_int_equal(t->rt_r2->seq, 0);
}

/* §6.9: 0@lo needs no peer and no selection. */
static void select_loopback_skips_selection(void **state)
{
	struct ht_c *t = *state;
	uint32_t npeers = t->c->npeers;
	struct ul_select_res res;

	assert_int_equal(ht_send(t->c, NULL, "0@lo", NULL, PUT, &res), 0);
	assert_true(res.is_loopback);
	assert_ptr_equal(res.ni, ul_core_lo_ni(t->c));
	assert_null(res.lpni);
	assert_int_equal(res.scase, UL_CASE_LOOPBACK);
	assert_int_equal(t->c->npeers, npeers);
	assert_int_equal(t->c->net_seq, 0);
}

/* §3: a recovery ping to an MR peer is handled as non-MR. */
static void select_recovery_ping_keeps_exact_peer_ni(void **state)
{
	struct ht_c *t = *state;
	struct ulnet_nid dst = ht_nid("10.1.0.11@o2ib");
	struct ul_select_req req;
	struct ul_select_res res;

	ul_select_req_init(&req, &dst, UL_MSG_GET);
	req.is_recovery = true;
	req.is_reserved_portal = true;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ul_select(t->c, &req, &res, NULL), 0);
		assert_int_equal(res.scase, UL_CASE_ANY_LOCAL_NMR);
		assert_true(ulnet_nid_same(&res.lpni->nid, &dst));
	}
	/* The peer is MR: no sticky NI was recorded. */
	assert_int_equal(res.lpni->pref_nids.count, 0);
}

/* §6.1: an MR peer with a NID on a local net is reached directly. */
static void select_mr_peer_with_local_nid_is_sent_directly(void **state)
{
	struct ht_c *t = *state;
	struct ul_select_res res;
	struct ulnet_nid far = ht_nid("172.16.0.50@o2ib1");
	struct ul_peer_ni *lpni;

	lpni = lpni_of(t->c, "10.1.0.11@o2ib");
	assert_int_equal(ul_peer_ni_add(t->c, ul_peer_ni_peer(lpni), &far, NULL,
					NULL),
			 0);
	assert_int_equal(
		ht_send(t->c, NULL, "172.16.0.50@o2ib1", NULL, PUT, &res), 0);
	assert_false(res.is_routed);
	assert_int_equal(res.scase, UL_CASE_ANY_MR);
	assert_true(res.send_case & UL_SEND_LOCAL);
	assert_false(res.send_case & UL_SEND_REMOTE);
	assert_ptr_equal(res.ni, t->c1);
}

/* Router R1 of the example topology, for §6.8 Example I. */
static struct ul_core *build_router_r1(void)
{
	static const char *const s2[] = { "172.16.0.11@o2ib1", NULL };
	static const char *const cn[] = { "10.1.0.2@o2ib", "192.168.1.1@tcp",
					  NULL };
	struct ul_core *c;

	assert_int_equal(ul_core_create(&c), 0);
	ht_ni(c, "10.1.0.100@o2ib", UL_NUMA_ANY);
	ht_ni(c, "172.16.0.100@o2ib1", UL_NUMA_ANY);
	ht_peer(c, true, "172.16.0.10@o2ib1", s2);
	ht_peer(c, true, "10.1.0.1@o2ib", cn);
	return c;
}

static int forward(struct ul_core *c, const char *hdr_src, const char *dst,
		   struct ul_select_res *res)
{
	struct ulnet_nid d = ht_nid(dst);
	struct ul_select_req req;

	ul_select_req_init(&req, &d, UL_MSG_PUT);
	req.is_forward = true;
	req.hdr_src_nid = ht_nid(hdr_src);
	return ul_select(c, &req, res, NULL);
}

/*
 * §6.8 Example I: R1 forwards C's PUT for 172.16.0.10@o2ib1 to exactly
 * that NID while it is healthy; at health 900 (C known as MR) R1 may pick
 * .11; for an unknown originator it never does.
 */
static void select_example_i_router_honours_originator_choice(void **state)
{
	struct ul_core *c = build_router_r1();
	struct ulnet_nid s2_10 = ht_nid("172.16.0.10@o2ib1");
	struct ulnet_nid s2_11 = ht_nid("172.16.0.11@o2ib1");
	struct ulnet_nid c1 = ht_nid("10.1.0.1@o2ib");
	struct ulnet_nid r1 = ht_nid("172.16.0.100@o2ib1");
	struct ul_select_res res;
	struct ul_peer_ni *dst;

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(forward(c, "10.1.0.1@o2ib",
					 "172.16.0.10@o2ib1", &res),
				 0);
		assert_int_equal(res.scase, UL_CASE_ANY_LOCAL_NMR);
		assert_true(ulnet_nid_same(&res.lpni->nid, &s2_10));
		assert_true(ulnet_nid_same(&res.ni->nid, &r1));
		/* The originator stays the header source. */
		assert_true(ulnet_nid_same(&res.hdr_src_nid, &c1));
	}
	dst = ul_peer_ni_find(c, &s2_10);
	assert_int_equal(dst->pref_nids.count, 0); /* no sticky on routers */

	ul_peer_ni_set_healthv(dst, 900);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(forward(c, "10.1.0.1@o2ib",
					 "172.16.0.10@o2ib1", &res),
				 0);
		assert_int_equal(res.scase, UL_CASE_ANY_MR);
		assert_true(ulnet_nid_same(&res.lpni->nid, &s2_11));
	}
	/* An originator R1 does not know as MR gets its NID honoured. */
	assert_int_equal(
		forward(c, "10.1.0.77@o2ib", "172.16.0.10@o2ib1", &res), 0);
	assert_int_equal(res.scase, UL_CASE_ANY_LOCAL_NMR);
	assert_true(ulnet_nid_same(&res.lpni->nid, &s2_10));
	ul_core_destroy(c);
}

/*
 * §6.8 / §12 quirk 6: a DOWN destination NID allows MR forwarding, but
 * the peer NI ranking itself ignores ns_status (only health counts).
 */
static void select_mr_forwarding_ignores_ns_status_in_ranking(void **state)
{
	struct ul_core *c = build_router_r1();
	struct ulnet_nid s2_10 = ht_nid("172.16.0.10@o2ib1");
	struct ul_select_res res;
	int n10 = 0;

	(void)state;
	ul_peer_ni_find(c, &s2_10)->ns_status = UL_NS_STATUS_DOWN;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(forward(c, "10.1.0.1@o2ib",
					 "172.16.0.10@o2ib1", &res),
				 0);
		assert_int_equal(res.scase, UL_CASE_ANY_MR);
		n10 += ulnet_nid_same(&res.lpni->nid, &s2_10);
	}
	assert_int_equal(n10, 2); /* round robin over .10 and .11 */
	ul_core_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(select_example_a_rotates_nets_nis_and_peer_nis),
		T(select_example_a_src_net_priority_keeps_tcp),
		T(select_example_a_dst_net_priority_outranks_src),
		T(select_example_a_ni_priority_picks_c2_on_o2ib),
		T(select_example_a_pair_rule_prefers_11_from_c1),
		T(select_example_a_numa_prefers_near_ni),
		T(select_example_a_numa_range_makes_nis_equal),
		T(select_example_a_health_beats_ni_priority),
		T(select_example_b_non_mr_peer_sticks_to_first_ni),
		T(select_example_b_peer_created_by_receipt_uses_rx_ni),
		T(select_example_b_pair_rule_sets_preferred_nid),
		T(select_reserved_portal_ignores_sticky_ni),
		T(select_stale_sticky_nid_is_not_replaced),
		T(select_example_c_mr_peer_behind_mr_routers),
		T(select_example_c_preferred_router_wins_for_11),
		T(select_example_c_mr_peer_behind_non_mr_router),
		T(select_example_d_non_mr_peer_behind_mr_routers),
		T(select_example_d_non_mr_peer_behind_non_mr_router),
		T(select_example_e_source_pins_the_pair),
		T(select_example_g_source_pins_routed_destination),
		T(select_example_h_responses_reuse_previous_hop),
		T(select_response_via_unknown_router_looks_up_route),
		T(select_loopback_skips_selection),
		T(select_recovery_ping_keeps_exact_peer_ni),
		T(select_mr_peer_with_local_nid_is_sent_directly),
#undef T
		cmocka_unit_test(
			select_example_i_router_honours_originator_choice),
		cmocka_unit_test(
			select_mr_forwarding_ignores_ns_status_in_ranking),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
