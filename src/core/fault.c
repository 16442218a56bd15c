/* Fault injection rules: store, matching and decision (fault.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"

void ul_fault_set_init(struct ul_fault_set *set, uint64_t seed)
{
	ul_list_init(&set->drop);
	ul_list_init(&set->delay);
	set->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static void free_list(struct ul_list *head)
{
	struct ul_fault_rule *r, *tmp;

	ul_list_for_each_entry_safe(r, tmp, head, link) {
		ul_list_del(&r->link);
		free(r);
	}
}

void ul_fault_set_clear(struct ul_fault_set *set)
{
	free_list(&set->drop);
	free_list(&set->delay);
}

/* A draw in 0..n-1 (n > 0); xorshift64*, plenty for fault decisions. */
static uint32_t draw(struct ul_fault_set *set, uint32_t n)
{
	uint64_t x = set->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	set->rng = x;
	return (uint32_t)(((x * 0x2545f4914f6cdd1dULL) >> 32) % n);
}

static struct ul_list *list_of(struct ul_fault_set *set, bool is_delay)
{
	return is_delay ? &set->delay : &set->drop;
}

/* A fresh decision state (fault.md §4.4, "Initial state"). */
static void arm(struct ul_fault_set *set, struct ul_fault_rule *r, int64_t now)
{
	const struct ul_fault_attr *a = &r->attr;

	if (a->interval) {
		r->base_time = now + a->interval;
		r->next_time = now + draw(set, a->interval);
		r->next_index = 0;
	} else if (!a->is_delay && a->rate == 2) {
		/* the first matching message is always dropped (tests
		 * rely on it); delay rules do not do this */
		r->next_index = 0;
	} else {
		r->next_index = draw(set, a->rate);
	}
}

