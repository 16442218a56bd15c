/*
 * The explanation of one pathway selection: plain data that says, step by
 * step, which candidates were ranked, every criterion value of each, the
 * criterion that decided each comparison and the winner. ul_select()
 * fills it when given one; with NULL nothing is recorded and nothing is
 * paid. A renderer (ulnetctl debug select) walks steps[] in order; a
 * step's candidates are cands[first_cand .. first_cand + ncands - 1] and
 * their value[] follows ul_step_crits(kind).
 *
 * Memory is bounded: the steps live in the struct, the candidates in an
 * array of a capacity fixed by ul_explain_init(); what does not fit is
 * counted in the *_dropped fields, never allocated.
 */
#ifndef UL_CORE_EXPLAIN_H
#define UL_CORE_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rank.h"
#include "ulnet/nid.h"

/* Send-case bits of selection.md §3, as LNet builds its send case. */
enum ul_send_flags {
	UL_SEND_SRC_ANY = 1u << 0,
	UL_SEND_SRC_SPEC = 1u << 1,
	UL_SEND_LOCAL = 1u << 2,
	UL_SEND_REMOTE = 1u << 3,
	UL_SEND_MR = 1u << 4,
	UL_SEND_NMR = 1u << 5,
	UL_SEND_RESP = 1u << 6,
};

/* Which handler of selection.md §3's dispatch ran. */
enum ul_select_case {
	UL_CASE_NONE,
	UL_CASE_LOOPBACK,	/* §6.9 */
	UL_CASE_SPEC_LOCAL_NMR, /* §6.5 */
	UL_CASE_SPEC_LOCAL_MR,	/* §6.5 */
	UL_CASE_SPEC_ROUTER,	/* §6.6 */
	UL_CASE_ANY_LOCAL_NMR,	/* §6.2 */
	UL_CASE_ANY_MR,		/* §6.1, then §6.3 */
	UL_CASE_ANY_ROUTER_NMR, /* §6.4 */
};
/* "loopback", "spec_local_nmr", ...; "?" for an unknown value. */
const char *ul_select_case_name(enum ul_select_case scase);

/* The routed-path modes of selection.md §5.3. */
enum ul_route_mode {
	UL_ROUTE_MODE_NONE, /* not routed */
	UL_ROUTE_MODE_R,    /* imposed router */
	UL_ROUTE_MODE_F,    /* forwarding or source known */
	UL_ROUTE_MODE_O,    /* originator, source not known */
};
const char *ul_route_mode_name(enum ul_route_mode mode);

enum ul_step_kind {
	UL_STEP_CLASSIFY,   /* the send case; no candidates */
	UL_STEP_NET_PAIR,   /* §4.4 (peer net, local net) pairs */
	UL_STEP_LOCAL_NI,   /* §4.1 NIs of one local net */
	UL_STEP_PEER_NI,    /* §4.2/§4.3 peer NIs of one peer net */
	UL_STEP_PEER_NET,   /* §5.3 mode O remote peer nets */
	UL_STEP_ROUTE,	    /* §5.2 routes to one remote net */
	UL_STEP_GATEWAY_NI, /* §4.3 a gateway's NIs, inside a route step */
	UL_STEP_FIXED,	    /* an object taken without ranking; see note */
	UL_STEP__COUNT
};
/* "classify", "net pair", "local ni", ... */
const char *ul_step_kind_name(enum ul_step_kind kind);

/* Facts a step states besides its ranking. */
enum ul_note {
	UL_NOTE_NONE,
	UL_NOTE_SRC_NI,		/* the NI owning the given source NID */
	UL_NOTE_DST_NI,		/* the destination NID itself, no ranking */
	UL_NOTE_STICKY_REUSED,	/* a non-MR peer's preferred NI (§4.6) */
	UL_NOTE_STICKY_STALE,	/* preferred NID is no longer a local NI */
	UL_NOTE_STICKY_SKIPPED, /* reserved portal ignores it (§4.6) */
	UL_NOTE_STICKY_SET,	/* the chosen NI became the sticky NI */
	UL_NOTE_ROUTER_IMPOSED, /* mode R: the given previous hop */
	UL_NOTE_ROUTER_UNKNOWN, /* given rtr is no router: route lookup */
	UL_NOTE_LOOPBACK,	/* sent over 0@lo */
	UL_NOTE_RTR_CHECK_NET,	/* router check ping: recorded net (§4.4) */
	UL_NOTE_MR_FORWARDING,	/* §6.8 MR forwarding allowed */
	UL_NOTE_NO_CANDIDATE,	/* the step found nothing */
};
const char *ul_note_name(enum ul_note note);

