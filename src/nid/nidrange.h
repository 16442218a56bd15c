/*
 * NID range expansion on the client side, as lnetctl does for `peer
 * add/del --nid`, `route --gateway`, `ping` and `discover`
 * (reference/lnetctl.md §4.3; lustre_lnet_parse_nid_range()):
 *
 *	list := item { ',' item }
 *	item := a NID whose address may hold bracket groups
 *	        '[' range { ',' range } ']', range := n | n '-' n [ '/' n ]
 *
 * "4.4.4.[1-3]@tcp", "6.6.[6-7].[0-4/2]@tcp", "[6-12/4]@gni". Expansion is
 * lexicographic with the leftmost group outermost; items keep their order
 * and duplicates are kept. Numbers are decimal, or hex when the item holds
 * a ':' (IPv6); hex values print back in hex.
 *
 * Errors carry lnetctl's exact descr strings (double quotes included where
 * lnetctl has them, so the CLI can print them verbatim).
 *
 * Host names are not looked up here: ulnetctl resolves the items that
 * are host names first (tools/ulnetctl/peer.c, ulnetctl_nidlist_expand),
 * as lnetctl's parser does, and hands the rest to this expansion.
 *
 * Departures from lnetctl, each a defect there (docs/lnetctl-differences.md
 * lists them for users):
 *  - Every expanded NID is checked ("1.1.1.[250-300]@tcp" is refused);
 *    lnetctl sends such strings to the kernel unchecked.
 *  - "[0]" and "[0-0]" expand to 0; lnetctl expands them to nothing.
 *  - Stride 0 ("[1-5/0]") is refused; lnetctl loops forever.
 *  - Hex values of an IPv6 item print in hex; lnetctl prints a range
 *    "[a-c]" as decimal 10..12.
 *  - ':' inside brackets, an empty group "[]", a stride without a range
 *    ("[1/2]"), nested brackets and empty items are refused.
 *  - The limit is exactly max NIDs; lnetctl's peer check lets 129 through
 *    for a limit of 128 (count++ > LNET_MAX_NIDS_PER_PEER).
 */
#ifndef UL_NID_NIDRANGE_H
#define UL_NID_NIDRANGE_H

#include <stddef.h>

#include "ulnet/nid.h"
#include "util/err.h"

/* lnetctl's limit for one peer add/del (LNET_MAX_NIDS_PER_PEER). */
#define UL_NIDRANGE_MAX_PER_PEER 128

/*
 * Expand str into out[0..max). Returns 0 with *count NIDs written, or a
 * negative errno with err set: -EINVAL (syntax), -E2BIG (more than max
 * NIDs), -ENOENT (nothing to expand), -ENOMEM. On failure out may hold
 * partial results and *count is left alone. out may be NULL when max is 0.
 */
int ul_nidrange_expand(const char *str, struct ulnet_nid *out, size_t max,
		       size_t *count, struct ul_err *err);

#endif /* UL_NID_NIDRANGE_H */
