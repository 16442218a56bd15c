/*
 * UDSP application on a real object model: every scenario of
 * reference/udsp.md §10 (numbered as there) and the examples of §4-§6,
 * built through the core API. Each test asserts the fields rules write
 * (what `net show -v 4` / `peer show -v 4` print); where ulnet departs
 * from LNet (udsp.h (a)-(e)) the test says what LNet would show.
 *
 * Node C: nets o2ib (10.1.0.1, 10.1.0.2), o2ib1 (10.1.1.1), tcp
 * (192.168.1.1), in that order. MR peer S1 (10.1.0.10@o2ib primary,
 * 10.1.0.11@o2ib, 192.168.1.10@tcp); non-MR peer N1 (10.1.0.20@o2ib);
 * routes to o2ib2 via R1 10.1.0.100@o2ib and R2 10.1.0.101@o2ib, in that
 * order; MR remote peer S2 (172.16.0.10@o2ib2, 172.16.0.11@o2ib2).
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

#include "core/core.h"
#include "core/udsp.h"

#define NO_PRIO (-1LL)

struct fx {
	struct ul_core *c;
	struct ul_udsp_set *set;
	struct ul_peer *s1, *n1, *s2;
};

static struct ulnet_nid nid(const char *s)
{
	struct ulnet_nid n;
	char why[128];

	if (ulnet_nid_parse(s, &n, why, sizeof(why)))
		fail_msg("nid '%s': %s", s, why);
	return n;
}

static uint32_t net_id(const char *s)
{
	uint32_t net;

	if (ulnet_net_parse(s, &net, NULL, 0))
		fail_msg("net '%s'", s);
	return net;
}

static struct ul_ni *ni_add(struct fx *fx, const char *s)
{
	struct ulnet_nid n = nid(s);
	struct ul_err err = { 0 };
	struct ul_ni *ni = NULL;

	if (ul_ni_add(fx->c, &n, NULL, UL_NUMA_ANY, NULL, &ni, &err))
		fail_msg("ni %s: %s", s, err.msg);
	return ni;
}

static struct ul_peer *peer_add(struct fx *fx, bool is_mr, const char *prim,
				const char *more1, const char *more2)
{
	struct ulnet_nid n = nid(prim);
	struct ul_err err = { 0 };
	struct ul_peer *peer = NULL;
	const char *more[2] = { more1, more2 };
	int i;

	if (ul_peer_add(fx->c, &n, is_mr, false, &peer, &err))
		fail_msg("peer %s: %s", prim, err.msg);
	for (i = 0; i < 2 && more[i]; i++) {
		n = nid(more[i]);
		if (ul_peer_ni_add(fx->c, peer, &n, NULL, &err))
			fail_msg("peer ni %s: %s", more[i], err.msg);
	}
	return peer;
}

static struct ul_route *route_add(struct fx *fx, const char *net,
				  const char *gw)
{
	struct ulnet_nid n = nid(gw);
	struct ul_err err = { 0 };
	struct ul_route *r = NULL;

	if (ul_route_add(fx->c, net_id(net), &n, 1, 0, &r, &err))
		fail_msg("route %s via %s: %s", net, gw, err.msg);
	ul_udsp_on_route_add(fx->set, r);
	return r;
}

static int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct ul_peer_ni *lpni;
	struct ulnet_nid n;

	assert_non_null(fx);
	assert_int_equal(ul_core_create(&fx->c), 0);
	ul_core_set_route_append(fx->c, true);
	assert_int_equal(ul_udsp_attach(fx->c, &fx->set), 0);
	ni_add(fx, "10.1.0.1@o2ib");
	ni_add(fx, "10.1.0.2@o2ib");
	ni_add(fx, "10.1.1.1@o2ib1");
	ni_add(fx, "192.168.1.1@tcp");
	fx->s1 = peer_add(fx, true, "10.1.0.10@o2ib", "10.1.0.11@o2ib",
			  "192.168.1.10@tcp");
	/* N1 as the first send to it creates it: non-MR, no sticky NID */
	n = nid("10.1.0.20@o2ib");
	assert_int_equal(ul_peer_ni_find_or_create(fx->c, &n, NULL, &lpni), 0);
	fx->n1 = ul_peer_ni_peer(lpni);
	assert_false(fx->n1->is_mr);
	route_add(fx, "o2ib2", "10.1.0.100@o2ib");
	route_add(fx, "o2ib2", "10.1.0.101@o2ib");
	fx->s2 = peer_add(fx, true, "172.16.0.10@o2ib2", "172.16.0.11@o2ib2",
			  NULL);
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;

	ul_udsp_detach(fx->set);
	ul_core_destroy(fx->c);
	free(fx);
	return 0;
}

