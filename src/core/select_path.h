/*
 * Internal to selection: the state of one selection run and the building
 * blocks of reference/selection.md §4 (select_path.c) and §5
 * (select_route.c) that the send cases in select.c combine.
 */
#ifndef UL_CORE_SELECT_PATH_H
#define UL_CORE_SELECT_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "core/select.h"

/* LNet's struct lnet_send_data, for one call of ul_select(). */
struct ul_send {
	struct ul_core *c;
	const struct ul_select_req *req;
	struct ul_explain *ex;	       /* NULL: record nothing */
	struct ul_peer *peer;	       /* owner of the destination NID */
	struct ul_ni *best_ni;	       /* chosen local NI */
	struct ul_peer_ni *best_lpni;  /* chosen peer NI; next hop at end */
	struct ul_peer_ni *final_lpni; /* final destination */
	struct ul_route *route;	       /* chosen route, if any */
	uint32_t send_case;	       /* enum ul_send_flags */
	enum ul_route_mode route_mode;
	enum ul_step_kind lpni_step; /* how §4.2 runs are recorded */
	bool is_src_any;
	bool is_rtr_any;
};

/* §4.1 on the local net of lpn, for the peer owning lpn; NULL if none. */
struct ul_ni *ul_sel_best_ni_on_lpn(struct ul_send *sd,
				    struct ul_peer_net *lpn);
/* §4.3: best peer NI of peer on net_id (ULNET_NET_ANY: any local net). */
struct ul_peer_ni *ul_sel_best_lpni(struct ul_send *sd,
				    const struct ul_ni *best_ni,
				    struct ul_peer *peer, uint32_t net_id);
/* §4.4: net pair, then §4.1 on its local net; NULL if no local net. */
struct ul_ni *ul_sel_best_ni_on_local_net(struct ul_send *sd,
					  struct ul_peer *peer);
/* §4.6 reuse: the local NI a non-MR peer net already sticks to. */
struct ul_ni *ul_sel_existing_pref_ni(struct ul_send *sd,
				      struct ul_peer_ni *lpni);
/* §4.6 set: make ni the sticky NI of lpni if it has none. */
void ul_sel_set_non_mr_pref(struct ul_send *sd, struct ul_peer_ni *lpni,
			    const struct ul_ni *ni);
/*
 * §5.3 routed path (modes R, F, O and the route choice of §5.2). On
 * success *gw_lpni is the next hop, sd->best_ni is set, sd->best_lpni is
 * the final destination; 0, -EHOSTUNREACH or -EFAULT.
 */
int ul_sel_routed_path(struct ul_send *sd, struct ul_peer_ni **gw_lpni);

#endif /* UL_CORE_SELECT_PATH_H */
