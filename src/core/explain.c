/*
 * Recording and naming for the selection explanation (explain.h). The
 * recorder never allocates: a full buffer only counts what it drops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"

int ul_explain_init(struct ul_explain *ex, uint32_t max_cands)
{
	memset(ex, 0, sizeof(*ex));
	if (max_cands) {
		ex->cands = calloc(max_cands, sizeof(*ex->cands));
		if (!ex->cands)
			return -ENOMEM;
	}
	ex->cands_cap = max_cands;
	return 0;
}

void ul_explain_fini(struct ul_explain *ex)
{
	if (!ex)
		return;
	free(ex->cands);
	ex->cands = NULL;
	ex->cands_cap = 0;
	ul_explain_reset(ex);
}

void ul_explain_reset(struct ul_explain *ex)
{
	ex->nsteps = 0;
	ex->nsteps_dropped = 0;
	ex->ncands = 0;
	ex->ncands_dropped = 0;
	ex->rc = 0;
	ex->send_case = 0;
	ex->scase = UL_CASE_NONE;
	ex->route_mode = UL_ROUTE_MODE_NONE;
}

struct ul_explain_step *ul_explain_step_add(struct ul_explain *ex,
					    enum ul_step_kind kind,
					    uint32_t net_id)
{
	struct ul_explain_step *st;

	if (ex->nsteps == UL_EXPLAIN_MAX_STEPS) {
		ex->nsteps_dropped++;
		return NULL;
	}
	st = &ex->steps[ex->nsteps++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->net_id = net_id;
	st->first_cand = ex->ncands;
	st->winner = -1;
	return st;
}

struct ul_explain_cand *ul_explain_cand_add(struct ul_explain *ex,
					    struct ul_explain_step *step)
{
	struct ul_explain_cand *cand;

	if (!step)
		return NULL;
	/* A step's candidates must stay contiguous: only the last grows. */
	if (ex->ncands == ex->cands_cap || step != &ex->steps[ex->nsteps - 1] ||
	    step->first_cand + step->ncands != ex->ncands) {
		step->ncands_dropped++;
		ex->ncands_dropped++;
		return NULL;
	}
	cand = &ex->cands[ex->ncands++];
	memset(cand, 0, sizeof(*cand));
	step->ncands++;
	return cand;
}

void ul_explain_note(struct ul_explain *ex, enum ul_note note,
		     const struct ulnet_nid *nid)
{
	struct ul_explain_step *st =
		ul_explain_step_add(ex, UL_STEP_FIXED, ULNET_NET_ANY);

	if (!st)
		return;
	st->note = note;
	if (nid)
		st->nid = *nid;
	else
		ulnet_nid_set_any(&st->nid);
}

static const enum ul_crit ni_crits[] = {
	UL_CRIT_FATAL, UL_CRIT_HEALTH,	UL_CRIT_PRIORITY, UL_CRIT_DEV_PRIORITY,
	UL_CRIT_NUMA,  UL_CRIT_CREDITS, UL_CRIT_RR,
};
static const enum ul_crit lpni_crits[] = {
	UL_CRIT_HEALTH,	 UL_CRIT_PRIORITY, UL_CRIT_PREFERRED,
	UL_CRIT_CREDITS, UL_CRIT_RR,
};
static const enum ul_crit net_pair_crits[] = {
	UL_CRIT_PEER_NET_HEALTH, UL_CRIT_PEER_NET_PRIORITY, UL_CRIT_NET_HEALTH,
	UL_CRIT_NET_PRIORITY,	 UL_CRIT_PEER_NET_RR,	    UL_CRIT_NET_RR,
};
static const enum ul_crit lpn_crits[] = {
	UL_CRIT_PEER_NET_HEALTH,
	UL_CRIT_PEER_NET_PRIORITY,
	UL_CRIT_PEER_NET_RR,
};
static const enum ul_crit route_crits[] = {
	UL_CRIT_ROUTE_PREFERRED, UL_CRIT_ROUTE_PRIORITY, UL_CRIT_HOPS,
	UL_CRIT_HEALTH,		 UL_CRIT_QUEUED,	 UL_CRIT_CREDITS,
	UL_CRIT_ROUTE_RR,
};

#define N(a) (unsigned int)(sizeof(a) / sizeof((a)[0]))

