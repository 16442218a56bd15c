/*
 * UDSP randomized properties (src/core/udsp.h):
 *  - after any random sequence of rule adds and deletes, local NIs, peers,
 *    peer NIs and routes added, NIs and routes deleted and peers turning
 *    MR or back (the last three followed by the call udsp.h asks for), every
 *    field rules write equals what a
 *    deliberately naive reference gives: evaluate every rule from scratch
 *    against every object, lowest idx first;
 *  - the rule list itself follows a naive shadow list (§3);
 *  - rules whose descriptors match nothing present change no field.
 * Peers are made by configuration only: the automatic sticky NID, which
 * only traffic creates, is outside the model.
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

#define MAX_RULES 64

struct fx {
	struct ul_core *c;
	struct ul_udsp_set *set;
	uint64_t rng;
	/* the naive shadow of the rule list, in idx order */
	struct ul_udsp_rule *shadow[MAX_RULES];
	int nshadow;
};

static uint32_t rnd(struct fx *fx, uint32_t n)
{
	fx->rng ^= fx->rng << 13;
	fx->rng ^= fx->rng >> 7;
	fx->rng ^= fx->rng << 17;
	return (uint32_t)(fx->rng % n);
}

static int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	*state = fx;
	return 0;
}

static void fx_reset(struct fx *fx, uint64_t seed)
{
	int i;

	if (fx->set)
		ul_udsp_detach(fx->set);
	if (fx->c)
		ul_core_destroy(fx->c);
	for (i = 0; i < fx->nshadow; i++)
		ul_udsp_rule_free(fx->shadow[i]);
	fx->nshadow = 0;
	fx->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	assert_int_equal(ul_core_create(&fx->c), 0);
	ul_core_seed(fx->c, seed);
	assert_int_equal(ul_udsp_attach(fx->c, &fx->set), 0);
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;
	int i;

	ul_udsp_detach(fx->set);
	ul_core_destroy(fx->c);
	for (i = 0; i < fx->nshadow; i++)
		ul_udsp_rule_free(fx->shadow[i]);
	free(fx);
	return 0;
}

/* ---- the random universe ---- */

/*
 * Local NIs: 10.1.N.[1-4]@o2ibN (N 0..2), 192.168.N.[1-4]@tcpN (N 0..1).
 * Peer NIs: .[10-14] on o2ib0..3 and tcp0..2 (o2ib3 and tcp2 are never
 * local: remote peers). Gateways: .[20-22] on o2ib0..2 and tcp0..1,
 * routing to o2ib3 and tcp2.
 */
static void gen_nid(struct fx *fx, char *buf, size_t len, bool is_local,
		    uint32_t lo, uint32_t span)
{
	bool is_o2ib = rnd(fx, 2);
	uint32_t num =
		rnd(fx, is_local ? (is_o2ib ? 3 : 2) : (is_o2ib ? 4 : 3));
	uint32_t host = lo + rnd(fx, span);

	if (is_o2ib)
		snprintf(buf, len, "10.1.%u.%u@o2ib%u", num, host, num);
	else
		snprintf(buf, len, "192.168.%u.%u@tcp%u", num, host, num);
}

static struct ulnet_nid nid(const char *s)
{
	struct ulnet_nid n;

	if (ulnet_nid_parse(s, &n, NULL, 0))
		fail_msg("nid '%s'", s);
	return n;
}

static void ev_ni_add(struct fx *fx)
{
	char s[64];
	struct ulnet_nid n;

	gen_nid(fx, s, sizeof(s), true, 1, 4);
	n = nid(s);
	(void)ul_ni_add(fx->c, &n, NULL, UL_NUMA_ANY, NULL, NULL, NULL);
}

static void ev_peer_add(struct fx *fx)
{
	char s[64];
	struct ulnet_nid n;
	struct ul_peer *peer = NULL;
	uint32_t npeers = 0, pick;

	gen_nid(fx, s, sizeof(s), false, 10, 5);
	n = nid(s);
	ul_list_for_each_entry(peer, &fx->c->peers, core_link)
		if (peer->is_configured)
			npeers++;
	if (npeers == 0 || rnd(fx, 3) == 0) {
		(void)ul_peer_add(fx->c, &n, rnd(fx, 2), false, NULL, NULL);
		return;
	}
	pick = rnd(fx, npeers);
	ul_list_for_each_entry(peer, &fx->c->peers, core_link)
		if (peer->is_configured && pick-- == 0)
			break;
	(void)ul_peer_ni_add(fx->c, peer, &n, NULL, NULL);
}

