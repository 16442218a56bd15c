/*
 * The request codec of the generic ops (proto.h, struct ul_ctl_args): one
 * table maps every field to its attribute id, wire type and presence bit,
 * and both directions walk it, so ulnetctl and ulnetd cannot disagree on
 * a field. Lists (NIDs, interfaces) are repeated attributes; the UDSP
 * rule is the kernel's block, carried as bytes and checked by whoever
 * decodes it as a rule (wire/udsp_block.h).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_int.h"
#include "nid/lnd.h"
#include "util/err.h"

struct arg_field {
	uint16_t id;
	uint8_t type; /* UL_CTL_T_U32, S32, U64, S64, STR or NID */
	uint16_t off; /* in struct ul_ctl_args */
	uint16_t size;
	uint64_t bit; /* UL_CTL_ARG_* */
};

#define F(id, t, field, bit)                                                   \
	{                                                                      \
		UL_CTL_A_ARG_##id, UL_CTL_T_##t,                               \
			offsetof(struct ul_ctl_args, field),                   \
			sizeof(((struct ul_ctl_args *)0)->field),              \
			UL_CTL_ARG_##bit                                       \
	}

static const struct arg_field fields[] = {
	F(VERBOSE, U32, verbose, VERBOSE),
	F(NID, NID, nid, NID),
	F(NID2, NID, nid2, NID2),
	F(LOCAL_NID, NID, local_nid, LOCAL_NID),
	F(NET, STR, net, NET),
	F(NAME, STR, name, NAME),
	F(CPT, STR, cpt, CPT),
	F(VALUE, S64, value, VALUE),
	F(PEER_TIMEOUT, S32, peer_timeout, PEER_TIMEOUT),
	F(PEER_CREDITS, S32, peer_credits, PEER_CREDITS),
	F(PEER_BUF_CREDITS, S32, peer_buffer_credits, PEER_BUF_CREDITS),
	F(CREDITS, S32, credits, CREDITS),
	F(CONNS_PER_PEER, S32, conns_per_peer, CONNS_PER_PEER),
	F(TOS, S32, tos, TOS),
	F(LND_TIMEOUT, S32, lnd_timeout, LND_TIMEOUT),
	F(HEALTH, S32, health, HEALTH),
	F(HOP, S32, hop, HOP),
	F(PRIORITY, S32, priority, PRIORITY),
	F(IDX, S32, idx, IDX),
	F(STATE, U32, state, STATE),
	F(RATE, U32, rate, RATE),
	F(INTERVAL, U32, interval, INTERVAL),
	F(LATENCY, U32, latency, LATENCY),
	F(MSG_MASK, U32, msg_mask, MSG_MASK),
	F(HEALTH_MASK, U32, health_mask, HEALTH_MASK),
	F(PTL_MASK, U64, ptl_mask, PTL_MASK),
	F(TIMEOUT_MS, U32, timeout_ms, TIMEOUT_MS),
	F(NUMA, S32, numa, NUMA),
};

#undef F

bool ul_ctl_op_is_generic(uint16_t op)
{
	return (op >= UL_CTL_OP_NET_ADD && op <= UL_CTL_OP_ROUTING_SHOW) ||
	       (op >= UL_CTL_OP_LNET_CONFIGURE && op <= UL_CTL_OP_PARAM_SET);
}

bool ul_ctl_op_is_batchable(uint16_t op)
{
	switch (op) {
	case UL_CTL_OP_NET_ADD:
	case UL_CTL_OP_NET_DEL:
	case UL_CTL_OP_NET_SET:
	case UL_CTL_OP_PEER_ADD:
	case UL_CTL_OP_PEER_DEL:
	case UL_CTL_OP_PEER_SET:
	case UL_CTL_OP_ROUTE_ADD:
	case UL_CTL_OP_ROUTE_DEL:
	case UL_CTL_OP_SET:
	case UL_CTL_OP_UDSP_ADD:
	case UL_CTL_OP_UDSP_DEL:
		return true;
	default:
		return false;
	}
}

