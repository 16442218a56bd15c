/*
 * Which unit starts a buffer (wire.md §1, §2), told by its first four
 * bytes the way a reader of a capture would tell it: every unit that can
 * start a socklnd byte stream or a payload opens with a magic or a ksock
 * type, and none of them looks like another in either byte order.
 */
#include <errno.h>

#include "wire/bytes.h"
#include "wire/wire.h"

/* v read little-endian equals magic in either byte order. */
static bool is_magic(uint32_t v, uint32_t magic)
{
	return v == magic || v == __builtin_bswap32(magic);
}

int ul_wire_unit_classify(const void *buf, size_t len, enum ul_wire_unit *unit)
{
	uint32_t v;

	if (len < 4)
		return -ENOMSG;
	v = ul_get_le32(buf);
	if (is_magic(v, UL_WIRE_ACCEPTOR_MAGIC))
		*unit = UL_WIRE_UNIT_ACR;
	else if (is_magic(v, UL_WIRE_PROTO_MAGIC) ||
		 is_magic(v, UL_WIRE_TCP_MAGIC))
		*unit = UL_WIRE_UNIT_HELLO;
	else if (is_magic(v, UL_WIRE_PING_MAGIC))
		*unit = UL_WIRE_UNIT_PING_INFO;
	else if (is_magic(v, UL_WIRE_KSOCK_NOOP) ||
		 is_magic(v, UL_WIRE_KSOCK_LNET))
		*unit = UL_WIRE_UNIT_KSOCK;
	else
		*unit = UL_WIRE_UNIT_UNKNOWN;
	return 0;
}

bool ul_wire_is_ping_info(const void *buf, size_t len)
{
	return len >= 4 && is_magic(ul_get_le32(buf), UL_WIRE_PING_MAGIC);
}