static void ev_route_add(struct fx *fx)
{
	char s[64];
	struct ulnet_nid gw;
	struct ul_route *r = NULL;
	uint32_t net = rnd(fx, 2) ? ulnet_net_make(ULNET_LND_O2IB, 3)
				  : ulnet_net_make(ULNET_LND_SOCK, 2);

	gen_nid(fx, s, sizeof(s), true, 20, 3);
	gw = nid(s);
	if (ul_route_add(fx->c, net, &gw, 1, 0, &r, NULL) == 0)
		ul_udsp_on_route_add(fx->set, r);
}

/* Deleting a route: core has no hook, the caller tells UDSP (udsp.h). */
static void ev_route_del(struct fx *fx)
{
	char s[64];
	struct ulnet_nid gw;
	uint32_t net = rnd(fx, 2) ? ulnet_net_make(ULNET_LND_O2IB, 3)
				  : ulnet_net_make(ULNET_LND_SOCK, 2);

	gen_nid(fx, s, sizeof(s), true, 20, 3);
	gw = nid(s);
	if (ul_route_del(fx->c, net, &gw, NULL) == 0)
		ul_udsp_on_route_del(fx->set);
}

/* Events core has no hook for: a full application follows (udsp.h). */
static void ev_ni_del(struct fx *fx)
{
	char s[64];
	struct ulnet_nid n;

	gen_nid(fx, s, sizeof(s), true, 1, 4);
	n = nid(s);
	if (ul_ni_del(fx->c, &n, NULL) == 0)
		ul_udsp_apply_all(fx->set);
}

static void ev_peer_set_mr(struct fx *fx)
{
	char s[64];
	struct ulnet_nid n;
	struct ul_peer *peer;

	gen_nid(fx, s, sizeof(s), false, 10, 5);
	n = nid(s);
	peer = ul_peer_find(fx->c, &n);
	if (peer) {
		ul_peer_set_mr(peer, !peer->is_mr);
		ul_udsp_apply_all(fx->set);
	}
}

/* An octet expression: a value, a range, a stepped range or '*'. */
static void gen_octet(struct fx *fx, char *buf, size_t len, uint32_t lo,
		      uint32_t span)
{
	uint32_t a = lo + rnd(fx, span), b = a + rnd(fx, span);

	switch (rnd(fx, 5)) {
	case 0:
		snprintf(buf, len, "*");
		break;
	case 1:
		snprintf(buf, len, "[%u-%u]", a, b);
		break;
	case 2:
		snprintf(buf, len, "[%u-%u/%u]", a, b + 3, 1 + rnd(fx, 3));
		break;
	case 3:
		snprintf(buf, len, "[%u,%u]", a, b);
		break;
	default:
		snprintf(buf, len, "%u", a);
		break;
	}
}

/*
 * A descriptor string around the hosts of one pool (lo, span); with
 * is_nothing, one on nets and addresses no object has.
 */
static void gen_descr(struct fx *fx, char *buf, size_t len, bool has_addr,
		      uint32_t lo, uint32_t span, bool is_nothing)
{
	bool is_o2ib = rnd(fx, 2);
	char net[32], o3[32], o4[32];
	uint32_t a = rnd(fx, 4);
	int n;

	if (is_nothing) {
		if (rnd(fx, 2))
			snprintf(buf, len, has_addr ? "[1-9]@gni%u" : "kfi%u",
				 rnd(fx, 3));
		else if (has_addr)
			snprintf(buf, len, "10.9.%u.[1-30]@o2ib%u", rnd(fx, 3),
				 5 + rnd(fx, 3));
		else
			snprintf(buf, len, "o2ib%u", 5 + rnd(fx, 3));
		return;
	}
	switch (rnd(fx, 5)) {
	case 0:
		snprintf(net, sizeof(net), "%s", is_o2ib ? "o2ib" : "tcp");
		break;
	case 1:
		snprintf(net, sizeof(net), "%s*", is_o2ib ? "o2ib" : "tcp");
		break;
	case 2:
		snprintf(net, sizeof(net), "%s[%u-%u]",
			 is_o2ib ? "o2ib" : "tcp", a, a + rnd(fx, 3));
		break;
	default:
		snprintf(net, sizeof(net), "%s%u", is_o2ib ? "o2ib" : "tcp", a);
		break;
	}
	if (!has_addr) {
		snprintf(buf, len, "%s", net);
		return;
	}
	gen_octet(fx, o3, sizeof(o3), 0, 3);
	gen_octet(fx, o4, sizeof(o4), lo, span);
	n = snprintf(buf, len, "%s.%s.%s@%s", is_o2ib ? "10.1" : "192.168", o3,
		     o4, net);
	assert_true(n > 0 && (size_t)n < len);
}

