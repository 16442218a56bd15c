/*
 * ulnet — NIDs and nets.
 *
 * A NID ("network identifier") names one network interface of an LNet node:
 * an address on a net, written "<address>@<net>", for example
 * "198.18.0.1@tcp", "10.0.0.5@o2ib3", "12@gni" or "0@lo". A net is an LND
 * type (tcp, o2ib, gni, ...) and a network number: "tcp" is "tcp0".
 *
 * In memory a NID is struct ulnet_nid, the 20-byte "large" NID of LNet with
 * its fields in host order: it holds IPv4, numeric and IPv6 addresses alike.
 * A NID whose address fits 32 bits also has the 64-bit form that the V1-V3
 * wire protocols and ping info carry (ulnet_nid_to_nid4()).
 *
 * All functions here are pure: they may be called from any thread.
 */
#ifndef ULNET_NID_H
#define ULNET_NID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ulnet/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LND type numbers; a number is never reused (LNet's nidstr.h). */
enum ulnet_lnd_type {
	ULNET_LND_SOCK = 2,   /* tcp */
	ULNET_LND_O2IB = 5,   /* o2ib */
	ULNET_LND_LO = 9,     /* lo: the only NID is 0@lo */
	ULNET_LND_GNI = 13,   /* gni */
	ULNET_LND_GNIIP = 14, /* gip */
	ULNET_LND_PTL4 = 15,  /* ptlf */
	ULNET_LND_KFI = 16,   /* kfi */
	ULNET_LND_TOFU = 17,  /* no name in LNet's table: prints <17:num> */
	ULNET_LND_EFA = 18,   /* efa */
	ULNET_LND_BXI3 = 19,  /* bxi3f */
};

/* Longest string ulnet_nid_format() or ulnet_net_format() writes, with NUL. */
#define ULNET_NIDSTR_SIZE 64

/* nid_type of the ANY NID (all fields 0xff). */
#define ULNET_LND_ANY 0xff
/* The 64-bit ANY NID (LNET_NID_ANY). */
#define ULNET_NID4_ANY UINT64_C(0xffffffffffffffff)
/* The net id that stands for "no valid net" (LNET_NET_ANY). */
#define ULNET_NET_ANY UINT32_C(0xffffffff)

struct ulnet_nid {
	uint8_t nid_size; /* address length - 4: 0 (IPv4, numeric), 12 (IPv6) */
	uint8_t nid_type; /* LND type (enum ulnet_lnd_type), 0xff for ANY */
	uint16_t nid_num; /* network number: tcp3 -> 3 */
	uint32_t nid_addr[4]; /* address, host-order words; IPv4 198.18.0.1
				 * is nid_addr[0] == 0xc6120001; unused words 0 */
};

/* A net id is (LND type << 16) | network number, as in the 64-bit NID. */
static inline uint32_t ulnet_net_make(unsigned int lnd_type, unsigned int num)
{
	return ((uint32_t)lnd_type << 16) | (num & 0xffff);
}

static inline unsigned int ulnet_net_type(uint32_t net)
{
	return net >> 16;
}

static inline unsigned int ulnet_net_num(uint32_t net)
{
	return net & 0xffff;
}

static inline uint32_t ulnet_nid_net(const struct ulnet_nid *nid)
{
	return ulnet_net_make(nid->nid_type, nid->nid_num);
}

/*
 * The ANY NID is the wildcard "no particular NID" (LNET_ANY_NID; wire.md
 * §3.2: 20 bytes of 0xff). ulnet_nid_is_any() makes LNET_NID_IS_ANY's test
 * (lnet-types.h): nid_type == ULNET_LND_ANY, whatever the other fields
 * hold. No LND has type 0xff, so LNet takes every such NID for ANY, and so
 * does everything here: it prints as "<?>" and converts to ULNET_NID4_ANY
 * even when it is not byte for byte the NID ulnet_nid_set_any() writes
 * (ulnet_nid_same() tells them apart). nid must not be NULL (LNet's test
 * also reads NULL as ANY).
 */
ULNET_EXTERN bool ulnet_nid_is_any(const struct ulnet_nid *nid);
/* Set every byte of *nid to 0xff: LNET_ANY_NID. */
ULNET_EXTERN void ulnet_nid_set_any(struct ulnet_nid *nid);
/* True when both NIDs are the same (every field equal). */
ULNET_EXTERN bool ulnet_nid_same(const struct ulnet_nid *a,
				 const struct ulnet_nid *b);
