/*
 * UDSP rules: building them as lnetctl does, the ordered rule list, and
 * applying rules to the objects of one instance (reference/udsp.md §1-§5).
 * The departures from LNet are listed in udsp.h.
 *
 * Application is per object: "apply every rule from last to first to this
 * object" is the unit, and a full application (§4.3) runs it on every
 * object. Rules only read the objects they match and the local NI and
 * route lists; they write nothing but the fields listed in udsp.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/udsp.h"
#include "nid/strbuf.h"
#include "wire/udsp_block.h"

struct ul_udsp_set {
	struct ul_core *core; /* borrowed; outlives the set */
	struct ul_list rules; /* struct ul_udsp_rule.link, idx order */
	unsigned int nrules;
	struct ul_udsp_stats stats;
	bool is_deferred; /* full applications wait (ul_udsp_defer) */
	bool is_stale;	  /* one was skipped while deferred */
};

/* ---- rules ---- */

static struct ul_expr *expr_dup(const struct ul_expr *e)
{
	size_t size;
	struct ul_expr *copy;

	if (!e)
		return NULL;
	size = sizeof(*e) + e->nr * sizeof(e->r[0]);
	copy = malloc(size);
	if (copy)
		memcpy(copy, e, size);
	return copy;
}

/* A deep copy of d into *out (NULL stays NULL): 0 or -ENOMEM. */
static int descr_dup(const struct ul_nid_descr *d, struct ul_nid_descr **out)
{
	struct ul_nid_descr *copy;
	unsigned int i;

	*out = NULL;
	if (!d)
		return 0;
	copy = calloc(1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	copy->net_type = d->net_type;
	copy->nr_addr = d->nr_addr;
	if (d->net_num) {
		copy->net_num = expr_dup(d->net_num);
		if (!copy->net_num)
			goto fail;
	}
	for (i = 0; i < d->nr_addr; i++) {
		copy->addr[i] = expr_dup(d->addr[i]);
		if (!copy->addr[i])
			goto fail;
	}
	*out = copy;
	return 0;
fail:
	ul_nid_descr_free(copy);
	return -ENOMEM;
}

void ul_udsp_rule_free(struct ul_udsp_rule *r)
{
	if (!r)
		return;
	ul_nid_descr_free(r->src);
	ul_nid_descr_free(r->dst);
	ul_nid_descr_free(r->rte);
	free(r);
}

int ul_udsp_rule_dup(const struct ul_udsp_rule *r, struct ul_udsp_rule **out)
{
	struct ul_udsp_rule *copy = calloc(1, sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	ul_list_init(&copy->link);
	copy->action_type = r->action_type;
	copy->priority = r->priority;
	copy->idx = r->idx;
	if (descr_dup(r->src, &copy->src) || descr_dup(r->dst, &copy->dst) ||
	    descr_dup(r->rte, &copy->rte)) {
		ul_udsp_rule_free(copy);
		return -ENOMEM;
	}
	*out = copy;
	return 0;
}

/* ---- the rule block ---- */

_Static_assert((int)UL_UDSP_ACTION_NONE == UL_UDSP_BLOCK_ACTION_NONE &&
		       (int)UL_UDSP_ACTION_PRIORITY ==
			       UL_UDSP_BLOCK_ACTION_PRIORITY &&
		       (int)UL_UDSP_ACTION_PREF_LIST ==
			       UL_UDSP_BLOCK_ACTION_PREF_LIST,
	       "action types are numbered as in the block");

/* r's fields as a block to encode (the block only reads them). */
static struct ul_udsp_block block_of(const struct ul_udsp_rule *r)
{
	struct ul_udsp_block b = {
		.src = (struct ul_nid_descr *)r->src,
		.dst = (struct ul_nid_descr *)r->dst,
		.rte = (struct ul_nid_descr *)r->rte,
		.action_type = (uint32_t)r->action_type,
		.priority = r->priority,
		.idx = r->idx,
	};

	return b;
}

size_t ul_udsp_rule_block_size(const struct ul_udsp_rule *r)
{
	struct ul_udsp_block b = block_of(r);

	return ul_udsp_block_size(&b);
}

int ul_udsp_rule_encode(const struct ul_udsp_rule *r, uint8_t *buf, size_t len,
			struct ul_err *err)
{
	struct ul_udsp_block b = block_of(r);

	return ul_udsp_block_encode(&b, buf, len, err);
}

int ul_udsp_rule_decode(const uint8_t *buf, size_t len,
			struct ul_udsp_rule **out, struct ul_err *err)
{
	struct ul_udsp_block b;
	struct ul_udsp_rule *r;
	int rc = ul_udsp_block_decode(buf, len, &b, err);

	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ul_udsp_block_fini(&b);
		return ul_err_set(err, -ENOMEM, "out of memory");
	}
	ul_list_init(&r->link);
	r->src = b.src;
	r->dst = b.dst;
	r->rte = b.rte;
	r->action_type = (enum ul_udsp_action_type)b.action_type;
	r->priority = b.priority;
	r->idx = b.idx;
	*out = r;
	return 0;
}

/* lnetctl says which parameter, not why (lustre_lnet_add_udsp). */
static int descr_parse(const char *what, const char *str,
		       struct ul_nid_descr **out, struct ul_err *err)
{
	int rc;

	if (!str)
		return 0;
	rc = ul_nid_descr_parse(str, out, NULL);
	if (rc == -ENOMEM)
		return ul_err_set(err, rc, "out of memory");
	if (rc)
		return ul_err_set(err, rc, "failed to parse %s parameter",
				  what);
	return 0;
}

int ul_udsp_rule_from_strings(const char *src, const char *dst, const char *rte,
			      bool has_priority, uint32_t priority, int idx,
			      struct ul_udsp_rule **out, struct ul_err *err)
{
	struct ul_udsp_rule *r;
	int rc;

	/* The checks and their order are lustre_lnet_add_udsp()'s. */
	if (!src && !dst && !rte)
		return ul_err_set(err, -EINVAL, "Missing required argument(s)");
	if (src && dst && rte)
		return ul_err_set(
			err, -EINVAL,
			"The combination of src, dst and rte is not supported");
	if (src && rte)
		return ul_err_set(err, -EINVAL,
				  "src and rte cannot be combined");
	r = calloc(1, sizeof(*r));
	if (!r)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_list_init(&r->link);
	r->idx = idx < 0 ? -1 : idx;
	if (has_priority) {
		r->action_type = UL_UDSP_ACTION_PRIORITY;
		r->priority = priority;
	} else if (!rte && (!src != !dst)) {
		/* A lone src or dst expects a priority: default 0. */
		r->action_type = UL_UDSP_ACTION_PRIORITY;
		r->priority = 0;
	} else {
		r->action_type = UL_UDSP_ACTION_PREF_LIST;
	}
	rc = descr_parse("src", src, &r->src, err);
	if (rc == 0)
		rc = descr_parse("dst", dst, &r->dst, err);
	if (rc == 0)
		rc = descr_parse("rte", rte, &r->rte, err);
	if (rc) {
		ul_udsp_rule_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/*
 * strtol(s, 0) over the whole of s, as lnetctl's parse_long(): an empty
 * word is 0, a number past the 64-bit range is refused.
 */
static bool parse_long(const char *s, long long *v)
{
	char *end;

	if (!s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, 0);
	return errno != ERANGE && *end == '\0';
}

int ul_udsp_parse_priority(const char *s, uint32_t *out, struct ul_err *err)
{
	long long v;

	if (!parse_long(s, &v) || v < 0)
		return ul_err_set(err, -EINVAL, "Invalid priority \"%s\"",
				  s ? s : "");
	/* udsp.md §1.2: the rule carries a u32, larger values wrap. */
	*out = (uint32_t)v;
	return 0;
}

int ul_udsp_parse_idx(const char *s, int *out, struct ul_err *err)
{
	long long v;

	if (!parse_long(s, &v) || v < 0 || v > INT32_MAX)
		return ul_err_set(err, -EINVAL, "Invalid index \"%s\"",
				  s ? s : "");
	*out = (int)v;
	return 0;
}

enum ul_udsp_kind ul_udsp_rule_kind(const struct ul_udsp_rule *r)
{
	if (r->src && r->dst)
		return UL_UDSP_KIND_PAIR;
	if (r->dst && r->rte)
		return UL_UDSP_KIND_ROUTER;
	if (r->dst)
		return r->dst->nr_addr ? UL_UDSP_KIND_DST_NID
				       : UL_UDSP_KIND_DST_NET;
	if (r->src)
		return r->src->nr_addr ? UL_UDSP_KIND_SRC_NID
				       : UL_UDSP_KIND_SRC_NET;
	return UL_UDSP_KIND_INVALID;
}

bool ul_udsp_rule_is_effective(const struct ul_udsp_rule *r)
{
	switch (ul_udsp_rule_kind(r)) {
	case UL_UDSP_KIND_PAIR:
	case UL_UDSP_KIND_ROUTER:
		return r->action_type == UL_UDSP_ACTION_PREF_LIST;
	case UL_UDSP_KIND_DST_NET:
	case UL_UDSP_KIND_DST_NID:
	case UL_UDSP_KIND_SRC_NET:
	case UL_UDSP_KIND_SRC_NID:
		return r->action_type == UL_UDSP_ACTION_PRIORITY;
	case UL_UDSP_KIND_INVALID:
		break;
	}
	return false;
}

/* LNet's lnet_udsp_equal(): the three descriptors, not the action. */
static bool rule_same_descrs(const struct ul_udsp_rule *a,
			     const struct ul_udsp_rule *b)
{
	return ul_nid_descr_same(a->src, b->src) &&
	       ul_nid_descr_same(a->dst, b->dst) &&
	       ul_nid_descr_same(a->rte, b->rte);
}

bool ul_udsp_rule_same(const struct ul_udsp_rule *a,
		       const struct ul_udsp_rule *b)
{
	if (!rule_same_descrs(a, b) || a->action_type != b->action_type)
		return false;
	return a->action_type != UL_UDSP_ACTION_PRIORITY ||
	       a->priority == b->priority;
}

static void descr_print(struct ul_strbuf *sb, const char *key,
			const struct ul_nid_descr *d)
{
	size_t room;
	int n;

	if (!d)
		return;
	ul_strbuf_add(sb, ", %s: ", key);
	room = sb->off < sb->len ? sb->len - sb->off : 0;
	n = ul_nid_descr_format(d, room ? sb->buf + sb->off : NULL, room);
	if (n > 0)
		sb->off += (size_t)n;
}

int ul_udsp_rule_format(const struct ul_udsp_rule *r, char *buf, size_t len)
{
	struct ul_strbuf sb;

	ul_strbuf_init(&sb, buf, len);
	ul_strbuf_add(&sb, "{ idx: %d", r->idx);
	descr_print(&sb, "src", r->src);
	descr_print(&sb, "dst", r->dst);
	descr_print(&sb, "rte", r->rte);
	if (r->action_type == UL_UDSP_ACTION_PRIORITY)
		ul_strbuf_add(&sb, ", action: { priority: %u }", r->priority);
	ul_strbuf_add(&sb, " }");
	return ul_strbuf_result(&sb);
}

/* ---- application to one object (udsp.md §4) ---- */

/* §4.1: a pair or router rule reaches a peer NI by NID or, for a net
 * descriptor, by the peer NI's net. */
static bool dst_matches_peer_ni(const struct ul_nid_descr *dst,
				const struct ul_peer_ni *lpni)
{
	if (dst->nr_addr)
		return ul_nid_descr_match_nid(dst, &lpni->nid);
	return ul_nid_descr_match_net(dst, lpni->peer_net->net_id);
}

static void note_list_rc(struct ul_udsp_set *set, int rc)
{
	if (rc == -EPERM)
		set->stats.nr_pref_refused++;
	else if (rc)
		set->stats.nr_apply_failed++;
}

/*
 * apply_pair of §4: the first matching local NI (net order, NI order)
 * empties the list, every matching NI joins it; a rule that matches no
 * local NI leaves the list alone. Revert only empties.
 */
static void apply_pair(struct ul_udsp_set *set, const struct ul_udsp_rule *r,
		       struct ul_peer_ni *lpni, bool is_revert)
{
	struct ul_net *net;
	struct ul_ni *ni;
	bool is_first = true;

	ul_list_for_each_entry(net, &set->core->nets, core_link) {
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (!ul_nid_descr_match_nid(r->src, &ni->nid))
				continue;
			if (is_first)
				ul_peer_ni_clear_pref_nids(lpni);
			is_first = false;
			if (is_revert)
				return;
			note_list_rc(set, ul_peer_ni_add_pref_nid(
						  lpni, &ni->nid, false));
		}
	}
}

/* apply_router of §4: the same over gateways, by primary NID. */
static void apply_router(struct ul_udsp_set *set, const struct ul_udsp_rule *r,
			 struct ul_peer_ni *lpni, bool is_revert)
{
	struct ul_rnet *rnet;
	struct ul_route *route;
	bool is_first = true;

	ul_list_for_each_entry(rnet, &set->core->rnets, core_link) {
		ul_list_for_each_entry(route, &rnet->routes, rnet_link) {
			const struct ulnet_nid *gw =
				&route->gateway->primary_nid;

			if (!ul_nid_descr_match_nid(r->rte, gw))
				continue;
			if (is_first)
				ul_peer_ni_clear_pref_rtrs(lpni);
			is_first = false;
			if (is_revert)
				return;
			note_list_rc(set, ul_peer_ni_add_pref_rtr(lpni, gw));
		}
	}
}

static uint32_t rule_value(const struct ul_udsp_rule *r, bool is_revert)
{
	return is_revert ? UL_PRIO_UNSET : r->priority;
}

static void rule_on_net(const struct ul_udsp_rule *r, struct ul_net *net,
			bool is_revert)
{
	if (ul_udsp_rule_kind(r) == UL_UDSP_KIND_SRC_NET &&
	    ul_udsp_rule_is_effective(r) &&
	    ul_nid_descr_match_net(r->src, net->net_id))
		net->sel_priority = rule_value(r, is_revert);
}

static void rule_on_ni(const struct ul_udsp_rule *r, struct ul_ni *ni,
		       bool is_revert)
{
	if (ul_udsp_rule_kind(r) == UL_UDSP_KIND_SRC_NID &&
	    ul_udsp_rule_is_effective(r) &&
	    ul_nid_descr_match_nid(r->src, &ni->nid))
		ni->sel_priority = rule_value(r, is_revert);
}

static void rule_on_peer_net(const struct ul_udsp_rule *r,
			     struct ul_peer_net *lpn, bool is_revert)
{
	if (ul_udsp_rule_kind(r) == UL_UDSP_KIND_DST_NET &&
	    ul_udsp_rule_is_effective(r) &&
	    ul_nid_descr_match_net(r->dst, lpn->net_id))
		lpn->sel_priority = rule_value(r, is_revert);
}

/* kinds: which of the peer NI rule kinds to run (bit per kind). */
#define KINDS_ALL ~0u
#define KIND_BIT(k) (1u << (k))

static void rule_on_peer_ni(struct ul_udsp_set *set,
			    const struct ul_udsp_rule *r,
			    struct ul_peer_ni *lpni, unsigned int kinds,
			    bool is_revert)
{
	enum ul_udsp_kind kind = ul_udsp_rule_kind(r);

	if (!(kinds & KIND_BIT(kind)) || !ul_udsp_rule_is_effective(r))
		return;
	switch (kind) {
	case UL_UDSP_KIND_DST_NID:
		if (ul_nid_descr_match_nid(r->dst, &lpni->nid))
			lpni->sel_priority = rule_value(r, is_revert);
		break;
	case UL_UDSP_KIND_PAIR:
		if (dst_matches_peer_ni(r->dst, lpni))
			apply_pair(set, r, lpni, is_revert);
		break;
	case UL_UDSP_KIND_ROUTER:
		if (dst_matches_peer_ni(r->dst, lpni))
			apply_router(set, r, lpni, is_revert);
		break;
	default:
		break;
	}
}

/* Rules from last to first, so the lowest idx writes last and wins. */
#define for_each_rule_reverse(r, set)                                          \
	for ((r) = ul_list_entry((set)->rules.prev, struct ul_udsp_rule,       \
				 link);                                        \
	     &(r)->link != &(set)->rules;                                      \
	     (r) = ul_list_entry((r)->link.prev, struct ul_udsp_rule, link))

static void net_apply(struct ul_udsp_set *set, struct ul_net *net)
{
	struct ul_udsp_rule *r;

	for_each_rule_reverse(r, set) rule_on_net(r, net, false);
}

static void ni_apply(struct ul_udsp_set *set, struct ul_ni *ni)
{
	struct ul_udsp_rule *r;

	for_each_rule_reverse(r, set) rule_on_ni(r, ni, false);
}

static void peer_net_apply(struct ul_udsp_set *set, struct ul_peer_net *lpn)
{
	struct ul_udsp_rule *r;

	for_each_rule_reverse(r, set) rule_on_peer_net(r, lpn, false);
}

static void peer_ni_apply(struct ul_udsp_set *set, struct ul_peer_ni *lpni,
			  unsigned int kinds)
{
	struct ul_udsp_rule *r;

	for_each_rule_reverse(r, set)
		rule_on_peer_ni(set, r, lpni, kinds, false);
}

/* ---- application to every object ---- */

/* Call fn on every peer NI of the instance. */
static void for_each_peer_ni(struct ul_udsp_set *set,
			     void (*fn)(struct ul_udsp_set *set,
					struct ul_peer_ni *lpni,
					unsigned int kinds),
			     unsigned int kinds)
{
	struct ul_peer *peer;
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;

	ul_list_for_each_entry(peer, &set->core->peers, core_link)
		ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link)
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link)
				fn(set, lpni, kinds);
}