/* ---- adding rules and reading fields ---- */

static int add_rule(struct fx *fx, const char *src, const char *dst,
		    const char *rte, long long prio, int idx)
{
	struct ul_udsp_rule *r = NULL;
	struct ul_err err = { 0 };
	int rc;

	rc = ul_udsp_rule_from_strings(src, dst, rte, prio >= 0,
				       prio >= 0 ? (uint32_t)prio : 0, idx, &r,
				       &err);
	if (rc)
		return rc;
	rc = ul_udsp_add(fx->set, r, &err);
	ul_udsp_rule_free(r);
	return rc;
}

static void add(struct fx *fx, const char *src, const char *dst,
		const char *rte, long long prio, int idx)
{
	int rc = add_rule(fx, src, dst, rte, prio, idx);

	if (rc)
		fail_msg("udsp add %s %s %s: %d", src ? src : "-",
			 dst ? dst : "-", rte ? rte : "-", rc);
}

static void del(struct fx *fx, int idx)
{
	assert_int_equal(ul_udsp_del(fx->set, idx, NULL), 0);
}

static const char *show(struct fx *fx, int idx)
{
	static char buf[512];
	const struct ul_udsp_rule *r = ul_udsp_get(fx->set, idx);

	if (!r)
		return "";
	ul_udsp_rule_format(r, buf, sizeof(buf));
	return buf;
}

/* A priority as `show -v 4` prints it: -1 for unset. */
static long long shown(uint32_t prio)
{
	return prio == UL_PRIO_UNSET ? -1 : (long long)prio;
}

static long long net_prio(struct fx *fx, const char *net)
{
	struct ul_net *n = ul_net_find(fx->c, net_id(net));

	assert_non_null(n);
	return shown(n->sel_priority);
}

static long long ni_prio(struct fx *fx, const char *s)
{
	struct ulnet_nid n = nid(s);
	struct ul_ni *ni = ul_ni_find(fx->c, &n);

	assert_non_null(ni);
	return shown(ni->sel_priority);
}

static struct ul_peer_ni *lpni_of(struct fx *fx, const char *s)
{
	struct ulnet_nid n = nid(s);
	struct ul_peer_ni *lpni = ul_peer_ni_find(fx->c, &n);

	if (!lpni)
		fail_msg("no peer NI %s", s);
	return lpni;
}

static long long lpni_prio(struct fx *fx, const char *s)
{
	return shown(lpni_of(fx, s)->sel_priority);
}

/* The peer net priority of the peer net holding s. */
static long long lpn_prio(struct fx *fx, const char *s)
{
	return shown(lpni_of(fx, s)->peer_net->sel_priority);
}

/* A NID list as "a b c" ("" when empty). */
static const char *list_str(const struct ul_nid_list *l)
{
	static char buf[4][512];
	static int turn;
	char *out = buf[turn++ % 4];
	const struct ulnet_nid *items = ul_nid_list_items(l);
	char one[ULNET_NIDSTR_SIZE];
	size_t off = 0;
	uint32_t i;

	out[0] = '\0';
	for (i = 0; i < l->count; i++) {
		ulnet_nid_format(&items[i], one, sizeof(one));
		off += (size_t)snprintf(out + off, 512 - off, "%s%s",
					i ? " " : "", one);
	}
	return out;
}

static const char *pref(struct fx *fx, const char *s)
{
	return list_str(&lpni_of(fx, s)->pref_nids);
}

static const char *pref_rtr(struct fx *fx, const char *s)
{
	return list_str(&lpni_of(fx, s)->pref_rtr_nids);
}

