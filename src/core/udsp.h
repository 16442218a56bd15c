/*
 * UDSP: user defined selection policies (reference/udsp.md).
 *
 * A rule has up to three match descriptors (src: local NIs and nets; dst:
 * peer NIs and peer nets; rte: gateways by primary NID) and one action
 * (a priority, or "preferred list"). The rules form one ordered list; a
 * rule's idx is its position. Rules never run on the send path: they are
 * applied to the objects of the instance when a rule or an object
 * changes, and write only these cached fields, which selection reads
 * (selection.md §9):
 *
 *	ul_net.sel_priority            source net rules
 *	ul_ni.sel_priority             source NID rules
 *	ul_peer_net.sel_priority       destination net rules
 *	ul_peer_ni.sel_priority        destination NID rules
 *	ul_peer_ni.pref_nids           NID pair rules (src + dst)
 *	ul_peer_ni.pref_rtr_nids       router rules (dst + rte)
 *
 * Lower priority is better; UL_PRIO_UNSET (UINT32_MAX) is "no rule". For
 * priorities the matching rule with the lowest idx wins; for lists, the
 * lowest-idx rule with at least one matching local NI (or gateway) sets
 * the whole list (udsp.md §3.1). A non-MR peer NI gets one preferred NID:
 * the first matching local NI in net order, NI order; adding a second is
 * refused as LNet refuses it (EPERM, counted in ul_udsp_stats).
 *
 * A rule set hangs off one instance (ul_udsp_attach) and follows it
 * through the core observer: new local nets, NIs, peer nets and peer NIs
 * get the rules applied as they appear (udsp.md §5). Everything runs on
 * the instance's loop thread; nothing here locks.
 *
 * Departures from LNet, each fixing a flaw the reference notes:
 *  (a) Deleting a rule reverts it (§4.4) and then re-applies the rules
 *      that remain, so objects the deleted rule shadowed get the next
 *      rule's value at once. LNet leaves them at the default until the
 *      next `udsp add` (udsp.md §4.4, scenario 11).
 *  (b) Pair and router rules whose dst is a net ("--dst o2ib2") also
 *      reach peer NIs created later. LNet applies them to new peer NIs
 *      only on the next full application (§5, scenario 19).
 *  (c) A new local NI enters the preferred-source lists of existing pair
 *      rules whose src matches it (the lists are recomputed, so a rule
 *      that matched no local NI before starts to act). LNet waits for the
 *      next `udsp add` (§5, §11).
 *  (d) Router rules follow the routes: ul_udsp_on_route_add() and
 *      ul_udsp_on_route_del() recompute every preferred router list, and
 *      a full application rebuilds them from nothing, so a gateway that
 *      no longer routes or matches leaves the lists. LNet's rules see
 *      only the routes present when they are applied (§5, scenario 20).
 *      Core has no route hook yet: whoever adds or deletes a route calls
 *      these two.
 *  (e) A full application also rebuilds the preferred-source lists that
 *      rules wrote (not the automatic sticky NID of a non-MR peer), so a
 *      list never keeps the NID of a rule or a local NI that is gone.
 *  (f) ul_udsp_parse_idx() refuses values above INT32_MAX (lnetctl
 *      truncates them). Priorities wrap modulo 2^32 as in lnetctl
 *      (udsp.md §1.2: 4294967296 is priority 0, the most preferred).
 * The consequence: after any sequence of rule and object events, every
 * field above equals what evaluating all rules from scratch against the
 * present objects gives (tests/unit/test_udsp_property.c checks this),
 * except for the automatic sticky NID, which only traffic creates.
 */
#ifndef UL_CORE_UDSP_H
#define UL_CORE_UDSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nid/nid_descr.h"
#include "util/err.h"
#include "util/list.h"

struct ul_core;
struct ul_route;
struct ul_udsp_set;

/* enum lnet_udsp_action_type, numbered as in the rule block (§8.2). */
enum ul_udsp_action_type {
	UL_UDSP_ACTION_NONE = 0,
	UL_UDSP_ACTION_PRIORITY = 1,
	UL_UDSP_ACTION_PREF_LIST = 2,
};