/*
 * Forget what rules wrote into the lists of a peer NI: the router list
 * entirely (only rules fill it), the preferred NID list unless it holds
 * the automatic sticky NID (departures (d), (e)).
 */
static void peer_ni_clear_rule_lists(struct ul_udsp_set *set,
				     struct ul_peer_ni *lpni,
				     unsigned int kinds)
{
	(void)set;
	if (kinds & KIND_BIT(UL_UDSP_KIND_ROUTER))
		ul_peer_ni_clear_pref_rtrs(lpni);
	if ((kinds & KIND_BIT(UL_UDSP_KIND_PAIR)) && lpni->pref_nids.count &&
	    !lpni->is_pref_non_mr)
		ul_peer_ni_clear_pref_nids(lpni);
}

static void apply_all_now(struct ul_udsp_set *set);

void ul_udsp_apply_all(struct ul_udsp_set *set)
{
	if (set->is_deferred) {
		set->is_stale = true;
		return;
	}
	apply_all_now(set);
}

void ul_udsp_defer(struct ul_udsp_set *set, bool is_deferred)
{
	set->is_deferred = is_deferred;
	if (!is_deferred && set->is_stale) {
		set->is_stale = false;
		apply_all_now(set);
	}
}

static void apply_all_now(struct ul_udsp_set *set)
{
	struct ul_core *c = set->core;
	struct ul_peer_net *lpn;
	struct ul_peer *peer;
	struct ul_net *net;
	struct ul_ni *ni;

	for_each_peer_ni(set, peer_ni_clear_rule_lists, KINDS_ALL);
	ul_list_for_each_entry(net, &c->nets, core_link) {
		net_apply(set, net);
		ul_list_for_each_entry(ni, &net->nis, net_link)
			ni_apply(set, ni);
	}
	ul_list_for_each_entry(peer, &c->peers, core_link)
		ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link)
			peer_net_apply(set, lpn);
	for_each_peer_ni(set, peer_ni_apply, KINDS_ALL);
}