/* Every field a rule can write is at its default on every object. */
static void expect_all_default(struct fx *fx)
{
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *peer;
	struct ul_net *net;
	struct ul_ni *ni;
	char buf[ULNET_NIDSTR_SIZE];

	ul_list_for_each_entry(net, &fx->c->nets, core_link) {
		if (net->sel_priority != UL_PRIO_UNSET)
			fail_msg("net %s priority %u",
				 ulnet_net_format(net->net_id, buf,
						  sizeof(buf)),
				 net->sel_priority);
		ul_list_for_each_entry(ni, &net->nis, net_link)
			if (ni->sel_priority != UL_PRIO_UNSET)
				fail_msg("ni %s priority %u",
					 ulnet_nid_format(&ni->nid, buf,
							  sizeof(buf)),
					 ni->sel_priority);
	}
	ul_list_for_each_entry(peer, &fx->c->peers, core_link) {
		ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link) {
			if (lpn->sel_priority != UL_PRIO_UNSET)
				fail_msg("peer net %s priority %u",
					 ulnet_net_format(lpn->net_id, buf,
							  sizeof(buf)),
					 lpn->sel_priority);
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link) {
				ulnet_nid_format(&lpni->nid, buf, sizeof(buf));
				if (lpni->sel_priority != UL_PRIO_UNSET ||
				    lpni->pref_nids.count ||
				    lpni->pref_rtr_nids.count)
					fail_msg(
						"peer ni %s: %u [%s] [%s]", buf,
						lpni->sel_priority,
						list_str(&lpni->pref_nids),
						list_str(&lpni->pref_rtr_nids));
			}
		}
	}
}

/* ---- §10 scenarios ---- */

/* 1 */
static void src_net_rule_sets_net_priority_only(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 1, -1);
	assert_string_equal(show(fx, 0),
			    "{ idx: 0, src: tcp, action: { priority: 1 } }");
	assert_int_equal(net_prio(fx, "tcp"), 1);
	assert_int_equal(ni_prio(fx, "192.168.1.1@tcp"), -1);
	assert_int_equal(net_prio(fx, "o2ib"), -1);
	assert_int_equal(net_prio(fx, "o2ib1"), -1);
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), -1);
	assert_int_equal(ni_prio(fx, "10.1.0.2@o2ib"), -1);
	assert_int_equal(ni_prio(fx, "10.1.1.1@o2ib1"), -1);
}

/* 2 */
static void dst_rule_without_priority_gets_priority_0(void **state)
{
	struct fx *fx = *state;

	add(fx, NULL, "10.1.0.11@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(
		show(fx, 0),
		"{ idx: 0, dst: 10.1.0.11@o2ib, action: { priority: 0 } }");
	assert_int_equal(lpni_prio(fx, "10.1.0.11@o2ib"), 0);
	assert_int_equal(lpn_prio(fx, "10.1.0.11@o2ib"), -1);
	assert_int_equal(lpni_prio(fx, "10.1.0.10@o2ib"), -1);
}

/* 3 */
static void src_nid_rule_sets_ni_priority_only(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.2@o2ib", NULL, NULL, 0, -1);
	assert_int_equal(ni_prio(fx, "10.1.0.2@o2ib"), 0);
	assert_int_equal(net_prio(fx, "o2ib"), -1);
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), -1);
}

/* 4 */
static void stride_matches_every_other_address(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.[1-9/2]@o2ib", NULL, NULL, 2, -1);
	assert_string_equal(show(fx, 0), "{ idx: 0, src: 10.1.0.[1-9/2]@o2ib, "
					 "action: { priority: 2 } }");
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), 2);
	assert_int_equal(ni_prio(fx, "10.1.0.2@o2ib"), -1);
}

/* 5 */
static void dst_net_rule_sets_peer_net_priority(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 0, -1);
	add(fx, NULL, "o2ib", NULL, 0, -1);
	assert_int_equal(lpn_prio(fx, "10.1.0.10@o2ib"), 0);
	assert_int_equal(lpn_prio(fx, "10.1.0.11@o2ib"), 0);
	assert_int_equal(lpn_prio(fx, "192.168.1.10@tcp"), -1);
	/* N1's o2ib peer net too; peer NIs untouched */
	assert_int_equal(lpn_prio(fx, "10.1.0.20@o2ib"), 0);
	assert_int_equal(lpni_prio(fx, "10.1.0.10@o2ib"), -1);
	assert_int_equal(net_prio(fx, "tcp"), 0);
}