/* What a rule is, from the descriptors present (udsp.md §1.1). */
enum ul_udsp_kind {
	UL_UDSP_KIND_PAIR,    /* src and dst: preferred local NIDs */
	UL_UDSP_KIND_ROUTER,  /* dst and rte: preferred gateways */
	UL_UDSP_KIND_DST_NET, /* dst only, no address: peer net priority */
	UL_UDSP_KIND_DST_NID, /* dst only, with address: peer NI priority */
	UL_UDSP_KIND_SRC_NET, /* src only, no address: local net priority */
	UL_UDSP_KIND_SRC_NID, /* src only, with address: NI priority */
	UL_UDSP_KIND_INVALID, /* rte only, or nothing: changes nothing */
};

struct ul_udsp_rule {
	struct ul_list link;	  /* on the set's list; unused elsewhere */
	struct ul_nid_descr *src; /* NULL when absent; owned */
	struct ul_nid_descr *dst;
	struct ul_nid_descr *rte;
	enum ul_udsp_action_type action_type;
	uint32_t priority; /* the priority action's value; 0 for others */
	int idx;	   /* in a set: position; in a request: where to
			    * insert, negative to append */
};

/* Counters of what application refused or could not do. */
struct ul_udsp_stats {
	/* Counted per application, not per distinct refusal: every full
	 * application meets the same refusals again. */
	uint64_t nr_pref_refused; /* second preferred NID on a non-MR peer
				   * NI (LNet's EPERM console error) */
	uint64_t nr_apply_failed; /* list entries lost to -ENOMEM */
};

/* ---- rules ---- */

/*
 * Build a rule the way `lnetctl udsp add` does (udsp.md §1.2), with
 * lnetctl's messages in err: -EINVAL for "Missing required argument(s)"
 * (no descriptor), "The combination of src, dst and rte is not
 * supported", "src and rte cannot be combined", and "failed to parse
 * src parameter" (dst, rte), lnetctl's text without a reason. A net
 * number with several ranges ("o2ib[0,1]") parses; ul_udsp_add()
 * refuses it, as the kernel does (udsp.md §2.2). Descriptors
 * are NULL when not given. Without has_priority the action is a preferred
 * list, except for a rule of src alone or dst alone, which gets priority
 * 0. idx < 0 appends. Returns 0 and sets *out (free with
 * ul_udsp_rule_free), or a negative errno; *out is set only on success.
 */
int ul_udsp_rule_from_strings(const char *src, const char *dst, const char *rte,
			      bool has_priority, uint32_t priority, int idx,
			      struct ul_udsp_rule **out, struct ul_err *err);
/*
 * The argv checks of `lnetctl udsp add`: a priority is a C-style number
 * (strtol base 0, nothing after it, "" is 0) from 0 up, kept modulo 2^32;
 * an index one from 0 to INT32_MAX; otherwise -EINVAL with "Invalid
 * priority \"s\"" or "Invalid index \"s\"". *out is set only on success.
 */
int ul_udsp_parse_priority(const char *s, uint32_t *out, struct ul_err *err);
int ul_udsp_parse_idx(const char *s, int *out, struct ul_err *err);

/* A deep copy, or -ENOMEM. *out is set only on success. */
int ul_udsp_rule_dup(const struct ul_udsp_rule *r, struct ul_udsp_rule **out);
/* Accepts NULL. */
void ul_udsp_rule_free(struct ul_udsp_rule *r);
enum ul_udsp_kind ul_udsp_rule_kind(const struct ul_udsp_rule *r);
/*
 * True when the rule can change something: a pair or router rule with a
 * preferred-list action, or a priority rule with a priority action. The
 * others are stored and shown but inert ("Bad action type", §1.1).
 */
bool ul_udsp_rule_is_effective(const struct ul_udsp_rule *r);
/* Same descriptors (as ul_nid_descr_same) and action; idx not compared. */
bool ul_udsp_rule_same(const struct ul_udsp_rule *a,
		       const struct ul_udsp_rule *b);
/*
 * One rule as `udsp show` lists it, in its field order, as a YAML flow
 * mapping: "{ idx: 0, src: tcp, action: { priority: 1 } }"; src, dst and
 * rte only when present, action only for a priority action (printed
 * unsigned). The descriptors print as ul_nid_descr_format() writes them,
 * which is also what the lead's YAML uses. snprintf-like: returns the
 * length needed without the NUL; NUL-terminates when len > 0.
 */