static struct ul_udsp_rule *gen_rule(struct fx *fx, bool is_nothing)
{
	char src[96], dst[96], rte[96];
	bool has_src = false, has_dst = false, has_rte = false;
	struct ul_udsp_rule *r = NULL;
	uint32_t prio = rnd(fx, 4);
	bool has_prio = rnd(fx, 3) == 0;
	int idx = (int)rnd(fx, (uint32_t)fx->nshadow + 3) - 1;

	switch (rnd(fx, 6)) {
	case 0:
		has_src = true;
		break;
	case 1:
		has_dst = true;
		break;
	case 2:
	case 3:
		has_src = has_dst = true;
		break;
	case 4:
		has_dst = has_rte = true;
		break;
	default:
		has_rte = true;
		break;
	}
	gen_descr(fx, src, sizeof(src), rnd(fx, 4) != 0, 1, 4, is_nothing);
	gen_descr(fx, dst, sizeof(dst), rnd(fx, 2), 10, 5, is_nothing);
	gen_descr(fx, rte, sizeof(rte), rnd(fx, 6) != 0, 20, 3, is_nothing);
	if (rnd(fx, 20) == 0)
		prio = UINT32_MAX;
	if (ul_udsp_rule_from_strings(
		    has_src ? src : NULL, has_dst ? dst : NULL,
		    has_rte ? rte : NULL, has_prio, prio, idx, &r, NULL))
		fail_msg("generated rule %s %s %s refused", src, dst, rte);
	return r;
}

/* ---- the naive shadow list (§3) ---- */

static bool same_descrs(const struct ul_udsp_rule *a,
			const struct ul_udsp_rule *b)
{
	return ul_nid_descr_same(a->src, b->src) &&
	       ul_nid_descr_same(a->dst, b->dst) &&
	       ul_nid_descr_same(a->rte, b->rte);
}

/* What ul_udsp_add should answer, applied to the shadow. */
static int shadow_add(struct fx *fx, const struct ul_udsp_rule *r)
{
	struct ul_udsp_rule *copy;
	int i, at;

	for (i = 0; i < fx->nshadow; i++) {
		struct ul_udsp_rule *s = fx->shadow[i];

		if (!same_descrs(s, r))
			continue;
		if (s->action_type == UL_UDSP_ACTION_PRIORITY &&
		    r->action_type == UL_UDSP_ACTION_PRIORITY &&
		    s->priority != r->priority) {
			s->priority = r->priority;
			return 0;
		}
		return -EALREADY;
	}
	if (fx->nshadow == MAX_RULES)
		return -ENOSPC;
	assert_int_equal(ul_udsp_rule_dup(r, &copy), 0);
	at = r->idx < 0 || r->idx >= fx->nshadow ? fx->nshadow : r->idx;
	memmove(&fx->shadow[at + 1], &fx->shadow[at],
		(size_t)(fx->nshadow - at) * sizeof(struct ul_udsp_rule *));
	fx->shadow[at] = copy;
	fx->nshadow++;
	return 0;
}

static void shadow_del(struct fx *fx, int idx)
{
	if (idx < 0) {
		while (fx->nshadow)
			ul_udsp_rule_free(fx->shadow[--fx->nshadow]);
		return;
	}
	ul_udsp_rule_free(fx->shadow[idx]);
	memmove(&fx->shadow[idx], &fx->shadow[idx + 1],
		(size_t)(fx->nshadow - idx - 1) *
			sizeof(struct ul_udsp_rule *));
	fx->nshadow--;
}