/* 6 */
static void wildcard_net_number_matches_every_net_of_type(void **state)
{
	struct fx *fx = *state;

	add(fx, "o2ib*", NULL, NULL, 3, -1);
	assert_string_equal(
		show(fx, 0),
		"{ idx: 0, src: o2ib[0-4294967295], action: { priority: 3 } }");
	assert_int_equal(net_prio(fx, "o2ib"), 3);
	assert_int_equal(net_prio(fx, "o2ib1"), 3);
	assert_int_equal(net_prio(fx, "tcp"), -1);
}

/* 7 */
static void tcp_and_tcp0_rules_lowest_idx_wins(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 1, -1);
	add(fx, "tcp0", NULL, NULL, 2, -1);
	assert_int_equal(ul_udsp_count(fx->set), 2);
	assert_int_equal(net_prio(fx, "tcp"), 1);
}

/* 8 */
static void priority_update_in_place_reapplies(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 1, -1);
	add(fx, "tcp", NULL, NULL, 4, -1);
	assert_int_equal(ul_udsp_count(fx->set), 1);
	assert_string_equal(show(fx, 0),
			    "{ idx: 0, src: tcp, action: { priority: 4 } }");
	assert_int_equal(net_prio(fx, "tcp"), 4);
}

/* 9 */
static void duplicate_rule_is_refused_with_ealready(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 4, -1);
	assert_int_equal(add_rule(fx, "tcp", NULL, NULL, 4, -1), -EALREADY);
	assert_int_equal(ul_udsp_count(fx->set), 1);
	assert_int_equal(net_prio(fx, "tcp"), 4);
}

/* 10 */
static void inserted_rule_takes_precedence(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.*@o2ib", NULL, NULL, 5, -1);
	add(fx, "10.1.0.1@o2ib", NULL, NULL, 1, 0);
	assert_string_equal(
		show(fx, 0),
		"{ idx: 0, src: 10.1.0.1@o2ib, action: { priority: 1 } }");
	assert_string_equal(show(fx, 1), "{ idx: 1, src: 10.1.0.[0-255]@o2ib, "
					 "action: { priority: 5 } }");
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), 1);
	assert_int_equal(ni_prio(fx, "10.1.0.2@o2ib"), 5);
}

/* 11, departure (a): LNet shows 10.1.0.1 at -1 until the next add. */
static void del_reapplies_remaining_rules(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.*@o2ib", NULL, NULL, 5, -1);
	add(fx, "10.1.0.1@o2ib", NULL, NULL, 1, 0);
	del(fx, 0);
	assert_string_equal(show(fx, 0), "{ idx: 0, src: 10.1.0.[0-255]@o2ib, "
					 "action: { priority: 5 } }");
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), 5);
	assert_int_equal(ni_prio(fx, "10.1.0.2@o2ib"), 5);
	add(fx, NULL, "tcp", NULL, 3, -1);
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), 5);
	assert_int_equal(lpn_prio(fx, "192.168.1.10@tcp"), 3);
}

/* 12 */
static void del_all_reverts_everything(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.*@o2ib", NULL, NULL, 5, -1);
	add(fx, NULL, "tcp", NULL, 3, -1);
	add(fx, "tcp", NULL, NULL, 1, -1);
	add(fx, NULL, "10.1.0.11@o2ib", NULL, 0, -1);
	add(fx, "10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, NO_PRIO, -1);
	add(fx, NULL, "o2ib2", "10.1.0.[100-101]@o2ib", NO_PRIO, -1);
	del(fx, -1);
	assert_int_equal(ul_udsp_count(fx->set), 0);
	assert_string_equal(show(fx, 0), "");
	expect_all_default(fx);
}

/* 13 */
static void pair_rule_gives_mr_peer_ni_a_source(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.2@o2ib", "10.1.0.11@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(
		show(fx, 0),
		"{ idx: 0, src: 10.1.0.2@o2ib, dst: 10.1.0.11@o2ib }");
	assert_string_equal(pref(fx, "10.1.0.11@o2ib"), "10.1.0.2@o2ib");
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"), "");
	assert_false(lpni_of(fx, "10.1.0.11@o2ib")->is_pref_non_mr);
}

/* 14 */
static void pair_rule_gives_non_mr_peer_ni_one_source(void **state)
{
	struct fx *fx = *state;
	struct ul_udsp_stats st;

	add(fx, "10.1.0.[1-2]@o2ib", "10.1.0.20@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"), "10.1.0.1@o2ib");
	ul_udsp_stats(fx->set, &st);
	assert_true(st.nr_pref_refused >= 1);
	assert_int_equal(st.nr_apply_failed, 0);
	/* an MR peer NI takes both */
	add(fx, "10.1.0.[1-2]@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"),
			    "10.1.0.1@o2ib 10.1.0.2@o2ib");
}