enum ul_verdict {
	UL_VERDICT_FIRST,   /* first candidate: the initial best */
	UL_VERDICT_BETTER,  /* replaced the best */
	UL_VERDICT_WORSE,   /* lost to the best */
	UL_VERDICT_TIE,	    /* equal on everything; the best stays */
	UL_VERDICT_SKIPPED, /* not ranked; see skip */
};
const char *ul_verdict_name(enum ul_verdict verdict);

enum ul_skip {
	UL_SKIP_NONE,
	UL_SKIP_ROUTE_DOWN, /* route not alive (§5.1) */
	UL_SKIP_NO_GW_NI,   /* gateway has no NI on the source net */
};
const char *ul_skip_name(enum ul_skip skip);

#define UL_EXPLAIN_MAX_VALUES 8
#define UL_EXPLAIN_MAX_STEPS 24

struct ul_explain_cand {
	struct ulnet_nid nid;	 /* NI, peer NI, or route gateway primary */
	struct ulnet_nid gw_nid; /* ROUTE: the gateway NI ranked */
	uint32_t net_id;	 /* NET_PAIR: local net; PEER_NET: peer net;
				  * ROUTE: the route's local net */
	uint32_t peer_net_id;	 /* NET_PAIR: peer net */
	int64_t value[UL_EXPLAIN_MAX_VALUES]; /* per ul_step_crits() */
	enum ul_crit decided_by;	      /* vs the best of that moment */
	enum ul_verdict verdict;
	enum ul_skip skip;
};

struct ul_explain_step {
	enum ul_step_kind kind;
	enum ul_note note;
	uint32_t net_id;	 /* net ranked on, or ULNET_NET_ANY */
	struct ulnet_nid nid;	 /* FIXED and notes: the object concerned */
	uint32_t first_cand;	 /* index into ul_explain.cands */
	uint32_t ncands;	 /* recorded */
	uint32_t ncands_dropped; /* not recorded: no room */
	int32_t winner;		 /* index in this step's cands, -1: none */
};

struct ul_explain {
	struct ul_explain_step steps[UL_EXPLAIN_MAX_STEPS];
	uint32_t nsteps;
	uint32_t nsteps_dropped;
	struct ul_explain_cand *cands;
	uint32_t ncands;
	uint32_t cands_cap;
	uint32_t ncands_dropped;
	/* Outcome, copied from ul_select(). */
	int rc;
	uint32_t send_case; /* enum ul_send_flags bits */
	enum ul_select_case scase;
	enum ul_route_mode route_mode;
};

/* Room for max_cands candidates: 0 or -ENOMEM. */
int ul_explain_init(struct ul_explain *ex, uint32_t max_cands);
/* Free the candidate array (ex may be NULL). */
void ul_explain_fini(struct ul_explain *ex);
/* Forget everything recorded; ul_select() starts with this. */
void ul_explain_reset(struct ul_explain *ex);

/* The criteria a step kind ranks by, in value[] order; *n set. */
const enum ul_crit *ul_step_crits(enum ul_step_kind kind, unsigned int *n);

/*
 * Recording, for the selection code. ul_explain_step_add() returns NULL
 * when the steps are full (counted); ul_explain_cand_add() returns NULL
 * when the candidates are full (counted on the step).
 */
struct ul_explain_step *ul_explain_step_add(struct ul_explain *ex,
					    enum ul_step_kind kind,
					    uint32_t net_id);
struct ul_explain_cand *ul_explain_cand_add(struct ul_explain *ex,
					    struct ul_explain_step *step);
/* Note a fact as a FIXED step about nid (may be NULL). */
void ul_explain_note(struct ul_explain *ex, enum ul_note note,
		     const struct ulnet_nid *nid);

#endif /* UL_CORE_EXPLAIN_H */