static void expect_list_matches_shadow(struct fx *fx, const char *when)
{
	int i;

	assert_int_equal(ul_udsp_count(fx->set), fx->nshadow);
	for (i = 0; i < fx->nshadow; i++) {
		const struct ul_udsp_rule *r = ul_udsp_get(fx->set, i);

		if (!r || r->idx != i || !ul_udsp_rule_same(r, fx->shadow[i]))
			fail_msg("%s: rule %d differs from the shadow", when,
				 i);
	}
}

/* ---- the naive reference (udsp.md §1.1, §3.1, §4) ---- */

enum nkind { N_PAIR, N_ROUTER, N_DST_NET, N_DST_NID, N_SRC_NET, N_SRC_NID };

/* Does rule r act as kind k? (kind from the descriptors, action fits) */
static bool acts_as(const struct ul_udsp_rule *r, enum nkind k)
{
	bool is_prio = r->action_type == UL_UDSP_ACTION_PRIORITY;
	bool is_list = r->action_type == UL_UDSP_ACTION_PREF_LIST;

	switch (k) {
	case N_PAIR:
		return r->src && r->dst && is_list;
	case N_ROUTER:
		return !r->src && r->dst && r->rte && is_list;
	case N_DST_NET:
		return !r->src && r->dst && !r->rte && !r->dst->nr_addr &&
		       is_prio;
	case N_DST_NID:
		return !r->src && r->dst && !r->rte && r->dst->nr_addr &&
		       is_prio;
	case N_SRC_NET:
		return r->src && !r->dst && !r->rte && !r->src->nr_addr &&
		       is_prio;
	case N_SRC_NID:
		return r->src && !r->dst && !r->rte && r->src->nr_addr &&
		       is_prio;
	}
	return false;
}

static bool dst_reaches(const struct ul_udsp_rule *r,
			const struct ul_peer_ni *lpni)
{
	return ul_nid_descr_match_nid(r->dst, &lpni->nid) ||
	       (!r->dst->nr_addr &&
		ul_nid_descr_match_net(r->dst, lpni->peer_net->net_id));
}

static void put_prio(FILE *f, uint32_t p)
{
	fprintf(f, " p=%lld", p == UL_PRIO_UNSET ? -1LL : (long long)p);
}

static void put_nid(FILE *f, const struct ulnet_nid *n)
{
	char buf[ULNET_NIDSTR_SIZE];

	fprintf(f, " %s", ulnet_nid_format(n, buf, sizeof(buf)));
}

static void put_list(FILE *f, const char *name, const struct ul_nid_list *l)
{
	const struct ulnet_nid *items = ul_nid_list_items(l);
	uint32_t i;

	fprintf(f, " %s=[", name);
	for (i = 0; i < l->count; i++)
		put_nid(f, &items[i]);
	fprintf(f, " ]");
}

/* The expected preferred NID list of lpni, written to f. */
static void naive_pref(struct fx *fx, FILE *f, const struct ul_peer_ni *lpni)
{
	bool is_mr = ul_peer_ni_peer(lpni)->is_mr;
	const struct ul_net *net;
	const struct ul_ni *ni;
	int i, n;

	fprintf(f, " pref=[");
	for (i = 0; i < fx->nshadow; i++) {
		const struct ul_udsp_rule *r = fx->shadow[i];

		if (!acts_as(r, N_PAIR) || !dst_reaches(r, lpni))
			continue;
		n = 0;
		ul_list_for_each_entry(net, &fx->c->nets, core_link)
			ul_list_for_each_entry(ni, &net->nis, net_link)
				if (ul_nid_descr_match_nid(r->src, &ni->nid) &&
				    (is_mr || n == 0)) {
					put_nid(f, &ni->nid);
					n++;
				}
		if (n)
			break;
	}
	fprintf(f, " ]");
}