/* §4.4: run one rule in revert mode over every object. */
static void rule_revert(struct ul_udsp_set *set, const struct ul_udsp_rule *r)
{
	struct ul_core *c = set->core;
	struct ul_peer_net *lpn;
	struct ul_peer_ni *lpni;
	struct ul_peer *peer;
	struct ul_net *net;
	struct ul_ni *ni;

	ul_list_for_each_entry(net, &c->nets, core_link) {
		rule_on_net(r, net, true);
		ul_list_for_each_entry(ni, &net->nis, net_link)
			rule_on_ni(r, ni, true);
	}
	ul_list_for_each_entry(peer, &c->peers, core_link) {
		ul_list_for_each_entry(lpn, &peer->peer_nets, peer_link) {
			rule_on_peer_net(r, lpn, true);
			ul_list_for_each_entry(lpni, &lpn->peer_nis,
					       peer_net_link)
				rule_on_peer_ni(set, r, lpni, KINDS_ALL, true);
		}
	}
}

/* Departure (d): every router list recomputed from the present routes. */
static void routers_recompute(struct ul_udsp_set *set)
{
	unsigned int kinds = KIND_BIT(UL_UDSP_KIND_ROUTER);

	for_each_peer_ni(set, peer_ni_clear_rule_lists, kinds);
	for_each_peer_ni(set, peer_ni_apply, kinds);
}