int ul_fault_add(struct ul_fault_set *set, const struct ul_fault_attr *a,
		 int64_t now, const char **why)
{
	struct ul_fault_rule *r;
	const char *msg = NULL;
	uint32_t mask = a->msg_mask ? a->msg_mask : UL_FAULT_MSG_ALL;

	if (!a->rate == !a->interval)
		msg = "exactly one of rate and interval must be set";
	else if (a->is_delay && !a->latency)
		msg = "latency must not be 0";
	/* a portal filter only applies to PUT and GET (fault.md §2) */
	if (!msg && a->ptl_mask) {
		mask &= UL_FAULT_MSG_PUT | UL_FAULT_MSG_GET;
		if (!mask)
			msg = "a portal filter needs PUT or GET";
	}
	if (msg) {
		if (why)
			*why = msg;
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->attr = *a;
	r->attr.msg_mask = mask;
	if (r->attr.is_delay) {
		/* drop-only attributes mean nothing to a delay rule */
		r->attr.health_mask = 0;
		r->attr.is_random = false;
		r->attr.is_drop_all = false;
	}
	arm(set, r, now);
	ul_list_add_head(list_of(set, a->is_delay), &r->link);
	return 0;
}

int ul_fault_del(struct ul_fault_set *set, bool is_delay,
		 const struct ulnet_nid *src, const struct ulnet_nid *dst)
{
	struct ul_fault_rule *r, *tmp;
	bool any_src = ulnet_nid_is_any(src), any_dst = ulnet_nid_is_any(dst);
	int n = 0;

	ul_list_for_each_entry_safe(r, tmp, list_of(set, is_delay), link) {
		if (!any_src && !ulnet_nid_same(&r->attr.src, src))
			continue;
		if (!any_dst && !ulnet_nid_same(&r->attr.dst, dst))
			continue;
		ul_list_del(&r->link);
		free(r);
		n++;
	}
	return n ? n : -ENOENT;
}

void ul_fault_reset(struct ul_fault_set *set, bool is_delay, int64_t now)
{
	struct ul_fault_rule *r;

	ul_list_for_each_entry(r, list_of(set, is_delay), link) {
		memset(&r->stats, 0, sizeof(r->stats));
		arm(set, r, now);
	}
}

bool ul_fault_nid_match(const struct ulnet_nid *pattern,
			const struct ulnet_nid *nid)
{
	if (ulnet_nid_is_any(pattern))
		return true;
	if (!nid)
		return false;
	if (ulnet_nid_same(pattern, nid))
		return true;
	if (ulnet_nid_net(pattern) != ulnet_nid_net(nid))
		return false;
	/* "*@net": every address of the net */
	return pattern->nid_addr[0] == 0xffffffffu;
}

bool ul_fault_attr_match(const struct ul_fault_attr *a,
			 const struct ul_fault_msg *m)
{
	uint32_t mask = a->msg_mask ? a->msg_mask : UL_FAULT_MSG_ALL;

	if (!ul_fault_nid_match(&a->src, &m->src) ||
	    !ul_fault_nid_match(&a->dst, &m->dst) ||
	    !ul_fault_nid_match(&a->local, m->local))
		return false;
	if (!(mask & m->type))
		return false;
	if (!a->ptl_mask)
		return true;
	return m->portal < 64 && (a->ptl_mask & (1ULL << m->portal));
}

int ul_fault_hstatus_pick(uint32_t mask, uint32_t c)
{
	int best = -1, d, s;

	if (c == 0)
		c = 1; /* status 1 is twice as likely, as LNet's */
	if (c > UL_FAULT_HSTATUS_MAX)
		c = UL_FAULT_HSTATUS_MAX;
	if (!mask || mask == UL_FAULT_HEALTH_RANDOM || (mask & (1u << c)))
		return (int)c;
	/* the closest status in the mask; on a tie the higher one */
	for (d = 1; d <= UL_FAULT_HSTATUS_MAX && best < 0; d++) {
		s = (int)c + d;
		if (s <= UL_FAULT_HSTATUS_MAX && (mask & (1u << s)))
			best = s;
		s = (int)c - d;
		if (best < 0 && s >= 1 && (mask & (1u << s)))
			best = s;
	}
	return best < 0 ? (int)c : best;
}

/* Whether r is consulted at side (fault.md §4.3). */
static bool takes_part(const struct ul_fault_rule *r, enum ul_fault_side side)
{
	const struct ul_fault_attr *a = &r->attr;

	if (a->is_delay || a->is_drop_all)
		return true;
	return side == UL_FAULT_SIDE_RX ? !a->health_mask : !!a->health_mask;
}

/* The rate / interval / random / drop_all decision (fault.md §4.4). */
static bool decide(struct ul_fault_set *set, struct ul_fault_rule *r,
		   int64_t now)
{
	const struct ul_fault_attr *a = &r->attr;
	bool hit;

	if (a->is_drop_all)
		return true;
	if (a->is_random && a->interval)
		return draw(set, a->interval) >= a->interval / 2;
	if (a->interval) {
		r->stats.count++;
		if (now < r->next_time)
			return false;
		if (r->base_time < now)
			r->base_time = now;
		r->next_time = r->base_time + draw(set, a->interval);
		r->base_time += a->interval;
		return true;
	}
	hit = r->stats.count == r->next_index;
	r->stats.count++;
	if (r->stats.count % a->rate == 0)
		r->next_index = r->stats.count + draw(set, a->rate);
	return hit;
}

static void count_hit(struct ul_fault_rule *r, uint32_t type)
{
	r->stats.hits++;
	if (type == UL_FAULT_MSG_PUT)
		r->stats.put++;
	else if (type == UL_FAULT_MSG_ACK)
		r->stats.ack++;
	else if (type == UL_FAULT_MSG_GET)
		r->stats.get++;
	else if (type == UL_FAULT_MSG_REPLY)
		r->stats.reply++;
}

bool ul_fault_match(struct ul_fault_set *set, bool is_delay,
		    enum ul_fault_side side, const struct ul_fault_msg *m,
		    int64_t now, struct ul_fault_hit *hit)
{
	struct ul_fault_msg mm = *m;
	struct ul_fault_rule *r;

	/* only the receive-side drop check knows the local NID */
	if (is_delay || side == UL_FAULT_SIDE_TX)
		mm.local = NULL;
	ul_list_for_each_entry(r, list_of(set, is_delay), link) {
		if (!takes_part(r, side) || !ul_fault_attr_match(&r->attr, &mm))
			continue;
		if (!decide(set, r, now))
			continue;
		count_hit(r, m->type);
		hit->rule = r;
		hit->hstatus = 0;
		hit->latency = is_delay ? r->attr.latency : 0;
		if (!is_delay && side == UL_FAULT_SIDE_TX)
			hit->hstatus = ul_fault_hstatus_pick(
				r->attr.health_mask,
				draw(set, UL_FAULT_HSTATUS_MAX + 1));
		return true;
	}
	return false;
}
