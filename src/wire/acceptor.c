/*
 * Acceptor request (wire.md §5.1): the first 16 (v1) or 28 (v2) bytes a
 * connector sends, and the acceptor's 16-byte "version answer". The
 * acceptor's reactions to each kind of first bytes are in §10.1; this
 * file only tells them apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "wire/bytes.h"
#include "wire/wire.h"

static uint32_t swab32(uint32_t v)
{
	return __builtin_bswap32(v);
}

int ul_wire_acr_classify(const void *buf, size_t len,
			 enum ul_wire_acr_verdict *verdict, size_t *size)
{
	const uint8_t *p = buf;
	uint32_t magic;
	uint32_t version;

	if (len < 4) {
		*size = 4;
		return -ENOMSG;
	}
	magic = ul_get_le32(p);
	if (magic != UL_WIRE_ACCEPTOR_MAGIC &&
	    magic != swab32(UL_WIRE_ACCEPTOR_MAGIC)) {
		/*
		 * §10.1: a hello sent without a request (either order) gets
		 * the version answer; the V1 TCP magic (either order, as the
		 * kernel's acceptor checks) is only logged.
		 */
		if (magic == UL_WIRE_PROTO_MAGIC ||
		    magic == swab32(UL_WIRE_PROTO_MAGIC))
			*verdict = UL_WIRE_ACR_HELLO;
		else if (magic == UL_WIRE_TCP_MAGIC ||
			 magic == swab32(UL_WIRE_TCP_MAGIC))
			*verdict = UL_WIRE_ACR_OLD_TCP;
		else
			*verdict = UL_WIRE_ACR_BAD_MAGIC;
		*size = 4;
		return 0;
	}
	if (len < 8) {
		*size = 8;
		return -ENOMSG;
	}
	version = ul_get_host32(p + 4, magic != UL_WIRE_ACCEPTOR_MAGIC);
	if (version == UL_WIRE_ACCEPTOR_VERSION) {
		*verdict = UL_WIRE_ACR_OK;
		*size = UL_WIRE_ACR_SIZE;
	} else if (version == UL_WIRE_ACCEPTOR_VERSION_16) {
		*verdict = UL_WIRE_ACR_OK;
		*size = UL_WIRE_ACR_V2_SIZE;
	} else {
		*verdict = UL_WIRE_ACR_BAD_VERSION;
		*size = 8;
	}
	return 0;
}

int ul_wire_acr_decode(const void *buf, size_t len, struct ul_wire_acr *acr,
		       struct ul_err *err)
{
	const uint8_t *p = buf;
	enum ul_wire_acr_verdict verdict;
	struct ul_wire_acr a;
	size_t size;
	int rc;

	rc = ul_wire_acr_classify(buf, len, &verdict, &size);
	if (rc == -ENOMSG)
		return ul_err_set(err, rc,
				  "acceptor request: %zu of at least %zu bytes",
				  len, size);
	switch (verdict) {
	case UL_WIRE_ACR_OK:
		break;
	case UL_WIRE_ACR_HELLO:
		return ul_err_set(err, -EPROTO,
				  "acceptor request: got a hello magic, "
				  "no request in front of it");
	case UL_WIRE_ACR_OLD_TCP:
		return ul_err_set(err, -EPROTO,
				  "acceptor request: 'old' socknal/tcpnal "
				  "magic 0x%08x",
				  ul_get_le32(p));
	case UL_WIRE_ACR_BAD_MAGIC:
		return ul_err_set(err, -EPROTO,
				  "acceptor request: bad magic 0x%08x",
				  ul_get_le32(p));
	case UL_WIRE_ACR_BAD_VERSION:
		return ul_err_set(
			err, -EPROTONOSUPPORT,
			"acceptor request: unknown version 0x%08x",
			ul_get_host32(p + 4, ul_get_le32(p) !=
						     UL_WIRE_ACCEPTOR_MAGIC));
	}
	if (len < size)
		return ul_err_set(err, -ENOMSG,
				  "acceptor request: %zu of %zu bytes", len,
				  size);

	memset(&a, 0, sizeof(a));
	a.is_swapped = ul_get_le32(p) != UL_WIRE_ACCEPTOR_MAGIC;
	a.version = ul_get_host32(p + 4, a.is_swapped);
	if (a.version == UL_WIRE_ACCEPTOR_VERSION) {
		rc = ul_wire_nid4_to_nid(ul_get_host64(p + 8, a.is_swapped),
					 &a.nid, err);
		if (rc < 0)
			return rc;
	} else {
		/* §6: the 20-byte NID is never swapped. */
		ul_wire_nid_get(p + 8, &a.nid);
	}
	*acr = a;
	return (int)size;
}

int ul_wire_acr_encode(const struct ul_wire_acr *acr, void *buf, size_t cap,
		       struct ul_err *err)
{
	uint8_t *p = buf;
	uint64_t nid4;
	size_t size;
	int rc;

	if (acr->version == UL_WIRE_ACCEPTOR_VERSION)
		size = UL_WIRE_ACR_SIZE;
	else if (acr->version == UL_WIRE_ACCEPTOR_VERSION_16)
		size = UL_WIRE_ACR_V2_SIZE;
	else
		return ul_err_set(err, -EINVAL,
				  "acceptor request: cannot encode version %u",
				  acr->version);
	if (cap < size)
		return ul_err_set(err, -ENOSPC,
				  "acceptor request: %zu bytes, room for %zu",
				  size, cap);
	ul_put_host32(p, UL_WIRE_ACCEPTOR_MAGIC, acr->is_swapped);
	ul_put_host32(p + 4, acr->version, acr->is_swapped);
	if (size == UL_WIRE_ACR_SIZE) {
		rc = ul_wire_nid_to_nid4(&acr->nid, &nid4, err);
		if (rc < 0)
			return rc;
		ul_put_host64(p + 8, nid4, acr->is_swapped);
	} else {
		ul_wire_nid_put(p + 8, &acr->nid);
	}
	return (int)size;
}

int ul_wire_acr_encode_version_answer(void *buf, size_t cap)
{
	uint8_t *p = buf;

	if (cap < UL_WIRE_ACR_SIZE)
		return -ENOSPC;
	/* §5.1: magic, version 1 and a zero NID, in our (LE) order. */
	memset(p, 0, UL_WIRE_ACR_SIZE);
	ul_put_le32(p, UL_WIRE_ACCEPTOR_MAGIC);
	ul_put_le32(p + 4, UL_WIRE_ACCEPTOR_VERSION);
	return UL_WIRE_ACR_SIZE;
}
