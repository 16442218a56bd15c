/*
 * The LND name table shared by the NID, nidlist, descriptor and range
 * parsers: which names exist and what kind of address each net carries;
 * and the parts of the NID parser they share.
 */
#ifndef UL_NID_LND_H
#define UL_NID_LND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ulnet/nid.h"

/* How a net writes its addresses (reference/lnetctl.md §4.2). */
enum ul_addr_kind {
	UL_ADDR_KIND_LO,   /* lo: the only address is 0 */
	UL_ADDR_KIND_IP46, /* tcp, efa: IPv4 or IPv6, as inet_pton reads them */
	UL_ADDR_KIND_IP4,  /* o2ib, gip: IPv4 dotted quad only */
	UL_ADDR_KIND_NUM,  /* gni, ptlf, kfi, bxi3f: one 32-bit number */
};

struct ul_lnd_info {
	unsigned int type; /* enum ulnet_lnd_type */
	const char *name;  /* "tcp" */
	enum ul_addr_kind kind;
};

/* Largest net number a NID can carry (nid_num is 16 bits). */
#define UL_NET_NUM_MAX 0xffffu

const struct ul_lnd_info *ul_lnd_by_type(unsigned int type);
/*
 * The first LND, in LNet's table order, whose name starts str[0..len):
 * LNet recognises net types by prefix, so "tcp5" and "tcpx" both find tcp.
 */
const struct ul_lnd_info *ul_lnd_by_prefix(const char *str, size_t len);
/* True for an LND whose IPv4 addresses live in nid_addr[0]. */
bool ul_lnd_is_ip(const struct ul_lnd_info *lnd);

/*
 * True when nid is a NID some string names: the ANY NID, 0@lo, or a NID of
 * a known LND with an address of its kind (IPv6 only on tcp/efa, unused
 * words zero). Untrusted NIDs (control requests) are checked with it, so
 * that every NID kept can be printed and read back.
 */
bool ul_nid_is_well_formed(const struct ulnet_nid *nid);

/*
 * Parse the address part str[0..len) of a NID on lnd into nid (nid_size and
 * nid_addr only). Returns 0 or -EINVAL with the reason in errbuf.
 */
int ul_nid_addr_parse(const struct ul_lnd_info *lnd, const char *str,
		      size_t len, struct ulnet_nid *nid, char *errbuf,
		      size_t errlen);
/*
 * A NID string as LNet's kernel reads one that lnetctl hands it
 * unparsed (libcfs_strnid: peer add/del --prim_nid, peer show --nid,
 * peer set --nid, cpt-of-nid, the peer NIDs of a netlink import): as
 * ulnet_nid_parse(), except that "<?>" is the ANY NID and 127.0.0.1,
 * ::1 and link-local addresses are addresses on tcp/efa (rpc_pton()
 * checks none of them; a host name that resolves to 127.0.0.1 makes
 * such a peer). Returns 0 and sets *nid, or -EINVAL and leaves it alone.
 */
int ul_nid_parse_lnet(const char *str, struct ulnet_nid *nid);
/*
 * inet_pton of str[0..len) as LNet's tcp/efa NIDs read it: IPv4 or IPv6,
 * refusing the loopback and link-local addresses LNet refuses. Sets *family
 * to AF_INET or AF_INET6 and fills addr (16 bytes, network order).
 * Returns 0 or -EINVAL.
 */
int ul_ip_pton(const char *str, size_t len, int *family, uint8_t addr[16]);

#endif /* UL_NID_LND_H */