int ul_udsp_rule_format(const struct ul_udsp_rule *r, char *buf, size_t len);

/*
 * A rule as LNet's binary rule block (wire/udsp_block.h has the layout
 * and the decoder's rules), with r->idx: the bytes needed, encode (0,
 * -ENOSPC, -EMSGSIZE), and decode into a new rule (free it with
 * ul_udsp_rule_free; 0, -EPROTO, -EINVAL or -ENOMEM with err filled).
 */
size_t ul_udsp_rule_block_size(const struct ul_udsp_rule *r);
int ul_udsp_rule_encode(const struct ul_udsp_rule *r, uint8_t *buf, size_t len,
			struct ul_err *err);
int ul_udsp_rule_decode(const uint8_t *buf, size_t len,
			struct ul_udsp_rule **out, struct ul_err *err);

/* ---- the rule set of one instance ---- */

/*
 * Create the rule set of c and install it as c's observer; -EBUSY when c
 * already has an observer, -ENOMEM. The set keeps c (borrowed): call
 * ul_udsp_detach() before ul_core_destroy(c).
 */
int ul_udsp_attach(struct ul_core *c, struct ul_udsp_set **out);
/*
 * Remove the observer and free every rule without reverting it, as LNet
 * discards its rules at shutdown: the fields keep their values. NULL ok.
 */
void ul_udsp_detach(struct ul_udsp_set *set);

/*
 * Add a copy of rule (the caller keeps rule) at rule->idx, or last when
 * idx < 0 or past the end; the rules after it move down one (udsp.md §3).
 * A rule with the same src, dst and rte as an existing one is refused
 * with -EALREADY, unless both are priority actions with different values:
 * then the existing rule takes the new priority in place (requested idx
 * ignored) and 0 is returned. Every success re-applies every rule to
 * every object (§4.3). A descriptor whose net number holds several
 * ranges is refused with -EINVAL, as the kernel refuses it (§2.2).
 * -ENOMEM. err gets the detail.
 */
int ul_udsp_add(struct ul_udsp_set *set, const struct ul_udsp_rule *rule,
		struct ul_err *err);
/*
 * Delete the rule at idx and revert it (§4.4), then re-apply the others
 * (departure (a)); idx < 0 deletes every rule, reverting each from first
 * to last. -ENOENT (with err) when idx is past the end.
 */
int ul_udsp_del(struct ul_udsp_set *set, int idx, struct ul_err *err);
unsigned int ul_udsp_count(const struct ul_udsp_set *set);
/* The rule at idx (borrowed until the next add or del), NULL past the end
 * or for idx < 0. */
const struct ul_udsp_rule *ul_udsp_get(const struct ul_udsp_set *set, int idx);
void ul_udsp_stats(const struct ul_udsp_set *set, struct ul_udsp_stats *out);

/*
 * Full application (§4.3): rebuild the preferred router lists and the
 * rule-written preferred NID lists from nothing, then apply every rule
 * from last to first to every net, NI, peer net, peer NI. ul_udsp_add()
 * and ul_udsp_del() call it; call it after a change core has no hook for
 * (a peer becoming MR or not, a gateway's primary NID changing, an NI
 * deleted).
 */
void ul_udsp_apply_all(struct ul_udsp_set *set);
/*
 * Defer full applications: while deferred, ul_udsp_add(), ul_udsp_del()
 * and ul_udsp_apply_all() change the list but leave the objects alone;
 * ending the deferral runs one full application if any was skipped.
 * Loading a file of N rules this way costs one application, not N (each
 * is linear in rules x objects). Objects that appear meanwhile still get
 * the rules present, through the observer.
 */
void ul_udsp_defer(struct ul_udsp_set *set, bool is_deferred);

/*
 * Routes changed: recompute every peer NI's preferred router list from
 * the router rules and the routes now present (departure (d)). Call after
 * ul_route_add() / ul_route_del() succeed.
 */
void ul_udsp_on_route_add(struct ul_udsp_set *set, struct ul_route *r);
void ul_udsp_on_route_del(struct ul_udsp_set *set);

#endif /* UL_CORE_UDSP_H */