/* 15 */
static void pair_rule_replaces_sticky_nid(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid n1 = nid("10.1.0.20@o2ib"), c1 = nid("10.1.0.1@o2ib");
	struct ul_peer_ni *lpni;

	/* N1 contacts C first on 10.1.0.1 */
	assert_int_equal(ul_peer_del(fx->c, &n1, true, NULL), 0);
	assert_int_equal(ul_peer_ni_find_or_create(
				 fx->c, &n1, ul_ni_find(fx->c, &c1), &lpni),
			 0);
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"), "10.1.0.1@o2ib");
	assert_true(lpni->is_pref_non_mr);
	add(fx, "10.1.0.2@o2ib", "10.1.0.20@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"), "10.1.0.2@o2ib");
	assert_false(lpni->is_pref_non_mr);
	del(fx, 0);
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"), "");
}

/* 16 */
static void pair_rule_with_net_only_src_does_nothing(void **state)
{
	struct fx *fx = *state;

	add(fx, "o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(show(fx, 0),
			    "{ idx: 0, src: o2ib, dst: 10.1.0.10@o2ib }");
	expect_all_default(fx);
}

/* 17 */
static void pair_rule_with_priority_is_stored_and_inert(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, 2, -1);
	assert_string_equal(
		show(fx, 0),
		"{ idx: 0, src: 10.1.0.1@o2ib, dst: 10.1.0.10@o2ib, "
		"action: { priority: 2 } }");
	expect_all_default(fx);
}

/* 18 */
static void router_rule_sets_preferred_gateway(void **state)
{
	struct fx *fx = *state;

	add(fx, NULL, "172.16.0.10@o2ib2", "10.1.0.101@o2ib", NO_PRIO, -1);
	assert_string_equal(pref_rtr(fx, "172.16.0.10@o2ib2"),
			    "10.1.0.101@o2ib");
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"), "");
}

/* 19, departure (b): LNet leaves 172.16.0.12's list empty. */
static void router_rule_by_net_reaches_new_peer_nis(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid n = nid("172.16.0.12@o2ib2");

	add(fx, NULL, "o2ib2", "10.1.0.[100-101]@o2ib", NO_PRIO, -1);
	assert_string_equal(pref_rtr(fx, "172.16.0.10@o2ib2"),
			    "10.1.0.100@o2ib 10.1.0.101@o2ib");
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"),
			    "10.1.0.100@o2ib 10.1.0.101@o2ib");
	assert_int_equal(ul_peer_ni_add(fx->c, fx->s2, &n, NULL, NULL), 0);
	assert_string_equal(pref_rtr(fx, "172.16.0.12@o2ib2"),
			    "10.1.0.100@o2ib 10.1.0.101@o2ib");
}

/* 20 */
static void route_matching_no_rule_changes_no_list(void **state)
{
	struct fx *fx = *state;

	add(fx, NULL, "172.16.0.10@o2ib2", "10.1.0.101@o2ib", NO_PRIO, -1);
	route_add(fx, "o2ib2", "10.1.0.102@o2ib");
	assert_string_equal(pref_rtr(fx, "172.16.0.10@o2ib2"),
			    "10.1.0.101@o2ib");
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"), "");
	add(fx, NULL, "172.16.0.11@o2ib2", "10.1.0.102@o2ib", NO_PRIO, -1);
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"),
			    "10.1.0.102@o2ib");
	assert_string_equal(pref_rtr(fx, "172.16.0.10@o2ib2"),
			    "10.1.0.101@o2ib");
}

/* 20, departure (d): LNet's lists miss R3 until the next udsp add. */
static void router_rules_follow_routes_added_and_deleted(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid r3 = nid("10.1.0.102@o2ib");

	add(fx, NULL, "o2ib2", "10.1.0.[100-102]@o2ib", NO_PRIO, -1);
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"),
			    "10.1.0.100@o2ib 10.1.0.101@o2ib");
	route_add(fx, "o2ib2", "10.1.0.102@o2ib");
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"),
			    "10.1.0.100@o2ib 10.1.0.101@o2ib 10.1.0.102@o2ib");
	assert_int_equal(ul_route_del(fx->c, net_id("o2ib2"), &r3, NULL), 0);
	ul_udsp_on_route_del(fx->set);
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"),
			    "10.1.0.100@o2ib 10.1.0.101@o2ib");
}

