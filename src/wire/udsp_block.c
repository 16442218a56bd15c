/*
 * The UDSP rule block: encoder and bounds-checked decoder. The layout and
 * the decoder's rules are in udsp_block.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nid/lnd.h"
#include "nid/nid_descr.h"
#include "wire/bytes.h"
#include "wire/udsp_block.h"

#define DESCR_HEAD_SIZE 16
#define RANGE_SIZE 12
#define EXPR_HEAD_SIZE 4
#define VERSION_OLD 0x0001000au

/* The three descriptors in block order, with their tags (§8.3). */
static const struct {
	const char *name;
	uint32_t tag;
} descr_slots[3] = {
	{ "SRC", 0x00435253u },
	{ "DST", 0x00545344u },
	{ "RTE", 0x00455452u },
};

/* ---- encode ---- */

static size_t expr_size(const struct ul_expr *e)
{
	return e ? (size_t)e->nr * RANGE_SIZE : 0;
}

static size_t descr_size(const struct ul_nid_descr *d)
{
	size_t size = DESCR_HEAD_SIZE;
	unsigned int i;

	if (!d)
		return size;
	size += expr_size(d->net_num);
	for (i = 0; i < d->nr_addr; i++)
		size += EXPR_HEAD_SIZE + expr_size(d->addr[i]);
	return size;
}

size_t ul_udsp_block_size(const struct ul_udsp_block *r)
{
	return UL_UDSP_BLOCK_HDR_SIZE + descr_size(r->src) +
	       descr_size(r->dst) + descr_size(r->rte);
}

static uint8_t *put_ranges(uint8_t *p, const struct ul_expr *e)
{
	unsigned int i;

	for (i = 0; e && i < e->nr; i++, p += RANGE_SIZE) {
		ul_put_le32(p, e->r[i].lo);
		ul_put_le32(p + 4, e->r[i].hi);
		ul_put_le32(p + 8, e->r[i].stride);
	}
	return p;
}

static uint8_t *put_descr(uint8_t *p, unsigned int slot,
			  const struct ul_nid_descr *d)
{
	unsigned int i;

	memset(p, 0, DESCR_HEAD_SIZE);
	ul_put_le32(p, descr_slots[slot].tag);
	if (!d)
		return p + DESCR_HEAD_SIZE;
	ul_put_le32(p + 4, d->nr_addr);
	ul_put_le32(p + 8, d->net_type);
	ul_put_le32(p + 12, d->net_num ? d->net_num->nr : 0);
	p = put_ranges(p + DESCR_HEAD_SIZE, d->net_num);
	for (i = 0; i < d->nr_addr; i++) {
		ul_put_le32(p, d->addr[i]->nr);
		p = put_ranges(p + EXPR_HEAD_SIZE, d->addr[i]);
	}
	return p;
}

int ul_udsp_block_encode(const struct ul_udsp_block *r, uint8_t *buf,
			 size_t len, struct ul_err *err)
{
	const struct ul_nid_descr *descrs[3] = { r->src, r->dst, r->rte };
	size_t size = ul_udsp_block_size(r);
	uint8_t *p = buf;
	unsigned int slot;

	if (size > UL_UDSP_BLOCK_MAX)
		return ul_err_set(err, -EMSGSIZE,
				  "rule needs %zu bytes, more than %u", size,
				  UL_UDSP_BLOCK_MAX);
	if (len < size)
		return ul_err_set(err, -ENOSPC,
				  "rule needs %zu bytes, buffer has %zu", size,
				  len);
	ul_put_le32(p, (uint32_t)size);
	ul_put_le32(p + 4, UL_UDSP_BLOCK_VERSION);
	ul_put_le32(p + 8, (uint32_t)r->idx);
	ul_put_le32(p + 12, (uint32_t)r->action_type);
	ul_put_le32(p + 16, (uint32_t)(size - UL_UDSP_BLOCK_HDR_SIZE));
	ul_put_le32(p + 20, r->action_type == UL_UDSP_BLOCK_ACTION_PRIORITY
				    ? r->priority
				    : 0);
	ul_put_le64(p + 24, 0); /* iou_bulk: no address in a byte stream */
	p += UL_UDSP_BLOCK_HDR_SIZE;
	for (slot = 0; slot < 3; slot++)
		p = put_descr(p, slot, descrs[slot]);
	return 0;
}