void ul_ctl_args_encode(const struct ul_ctl_args *a, struct ul_ctl_msg *m)
{
	const uint8_t *base = (const uint8_t *)a;
	size_t i;

	ul_ctl_put_u64(m, UL_CTL_A_ARG_HAS, a->has);
	if (a->flags)
		ul_ctl_put_u32(m, UL_CTL_A_ARG_FLAGS, a->flags);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct arg_field *f = &fields[i];
		const void *p = base + f->off;
		uint32_t u32;
		int32_t s32;
		uint64_t u64;
		int64_t s64;

		if (!(a->has & f->bit))
			continue;
		switch (f->type) {
		case UL_CTL_T_U32:
			memcpy(&u32, p, sizeof(u32));
			ul_ctl_put_u32(m, f->id, u32);
			break;
		case UL_CTL_T_S32:
			memcpy(&s32, p, sizeof(s32));
			ul_ctl_put_s32(m, f->id, s32);
			break;
		case UL_CTL_T_U64:
			memcpy(&u64, p, sizeof(u64));
			ul_ctl_put_u64(m, f->id, u64);
			break;
		case UL_CTL_T_S64:
			memcpy(&s64, p, sizeof(s64));
			ul_ctl_put_s64(m, f->id, s64);
			break;
		case UL_CTL_T_STR:
			ul_ctl_put_str(m, f->id, p);
			break;
		default:
			ul_ctl_put_nid(m, f->id, p);
			break;
		}
	}
	if (a->has & UL_CTL_ARG_NIDS)
		for (i = 0; i < a->nnids && i < UL_CTL_ARGS_NIDS_MAX; i++)
			ul_ctl_put_nid(m, UL_CTL_A_ARG_NIDS, &a->nids[i]);
	if (a->has & UL_CTL_ARG_IFS)
		for (i = 0; i < a->nifs && i < UL_CTL_ARGS_IFS_MAX; i++)
			ul_ctl_put_str(m, UL_CTL_A_ARG_IFS, a->ifs[i]);
	if (a->has & UL_CTL_ARG_UDSP_BLOCK)
		ul_ctl_put_bytes(m, UL_CTL_A_ARG_UDSP_BLOCK, a->udsp_block,
				 a->udsp_len);
}

static const struct arg_field *field_of(uint16_t id)
{
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].id == id)
			return &fields[i];
	return NULL;
}

/* A NID no string names (unknown LND, bad size): not kept, -EPROTO. */
static int bad_nid(const struct ul_ctl_attr *a, const struct ulnet_nid *nid,
		   struct ul_err *err)
{
	return ul_err_set(err, -EPROTO,
			  "control attribute 0x%04x: not a NID (net type %u, "
			  "address size %u)",
			  a->type, nid->nid_type, nid->nid_size + 4u);
}

static int dec_list(struct ul_ctl_args *out, const struct ul_ctl_attr *a,
		    struct ul_err *err)
{
	if (a->type == UL_CTL_A_ARG_NIDS) {
		if (out->nnids == UL_CTL_ARGS_NIDS_MAX)
			return ul_err_set(err, -EPROTO,
					  "control request: more than %d NIDs",
					  UL_CTL_ARGS_NIDS_MAX);
		ul_ctl_attr_nid(a, &out->nids[out->nnids]);
		if (!ul_nid_is_well_formed(&out->nids[out->nnids]))
			return bad_nid(a, &out->nids[out->nnids], err);
		out->nnids++;
		return 0;
	}
	if (out->nifs == UL_CTL_ARGS_IFS_MAX)
		return ul_err_set(err, -EPROTO,
				  "control request: more than %d interfaces",
				  UL_CTL_ARGS_IFS_MAX);
	if (a->len > UL_CTL_IFNAME_MAX)
		return ul_err_set(err, -EPROTO,
				  "control request: interface name of %u "
				  "bytes, limit %d",
				  a->len - 1, UL_CTL_IFNAME_MAX - 1);
	memcpy(out->ifs[out->nifs++], a->val, a->len);
	return 0;
}

