/*
 * Nidlists: the NID-set syntax of LNet's cfs_parse_nidlist(), used by
 * `lnetctl debug nidlist`, fault rules and access lists:
 *
 *	nidlist   := nidrange { ' ' nidrange }
 *	nidrange  := addrrange '@' net
 *	addrrange := '*'                           every address on the net
 *		   | expr '.' expr '.' expr '.' expr  IPv4 nets (tcp o2ib gip efa)
 *		   | expr                          numeric nets (gni ptlf kfi
 *		                                   bxi3f) and lo
 *		   | ipaddr '/' prefixlen          netmask, tcp and efa only
 *		   | ipv6addr                      an IPv6 address is a /128
 *	net       := lndname [ number ]           number C-style, 0..65535
 *
 * expr is an expression list (expr.h). Items are separated by single
 * spaces (runs of spaces are fine); items on the same net are grouped, in
 * the order nets first appear, and printed netmasks first.
 *
 * As in LNet, the net number is C-style here but decimal in a NID
 * (ulnet_nid_parse()): "1.2.3.4@tcp010" is a nidlist on tcp8, so it does
 * not match the NID 1.2.3.4@tcp010, which is on tcp10. "lo0" is lo.
 *
 * Departures from LNet, each a defect there:
 *  - "*@net" together with other items of that net prints as "*@net"; LNet
 *    asserts (lnetctl aborts) in cfs_print_nidlist().
 *  - Address ranges match only 4-byte NIDs; LNet compares the first 32
 *    bits of an IPv6 NID with them (32.1.13.184@tcp matches 2001:db8::1).
 *  - Netmasks on efa match; LNet parses them but never matches them.
 *  - An IPv4 /32 netmask prints as "a.b.c.d/32@net" so that printing is a
 *    fixed point; LNet drops the "/32" and the reparse reorders the list.
 *  - A net number above 65535 is refused; LNet keeps it and never matches.
 *  - lo with a net number other than 0 ("0@lo1") is refused; LNet keeps
 *    it, prints it back and never matches it, since lo has one NID, 0@lo.
 *  - Numbers: see expr.h (stride 0, signs, overflow refused).
 *  - Printing has no length limit; lnetctl prints into strlen(input)+1
 *    bytes and truncates (and writes past the buffer) when the canonical
 *    form is longer, e.g. "10.0.0.*@tcp" shows as "10.0.0.[0-25".
 *  - Host names are never resolved in netmasks.
 *  - Input longer than UL_NIDLIST_MAX_LEN characters is refused.
 */
#ifndef UL_NID_NIDLIST_H
#define UL_NID_NIDLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "ulnet/nid.h"
#include "util/err.h"

#define UL_NIDLIST_MAX_LEN 65536

struct ul_nidlist;

/*
 * Parse str. Returns 0 and sets *out (free with ul_nidlist_free()), or
 * -EINVAL / -ENOMEM with the reason in err; *out is set only on success.
 */
int ul_nidlist_parse(const char *str, struct ul_nidlist **out,
		     struct ul_err *err);
/* True when nid is in the set (cfs_match_nid()). */
bool ul_nidlist_match(const struct ul_nidlist *nl, const struct ulnet_nid *nid);
/*
 * Canonical text (cfs_print_nidlist() without its defects), re-parsable to
 * the same set. snprintf-like: returns the length needed without the NUL,
 * always NUL-terminates when len > 0.
 */
int ul_nidlist_format(const struct ul_nidlist *nl, char *buf, size_t len);
/* Accepts NULL. */
void ul_nidlist_free(struct ul_nidlist *nl);

#endif /* UL_NID_NIDLIST_H */
