/*
 * Ping info (wire.md §5.9, §8): the payload of a ping REPLY and of a
 * discovery push PUT. Layout:
 *
 *   header      16 bytes: pi_magic, pi_features, pi_pid, pi_nnis
 *   pi_ni[]     pi_nnis 16-byte entries: u64 NID, ns_status, ns_msg_size
 *   large[]     with LARGE_ADDR: u32 ns_status + 20-byte NID, each taking
 *               4 + nid_size + 8 bytes rounded up to 4, up to entry 0's
 *               ns_msg_size (the total size of header and entries)
 *   metadata    with METADATA: u32 count, then count 40-byte entries
 *
 * Everything is in the sender's host order except the 20-byte NIDs.
 * The counts come from the network, so each is checked against the bytes
 * present before it is used, and nothing is allocated here.
 *
 * Entry limit. A kernel starts at most lnet_interfaces_max NIs, 0@lo
 * included, whatever their NID form, so the ping info it sends holds at
 * most that many entries in all: 64-bit and large together. Its receive
 * check bounds only pi_nnis; the large entries are bounded by the buffer
 * it posted. We apply the sender's rule to both kinds: pi_nnis + large
 * entries <= UL_WIRE_INTERFACES_MAX, on decode and on encode alike, which
 * also bounds every size below UL_WIRE_PING_INFO_MAX_SIZE.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "wire/bytes.h"
#include "wire/wire.h"

#define NS_NID 0
#define NS_STATUS 8
#define NS_MSG_SIZE 12
#define NID_SIZE_MAX 12 /* 16-byte address: the whole 20-byte form */
/* Header and entries, without metadata, at the entry limit. */
#define ENTRIES_MAX_SIZE                                                       \
	(UL_WIRE_PING_HDR_SIZE +                                               \
	 (size_t)UL_WIRE_INTERFACES_MAX * UL_WIRE_PING_LARGE_NI_MAX_SIZE)

/* Sizes are returned as int and held in u32: keep them far from both. */
_Static_assert(UL_WIRE_PING_INFO_MAX_SIZE < INT_MAX / 2,
	       "ping info sizes must fit an int");

static size_t large_entry_size(unsigned int nid_size)
{
	return (4 + nid_size + 8 + 3) & ~(size_t)3;
}

/*
 * The checks decode and encode share, so that encode refuses exactly what
 * decode would; code is -EPROTO for bytes, -EINVAL for a struct.
 */
static int check_features(uint32_t features, int code, struct ul_err *err)
{
	if (!(features & UL_WIRE_PING_FEAT_NI_STATUS))
		return ul_err_set(err, code,
				  "ping info: features 0x%x lack NI_STATUS",
				  features);
	return 0;
}

static int check_entry_count(size_t n, int code, struct ul_err *err)
{
	if (n > UL_WIRE_INTERFACES_MAX)
		return ul_err_set(err, code,
				  "ping info: more than %u entries in all "
				  "(64-bit and large)",
				  UL_WIRE_INTERFACES_MAX);
	return 0;
}

/*
 * A 4-byte address has a 64-bit entry, and the kernel steps over such a
 * large entry (and an ANY NID) by a different stride than the 12 bytes
 * of §5.9, so such an entry cannot be read reliably: refuse it.
 */
static int check_large_nid_size(unsigned int nid_size, size_t where, int code,
				struct ul_err *err)
{
	if (nid_size == 0 || nid_size > NID_SIZE_MAX)
		return ul_err_set(err, code,
				  "ping info: large entry %zu has nid_size %u, "
				  "not 1..%u",
				  where, nid_size, NID_SIZE_MAX);
	return 0;
}

/* Reads the large entries between end and total; see parse(). */
static int parse_large(const uint8_t *p, size_t end, uint32_t total,
		       struct ul_wire_ping_info *info,
		       struct ul_wire_ping_ni *nis, struct ul_err *err)
{
	bool sw = info->is_swapped;
	size_t off;
	int rc;

