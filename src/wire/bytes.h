/*
 * Loads and stores of fixed-width integers on byte buffers, in a stated
 * byte order. The codec never casts a buffer to a packed struct: every
 * field is read or written byte by byte, so alignment and host order never
 * matter (reference/wire.md, "Conventions").
 *
 * The caller has checked the bounds; these helpers do not.
 */
#ifndef UL_WIRE_BYTES_H
#define UL_WIRE_BYTES_H

#include <stdbool.h>
#include <stdint.h>

static inline uint16_t ul_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t ul_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t ul_get_le64(const uint8_t *p)
{
	return (uint64_t)ul_get_le32(p) | ((uint64_t)ul_get_le32(p + 4) << 32);
}

static inline uint16_t ul_get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t ul_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t ul_get_be64(const uint8_t *p)
{
	return ((uint64_t)ul_get_be32(p) << 32) | (uint64_t)ul_get_be32(p + 4);
}

static inline void ul_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ul_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void ul_put_le64(uint8_t *p, uint64_t v)
{
	ul_put_le32(p, (uint32_t)v);
	ul_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline void ul_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void ul_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void ul_put_be64(uint8_t *p, uint64_t v)
{
	ul_put_be32(p, (uint32_t)(v >> 32));
	ul_put_be32(p + 4, (uint32_t)v);
}

/*
 * "Sender host order" fields (wire.md §6): little-endian unless the peer's
 * magic arrived byte-swapped, in which case the sender was big-endian.
 */
static inline uint32_t ul_get_host32(const uint8_t *p, bool is_swapped)
{
	return is_swapped ? ul_get_be32(p) : ul_get_le32(p);
}

static inline uint64_t ul_get_host64(const uint8_t *p, bool is_swapped)
{
	return is_swapped ? ul_get_be64(p) : ul_get_le64(p);
}

static inline void ul_put_host32(uint8_t *p, uint32_t v, bool is_swapped)
{
	if (is_swapped)
		ul_put_be32(p, v);
	else
		ul_put_le32(p, v);
}

static inline void ul_put_host64(uint8_t *p, uint64_t v, bool is_swapped)
{
	if (is_swapped)
		ul_put_be64(p, v);
	else
		ul_put_le64(p, v);
}

#endif /* UL_WIRE_BYTES_H */