/* ---- decode ---- */

struct reader {
	const uint8_t *p;
	size_t left; /* bytes from p to the end of the block */
	size_t off;  /* offset of p in the block, for messages */
	struct ul_err *err;
};

static bool take(struct reader *rd, size_t n, const uint8_t **out)
{
	if (rd->left < n)
		return false;
	*out = rd->p;
	rd->p += n;
	rd->left -= n;
	rd->off += n;
	return true;
}

/* count ranges at rd, each value <= max, into a new expression. */
static int get_ranges(struct reader *rd, const char *slot, const char *what,
		      uint32_t count, uint32_t max, struct ul_expr **out)
{
	const uint8_t *p;
	struct ul_expr *e;
	size_t start;
	uint32_t i;

	if (count == 0 || count > UL_EXPR_MAX_RANGES)
		return ul_err_set(rd->err, -EINVAL,
				  "%s %s: %u ranges, must be 1..%u", slot, what,
				  count, UL_EXPR_MAX_RANGES);
	/* Bounds before allocation: count is bounded by the bytes present. */
	start = rd->off;
	if (rd->left / RANGE_SIZE < count ||
	    !take(rd, (size_t)count * RANGE_SIZE, &p))
		return ul_err_set(rd->err, -EPROTO,
				  "%s %s: %u ranges truncated at offset %zu",
				  slot, what, count, rd->off);
	e = malloc(sizeof(*e) + count * sizeof(e->r[0]));
	if (!e)
		return ul_err_set(rd->err, -ENOMEM, "out of memory");
	e->nr = count;
	for (i = 0; i < count; i++, p += RANGE_SIZE) {
		e->r[i].lo = ul_get_le32(p);
		e->r[i].hi = ul_get_le32(p + 4);
		e->r[i].stride = ul_get_le32(p + 8);
		if (e->r[i].lo > e->r[i].hi || e->r[i].hi > max ||
		    e->r[i].stride == 0) {
			ul_err_fmt(rd->err, -EINVAL,
				   "%s %s: bad range %u-%u/%u at offset %zu",
				   slot, what, e->r[i].lo, e->r[i].hi,
				   e->r[i].stride,
				   start + (size_t)i * RANGE_SIZE);
			ul_expr_free(e);
			return -EINVAL;
		}
	}
	*out = e;
	return 0;
}

static int get_descr_body(struct reader *rd, const char *slot,
			  struct ul_nid_descr *d, uint32_t nr_addr,
			  uint32_t net_ranges)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_type(d->net_type);
	const uint8_t *p;
	unsigned int i;
	uint32_t want;
	int rc;

	if (!lnd)
		return ul_err_set(rd->err, -EINVAL, "%s: unknown net type %u",
				  slot, d->net_type);
	want = ul_lnd_is_ip(lnd) ? 4 : 1;
	if (net_ranges > 1)
		return ul_err_set(rd->err, -EINVAL,
				  "%s: %u net number ranges, at most 1 allowed",
				  slot, net_ranges);
	if (nr_addr != 0 && nr_addr != want)
		return ul_err_set(rd->err, -EINVAL,
				  "%s: %u address expressions, %s takes %u",
				  slot, nr_addr, lnd->name, want);
	if (net_ranges) {
		rc = get_ranges(rd, slot, "net number", net_ranges,
				UL_EXPR_NUM_MAX, &d->net_num);
		if (rc)
			return rc;
	}
	for (i = 0; i < nr_addr; i++) {
		if (!take(rd, EXPR_HEAD_SIZE, &p))
			return ul_err_set(rd->err, -EPROTO,
					  "%s: address expression %u truncated "
					  "at offset %zu",
					  slot, i, rd->off);
		/* The expression is counted only once it holds ranges. */
		rc = get_ranges(rd, slot, "address", ul_get_le32(p),
				want == 4 ? UL_EXPR_OCTET_MAX : UL_EXPR_NUM_MAX,
				&d->addr[i]);
		if (rc)
			return rc;
		d->nr_addr = i + 1;
	}
	return 0;
}