/* 21 */
static void src_net_rule_applies_to_net_added_later(void **state)
{
	struct fx *fx = *state;

	add(fx, "o2ib3", NULL, NULL, 2, -1);
	ni_add(fx, "10.1.3.1@o2ib3");
	assert_int_equal(net_prio(fx, "o2ib3"), 2);
	assert_int_equal(ni_prio(fx, "10.1.3.1@o2ib3"), -1);
}

/* 22 */
static void dst_rules_apply_to_peer_nis_and_nets_added_later(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid n12 = nid("10.1.0.12@o2ib");
	struct ulnet_nid n1 = nid("10.1.1.10@o2ib1");

	add(fx, NULL, "10.1.0.12@o2ib", NULL, 1, -1);
	assert_int_equal(ul_peer_ni_add(fx->c, fx->s1, &n12, NULL, NULL), 0);
	assert_int_equal(lpni_prio(fx, "10.1.0.12@o2ib"), 1);
	add(fx, NULL, "o2ib1", NULL, 0, -1);
	assert_int_equal(ul_peer_ni_add(fx->c, fx->s1, &n1, NULL, NULL), 0);
	assert_int_equal(lpn_prio(fx, "10.1.1.10@o2ib1"), 0);
	assert_int_equal(lpni_prio(fx, "10.1.1.10@o2ib1"), -1);
}

/* 23 */
static void invalid_combinations_are_refused_rte_alone_is_inert(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(add_rule(fx, "tcp", "tcp", "10.1.0.100@o2ib", NO_PRIO,
				  -1),
			 -EINVAL);
	assert_int_equal(add_rule(fx, "tcp", NULL, "10.1.0.100@o2ib", NO_PRIO,
				  -1),
			 -EINVAL);
	assert_int_equal(ul_udsp_count(fx->set), 0);
	add(fx, NULL, NULL, "10.1.0.100@o2ib", NO_PRIO, -1);
	assert_string_equal(show(fx, 0), "{ idx: 0, rte: 10.1.0.100@o2ib }");
	expect_all_default(fx);
}

/* 24 */
static void net_number_takes_one_range(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(add_rule(fx, "o2ib[0,1]", NULL, NULL, 1, -1), -EINVAL);
	add(fx, "o2ib[0-1]", NULL, NULL, 1, -1);
	assert_int_equal(net_prio(fx, "o2ib"), 1);
	assert_int_equal(net_prio(fx, "o2ib1"), 1);
	assert_int_equal(net_prio(fx, "tcp"), -1);
}

/* 25: the rule's part; selection ranks health first (selection.md §9). */
static void src_nid_rule_writes_priority_health_untouched(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid c1 = nid("10.1.0.1@o2ib");
	struct ul_ni *ni = ul_ni_find(fx->c, &c1);

	ni->healthv = 900;
	add(fx, "10.1.0.1@o2ib", NULL, NULL, 0, -1);
	assert_int_equal(ni_prio(fx, "10.1.0.1@o2ib"), 0);
	assert_int_equal(ni->healthv, 900);
}

/* ---- examples of §4-§6 ---- */

/* §4.1: rte is compared with gateway primary NIDs only. */
static void rte_matches_gateway_primary_nid_only(void **state)
{
	struct fx *fx = *state;

	/* R4's primary is on tcp5; the route names its o2ib NID */
	peer_add(fx, true, "172.20.0.1@tcp5", "10.1.0.103@o2ib", NULL);
	route_add(fx, "o2ib2", "10.1.0.103@o2ib");
	add(fx, NULL, "172.16.0.10@o2ib2", "10.1.0.103@o2ib", NO_PRIO, -1);
	assert_string_equal(pref_rtr(fx, "172.16.0.10@o2ib2"), "");
	add(fx, NULL, "172.16.0.11@o2ib2", "172.20.0.1@tcp5", NO_PRIO, -1);
	assert_string_equal(pref_rtr(fx, "172.16.0.11@o2ib2"),
			    "172.20.0.1@tcp5");
}