/* One attribute of a generic request into *out. */
static int dec_attr(struct ul_ctl_args *out, uint64_t *seen,
		    const struct ul_ctl_attr *a, struct ul_err *err)
{
	const struct arg_field *f;
	uint8_t *p;

	switch (a->type) {
	case UL_CTL_A_ARG_HAS:
		out->has = ul_ctl_attr_u64(a);
		return 0;
	case UL_CTL_A_ARG_FLAGS:
		out->flags = ul_ctl_attr_u32(a);
		return 0;
	case UL_CTL_A_ARG_NIDS:
	case UL_CTL_A_ARG_IFS:
		*seen |= a->type == UL_CTL_A_ARG_NIDS ? UL_CTL_ARG_NIDS
						      : UL_CTL_ARG_IFS;
		return dec_list(out, a, err);
	case UL_CTL_A_ARG_UDSP_BLOCK:
		*seen |= UL_CTL_ARG_UDSP_BLOCK;
		out->udsp_block = a->val;
		out->udsp_len = a->len;
		return 0;
	default:
		break;
	}
	f = field_of(a->type);
	if (!f)
		return 0; /* an id of another op: skipped as proto.h says */
	p = (uint8_t *)out + f->off;
	if (f->type == UL_CTL_T_STR) {
		if (a->len > f->size)
			return ul_err_set(err, -EPROTO,
					  "control attribute 0x%04x: string "
					  "of %u bytes, limit %u",
					  a->type, a->len - 1,
					  (unsigned int)f->size - 1);
		memcpy(p, a->val, a->len);
	} else if (f->type == UL_CTL_T_NID) {
		struct ulnet_nid nid;

		ul_ctl_attr_nid(a, &nid);
		if (!ul_nid_is_well_formed(&nid))
			return bad_nid(a, &nid, err);
		memcpy(p, &nid, sizeof(nid));
	} else if (f->type == UL_CTL_T_U32) {
		uint32_t v = ul_ctl_attr_u32(a);

		memcpy(p, &v, sizeof(v));
	} else if (f->type == UL_CTL_T_S32) {
		int32_t v = ul_ctl_attr_s32(a);

		memcpy(p, &v, sizeof(v));
	} else if (f->type == UL_CTL_T_U64) {
		uint64_t v = ul_ctl_attr_u64(a);

		memcpy(p, &v, sizeof(v));
	} else {
		int64_t v = ul_ctl_attr_s64(a);

		memcpy(p, &v, sizeof(v));
	}
	*seen |= f->bit;
	return 0;
}

int ul_ctl_args_decode(const uint8_t *payload, size_t len,
		       struct ul_ctl_args *out, struct ul_err *err)
{
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	uint64_t seen = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	ul_ctl_iter_init(&it, payload, len);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		rc = dec_attr(out, &seen, &a, err);
		if (rc)
			return rc;
	}
	if (rc < 0)
		return rc;
	/* A field the sender announced must have come, and the reverse. */
	if ((out->has & ~(uint64_t)(UL_CTL_ARG_NIDS | UL_CTL_ARG_IFS)) !=
	    (seen & ~(uint64_t)(UL_CTL_ARG_NIDS | UL_CTL_ARG_IFS)))
		return ul_err_set(err, -EPROTO,
				  "control request: fields 0x%llx announced, "
				  "0x%llx sent",
				  (unsigned long long)out->has,
				  (unsigned long long)seen);
	return 0;
}

/* ---- Batches --------------------------------------------------------- */

void ul_ctl_batch_init(struct ul_ctl_msg *items)
{
	ul_ctl_msg_init(items, UL_CTL_OP_BATCH);
}

void ul_ctl_batch_add(struct ul_ctl_msg *items, const struct ul_ctl_args *a)
{
	ul_ctl_nest_start(items, UL_CTL_A_BATCH_ITEM);
	ul_ctl_args_encode(a, items);
	ul_ctl_nest_end(items);
}

void ul_ctl_batch_items(const struct ul_ctl_msg *items, uint32_t n,
			struct ul_ctl_batch_req *b)
{
	b->n = n;
	b->items = items->buf + UL_CTL_HDR_SIZE;
	b->len = items->len - UL_CTL_HDR_SIZE;
}

void ul_ctl_batch_iter(const struct ul_ctl_batch_req *b, struct ul_ctl_iter *it)
{
	ul_ctl_iter_init(it, b->items, b->len);
}

int ul_ctl_batch_next(struct ul_ctl_iter *it, struct ul_ctl_args *a,
		      struct ul_err *err)
{
	struct ul_ctl_attr item;
	int rc;

	rc = ul_ctl_iter_next(it, &item, err);
	if (rc <= 0)
		return rc;
	if (item.type != UL_CTL_A_BATCH_ITEM)
		return ul_err_set(err, -EPROTO,
				  "control request: attribute 0x%04x among "
				  "a batch's items",
				  item.type);
	rc = ul_ctl_args_decode(item.val, item.len, a, err);
	return rc ? rc : 1;
}