static void naive_rtr(struct fx *fx, FILE *f, const struct ul_peer_ni *lpni)
{
	const struct ulnet_nid *seen[64];
	const struct ul_route *route;
	const struct ul_rnet *rnet;
	int i, n, k;

	fprintf(f, " rtr=[");
	for (i = 0; i < fx->nshadow; i++) {
		const struct ul_udsp_rule *r = fx->shadow[i];

		if (!acts_as(r, N_ROUTER) || !dst_reaches(r, lpni))
			continue;
		n = 0;
		ul_list_for_each_entry(rnet, &fx->c->rnets, core_link)
			ul_list_for_each_entry(route, &rnet->routes,
					       rnet_link) {
				const struct ulnet_nid *gw =
					&route->gateway->primary_nid;

				if (!ul_nid_descr_match_nid(r->rte, gw))
					continue;
				for (k = 0; k < n; k++)
					if (ulnet_nid_same(seen[k], gw))
						break;
				if (k < n || n == 64)
					continue;
				seen[n++] = gw;
				put_nid(f, gw);
			}
		if (n)
			break;
	}
	fprintf(f, " ]");
}

/* The lowest-idx rule of kind k whose match() holds gives the value. */
#define NAIVE_PRIO(fx, k, match)                                               \
	({                                                                     \
		uint32_t _p = UL_PRIO_UNSET;                                   \
		for (int _i = 0; _i < (fx)->nshadow; _i++) {                   \
			const struct ul_udsp_rule *r = (fx)->shadow[_i];       \
			if (acts_as(r, k) && (match)) {                        \
				_p = r->priority;                              \
				break;                                         \
			}                                                      \
		}                                                              \
		_p;                                                            \
	})

/* Every rule-written field, as the objects hold it or as naive says. */
static char *dump(struct fx *fx, bool is_naive)
{
	const struct ul_peer_net *lpn;
	const struct ul_peer_ni *lpni;
	const struct ul_peer *peer;
	const struct ul_net *net;
	const struct ul_ni *ni;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	ul_list_for_each_entry(net, &fx->c->nets, core_link) {
		fprintf(f, "net %x", net->net_id);
		put_prio(f, is_naive ? NAIVE_PRIO(fx, N_SRC_NET,
						  ul_nid_descr_match_net(
							  r->src, net->net_id))
				     : net->sel_priority);
		fprintf(f, "\n");
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			fprintf(f, "  ni");
			put_nid(f, &ni->nid);
			put_prio(f,
				 is_naive
					 ? NAIVE_PRIO(fx, N_SRC_NID,
						      ul_nid_descr_match_nid(
							      r->src, &ni->nid))
					 : ni->sel_priority);
			fprintf(f, "\n");
		}
	}
	ul_list_for_each_entry(peer, &fx->c->peers, core_link) {
		fprintf(f, "peer");
		put_nid(f, &peer->primary_nid);
		fprintf(f, " mr=%d\n", peer->is_mr);
		ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link) {
			fprintf(f, "  lpn %x", lpn->net_id);
			put_prio(f, is_naive
					    ? NAIVE_PRIO(fx, N_DST_NET,
							 ul_nid_descr_match_net(
								 r->dst,
								 lpn->net_id))
					    : lpn->sel_priority);
			fprintf(f, "\n");
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link) {
				fprintf(f, "    lpni");
				put_nid(f, &lpni->nid);
				put_prio(
					f,
					is_naive
						? NAIVE_PRIO(
							  fx, N_DST_NID,
							  ul_nid_descr_match_nid(
								  r->dst,
								  &lpni->nid))
						: lpni->sel_priority);
				if (is_naive) {
					naive_pref(fx, f, lpni);
					naive_rtr(fx, f, lpni);
				} else {
					put_list(f, "pref", &lpni->pref_nids);
					put_list(f, "rtr",
						 &lpni->pref_rtr_nids);
				}
				fprintf(f, "\n");
			}
		}
	}
	fclose(f);
	return text;
}

/* Print the first line where two dumps differ, with its object. */
static void print_first_diff(const char *want, const char *got)
{
	const char *w = want, *g = got, *ctx = want;

	while (*w && *g) {
		const char *we = strchr(w, '\n'), *ge = strchr(g, '\n');
		size_t wl = we ? (size_t)(we - w) : strlen(w);
		size_t gl = ge ? (size_t)(ge - g) : strlen(g);

		if (wl != gl || memcmp(w, g, wl) != 0) {
			fprintf(stderr, "near: %.*s\nwant: %.*s\ngot:  %.*s\n",
				(int)(strchr(ctx, '\n') - ctx), ctx, (int)wl, w,
				(int)gl, g);
			return;
		}
		if (w[0] != ' ')
			ctx = w;
		w += wl + (we != NULL);
		g += gl + (ge != NULL);
	}
	fprintf(stderr, "one dump is a prefix of the other\n");
}