/* §4.1: a net-only dst pair rule reaches every peer NI of the net. */
static void pair_rule_by_dst_net_reaches_every_peer_ni(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.2@o2ib", "o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"), "10.1.0.2@o2ib");
	assert_string_equal(pref(fx, "10.1.0.11@o2ib"), "10.1.0.2@o2ib");
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"), "10.1.0.2@o2ib");
	assert_string_equal(pref(fx, "192.168.1.10@tcp"), "");
	/* the gateways are o2ib peer NIs too */
	assert_string_equal(pref(fx, "10.1.0.100@o2ib"), "10.1.0.2@o2ib");
}

/* §3.1: for lists, the lowest idx with a matching local NI wins. */
static void pair_rule_lowest_idx_with_a_match_wins(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.1@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, -1);
	add(fx, "10.1.0.2@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, 0);
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"), "10.1.0.2@o2ib");
	/* a rule matching no local NI does not take the list */
	add(fx, "10.1.0.9@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, 0);
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"), "10.1.0.2@o2ib");
}

/* §4.2: a rule's preferred NID survives the peer becoming MR. */
static void rule_preferred_nid_survives_peer_becoming_mr(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.[1-2]@o2ib", "10.1.0.20@o2ib", NULL, NO_PRIO, -1);
	ul_peer_set_mr(fx->n1, true);
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"), "10.1.0.1@o2ib");
	/* no hook for the change: a full application gives both */
	ul_udsp_apply_all(fx->set);
	assert_string_equal(pref(fx, "10.1.0.20@o2ib"),
			    "10.1.0.1@o2ib 10.1.0.2@o2ib");
}

/* §5: the sticky NID of a new peer NI goes first, then the rules. */
static void rule_overrides_sticky_nid_of_new_peer_ni(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid n = nid("10.1.0.30@o2ib"), c1 = nid("10.1.0.1@o2ib");
	struct ul_peer_ni *lpni;

	add(fx, "10.1.0.2@o2ib", "10.1.0.30@o2ib", NULL, NO_PRIO, -1);
	assert_int_equal(ul_peer_ni_find_or_create(
				 fx->c, &n, ul_ni_find(fx->c, &c1), &lpni),
			 0);
	assert_string_equal(pref(fx, "10.1.0.30@o2ib"), "10.1.0.2@o2ib");
	assert_false(lpni->is_pref_non_mr);
}

/* §5: an NI added to an existing net gets the source NID rules. */
static void src_nid_rule_applies_to_ni_added_later(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.[1-9]@o2ib", NULL, NULL, 4, -1);
	ni_add(fx, "10.1.0.3@o2ib");
	assert_int_equal(ni_prio(fx, "10.1.0.3@o2ib"), 4);
	assert_int_equal(net_prio(fx, "o2ib"), -1);
}

/* §5: a NID moving from a traffic peer to S1 (peer merge) gets rules. */
static void dst_rule_applies_to_peer_ni_moved_by_merge(void **state)
{
	struct fx *fx = *state;
	struct ulnet_nid n = nid("10.1.0.40@o2ib");
	struct ul_peer_ni *lpni;

	add(fx, NULL, "10.1.0.[40-49]@o2ib", NULL, 6, -1);
	assert_int_equal(ul_peer_ni_find_or_create(fx->c, &n, NULL, &lpni), 0);
	assert_int_equal(lpni_prio(fx, "10.1.0.40@o2ib"), 6);
	assert_int_equal(ul_peer_ni_add(fx->c, fx->s1, &n, NULL, NULL), 0);
	assert_ptr_equal(ul_peer_ni_peer(lpni_of(fx, "10.1.0.40@o2ib")),
			 fx->s1);
	assert_int_equal(lpni_prio(fx, "10.1.0.40@o2ib"), 6);
}

/* Departure (c): a new local NI joins the lists of matching pair rules;
 * LNet keeps [10.1.0.1, 10.1.0.2] and [] until the next udsp add. */
static void new_local_ni_joins_pair_rule_lists(void **state)
{
	struct fx *fx = *state;

	add(fx, "10.1.0.[1-3]@o2ib", "10.1.0.11@o2ib", NULL, NO_PRIO, -1);
	add(fx, "10.1.5.1@o2ib", "10.1.0.10@o2ib", NULL, NO_PRIO, -1);
	assert_string_equal(pref(fx, "10.1.0.11@o2ib"),
			    "10.1.0.1@o2ib 10.1.0.2@o2ib");
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"), "");
	ni_add(fx, "10.1.0.3@o2ib");
	assert_string_equal(pref(fx, "10.1.0.11@o2ib"),
			    "10.1.0.1@o2ib 10.1.0.2@o2ib 10.1.0.3@o2ib");
	ni_add(fx, "10.1.5.1@o2ib");
	assert_string_equal(pref(fx, "10.1.0.10@o2ib"), "10.1.5.1@o2ib");
}

/* §4.4: deleting each kind of rule reverts what it wrote. */
static void del_reverts_each_kind(void **state)
{
	static const struct {
		const char *src, *dst, *rte;
		long long prio;
	} rows[] = {
		/* 0 */
		{ "tcp", NULL, NULL, 1 },
		{ "10.1.0.1@o2ib", NULL, NULL, 1 },
		{ NULL, "o2ib", NULL, 1 },
		{ NULL, "10.1.0.11@o2ib", NULL, 1 },
		{ "10.1.0.[1-2]@o2ib", "10.1.0.*@o2ib", NULL, NO_PRIO },
		/* 5 */
		{ NULL, "o2ib2", "10.1.0.[100-101]@o2ib", NO_PRIO },
	};
	struct fx *fx = *state;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		add(fx, rows[i].src, rows[i].dst, rows[i].rte, rows[i].prio,
		    -1);
		del(fx, 0);
		expect_all_default(fx);
	}
}

