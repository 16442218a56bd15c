/*
 * The ksock checksum (wire.md §9.4): CRC-32 with the reflected polynomial
 * 0xedb88320, started at 0xffffffff and not inverted at the end, which is
 * zlib's crc32() of the same bytes XOR 0xffffffff. Bitwise, because only
 * V2 peers with enable_csum ever send one.
 */
#include "wire/wire.h"

uint32_t ul_wire_csum(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;
	int bit;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (UINT32_C(0xedb88320) & -(crc & 1));
	}
	return crc;
}