static void expect_naive(struct fx *fx, const char *when)
{
	char *want = dump(fx, true), *got = dump(fx, false);

	if (strcmp(want, got) != 0) {
		char one[256];
		int i;

		fprintf(stderr, "rules:\n");
		for (i = 0; i < fx->nshadow; i++) {
			ul_udsp_rule_format(fx->shadow[i], one, sizeof(one));
			fprintf(stderr, "%s\n", one);
		}
		print_first_diff(want, got);
		fail_msg("%s: incremental application differs from naive",
			 when);
	}
	free(want);
	free(got);
}

/* ---- the properties ---- */

static void ev_rule_add(struct fx *fx)
{
	struct ul_udsp_rule *r = gen_rule(fx, false);
	int want = shadow_add(fx, r);

	if (want != -ENOSPC)
		assert_int_equal(ul_udsp_add(fx->set, r, NULL), want);
	ul_udsp_rule_free(r);
}

static void ev_rule_del(struct fx *fx)
{
	int idx = (int)rnd(fx, (uint32_t)fx->nshadow + 2) - 1;

	if (rnd(fx, 8) && idx < 0)
		idx = 0;
	if (idx >= fx->nshadow) {
		assert_int_equal(ul_udsp_del(fx->set, idx, NULL), -ENOENT);
		return;
	}
	assert_int_equal(ul_udsp_del(fx->set, idx, NULL), 0);
	shadow_del(fx, idx);
}

static void incremental_application_agrees_with_naive(void **state)
{
	struct fx *fx = *state;
	char when[64];
	uint64_t seed;
	int step;

	for (seed = 1; seed <= 300; seed++) {
		fx_reset(fx, seed);
		for (step = 0; step < 60; step++) {
			uint32_t ev = rnd(fx, 100);

			if (ev < 33)
				ev_rule_add(fx);
			else if (ev < 45)
				ev_rule_del(fx);
			else if (ev < 55)
				ev_ni_add(fx);
			else if (ev < 60)
				ev_ni_del(fx);
			else if (ev < 80)
				ev_peer_add(fx);
			else if (ev < 84)
				ev_peer_set_mr(fx);
			else if (ev < 94)
				ev_route_add(fx);
			else
				ev_route_del(fx);
			snprintf(when, sizeof(when), "seed %llu step %d",
				 (unsigned long long)seed, step);
			expect_list_matches_shadow(fx, when);
			expect_naive(fx, when);
		}
	}
}

static void rules_matching_nothing_change_nothing(void **state)
{
	struct fx *fx = *state;
	uint64_t seed;
	int i;

	for (seed = 1; seed <= 100; seed++) {
		char *before, *after;

		fx_reset(fx, seed);
		for (i = 0; i < 40; i++) {
			uint32_t ev = rnd(fx, 10);

			if (ev < 3)
				ev_rule_add(fx);
			else if (ev < 5)
				ev_ni_add(fx);
			else if (ev < 9)
				ev_peer_add(fx);
			else
				ev_route_add(fx);
		}
		expect_naive(fx, "before the rules matching nothing");
		before = dump(fx, false);
		for (i = 0; i < 10; i++) {
			struct ul_udsp_rule *r = gen_rule(fx, true);

			if (shadow_add(fx, r) != -ENOSPC)
				(void)ul_udsp_add(fx->set, r, NULL);
			ul_udsp_rule_free(r);
		}
		after = dump(fx, false);
		if (strcmp(before, after) != 0) {
			print_first_diff(before, after);
			fail_msg("seed %llu: a rule matching nothing changed "
				 "a field",
				 (unsigned long long)seed);
		}
		free(before);
		free(after);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			incremental_application_agrees_with_naive, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(
			rules_matching_nothing_change_nothing, fx_setup,
			fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