void ul_udsp_on_route_add(struct ul_udsp_set *set, struct ul_route *r)
{
	(void)r;
	routers_recompute(set);
}

void ul_udsp_on_route_del(struct ul_udsp_set *set)
{
	routers_recompute(set);
}

/* ---- observer hooks (udsp.md §5) ---- */

static void udsp_on_net_add(void *ctx, struct ul_net *net)
{
	net_apply(ctx, net);
}

/*
 * A new NI gets the source NID rules. Departure (c): when an effective
 * pair rule's src matches it, the pair rules run again on every peer NI;
 * a new NI only adds matches, so running them from last to first gives
 * what a full application gives.
 */
static void udsp_on_ni_add(void *ctx, struct ul_ni *ni)
{
	struct ul_udsp_set *set = ctx;
	struct ul_udsp_rule *r;
	bool is_pair_src = false;

	ni_apply(set, ni);
	ul_list_for_each_entry(r, &set->rules, link)
		if (ul_udsp_rule_kind(r) == UL_UDSP_KIND_PAIR &&
		    ul_udsp_rule_is_effective(r) &&
		    ul_nid_descr_match_nid(r->src, &ni->nid))
			is_pair_src = true;
	if (is_pair_src)
		for_each_peer_ni(set, peer_ni_apply,
				 KIND_BIT(UL_UDSP_KIND_PAIR));
}

