/*
 * The two on-wire forms of a NID (wire.md §3): the 64-bit lnet_nid_t that
 * V1-V3, acceptor v1 and ping entries carry as a u64, and the 20-byte
 * struct lnet_nid of V4, acceptor v2 and large ping entries.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "wire/bytes.h"
#include "wire/wire.h"

static bool nid_is_any(const struct ulnet_nid *nid)
{
	static const uint8_t ff[UL_WIRE_NID_SIZE] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	uint8_t b[UL_WIRE_NID_SIZE];

	ul_wire_nid_put(b, nid);
	return memcmp(b, ff, sizeof(b)) == 0;
}

int ul_wire_nid4_to_nid(uint64_t nid4, struct ulnet_nid *nid,
			struct ul_err *err)
{
	struct ulnet_nid n;

	memset(&n, 0, sizeof(n));
	if (nid4 == UL_WIRE_NID4_ANY) {
		/* §3.2: "ANY maps to ANY", the 20 bytes of 0xff. */
		memset(&n, 0xff, sizeof(n));
		*nid = n;
		return 0;
	}
	/*
	 * Bits 63..56 are always 0 (§3.1). The kernel ignores them, but a
	 * value we cannot give back byte for byte is better refused than
	 * silently changed.
	 */
	if (nid4 >> 56)
		return ul_err_set(err, -EPROTO,
				  "64-bit NID 0x%016" PRIx64
				  " has a non-zero top byte",
				  nid4);
	n.nid_size = 0;
	n.nid_type = (uint8_t)(nid4 >> 48);
	n.nid_num = (uint16_t)(nid4 >> 32);
	n.nid_addr[0] = (uint32_t)nid4;
	*nid = n;
	return 0;
}

int ul_wire_nid_to_nid4(const struct ulnet_nid *nid, uint64_t *nid4,
			struct ul_err *err)
{
	if (nid_is_any(nid)) {
		*nid4 = UL_WIRE_NID4_ANY;
		return 0;
	}
	if (nid->nid_size != 0 || nid->nid_addr[1] || nid->nid_addr[2] ||
	    nid->nid_addr[3])
		return ul_err_set(
			err, -EINVAL,
			"NID with a %u-byte address has no 64-bit form",
			nid->nid_size + 4u);
	*nid4 = ((uint64_t)nid->nid_type << 48) |
		((uint64_t)nid->nid_num << 32) | nid->nid_addr[0];
	return 0;
}

/*
 * §3.2: the 20-byte form is fixed big-endian whatever the sender's byte
 * order, and the kernel never swaps it; all 20 bytes are kept.
 */
void ul_wire_nid_get(const uint8_t *p, struct ulnet_nid *nid)
{
	int i;

	nid->nid_size = p[0];
	nid->nid_type = p[1];
	nid->nid_num = ul_get_be16(p + 2);
	for (i = 0; i < 4; i++)
		nid->nid_addr[i] = ul_get_be32(p + 4 + 4 * i);
}

void ul_wire_nid_put(uint8_t *p, const struct ulnet_nid *nid)
{
	int i;

	p[0] = nid->nid_size;
	p[1] = nid->nid_type;
	ul_put_be16(p + 2, nid->nid_num);
	for (i = 0; i < 4; i++)
		ul_put_be32(p + 4 + 4 * i, nid->nid_addr[i]);
}