	for (off = end; off < total; info->nlarge++) {
		uint8_t raw[UL_WIRE_NID_SIZE] = { 0 };
		struct ulnet_nid nid;
		unsigned int nid_size;
		size_t esize;

		rc = check_entry_count((size_t)info->nnis + info->nlarge + 1,
				       -EPROTO, err);
		if (rc < 0)
			return rc;
		/* ns_status and the NID's size byte. */
		if (total - off < 5)
			return ul_err_set(err, -EPROTO,
					  "ping info: %zu stray bytes at the "
					  "end of large entries",
					  total - off);
		nid_size = p[off + 4];
		rc = check_large_nid_size(nid_size, off, -EPROTO, err);
		if (rc < 0)
			return rc;
		esize = large_entry_size(nid_size);
		if (total - off < esize)
			return ul_err_set(err, -EPROTO,
					  "ping info: large entry at %zu "
					  "overruns ns_msg_size %u",
					  off, total);
		/* Only nid_size + 8 bytes belong to it. */
		memcpy(raw, p + off + 4, nid_size + 8);
		ul_wire_nid_get(raw, &nid);
		/*
		 * LNet takes any NID of type 0xff for the wildcard, which has
		 * a 64-bit form: as a large entry it could not come back.
		 */
		if (ulnet_nid_is_any(&nid))
			return ul_err_set(err, -EPROTO,
					  "ping info: large entry at %zu is "
					  "the ANY NID",
					  off);
		if (nis) {
			struct ul_wire_ping_ni *n =
				&nis[info->nnis + info->nlarge];

			memset(n, 0, sizeof(*n));
			n->status = ul_get_host32(p + off, sw);
			n->nid = nid;
			n->is_large = true;
		}
		off += esize;
	}
	return 0;
}

/*
 * Parse buf; with nis != NULL (cap already checked) also fill the
 * entries. Returns the info's size or a negative errno.
 */
static int parse(const uint8_t *p, size_t len, struct ul_wire_ping_info *pi,
		 struct ul_wire_ping_ni *nis, struct ul_err *err)
{
	struct ul_wire_ping_info info;
	struct ulnet_nid nid;
	size_t end;
	uint64_t nid4;
	uint32_t i;
	bool sw;
	int rc;

	/*
	 * No valid info is longer than this, and bytes after the info are
	 * never looked at, so a caller's larger len changes no answer; it
	 * keeps every size below in int range whatever len was passed.
	 */
	if (len > UL_WIRE_PING_INFO_MAX_SIZE)
		len = UL_WIRE_PING_INFO_MAX_SIZE;
	if (len < UL_WIRE_PING_HDR_SIZE)
		return ul_err_set(err, -ENOMSG, "ping info: %zu of 16 bytes",
				  len);
	memset(&info, 0, sizeof(info));
	if (ul_get_le32(p) == UL_WIRE_PING_MAGIC)
		sw = false;
	else if (ul_get_be32(p) == UL_WIRE_PING_MAGIC)
		sw = true;
	else
		return ul_err_set(err, -EPROTO, "ping info: bad magic 0x%08x",
				  ul_get_le32(p));
	info.is_swapped = sw;
	info.features = ul_get_host32(p + 4, sw);
	info.pid = ul_get_host32(p + 8, sw);
	info.nnis = ul_get_host32(p + 12, sw);

	/* §8.1: what a kernel requires before it uses the info. */
	rc = check_features(info.features, -EPROTO, err);
	if (rc < 0)
		return rc;
	if (info.nnis < 1 || info.nnis > UL_WIRE_INTERFACES_MAX)
		return ul_err_set(err, -EPROTO,
				  "ping info: pi_nnis %u not in 1..%u",
				  info.nnis, UL_WIRE_INTERFACES_MAX);
	end = UL_WIRE_PING_HDR_SIZE + (size_t)info.nnis * UL_WIRE_PING_NI_SIZE;
	if (len < end)
		return ul_err_set(err, -ENOMSG,
				  "ping info: %zu bytes, %u entries need %zu",
				  len, info.nnis, end);

	for (i = 0; i < info.nnis; i++) {
		const uint8_t *e = p + UL_WIRE_PING_HDR_SIZE +
				   (size_t)i * UL_WIRE_PING_NI_SIZE;

		nid4 = ul_get_host64(e + NS_NID, sw);
		if (i == 0 && nid4 != UL_WIRE_NID4_LO)
			return ul_err_set(err, -EPROTO,
					  "ping info: entry 0 is 0x%016" PRIx64
					  ", not 0@lo",
					  nid4);
		rc = ul_wire_nid4_to_nid(nid4, &nid, err);
		if (rc < 0)
			return rc;
		if (nis) {
			memset(&nis[i], 0, sizeof(nis[i]));
			nis[i].nid = nid;
			nis[i].status = ul_get_host32(e + NS_STATUS, sw);
		}
	}

