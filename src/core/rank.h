/*
 * The rankings of pathway selection as pure comparators over small
 * candidate structs (reference/selection.md §4.1-§4.4, §5.2, §5.3), so a
 * table test can pin every order and the explanation can show each value.
 *
 * Every ul_rank_*(a, b, &crit) compares candidate a with the current best
 * b criterion by criterion, in LNet's order, and stops at the first that
 * differs: it returns 1 if a is better, -1 if a is worse, 0 if they are
 * equal on every criterion, and sets *crit (may be NULL) to the deciding
 * criterion (UL_CRIT_TIE when 0). A caller walking a list replaces its
 * best only on 1, so on a full tie the earlier element stays: that is
 * LNet's "strictly lower round-robin stamp replaces" rule. The route
 * tie-break, where the later route wins, is the caller's (§12 quirk 2).
 */
#ifndef UL_CORE_RANK_H
#define UL_CORE_RANK_H

#include <stdbool.h>
#include <stdint.h>

/* Criteria, for comparators and explanations; ul_crit_name() names them. */
enum ul_crit {
	UL_CRIT_NONE,	      /* nothing compared (first candidate) */
	UL_CRIT_FATAL,	      /* local NI fatal-error flag */
	UL_CRIT_HEALTH,	      /* NI / peer NI / gateway NI health */
	UL_CRIT_PRIORITY,     /* NI / peer NI UDSP priority */
	UL_CRIT_DEV_PRIORITY, /* GPU device priority */
	UL_CRIT_NUMA,	      /* NUMA distance after numa_range clamp */
	UL_CRIT_CREDITS,      /* transmit credits */
	UL_CRIT_RR,	      /* round-robin stamp */
	UL_CRIT_PREFERRED,    /* local NI on the peer NI's preferred list */
	UL_CRIT_PEER_NET_HEALTH,
	UL_CRIT_PEER_NET_PRIORITY,
	UL_CRIT_NET_HEALTH,
	UL_CRIT_NET_PRIORITY,
	UL_CRIT_PEER_NET_RR,
	UL_CRIT_NET_RR,
	UL_CRIT_ROUTE_PREFERRED, /* gateway on the preferred router list */
	UL_CRIT_ROUTE_PRIORITY,
	UL_CRIT_HOPS,
	UL_CRIT_QUEUED,	  /* gateway NI bytes queued (txqnob) */
	UL_CRIT_ROUTE_RR, /* lr_seq; equal: the later route wins */
	UL_CRIT_TIE,	  /* equal on every criterion */
	UL_CRIT__COUNT
};

/* "health", "priority", "numa distance", ...; "?" for an unknown id. */
const char *ul_crit_name(enum ul_crit crit);

/* §4.1: a local NI inside one net. */
struct ul_ni_cand {
	bool is_fatal;
	int healthv;
	uint32_t sel_priority;
	uint32_t dev_priority; /* GPU: UINT32_MAX for every host buffer */
	uint32_t numa_dist;    /* already clamped to numa_range */
	int tx_credits;
	uint32_t seq;
};
int ul_rank_ni(const struct ul_ni_cand *a, const struct ul_ni_cand *b,
	       enum ul_crit *crit);

/* §4.2: a peer NI inside one peer net. */
struct ul_lpni_cand {
	int healthv;
	uint32_t sel_priority;
	bool is_preferred; /* the chosen local NI is on its preferred list */
	int txcredits;
	uint32_t seq;
};
int ul_rank_lpni(const struct ul_lpni_cand *a, const struct ul_lpni_cand *b,
		 enum ul_crit *crit);

/* §4.4: a (peer net, local net) pair. */
struct ul_net_pair_cand {
	int lpn_healthv;
	uint32_t lpn_sel_priority;
	int net_healthv;
	uint32_t net_sel_priority;
	uint32_t lpn_seq;
	uint32_t net_seq;
};
int ul_rank_net_pair(const struct ul_net_pair_cand *a,
		     const struct ul_net_pair_cand *b, enum ul_crit *crit);

/* §5.3 mode O: a remote peer net of the destination. */
struct ul_lpn_cand {
	int healthv;
	uint32_t sel_priority;
	uint32_t seq;
};
int ul_rank_lpn(const struct ul_lpn_cand *a, const struct ul_lpn_cand *b,
		enum ul_crit *crit);

/* §5.2 compare_routes: preferred, priority, hops (undefined as 1). */
struct ul_route_cand {
	bool is_preferred;
	uint32_t priority;
	uint32_t hops;
};
int ul_rank_route(const struct ul_route_cand *a, const struct ul_route_cand *b,
		  enum ul_crit *crit);

/* §5.2 compare_gw_lpnis: health, fewer queued bytes, more credits. */
struct ul_gw_cand {
	int healthv;
	int64_t txqnob;
	int txcredits;
};
int ul_rank_gw(const struct ul_gw_cand *a, const struct ul_gw_cand *b,
	       enum ul_crit *crit);

#endif /* UL_CORE_RANK_H */