static void udsp_on_peer_net_add(void *ctx, struct ul_peer_net *lpn)
{
	peer_net_apply(ctx, lpn);
}

/* Departure (b): net-only dst pair and router rules reach it too. */
static void udsp_on_peer_ni_add(void *ctx, struct ul_peer_ni *lpni)
{
	peer_ni_apply(ctx, lpni, KINDS_ALL);
}

/* ---- the rule list (udsp.md §3) ---- */

int ul_udsp_attach(struct ul_core *c, struct ul_udsp_set **out)
{
	const struct ul_core_observer obs = {
		.on_net_add = udsp_on_net_add,
		.on_ni_add = udsp_on_ni_add,
		.on_peer_net_add = udsp_on_peer_net_add,
		.on_peer_ni_add = udsp_on_peer_ni_add,
	};
	struct ul_core_observer mine = obs;
	struct ul_udsp_set *set;

	if (c->obs.on_net_add || c->obs.on_ni_add || c->obs.on_peer_add ||
	    c->obs.on_peer_net_add || c->obs.on_peer_ni_add)
		return -EBUSY;
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	set->core = c;
	ul_list_init(&set->rules);
	mine.ctx = set;
	ul_core_set_observer(c, &mine);
	*out = set;
	return 0;
}

void ul_udsp_detach(struct ul_udsp_set *set)
{
	struct ul_udsp_rule *r, *tmp;

	if (!set)
		return;
	ul_core_set_observer(set->core, NULL);
	ul_list_for_each_entry_safe(r, tmp, &set->rules, link) {
		ul_list_del(&r->link);
		ul_udsp_rule_free(r);
	}
	free(set);
}

