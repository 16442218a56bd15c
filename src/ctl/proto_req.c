/*
 * The typed requests of the control protocol (proto.h: PING, NET_SHOW,
 * PEER_SHOW, PERF_PUT): one encoder and one decoder, used by ulnetctl and
 * the control server. The generic ops' requests are proto_args.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_int.h"
#include "util/err.h"

int ul_ctl_req_encode(const struct ul_ctl_req *req, struct ul_ctl_msg *m)
{
	size_t i;

	ul_ctl_msg_init(m, req->op);
	switch (req->op) {
	case UL_CTL_OP_PING:
		ul_ctl_put_nid(m, UL_CTL_A_NID, &req->ping.target);
		if (req->ping.has_src)
			ul_ctl_put_nid(m, UL_CTL_A_SRC_NID, &req->ping.src);
		if (req->ping.has_timeout)
			ul_ctl_put_u32(m, UL_CTL_A_TIMEOUT_MS,
				       req->ping.timeout_ms);
		break;
	case UL_CTL_OP_NET_SHOW:
		if (req->net_show.has_net)
			ul_ctl_put_str(m, UL_CTL_A_NET_NAME, req->net_show.net);
		ul_ctl_put_u32(m, UL_CTL_A_VERBOSE, req->net_show.verbose);
		break;
	case UL_CTL_OP_PEER_SHOW:
		if (req->peer_show.has_nid)
			ul_ctl_put_nid(m, UL_CTL_A_NID, &req->peer_show.nid);
		ul_ctl_put_u32(m, UL_CTL_A_VERBOSE, req->peer_show.verbose);
		if (req->peer_show.has_cursor)
			ul_ctl_put_u32(m, UL_CTL_A_CURSOR,
				       req->peer_show.cursor);
		break;
	case UL_CTL_OP_PERF_PUT:
		ul_ctl_put_nid(m, UL_CTL_A_NID, &req->perf.targets[0]);
		for (i = 1;
		     i < req->perf.ntargets && i < UL_CTL_PERF_TARGETS_MAX; i++)
			ul_ctl_put_nid(m, UL_CTL_A_PERF_TARGET,
				       &req->perf.targets[i]);
		ul_ctl_put_u32(m, UL_CTL_A_PERF_SIZE, req->perf.size);
		ul_ctl_put_u32(m, UL_CTL_A_PERF_DURATION_MS,
			       req->perf.duration_ms);
		ul_ctl_put_u32(m, UL_CTL_A_PERF_INFLIGHT, req->perf.inflight);
		if (req->perf.op)
			ul_ctl_put_u32(m, UL_CTL_A_PERF_OP, req->perf.op);
		if (req->perf.check)
			ul_ctl_put_u32(m, UL_CTL_A_PERF_CHECK, req->perf.check);
		break;
	case UL_CTL_OP_BATCH:
		ul_ctl_put_u32(m, UL_CTL_A_BATCH_OP, req->batch.op);
		ul_ctl_put_raw(m, req->batch.items, req->batch.len);
		break;
	default:
		if (ul_ctl_op_is_generic(req->op))
			ul_ctl_args_encode(&req->args, m);
		else if (!m->err)
			m->err = -EINVAL;
		break;
	}
	return ul_ctl_msg_finish(m);
}

static int ping_req_attr(struct ul_ctl_req *r, bool *has_target,
			 const struct ul_ctl_attr *a)
{
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &r->ping.target);
		*has_target = true;
		break;
	case UL_CTL_A_SRC_NID:
		ul_ctl_attr_nid(a, &r->ping.src);
		r->ping.has_src = true;
		break;
	case UL_CTL_A_TIMEOUT_MS:
		r->ping.timeout_ms = ul_ctl_attr_u32(a);
		r->ping.has_timeout = true;
		break;
	default:
		break;
	}
	return 0;
}

static int net_show_req_attr(struct ul_ctl_req *r, const struct ul_ctl_attr *a,
			     struct ul_err *err)
{
	switch (a->type) {
	case UL_CTL_A_NET_NAME:
		r->net_show.has_net = true;
		return ul_ctl_copy_str(a, r->net_show.net,
				       sizeof(r->net_show.net), err);
	case UL_CTL_A_VERBOSE:
		r->net_show.verbose = ul_ctl_attr_u32(a);
		break;
	default:
		break;
	}
	return 0;
}

static int peer_show_req_attr(struct ul_ctl_req *r, const struct ul_ctl_attr *a)
{
	switch (a->type) {
	case UL_CTL_A_NID:
		ul_ctl_attr_nid(a, &r->peer_show.nid);
		r->peer_show.has_nid = true;
		break;
	case UL_CTL_A_VERBOSE:
		r->peer_show.verbose = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_CURSOR:
		r->peer_show.cursor = ul_ctl_attr_u32(a);
		r->peer_show.has_cursor = true;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * The first four fields of a perf request are mandatory (bit i for field
 * i); op, check and further targets are not.
 */
