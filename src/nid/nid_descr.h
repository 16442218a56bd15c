/*
 * UDSP match descriptors (reference/udsp.md §2): what a --src, --dst or
 * --rte argument of `lnetctl udsp add` names, as LNet's
 * cfs_parse_nid_parts() reads it:
 *
 *	descriptor := net_part | addr_part '@' net_part
 *	net_part   := lndname [ number | '*' | '[' range ']' ]
 *	addr_part  := expr '.' expr '.' expr '.' expr   tcp o2ib gip efa
 *		    | expr                               lo gni ptlf kfi bxi3f
 *
 * expr is an expression list (expr.h); net numbers and numeric addresses
 * range over 0..0xffffffff, octets over 0..255. Blanks between the type
 * and its number are allowed ("tcp 1"), blanks before the type are not.
 *
 * A net-number list with more than one range ("o2ib[1,3]") parses, as in
 * lnetctl; adding a rule that holds one is refused (core/udsp.h), as the
 * kernel refuses it with EINVAL.
 *
 * Departures from LNet, each a defect there:
 *  - Text between the type and a '[' is refused ("tcp5[1-3]", "tcpx[1]");
 *    LNet ignores it and reads "tcp[1-3]".
 *  - Printing fixes cfs_expr2str(): a list holding single values prints
 *    as "[1,3]" (LNet: "10.0.[1,3].5@o2ib" shows as "10.0.1.3.5@o2ib",
 *    and "[7,1-3]" as "7.1-3]").
 *  - A 16-byte (IPv6) NID never matches an address descriptor; the kernel
 *    compares its LNET_NID_ANY 64-bit form (address 255.255.255.255).
 *  - Numbers: see expr.h (stride 0, signs, overflow refused).
 */
#ifndef UL_NID_NID_DESCR_H
#define UL_NID_NID_DESCR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nid/expr.h"
#include "ulnet/nid.h"
#include "util/err.h"

/* Longest descriptor string accepted. */
#define UL_NID_DESCR_MAX_LEN 4096

struct ul_nid_descr {
	unsigned int net_type;	 /* LND type (enum ulnet_lnd_type) */
	struct ul_expr *net_num; /* NULL when no number was written ("tcp"):
				  * then only net number 0 matches; else
				  * its ranges (a rule takes one only) */
	unsigned int nr_addr;	 /* 0: net only; 1: numeric; 4: IPv4 octets */
	struct ul_expr *addr[4]; /* nr_addr expressions, most significant
				  * octet first */
};

/*
 * Parse str. Returns 0 and sets *out (free with ul_nid_descr_free()), or
 * -EINVAL / -ENOMEM with the reason in err; *out is set only on success.
 */
int ul_nid_descr_parse(const char *str, struct ul_nid_descr **out,
		       struct ul_err *err);
/* Accepts NULL. */
void ul_nid_descr_free(struct ul_nid_descr *d);
/*
 * True when d has an address part and both the address and the net of
 * nid match it (the kernel's cfs_match_nid_net()).
 */
bool ul_nid_descr_match_nid(const struct ul_nid_descr *d,
			    const struct ulnet_nid *nid);
/*
 * True when the net id matches d's net part (cfs_match_net()): same type,
 * and the number in the list, or 0 when d has no number list.
 */
bool ul_nid_descr_match_net(const struct ul_nid_descr *d, uint32_t net);
/* Same type, number ranges and address ranges (how rules are compared). */
bool ul_nid_descr_same(const struct ul_nid_descr *a,
		       const struct ul_nid_descr *b);
/*
 * The text `udsp show` prints, without LNet's display defect. snprintf-like:
 * returns the length needed without the NUL, NUL-terminates when len > 0.
 */
int ul_nid_descr_format(const struct ul_nid_descr *d, char *buf, size_t len);

#endif /* UL_NID_NID_DESCR_H */