static void renumber(struct ul_udsp_set *set)
{
	struct ul_udsp_rule *r;
	int i = 0;

	ul_list_for_each_entry(r, &set->rules, link)
		r->idx = i++;
}

static struct ul_udsp_rule *rule_at(const struct ul_udsp_set *set, int idx)
{
	struct ul_udsp_rule *r;

	if (idx < 0 || (unsigned int)idx >= set->nrules)
		return NULL;
	ul_list_for_each_entry(r, &set->rules, link)
		if (idx-- == 0)
			return r;
	return NULL;
}

/* udsp.md §2.2: LNet matches a net number against one range only. */
static bool has_net_ranges(const struct ul_nid_descr *d)
{
	return d && d->net_num && d->net_num->nr > 1;
}

int ul_udsp_add(struct ul_udsp_set *set, const struct ul_udsp_rule *rule,
		struct ul_err *err)
{
	struct ul_udsp_rule *r, *copy, *pos;

	if (has_net_ranges(rule->src) || has_net_ranges(rule->dst) ||
	    has_net_ranges(rule->rte))
		return ul_err_set(err, -EINVAL,
				  "a net number expression may hold only one "
				  "range");
	ul_list_for_each_entry(r, &set->rules, link) {
		if (!rule_same_descrs(r, rule))
			continue;
		if (r->action_type == UL_UDSP_ACTION_PRIORITY &&
		    rule->action_type == UL_UDSP_ACTION_PRIORITY &&
		    r->priority != rule->priority) {
			r->priority = rule->priority;
			ul_udsp_apply_all(set);
			return 0;
		}
		return ul_err_set(err, -EALREADY,
				  "the rule at idx %d has the same src, dst "
				  "and rte",
				  r->idx);
	}
	if (ul_udsp_rule_dup(rule, &copy))
		return ul_err_set(err, -ENOMEM, "out of memory");
	pos = rule_at(set, rule->idx);
	if (pos)
		ul_list_add_tail(&pos->link, &copy->link); /* before pos */
	else
		ul_list_add_tail(&set->rules, &copy->link);
	set->nrules++;
	renumber(set);
	ul_udsp_apply_all(set);
	return 0;
}

int ul_udsp_del(struct ul_udsp_set *set, int idx, struct ul_err *err)
{
	struct ul_udsp_rule *r, *tmp;

	if (idx < 0) {
		ul_list_for_each_entry_safe(r, tmp, &set->rules, link) {
			ul_list_del(&r->link);
			set->nrules--;
			rule_revert(set, r);
			ul_udsp_rule_free(r);
		}
		ul_udsp_apply_all(set);
		return 0;
	}
	r = rule_at(set, idx);
	if (!r)
		return ul_err_set(err, -ENOENT, "no rule at idx %d", idx);
	ul_list_del(&r->link);
	set->nrules--;
	renumber(set);
	rule_revert(set, r);
	ul_udsp_rule_free(r);
	ul_udsp_apply_all(set);
	return 0;
}

unsigned int ul_udsp_count(const struct ul_udsp_set *set)
{
	return set->nrules;
}

const struct ul_udsp_rule *ul_udsp_get(const struct ul_udsp_set *set, int idx)
{
	return rule_at(set, idx);
}

void ul_udsp_stats(const struct ul_udsp_set *set, struct ul_udsp_stats *out)
{
	*out = set->stats;
}
