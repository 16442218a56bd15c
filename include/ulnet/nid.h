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
 * All functions here are pure and keep no state: any thread may call them,
 * concurrently. None allocates; every pointer stays the caller's. Pointers
 * must not be NULL unless a function says otherwise. Where a function
 * differs from LNet, the reason is given at the top of src/nid/nid.c.
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

/* The nid_type that makes a NID the ANY NID (ulnet_nid_is_any()). */
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

/*
 * A net id is (LND type << 16) | network number: bits 63..32 of the 64-bit
 * NID. ulnet_net_make() keeps the low 16 bits of num and does not check
 * lnd_type; ulnet_net_type() and ulnet_net_num() split a net id, and
 * ulnet_nid_net() builds a NID's from its type and number, even for an
 * ANY NID (0x00ffffff there, where LNet's LNET_NID_NET() gives
 * ULNET_NET_ANY).
 */
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
/* True when every field of a equals b's (LNet's nid_same()). */
ULNET_EXTERN bool ulnet_nid_same(const struct ulnet_nid *a,
				 const struct ulnet_nid *b);
/*
 * Order two NIDs as memcmp() orders their 20-byte wire forms: nid_size,
 * then type, net number and the four address words, all unsigned (an IPv4
 * NID sorts before every IPv6 one). Returns -1, 0 or 1; 0 exactly when
 * ulnet_nid_same().
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
 * refused), and for a value of type 0xff other than ULNET_NID4_ANY: type
 * 0xff is ANY, whose only 64-bit form is all ones. Every accepted value
 * converts back to itself.
 */
ULNET_EXTERN int ulnet_nid_to_nid4(const struct ulnet_nid *nid, uint64_t *nid4);
ULNET_EXTERN int ulnet_nid_from_nid4(uint64_t nid4, struct ulnet_nid *nid);

/*
 * Parse a NID string, "<address>@<net>", as LNet's libcfs_strnid() does:
 *  - no "@": the whole string is an address on tcp (net tcp0);
 *  - the net after the first "@": as ulnet_net_parse();
 *  - tcp, efa: an IPv4 or IPv6 address as inet_pton() reads it (no leading
 *    zeros in IPv4 octets), refusing 127.0.0.1, ::1 and fe80::/10 as LNet
 *    does (127.0.0.2 is fine); IPv6 sets nid_size 12;
 *  - o2ib, gip: four decimal octets 0..255, each with optional blanks
 *    before it and leading zeros read as decimal ("010" is 10);
 *  - gni, ptlf, kfi, bxi3f: one decimal number (blanks before it allowed)
 *    or "0x" hex, up to 4294967295;
 *  - lo: an address read the same way that is 0 ("0@lo", "0x0@lo"); lo
 *    takes no net number, not even 0.
 * Host names are never resolved; signs and values past 32 bits are
 * refused. Returns 0 and sets *nid (unused address words 0), or -EINVAL
 * and leaves *nid alone; str NULL is -EINVAL. On failure, when errbuf is
 * not NULL and errlen > 0, a reason that quotes the offending part is
 * written there (NUL-terminated, truncated to errlen); errbuf is not
 * touched on success.
 */
ULNET_EXTERN int ulnet_nid_parse(const char *str, struct ulnet_nid *nid,
				 char *errbuf, size_t errlen);

/*
 * Write the canonical string of a NID into buf, snprintf-style (truncated
 * to len, NUL-terminated), and return buf; with buf NULL or len 0 nothing
 * is written. ULNET_NIDSTR_SIZE bytes always suffice. The forms, as LNet's
 * libcfs_nidstr_r():
 *  - a NID that ulnet_nid_is_any(): "<?>";
 *  - tcp/efa, nid_size 0 or 12: inet_ntop()'s IPv4 or compressed IPv6;
 *    o2ib/gip, nid_size 0: dotted quad;
 *  - gni, ptlf, kfi, bxi3f, lo: nid_addr[0] in decimal, whatever nid_size
 *    and the other words hold;
 *  - then "@" and the net as ulnet_net_format() writes it;
 *  - an LND type with no name, or an IP LND with another nid_size: the
 *    address words in hex, ":"-separated, then "@<type:num>", e.g.
 *    "1234abcd@<17:0>" (LNet leaves the IP case unwritten).
 * A NID that ulnet_nid_parse() produced prints as a string that parses
 * back to the same NID.
 */
ULNET_EXTERN char *ulnet_nid_format(const struct ulnet_nid *nid, char *buf,
				    size_t len);

/*
 * Parse a net name "<lnd>[<num>]": "tcp", "tcp0", "o2ib3", "lo". The LND
 * is the first in LNet's table whose name str begins with ("tcpx" is tcp
 * followed by a bad number); the number is decimal, 0..65535, blanks
 * before it allowed, nothing after it; "lo" takes none. Returns 0 and sets *net, or -EINVAL (str NULL too) with a
 * reason in errbuf as ulnet_nid_parse() does; *net is set only on success.
 */
ULNET_EXTERN int ulnet_net_parse(const char *str, uint32_t *net, char *errbuf,
				 size_t errlen);
/*
 * Canonical net name, snprintf-style into buf: "tcp" for number 0, "tcp1",
 * "o2ib3"; "<type:num>" for an LND type with no name. Returns buf; with
 * buf NULL or len 0 nothing is written.
 */
ULNET_EXTERN char *ulnet_net_format(uint32_t net, char *buf, size_t len);

/* Name of an LND type ("tcp", "o2ib", ...), or NULL if it has none. */
ULNET_EXTERN const char *ulnet_lnd_name(unsigned int lnd_type);
/*
 * LND type whose name is exactly name ("tcp" gives ULNET_LND_SOCK; no
 * number, no prefix match), or -EINVAL for another name or NULL.
 */
ULNET_EXTERN int ulnet_lnd_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* ULNET_NID_H */