static int perf_req_attr(struct ul_ctl_req *r, unsigned int *seen,
			 const struct ul_ctl_attr *a, struct ul_err *err)
{
	switch (a->type) {
	case UL_CTL_A_NID:
		if (*seen & 1u)
			return ul_err_set(err, -EPROTO,
					  "control request: two perf targets");
		ul_ctl_attr_nid(a, &r->perf.targets[0]);
		if (!r->perf.ntargets)
			r->perf.ntargets = 1;
		*seen |= 1u;
		break;
	case UL_CTL_A_PERF_TARGET:
		/* Room for the first is kept at index 0. */
		if (!r->perf.ntargets)
			r->perf.ntargets = 1;
		if (r->perf.ntargets >= UL_CTL_PERF_TARGETS_MAX)
			return ul_err_set(err, -EPROTO,
					  "control request: more than %d perf "
					  "targets",
					  UL_CTL_PERF_TARGETS_MAX);
		ul_ctl_attr_nid(a, &r->perf.targets[r->perf.ntargets++]);
		break;
	case UL_CTL_A_PERF_OP:
		r->perf.op = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_PERF_CHECK:
		r->perf.check = ul_ctl_attr_u32(a);
		break;
	case UL_CTL_A_PERF_SIZE:
		r->perf.size = ul_ctl_attr_u32(a);
		*seen |= 2u;
		break;
	case UL_CTL_A_PERF_DURATION_MS:
		r->perf.duration_ms = ul_ctl_attr_u32(a);
		*seen |= 4u;
		break;
	case UL_CTL_A_PERF_INFLIGHT:
		r->perf.inflight = ul_ctl_attr_u32(a);
		*seen |= 8u;
		break;
	default:
		break;
	}
	return 0;
}

static bool is_known_op(uint16_t op)
{
	return (op >= UL_CTL_OP_PING && op <= UL_CTL_OP_PEER_SHOW) ||
	       op == UL_CTL_OP_PERF_PUT || op == UL_CTL_OP_BATCH ||
	       ul_ctl_op_is_generic(op);
}

/*
 * A batch: BATCH_OP first, then only items, each decoded once here so
 * that a malformed one refuses the whole request before any is applied.
 */
static int batch_decode(const uint8_t *payload, size_t len,
			struct ul_ctl_batch_req *b, struct ul_err *err)
{
	struct ul_ctl_args *scratch;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	memset(b, 0, sizeof(*b));
	ul_ctl_iter_init(&it, payload, len);
	rc = ul_ctl_iter_next(&it, &a, err);
	if (rc < 0)
		return rc;
	if (rc == 0 || a.type != UL_CTL_A_BATCH_OP)
		return ul_err_set(err, -EPROTO,
				  "control request: batch without its op");
	/* one this side does not batch: the client goes on without */
	if (ul_ctl_attr_u32(&a) > UINT16_MAX ||
	    !ul_ctl_op_is_batchable((uint16_t)ul_ctl_attr_u32(&a)))
		return ul_err_set(err, -EOPNOTSUPP,
				  "control request: op %u cannot be batched",
				  ul_ctl_attr_u32(&a));
	b->op = (uint16_t)ul_ctl_attr_u32(&a);
	b->items = it.p;
	b->len = it.left;
	scratch = malloc(sizeof(*scratch));
	if (!scratch)
		return ul_err_set(err, -ENOMEM, "out of memory");
	while ((rc = ul_ctl_batch_next(&it, scratch, err)) > 0)
		if (++b->n > UL_CTL_BATCH_MAX) {
			rc = ul_err_set(err, -EPROTO,
					"control request: batch of more than "
					"%d items",
					UL_CTL_BATCH_MAX);
			break;
		}
	free(scratch);
	return rc;
}

int ul_ctl_req_decode(const void *frame, size_t len, struct ul_ctl_req *out,
		      struct ul_err *err)
{
	unsigned int perf_seen = 0;
	bool has_target = false;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	struct ul_ctl_hdr h;
	struct ul_ctl_req r;
	int rc;

	rc = ul_ctl_frame_open(frame, len, &h, err);
	if (rc)
		return rc;
	if (h.op & UL_CTL_OP_REPLY)
		return ul_err_set(err, -EPROTO,
				  "control request: op 0x%04x is a reply",
				  h.op);
	if (!is_known_op(h.op))
		return ul_err_set(err, -EOPNOTSUPP,
				  "control request: unknown op %u", h.op);
	if (h.op == UL_CTL_OP_BATCH) {
		out->op = h.op;
		return batch_decode((const uint8_t *)frame + UL_CTL_HDR_SIZE,
				    h.len, &out->batch, err);
	}
	if (ul_ctl_op_is_generic(h.op)) {
		out->op = h.op;
		return ul_ctl_args_decode((const uint8_t *)frame +
						  UL_CTL_HDR_SIZE,
					  h.len, &out->args, err);
	}
	memset(&r, 0, sizeof(r));
	r.op = h.op;
	ul_ctl_iter_init(&it, (const uint8_t *)frame + UL_CTL_HDR_SIZE, h.len);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (r.op == UL_CTL_OP_PING)
			rc = ping_req_attr(&r, &has_target, &a);
		else if (r.op == UL_CTL_OP_NET_SHOW)
			rc = net_show_req_attr(&r, &a, err);
		else if (r.op == UL_CTL_OP_PEER_SHOW)
			rc = peer_show_req_attr(&r, &a);
		else
			rc = perf_req_attr(&r, &perf_seen, &a, err);
		if (rc)
			return rc;
	}
	if (rc < 0)
		return rc;
	if (r.op == UL_CTL_OP_PING && !has_target)
		return ul_err_set(err, -EPROTO,
				  "control request: ping without a target NID");
	if (r.op == UL_CTL_OP_PERF_PUT && perf_seen != 0xfu)
		return ul_err_set(err, -EPROTO,
				  "control request: perf without target, size, "
				  "duration and inflight");
	*out = r;
	return 0;
}
