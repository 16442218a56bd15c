/*
 * The UDSP rule block: one rule as bytes, laid out as LNet's
 * IOC_LIBCFS_ADD_UDSP argument (reference/udsp.md §8.2-§8.4), so that
 * ulnetctl and ulnetd exchange rules in the kernel's own format.
 *
 *	offset  size  field
 *	0       4     ioc_len: total size of the block
 *	4       4     ioc_version: 0x0001000b (0x0001000a also read)
 *	8       4     idx (s32): insert position, -1 append / position shown
 *	12      4     action type: 0 none, 1 priority, 2 preferred list
 *	16      4     size of the descriptor area (total - 32)
 *	20      4     priority (u32)
 *	24      8     iou_bulk: a user address in LNet; written 0, ignored
 *	32      ...   three descriptors, SRC, DST, RTE in that order
 *
 * Each descriptor is a 16-byte head (tag "SRC\0"/"DST\0"/"RTE\0" as a
 * u32, number of address expressions, LND type with 0 = absent, number of
 * net-number ranges) followed by the net-number ranges and, per address
 * expression, a u32 range count and its ranges; a range is three u32 (lo,
 * hi, stride). All integers are little-endian (LNet uses host order; every
 * host ulnet runs on is little-endian, and a fixed order keeps the block
 * portable).
 *
 * The decoder reads untrusted bytes and is stricter than the kernel, which
 * it may be because only ulnet writes these blocks: the block must be
 * exactly ioc_len bytes with no byte after the RTE descriptor, every tag
 * must be right (the kernel skips an absent one's), an absent descriptor's
 * counts must be 0, the address expression count must be what the LND
 * uses (4 for IP nets, 1 otherwise, or 0), every expression must hold
 * 1..UL_EXPR_MAX_RANGES ranges with lo <= hi, stride >= 1 and octets
 * <= 255, the LND type must have a name, and the action type must be
 * 0..2. Framing faults are -EPROTO, bad values -EINVAL.
 */
#ifndef UL_CORE_UDSP_BLOCK_H
#define UL_CORE_UDSP_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct ul_udsp_rule;

#define UL_UDSP_BLOCK_HDR_SIZE 32
#define UL_UDSP_BLOCK_VERSION 0x0001000bu
/* Largest block, LNet's ioctl limit (udsp.md §8.1). */
#define UL_UDSP_BLOCK_MAX 131072u

/* Bytes ul_udsp_block_encode() writes for r. */
size_t ul_udsp_block_size(const struct ul_udsp_rule *r);
/*
 * Write r (with r->idx) into buf. Returns 0, -ENOSPC when len is below
 * ul_udsp_block_size(r), or -EMSGSIZE past UL_UDSP_BLOCK_MAX.
 */
int ul_udsp_block_encode(const struct ul_udsp_rule *r, uint8_t *buf, size_t len,
			 struct ul_err *err);
/*
 * Read one rule from buf[0..len). Returns 0 and sets *out (free with
 * ul_udsp_rule_free; its idx is the block's), or -EPROTO / -EINVAL /
 * -ENOMEM with the detail in err; *out is set only on success. A decoded
 * rule encodes back to a block that decodes to the same rule. The
 * priority of a non-priority action is read as 0.
 */
int ul_udsp_block_decode(const uint8_t *buf, size_t len,
			 struct ul_udsp_rule **out, struct ul_err *err);

#endif /* UL_CORE_UDSP_BLOCK_H */