/*
 * Order two NIDs bytewise over their 20-byte wire form, as LNet compares
 * them (for IPv4: type, then net number, then address, all unsigned).
 * Returns <0, 0 or >0.
 */
ULNET_EXTERN int ulnet_nid_cmp(const struct ulnet_nid *a,
			       const struct ulnet_nid *b);

/*
 * The 64-bit form (lnet_nid_t, wire.md §3.1): bits 63..56 zero, 55..48
 * type, 47..32 net number, 31..0 address; ULNET_NID4_ANY (all ones) is
 * the ANY NID. These two are the only conversion in ulnet; the wire codec
 * wraps them.
 *
 * ulnet_nid_to_nid4(): a NID that ulnet_nid_is_any() gives ULNET_NID4_ANY;
 * a NID with nid_size 0 and nid_addr[1..3] all 0 gives (type << 48) |
 * (num << 32) | nid_addr[0]; any other NID (an IPv6 address, or stray
 * address words) has no 64-bit form. Returns 0 and sets *nid4, or
 * -EOVERFLOW and leaves *nid4 alone.
 *
 * ulnet_nid_from_nid4(): ULNET_NID4_ANY gives the ANY NID (all 0xff); any
 * other value with bits 63..56 all zero gives nid_size 0, its type, net
 * number and nid_addr[0], and nid_addr[1..3] zero. Returns 0 and fills
 * *nid, or -EINVAL and leaves *nid alone for a non-zero top byte (LNet
 * drops those bits; here a value that cannot come back bit for bit is
 * refused). A value of type 0xff gives a NID that ulnet_nid_is_any(), as
 * in LNet, so it converts back to ULNET_NID4_ANY; every other accepted
 * value converts back to itself.
 */
ULNET_EXTERN int ulnet_nid_to_nid4(const struct ulnet_nid *nid, uint64_t *nid4);
ULNET_EXTERN int ulnet_nid_from_nid4(uint64_t nid4, struct ulnet_nid *nid);

/*
 * Parse a NID string. Accepts every form LNet's libcfs_strnid() accepts:
 * "<address>@<net>", an address without "@" meaning tcp, "0@lo", IPv4 and
 * IPv6 addresses on tcp/efa, IPv4 on o2ib/gip, decimal numbers on gni,
 * ptlf, kfi, bxi3f, host names are NOT resolved. As in LNet, tcp/efa
 * refuse 127.0.0.1, ::1 and fe80::/10 (127.0.0.2 is fine). Departures from
 * LNet are listed in src/nid/nid.c. Returns 0 and fills *nid,
 * or -EINVAL and, when errbuf is not NULL, writes a reason that quotes the
 * bad part into errbuf (always NUL-terminated, truncated to errlen).
 * *nid is written only on success.
 */
ULNET_EXTERN int ulnet_nid_parse(const char *str, struct ulnet_nid *nid,
				 char *errbuf, size_t errlen);

/*
 * Write the canonical string of a NID into buf (size len, at most
 * ULNET_NIDSTR_SIZE is ever needed) and return buf. The ANY NID prints as
 * "<?>"; an unknown LND type as "<type:num>" form, as LNet does.
 */
ULNET_EXTERN char *ulnet_nid_format(const struct ulnet_nid *nid, char *buf,
				    size_t len);

/*
 * Parse a net name: "tcp", "tcp0", "o2ib3", "lo". Returns 0 and sets *net,
 * or -EINVAL with a reason in errbuf as ulnet_nid_parse() does.
 */
ULNET_EXTERN int ulnet_net_parse(const char *str, uint32_t *net, char *errbuf,
				 size_t errlen);
/* Canonical net name ("tcp", "tcp1", "o2ib3"); returns buf. */
ULNET_EXTERN char *ulnet_net_format(uint32_t net, char *buf, size_t len);

/* Name of an LND type ("tcp", "o2ib", ...), or NULL if unknown. */
ULNET_EXTERN const char *ulnet_lnd_name(unsigned int lnd_type);
/* LND type for a name, or -EINVAL if none has that name. */
ULNET_EXTERN int ulnet_lnd_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* ULNET_NID_H */
