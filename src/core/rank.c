/*
 * The selection comparators of rank.h. Each is a straight list of "first
 * differing criterion decides" steps in the order LNet's code applies them
 * (reference/selection.md §4 and §5, which also record where that order
 * differs from the seed design). They read only their arguments.
 */
#include <stddef.h>

#include "core/rank.h"
#include "core/route.h"

static const char *const crit_names[UL_CRIT__COUNT] = {
	[UL_CRIT_NONE] = "first",
	[UL_CRIT_FATAL] = "fatal",
	[UL_CRIT_HEALTH] = "health",
	[UL_CRIT_PRIORITY] = "priority",
	[UL_CRIT_DEV_PRIORITY] = "device priority",
	[UL_CRIT_NUMA] = "numa distance",
	[UL_CRIT_CREDITS] = "credits",
	[UL_CRIT_RR] = "round robin",
	[UL_CRIT_PREFERRED] = "preferred",
	[UL_CRIT_PEER_NET_HEALTH] = "peer net health",
	[UL_CRIT_PEER_NET_PRIORITY] = "peer net priority",
	[UL_CRIT_NET_HEALTH] = "net health",
	[UL_CRIT_NET_PRIORITY] = "net priority",
	[UL_CRIT_PEER_NET_RR] = "peer net round robin",
	[UL_CRIT_NET_RR] = "net round robin",
	[UL_CRIT_ROUTE_PREFERRED] = "preferred router",
	[UL_CRIT_ROUTE_PRIORITY] = "route priority",
	[UL_CRIT_HOPS] = "hops",
	[UL_CRIT_QUEUED] = "queued bytes",
	[UL_CRIT_ROUTE_RR] = "route round robin",
	[UL_CRIT_TIE] = "tie",
};

const char *ul_crit_name(enum ul_crit crit)
{
	if ((unsigned int)crit >= UL_CRIT__COUNT)
		return "?";
	return crit_names[crit];
}

/*
 * One step of a ranking: the value that is better when higher (HIGHER) or
 * lower (LOWER). Each macro returns from the comparator when a and b
 * differ on that field.
 */
#define HIGHER(field, id)                                                      \
	do {                                                                   \
		if (a->field != b->field) {                                    \
			if (crit)                                              \
				*crit = (id);                                  \
			return a->field > b->field ? 1 : -1;                   \
		}                                                              \
	} while (0)
#define LOWER(field, id)                                                       \
	do {                                                                   \
		if (a->field != b->field) {                                    \
			if (crit)                                              \
				*crit = (id);                                  \
			return a->field < b->field ? 1 : -1;                   \
		}                                                              \
	} while (0)

static int tie(enum ul_crit *crit)
{
	if (crit)
		*crit = UL_CRIT_TIE;
	return 0;
}

/* §4.1: the fatal flag and health come before the UDSP priority. */
int ul_rank_ni(const struct ul_ni_cand *a, const struct ul_ni_cand *b,
	       enum ul_crit *crit)
{
	LOWER(is_fatal, UL_CRIT_FATAL);
	HIGHER(healthv, UL_CRIT_HEALTH);
	LOWER(sel_priority, UL_CRIT_PRIORITY);
	LOWER(dev_priority, UL_CRIT_DEV_PRIORITY);
	LOWER(numa_dist, UL_CRIT_NUMA);
	HIGHER(tx_credits, UL_CRIT_CREDITS);
	LOWER(seq, UL_CRIT_RR);
	return tie(crit);
}

/* §4.2: health first; "preferred" only after the UDSP priority. */
int ul_rank_lpni(const struct ul_lpni_cand *a, const struct ul_lpni_cand *b,
		 enum ul_crit *crit)
{
	HIGHER(healthv, UL_CRIT_HEALTH);
	LOWER(sel_priority, UL_CRIT_PRIORITY);
	HIGHER(is_preferred, UL_CRIT_PREFERRED);
	HIGHER(txcredits, UL_CRIT_CREDITS);
	LOWER(seq, UL_CRIT_RR);
	return tie(crit);
}

/* §4.4: the destination side outranks the source side. */
int ul_rank_net_pair(const struct ul_net_pair_cand *a,
		     const struct ul_net_pair_cand *b, enum ul_crit *crit)
{
	HIGHER(lpn_healthv, UL_CRIT_PEER_NET_HEALTH);
	LOWER(lpn_sel_priority, UL_CRIT_PEER_NET_PRIORITY);
	HIGHER(net_healthv, UL_CRIT_NET_HEALTH);
	LOWER(net_sel_priority, UL_CRIT_NET_PRIORITY);
	LOWER(lpn_seq, UL_CRIT_PEER_NET_RR);
	LOWER(net_seq, UL_CRIT_NET_RR);
	return tie(crit);
}

/* §5.3 mode O. */
int ul_rank_lpn(const struct ul_lpn_cand *a, const struct ul_lpn_cand *b,
		enum ul_crit *crit)
{
	HIGHER(healthv, UL_CRIT_PEER_NET_HEALTH);
	LOWER(sel_priority, UL_CRIT_PEER_NET_PRIORITY);
	LOWER(seq, UL_CRIT_PEER_NET_RR);
	return tie(crit);
}

static uint32_t hops_of(uint32_t hops)
{
	return hops == UL_HOPS_UNDEFINED ? 1 : hops;
}

/* §5.2: a preferred router wins before priority and hops. */
int ul_rank_route(const struct ul_route_cand *a, const struct ul_route_cand *b,
		  enum ul_crit *crit)
{
	uint32_t ha = hops_of(a->hops);
	uint32_t hb = hops_of(b->hops);

	HIGHER(is_preferred, UL_CRIT_ROUTE_PREFERRED);
	LOWER(priority, UL_CRIT_ROUTE_PRIORITY);
	if (ha != hb) {
		if (crit)
			*crit = UL_CRIT_HOPS;
		return ha < hb ? 1 : -1;
	}
	return tie(crit);
}

/* §5.2: gateway NIs of equally good routes. */
int ul_rank_gw(const struct ul_gw_cand *a, const struct ul_gw_cand *b,
	       enum ul_crit *crit)
{
	HIGHER(healthv, UL_CRIT_HEALTH);
	LOWER(txqnob, UL_CRIT_QUEUED);
	HIGHER(txcredits, UL_CRIT_CREDITS);
	return tie(crit);
}
