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

/*
 * The conversions themselves live in src/nid (ulnet_nid_from_nid4(),
 * ulnet_nid_to_nid4()); these add the wire codec's error codes and the
 * human detail.
 */
int ul_wire_nid4_to_nid(uint64_t nid4, struct ulnet_nid *nid,
			struct ul_err *err)
{
	/* §3.1: bits 63..56 are 0 in every NID but ANY. */
	if (ulnet_nid_from_nid4(nid4, nid))
		return ul_err_set(err, -EPROTO,
				  "64-bit NID 0x%016" PRIx64
				  " has a non-zero top byte",
				  nid4);
	return 0;
}

int ul_wire_nid_to_nid4(const struct ulnet_nid *nid, uint64_t *nid4,
			struct ul_err *err)
{
	if (ulnet_nid_to_nid4(nid, nid4))
		return ul_err_set(
			err, -EINVAL,
			"NID with a %u-byte address has no 64-bit form",
			nid->nid_size + 4u);
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