	if (info.features & UL_WIRE_PING_FEAT_LARGE_ADDR) {
		uint32_t total = ul_get_host32(
			p + UL_WIRE_PING_HDR_SIZE + NS_MSG_SIZE, sw);

		if (total % 4 || total < end)
			return ul_err_set(err, -EPROTO,
					  "ping info: ns_msg_size %u is not a "
					  "multiple of 4 >= %zu",
					  total, end);
		/* Refused before asking for more bytes: they cannot help. */
		if (total > ENTRIES_MAX_SIZE)
			return ul_err_set(err, -EPROTO,
					  "ping info: ns_msg_size %u exceeds "
					  "the %zu bytes of %u entries",
					  total, ENTRIES_MAX_SIZE,
					  UL_WIRE_INTERFACES_MAX);
		if (len < total)
			return ul_err_set(err, -ENOMSG,
					  "ping info: %zu of %u bytes", len,
					  total);
		rc = parse_large(p, end, total, &info, nis, err);
		if (rc < 0)
			return rc;
		/* The one ns_msg_size with a meaning; the kernel ignores
		 * the others, so they are reported as 0. */
		if (nis)
			nis[0].msg_size = total;
		end = total;
	}

	if (info.features & UL_WIRE_PING_FEAT_METADATA) {
		uint32_t count;

		if (len - end < 4)
			return ul_err_set(err, -ENOMSG,
					  "ping info: metadata count missing");
		count = ul_get_host32(p + end, sw);
		/* The kernel never sends more than lnet_interfaces_max. */
		if (count > UL_WIRE_INTERFACES_MAX)
			return ul_err_set(err, -EPROTO,
					  "ping info: %u metadata entries, "
					  "more than %u",
					  count, UL_WIRE_INTERFACES_MAX);
		end += 4;
		if ((len - end) / UL_WIRE_PING_META_ENTRY_SIZE < count)
			return ul_err_set(err, -ENOMSG,
					  "ping info: %u metadata entries, "
					  "bytes for %zu",
					  count,
					  (len - end) /
						  UL_WIRE_PING_META_ENTRY_SIZE);
		info.nmeta = count;
		end += (size_t)count * UL_WIRE_PING_META_ENTRY_SIZE;
	}
	info.size = (uint32_t)end;
	*pi = info;
	return (int)end;
}

size_t ul_wire_ping_info_needed(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t need, total;
	uint32_t features, nnis;
	bool sw;

	if (len < UL_WIRE_PING_HDR_SIZE)
		return 0;
	if (ul_get_le32(p) == UL_WIRE_PING_MAGIC)
		sw = false;
	else if (ul_get_be32(p) == UL_WIRE_PING_MAGIC)
		sw = true;
	else
		return 0;
	features = ul_get_host32(p + 4, sw);
	nnis = ul_get_host32(p + 12, sw);
	if (nnis > UL_WIRE_INTERFACES_MAX)
		nnis = UL_WIRE_INTERFACES_MAX;
	need = UL_WIRE_PING_HDR_SIZE + (size_t)nnis * UL_WIRE_PING_NI_SIZE;
	if ((features & UL_WIRE_PING_FEAT_LARGE_ADDR) && nnis &&
	    len >= UL_WIRE_PING_HDR_SIZE + NS_MSG_SIZE + 4) {
		total = ul_get_host32(p + UL_WIRE_PING_HDR_SIZE + NS_MSG_SIZE,
				      sw);
		if (total > need)
			need = total;
	}
	return need > UL_WIRE_PING_INFO_MAX_SIZE ? UL_WIRE_PING_INFO_MAX_SIZE
						 : need;
}

int ul_wire_ping_info_check(const void *buf, size_t len,
			    struct ul_wire_ping_info *pi, struct ul_err *err)
{
	return parse(buf, len, pi, NULL, err);
}

int ul_wire_ping_info_decode(const void *buf, size_t len,
			     struct ul_wire_ping_info *pi,
			     struct ul_wire_ping_ni *nis, size_t cap,
			     struct ul_err *err)
{
	struct ul_wire_ping_info info;
	int rc;

	rc = parse(buf, len, &info, NULL, err);
	if (rc < 0)
		return rc;
	if ((size_t)info.nnis + info.nlarge > cap)
		return ul_err_set(err, -ENOSPC,
				  "ping info: %u entries, room for %zu",
				  info.nnis + info.nlarge, cap);
	return parse(buf, len, pi, nis, err);
}