const enum ul_crit *ul_step_crits(enum ul_step_kind kind, unsigned int *n)
{
	switch (kind) {
	case UL_STEP_LOCAL_NI:
		*n = N(ni_crits);
		return ni_crits;
	case UL_STEP_PEER_NI:
	case UL_STEP_GATEWAY_NI:
		*n = N(lpni_crits);
		return lpni_crits;
	case UL_STEP_NET_PAIR:
		*n = N(net_pair_crits);
		return net_pair_crits;
	case UL_STEP_PEER_NET:
		*n = N(lpn_crits);
		return lpn_crits;
	case UL_STEP_ROUTE:
		*n = N(route_crits);
		return route_crits;
	default:
		*n = 0;
		return NULL;
	}
}

/* Look a name up in a table indexed by enum value; "?" past its end. */
static const char *name_of(const char *const *names, unsigned int n,
			   unsigned int v)
{
	return v < n && names[v] ? names[v] : "?";
}

const char *ul_select_case_name(enum ul_select_case scase)
{
	static const char *const names[] = {
		[UL_CASE_NONE] = "none",
		[UL_CASE_LOOPBACK] = "loopback",
		[UL_CASE_SPEC_LOCAL_NMR] = "spec_local_nmr",
		[UL_CASE_SPEC_LOCAL_MR] = "spec_local_mr",
		[UL_CASE_SPEC_ROUTER] = "spec_router",
		[UL_CASE_ANY_LOCAL_NMR] = "any_local_nmr",
		[UL_CASE_ANY_MR] = "any_mr",
		[UL_CASE_ANY_ROUTER_NMR] = "any_router_nmr",
	};

	return name_of(names, N(names), scase);
}

const char *ul_route_mode_name(enum ul_route_mode mode)
{
	static const char *const names[] = {
		[UL_ROUTE_MODE_NONE] = "none",
		[UL_ROUTE_MODE_R] = "imposed router",
		[UL_ROUTE_MODE_F] = "destination net",
		[UL_ROUTE_MODE_O] = "originator",
	};

	return name_of(names, N(names), mode);
}

const char *ul_step_kind_name(enum ul_step_kind kind)
{
	static const char *const names[] = {
		[UL_STEP_CLASSIFY] = "classify",
		[UL_STEP_NET_PAIR] = "net pair",
		[UL_STEP_LOCAL_NI] = "local ni",
		[UL_STEP_PEER_NI] = "peer ni",
		[UL_STEP_PEER_NET] = "peer net",
		[UL_STEP_ROUTE] = "route",
		[UL_STEP_GATEWAY_NI] = "gateway ni",
		[UL_STEP_FIXED] = "fixed",
	};

	return name_of(names, N(names), kind);
}

const char *ul_note_name(enum ul_note note)
{
	static const char *const names[] = {
		[UL_NOTE_NONE] = "none",
		[UL_NOTE_SRC_NI] = "source ni given",
		[UL_NOTE_DST_NI] = "destination nid kept",
		[UL_NOTE_STICKY_REUSED] = "preferred ni reused",
		[UL_NOTE_STICKY_STALE] = "preferred nid is not a local ni",
		[UL_NOTE_STICKY_SKIPPED] =
			"reserved portal ignores preferred ni",
		[UL_NOTE_STICKY_SET] = "preferred ni set",
		[UL_NOTE_ROUTER_IMPOSED] = "router imposed",
		[UL_NOTE_ROUTER_UNKNOWN] = "imposed router is not a router",
		[UL_NOTE_LOOPBACK] = "loopback",
		[UL_NOTE_RTR_CHECK_NET] = "router check net",
		[UL_NOTE_MR_FORWARDING] = "multi-rail forwarding allowed",
		[UL_NOTE_NO_CANDIDATE] = "no candidate",
	};

	return name_of(names, N(names), note);
}

const char *ul_verdict_name(enum ul_verdict verdict)
{
	static const char *const names[] = {
		[UL_VERDICT_FIRST] = "first",
		[UL_VERDICT_BETTER] = "better",
		[UL_VERDICT_WORSE] = "worse",
		[UL_VERDICT_TIE] = "tie",
		[UL_VERDICT_SKIPPED] = "skipped",
	};

	return name_of(names, N(names), verdict);
}

const char *ul_skip_name(enum ul_skip skip)
{
	static const char *const names[] = {
		[UL_SKIP_NONE] = "none",
		[UL_SKIP_ROUTE_DOWN] = "route down",
		[UL_SKIP_NO_GW_NI] = "no gateway ni on source net",
	};

	return name_of(names, N(names), skip);
}