/* §6: a rule carrying 4294967295 writes the unset value. */
static void priority_max_writes_unset(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 4294967295LL, -1);
	assert_string_equal(
		show(fx, 0),
		"{ idx: 0, src: tcp, action: { priority: 4294967295 } }");
	assert_int_equal(net_prio(fx, "tcp"), -1);
}

/* Detach (LNet shutdown) discards rules without reverting them. */
static void detach_keeps_written_values(void **state)
{
	struct fx *fx = *state;

	add(fx, "tcp", NULL, NULL, 1, -1);
	ul_udsp_detach(fx->set);
	assert_int_equal(net_prio(fx, "tcp"), 1);
	assert_int_equal(ul_udsp_attach(fx->c, &fx->set), 0);
	assert_int_equal(ul_udsp_count(fx->set), 0);
	ni_add(fx, "10.9.0.1@o2ib9");
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(src_net_rule_sets_net_priority_only),
		T(dst_rule_without_priority_gets_priority_0),
		T(src_nid_rule_sets_ni_priority_only),
		T(stride_matches_every_other_address),
		T(dst_net_rule_sets_peer_net_priority),
		T(wildcard_net_number_matches_every_net_of_type),
		T(tcp_and_tcp0_rules_lowest_idx_wins),
		T(priority_update_in_place_reapplies),
		T(duplicate_rule_is_refused_with_ealready),
		T(inserted_rule_takes_precedence),
		T(del_reapplies_remaining_rules),
		T(del_all_reverts_everything),
		T(pair_rule_gives_mr_peer_ni_a_source),
		T(pair_rule_gives_non_mr_peer_ni_one_source),
		T(pair_rule_replaces_sticky_nid),
		T(pair_rule_with_net_only_src_does_nothing),
		T(pair_rule_with_priority_is_stored_and_inert),
		T(router_rule_sets_preferred_gateway),
		T(router_rule_by_net_reaches_new_peer_nis),
		T(route_matching_no_rule_changes_no_list),
		T(router_rules_follow_routes_added_and_deleted),
		T(src_net_rule_applies_to_net_added_later),
		T(dst_rules_apply_to_peer_nis_and_nets_added_later),
		T(invalid_combinations_are_refused_rte_alone_is_inert),
		T(net_number_takes_one_range),
		T(src_nid_rule_writes_priority_health_untouched),
		T(rte_matches_gateway_primary_nid_only),
		T(pair_rule_by_dst_net_reaches_every_peer_ni),
		T(pair_rule_lowest_idx_with_a_match_wins),
		T(rule_preferred_nid_survives_peer_becoming_mr),
		T(rule_overrides_sticky_nid_of_new_peer_ni),
		T(src_nid_rule_applies_to_ni_added_later),
		T(dst_rule_applies_to_peer_ni_moved_by_merge),
		T(new_local_ni_joins_pair_rule_lists),
		T(del_reverts_each_kind),
		T(priority_max_writes_unset),
		T(detach_keeps_written_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