size_t ul_wire_ping_info_size(const struct ul_wire_ping_ni *nis, size_t n)
{
	size_t size = UL_WIRE_PING_HDR_SIZE;
	uint64_t nid4;
	size_t i;

	for (i = 0; i < n; i++) {
		if (ul_wire_nid_to_nid4(&nis[i].nid, &nid4, NULL) == 0)
			size += UL_WIRE_PING_NI_SIZE;
		else
			size += large_entry_size(nis[i].nid.nid_size);
	}
	return size;
}

int ul_wire_ping_info_encode(const struct ul_wire_ping_info *pi,
			     const struct ul_wire_ping_ni *nis, size_t n,
			     void *buf, size_t cap, struct ul_err *err)
{
	bool sw = pi->is_swapped;
	uint8_t *p = buf;
	uint32_t features;
	uint32_t nnis = 0;
	size_t size;
	size_t off;
	uint8_t raw[UL_WIRE_NID_SIZE];
	uint64_t nid4;
	size_t i;
	size_t j;
	int rc;

	rc = check_features(pi->features, -EINVAL, err);
	if (rc < 0)
		return rc;
	if (n < 1)
		return ul_err_set(err, -EINVAL, "ping info: no entries");
	rc = check_entry_count(n, -EINVAL, err);
	if (rc < 0)
		return rc;
	if (ul_wire_nid_to_nid4(&nis[0].nid, &nid4, NULL) < 0 ||
	    nid4 != UL_WIRE_NID4_LO)
		return ul_err_set(err, -EINVAL,
				  "ping info: entry 0 is not 0@lo");
	for (i = 0; i < n; i++) {
		if (ul_wire_nid_to_nid4(&nis[i].nid, &nid4, NULL) == 0) {
			nnis++;
			continue;
		}
		rc = check_large_nid_size(nis[i].nid.nid_size, i, -EINVAL, err);
		if (rc < 0)
			return rc;
		/* Only nid_size + 8 bytes go on the wire: lose none. */
		ul_wire_nid_put(raw, &nis[i].nid);
		for (j = nis[i].nid.nid_size + 8u; j < sizeof(raw); j++)
			if (raw[j])
				return ul_err_set(err, -EINVAL,
						  "ping info: entry %zu has "
						  "address bytes beyond its "
						  "nid_size %u",
						  i, nis[i].nid.nid_size);
	}
	size = ul_wire_ping_info_size(nis, n);
	if (cap < size)
		return ul_err_set(err, -ENOSPC,
				  "ping info: %zu bytes, room for %zu", size,
				  cap);
	features = pi->features & ~(uint32_t)UL_WIRE_PING_FEAT_METADATA;
	if (nnis < n)
		features |= UL_WIRE_PING_FEAT_LARGE_ADDR;

	memset(p, 0, size);
	ul_put_host32(p, UL_WIRE_PING_MAGIC, sw);
	ul_put_host32(p + 4, features, sw);
	ul_put_host32(p + 8, pi->pid, sw);
	ul_put_host32(p + 12, nnis, sw);
	off = UL_WIRE_PING_HDR_SIZE;
	for (i = 0; i < n; i++) {
		if (ul_wire_nid_to_nid4(&nis[i].nid, &nid4, NULL) < 0)
			continue;
		ul_put_host64(p + off + NS_NID, nid4, sw);
		ul_put_host32(p + off + NS_STATUS, nis[i].status, sw);
		off += UL_WIRE_PING_NI_SIZE;
	}
	for (i = 0; i < n; i++) {
		if (ul_wire_nid_to_nid4(&nis[i].nid, &nid4, NULL) == 0)
			continue;
		ul_put_host32(p + off, nis[i].status, sw);
		ul_wire_nid_put(raw, &nis[i].nid);
		memcpy(p + off + 4, raw, nis[i].nid.nid_size + 8u);
		off += large_entry_size(nis[i].nid.nid_size);
	}
	/* §5.9: with LARGE_ADDR, entry 0's ns_msg_size is the total. */
	if (features & UL_WIRE_PING_FEAT_LARGE_ADDR)
		ul_put_host32(p + UL_WIRE_PING_HDR_SIZE + NS_MSG_SIZE,
			      (uint32_t)size, sw);
	return (int)size;
}