static int get_descr(struct reader *rd, unsigned int slot,
		     struct ul_nid_descr **out)
{
	const char *name = descr_slots[slot].name;
	uint32_t tag, nr_addr, net_type, net_ranges;
	struct ul_nid_descr *d;
	const uint8_t *p;
	int rc;

	if (!take(rd, DESCR_HEAD_SIZE, &p))
		return ul_err_set(rd->err, -EPROTO,
				  "%s descriptor truncated at offset %zu", name,
				  rd->off);
	tag = ul_get_le32(p);
	nr_addr = ul_get_le32(p + 4);
	net_type = ul_get_le32(p + 8);
	net_ranges = ul_get_le32(p + 12);
	if (tag != descr_slots[slot].tag)
		return ul_err_set(rd->err, -EPROTO,
				  "descriptor at offset %zu has tag 0x%08x, "
				  "expected %s",
				  rd->off - DESCR_HEAD_SIZE, tag, name);
	if (net_type == 0) {
		if (nr_addr || net_ranges)
			return ul_err_set(rd->err, -EPROTO,
					  "absent %s descriptor has counts "
					  "%u and %u",
					  name, nr_addr, net_ranges);
		*out = NULL;
		return 0;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return ul_err_set(rd->err, -ENOMEM, "out of memory");
	d->net_type = net_type;
	rc = get_descr_body(rd, name, d, nr_addr, net_ranges);
	if (rc) {
		ul_nid_descr_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void ul_udsp_block_fini(struct ul_udsp_block *b)
{
	ul_nid_descr_free(b->src);
	ul_nid_descr_free(b->dst);
	ul_nid_descr_free(b->rte);
	memset(b, 0, sizeof(*b));
}

int ul_udsp_block_decode(const uint8_t *buf, size_t len,
			 struct ul_udsp_block *out, struct ul_err *err)
{
	struct reader rd = { .p = buf, .left = len, .err = err };
	struct ul_nid_descr **descrs[3];
	uint32_t ioc_len, version, action, bulk_size;
	struct ul_udsp_block b = { 0 };
	const uint8_t *p;
	unsigned int slot;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > UL_UDSP_BLOCK_MAX)
		return ul_err_set(err, -EPROTO,
				  "rule block of %zu bytes, at most %u", len,
				  UL_UDSP_BLOCK_MAX);
	if (!take(&rd, UL_UDSP_BLOCK_HDR_SIZE, &p))
		return ul_err_set(err, -EPROTO,
				  "rule block of %zu bytes is shorter than its "
				  "%u-byte header",
				  len, UL_UDSP_BLOCK_HDR_SIZE);
	ioc_len = ul_get_le32(p);
	version = ul_get_le32(p + 4);
	action = ul_get_le32(p + 12);
	bulk_size = ul_get_le32(p + 16);
	if (ioc_len != len)
		return ul_err_set(err, -EPROTO,
				  "ioc_len %u but the block has %zu bytes",
				  ioc_len, len);
	if (version != UL_UDSP_BLOCK_VERSION && version != VERSION_OLD)
		return ul_err_set(err, -EPROTO, "unknown version 0x%08x",
				  version);
	if (bulk_size != len - UL_UDSP_BLOCK_HDR_SIZE)
		return ul_err_set(err, -EPROTO,
				  "descriptor area of %u bytes, block has %zu",
				  bulk_size, len - UL_UDSP_BLOCK_HDR_SIZE);
	if (action > UL_UDSP_BLOCK_ACTION_PREF_LIST)
		return ul_err_set(err, -EINVAL, "unknown action type %u",
				  action);
	b.idx = (int32_t)ul_get_le32(p + 8);
	b.action_type = action;
	if (b.action_type == UL_UDSP_BLOCK_ACTION_PRIORITY)
		b.priority = ul_get_le32(p + 20);
	descrs[0] = &b.src;
	descrs[1] = &b.dst;
	descrs[2] = &b.rte;
	for (slot = 0; slot < 3; slot++) {
		rc = get_descr(&rd, slot, descrs[slot]);
		if (rc)
			goto fail;
	}
	if (rd.left) {
		rc = ul_err_set(err, -EPROTO,
				"%zu bytes after the RTE descriptor", rd.left);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	ul_udsp_block_fini(&b);
	return rc;
}
