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
#ifndef UL_WIRE_UDSP_BLOCK_H
#define UL_WIRE_UDSP_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct ul_nid_descr;

/* The action types, numbered as in the block (offset 12). */
enum {
	UL_UDSP_BLOCK_ACTION_NONE = 0,
	UL_UDSP_BLOCK_ACTION_PRIORITY = 1,
	UL_UDSP_BLOCK_ACTION_PREF_LIST = 2,
};

/*
 * One block's fields. A descriptor is NULL when absent (nid/nid_descr.h);
 * a decoded block owns its descriptors (ul_udsp_block_fini frees them),
 * an encoded one is only read.
 */
struct ul_udsp_block {
	struct ul_nid_descr *src, *dst, *rte;
	uint32_t action_type; /* UL_UDSP_BLOCK_ACTION_* */
	uint32_t priority;    /* the priority action's value; else 0 */
	int32_t idx;
};

#define UL_UDSP_BLOCK_HDR_SIZE 32
#define UL_UDSP_BLOCK_VERSION 0x0001000bu
/* Largest block, LNet's ioctl limit (udsp.md §8.1). */
#define UL_UDSP_BLOCK_MAX 131072u

/* Bytes ul_udsp_block_encode() writes for b. */
size_t ul_udsp_block_size(const struct ul_udsp_block *b);
/*
 * Write b into buf. Returns 0, -ENOSPC when len is below
 * ul_udsp_block_size(b), or -EMSGSIZE past UL_UDSP_BLOCK_MAX.
 */
int ul_udsp_block_encode(const struct ul_udsp_block *b, uint8_t *buf,
			 size_t len, struct ul_err *err);
/*
 * Read one block from buf[0..len) into *out. Returns 0 (free what *out
 * holds with ul_udsp_block_fini), or -EPROTO / -EINVAL / -ENOMEM with
 * the detail in err and *out left empty. A decoded block encodes back to
 * the same bytes but for the priority of a non-priority action, which
 * is read as 0.
 */
int ul_udsp_block_decode(const uint8_t *buf, size_t len,
			 struct ul_udsp_block *out, struct ul_err *err);
/* Free the descriptors of a decoded block and empty it. */
void ul_udsp_block_fini(struct ul_udsp_block *b);

#endif /* UL_WIRE_UDSP_BLOCK_H */
