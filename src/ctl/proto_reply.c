/*
 * The replies of the control protocol (proto.h: the PING and PERF_PUT
 * data, every op's RC and ERR_MSG, and the Y_MAP document of the generic
 * ops and of NET_SHOW and PEER_SHOW): one encoder and one decoder, used
 * by the control server and ulnetctl.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/proto.h"
#include "ctl/proto_doc.h"
#include "ctl/proto_int.h"
#include "ctl/ytree.h"
#include "util/err.h"

/* ---- Replies: encoding ---------------------------------------------- */

int ul_ctl_reply_encode(const struct ul_ctl_reply *r, struct ul_ctl_msg *m)
{
	size_t i;

	ul_ctl_msg_init(m, (uint16_t)(r->op | UL_CTL_OP_REPLY));
	ul_ctl_put_s32(m, UL_CTL_A_RC, r->rc);
	if (r->err_msg[0])
		ul_ctl_put_str(m, UL_CTL_A_ERR_MSG, r->err_msg);
	if (r->version)
		ul_ctl_put_u32(m, UL_CTL_A_VERSION, r->version);
	if (r->op == UL_CTL_OP_BATCH) /* what was applied, refused or not */
		ul_ctl_put_u32(m, UL_CTL_A_BATCH_DONE, r->batch_done);
	if (r->rc)
		return ul_ctl_msg_finish(m);
	switch (r->op) {
	case UL_CTL_OP_PING:
		ul_ctl_put_nid(m, UL_CTL_A_PING_PRIMARY, &r->ping.primary);
		ul_ctl_put_u32(m, UL_CTL_A_PING_PID, r->ping.pid);
		ul_ctl_put_u32(m, UL_CTL_A_PING_FEATURES, r->ping.features);
		ul_ctl_put_u32(m, UL_CTL_A_PING_MR, r->ping.is_mr);
		for (i = 0; i < r->ping.nnis; i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PING_NI);
			ul_ctl_put_nid(m, UL_CTL_A_NID, &r->ping.nis[i].nid);
			ul_ctl_put_u32(m, UL_CTL_A_STATUS,
				       r->ping.nis[i].status);
			ul_ctl_nest_end(m);
		}
		break;
	case UL_CTL_OP_PERF_PUT:
		ul_ctl_put_u64(m, UL_CTL_A_PERF_PUTS, r->perf.puts);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_BYTES, r->perf.bytes);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_FAILED, r->perf.failed);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_ELAPSED_NS, r->perf.elapsed_ns);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_STARTED, r->perf.started);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_SEND_NS, r->perf.send_ns);
		ul_ctl_put_u64(m, UL_CTL_A_PERF_SEND_BYTES, r->perf.send_bytes);
		if (r->perf.check_errors)
			ul_ctl_put_u64(m, UL_CTL_A_PERF_CHECK_ERRORS,
				       r->perf.check_errors);
		for (i = 0; i < r->perf.nfails && i < UL_CTL_PERF_FAILS_MAX;
		     i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PERF_FAIL);
			ul_ctl_put_s32(m, UL_CTL_A_PERF_STATUS,
				       r->perf.fails[i].status);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_COUNT,
				       r->perf.fails[i].count);
			ul_ctl_nest_end(m);
		}
		for (i = 0; i < r->perf.nrails; i++) {
			ul_ctl_nest_start(m, UL_CTL_A_PERF_RAIL);
			ul_ctl_put_nid(m, UL_CTL_A_NID, &r->perf.rails[i].nid);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_PUTS,
				       r->perf.rails[i].puts);
			ul_ctl_put_u64(m, UL_CTL_A_PERF_BYTES,
				       r->perf.rails[i].bytes);
			ul_ctl_nest_end(m);
		}
		break;
	default:
		break;
	}
	return ul_ctl_msg_finish(m);
}

void ul_ctl_reply_error(struct ul_ctl_reply *r, uint16_t op, int rc,
			const char *msg)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->rc = rc;
	if (msg)
		snprintf(r->err_msg, sizeof(r->err_msg), "%s", msg);
}

/* ---- Replies: decoding ----------------------------------------------- */

/*
 * Room for element n of an array whose capacity is the next power of two
 * at or above n: the array (moved if it grew), or NULL.
 */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	return realloc(arr, (n ? n * 2 : 1) * size);
}

/* Append a zeroed element to arr[n]: a pointer to it, or NULL. */
#define APPEND(arr, n)                                                         \
	({                                                                     \
		__typeof__(arr) g_ = grow((arr), (n), sizeof(*(arr)));         \
		if (g_) {                                                      \
			(arr) = g_;                                            \
			g_ += (n)++;                                           \
			memset(g_, 0, sizeof(*g_));                            \
		}                                                              \
		g_;                                                            \
	})

static int dec_ping_ni(const struct ul_ctl_attr *parent, struct ul_ctl_reply *r,
		       struct ul_err *err)
{
	struct ul_ctl_ping_ni *ni;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ni = APPEND(r->ping.nis, r->ping.nnis);
	if (!ni)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NID)
			ul_ctl_attr_nid(&a, &ni->nid);
		else if (a.type == UL_CTL_A_STATUS)
			ni->status = ul_ctl_attr_u32(&a);
	}
	return rc;
}

static int dec_perf_rail(const struct ul_ctl_attr *parent,
			 struct ul_ctl_reply *r, struct ul_err *err)
{
	struct ul_ctl_perf_rail *rail;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	rail = APPEND(r->perf.rails, r->perf.nrails);
	if (!rail)
		return ul_err_set(err, -ENOMEM, "out of memory");
	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_NID)
			ul_ctl_attr_nid(&a, &rail->nid);
		else if (a.type == UL_CTL_A_PERF_PUTS)
			rail->puts = ul_ctl_attr_u64(&a);
		else if (a.type == UL_CTL_A_PERF_BYTES)
			rail->bytes = ul_ctl_attr_u64(&a);
	}
	return rc;
}

/* One PERF_FAIL block; those beyond UL_CTL_PERF_FAILS_MAX are skipped. */
static int dec_perf_fail(const struct ul_ctl_attr *parent,
			 struct ul_ctl_reply *r, struct ul_err *err)
{
	struct ul_ctl_perf_fail f = { 0 };
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	int rc;

	ul_ctl_iter_nested(&it, parent);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_PERF_STATUS)
			f.status = ul_ctl_attr_s32(&a);
		else if (a.type == UL_CTL_A_PERF_COUNT)
			f.count = ul_ctl_attr_u64(&a);
	}
	if (rc == 0 && r->perf.nfails < UL_CTL_PERF_FAILS_MAX)
		r->perf.fails[r->perf.nfails++] = f;
	return rc;
}

/* The document kept as it came, once checked (UL_CTL_REPLY_RAW_DOC). */
static int keep_raw_doc(const struct ul_ctl_attr *a, struct ul_ctl_reply *r,
			struct ul_err *err)
{
	int rc = ul_ctl_doc_walk(a, NULL, err);

	if (rc)
		return rc;
	r->doc_raw_len = UL_CTL_ATTR_HDR_SIZE + (size_t)a->len;
	r->doc_raw = malloc(r->doc_raw_len);
	if (!r->doc_raw) {
		r->doc_raw_len = 0;
		return ul_err_set(err, -ENOMEM, "out of memory");
	}
	memcpy(r->doc_raw, a->val - UL_CTL_ATTR_HDR_SIZE, r->doc_raw_len);
	return 0;
}

/* One top-level attribute of a reply's data. */
static int dec_reply_attr(const struct ul_ctl_attr *a, struct ul_ctl_reply *r,
			  unsigned int flags, struct ul_err *err)
{
	switch (a->type) {
	case UL_CTL_A_RC:
		r->rc = ul_ctl_attr_s32(a);
		return 0;
	case UL_CTL_A_ERR_MSG:
		return ul_ctl_copy_str(a, r->err_msg, sizeof(r->err_msg), err);
	case UL_CTL_A_VERSION:
		r->version = ul_ctl_attr_u32(a);
		return 0;
	case UL_CTL_A_CURSOR:
		r->cursor = ul_ctl_attr_u32(a);
		r->has_cursor = true;
		return 0;
	case UL_CTL_A_BATCH_DONE:
		r->batch_done = ul_ctl_attr_u32(a);
		r->has_batch_done = true;
		return 0;
	default:
		break;
	}
	/* The generic ops' replies and net and peer show are documents. */
	if (ul_ctl_op_is_generic(r->op) || r->op == UL_CTL_OP_NET_SHOW ||
	    r->op == UL_CTL_OP_PEER_SHOW) {
		if (a->type != UL_CTL_A_Y_MAP)
			return 0;
		if (r->doc || r->doc_raw)
			return ul_err_set(err, -EPROTO,
					  "control reply: two documents");
		if (flags & UL_CTL_REPLY_RAW_DOC)
			return keep_raw_doc(a, r, err);
		return ul_ctl_doc_decode(a, &r->doc, err);
	}
	switch (r->op) {
	case UL_CTL_OP_PING:
		if (a->type == UL_CTL_A_PING_PRIMARY)
			ul_ctl_attr_nid(a, &r->ping.primary);
		else if (a->type == UL_CTL_A_PING_PID)
			r->ping.pid = ul_ctl_attr_u32(a);
		else if (a->type == UL_CTL_A_PING_FEATURES)
			r->ping.features = ul_ctl_attr_u32(a);
		else if (a->type == UL_CTL_A_PING_MR)
			r->ping.is_mr = ul_ctl_attr_u32(a) != 0;
		else if (a->type == UL_CTL_A_PING_NI)
			return dec_ping_ni(a, r, err);
		return 0;
	case UL_CTL_OP_PERF_PUT:
		if (a->type == UL_CTL_A_PERF_PUTS)
			r->perf.puts = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_BYTES)
			r->perf.bytes = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_FAILED)
			r->perf.failed = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_ELAPSED_NS)
			r->perf.elapsed_ns = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_STARTED)
			r->perf.started = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_SEND_NS)
			r->perf.send_ns = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_SEND_BYTES)
			r->perf.send_bytes = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_CHECK_ERRORS)
			r->perf.check_errors = ul_ctl_attr_u64(a);
		else if (a->type == UL_CTL_A_PERF_FAIL)
			return dec_perf_fail(a, r, err);
		else if (a->type == UL_CTL_A_PERF_RAIL)
			return dec_perf_rail(a, r, err);
		return 0;
	default:
		return 0;
	}
}

int ul_ctl_reply_decode(const void *frame, size_t len, uint16_t op,
			struct ul_ctl_reply *out, struct ul_err *err)
{
	return ul_ctl_reply_decode_flags(frame, len, op, 0, out, err);
}

int ul_ctl_reply_decode_flags(const void *frame, size_t len, uint16_t op,
			      unsigned int flags, struct ul_ctl_reply *out,
			      struct ul_err *err)
{
	bool has_rc = false, is_refusal;
	struct ul_ctl_iter it;
	struct ul_ctl_attr a;
	struct ul_ctl_hdr h;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ul_ctl_frame_open(frame, len, &h, err);
	if (rc)
		return rc;
	is_refusal = h.op == UL_CTL_OP_REPLY;
	if (h.op != (op | UL_CTL_OP_REPLY) && !is_refusal)
		return ul_err_set(err, -EPROTO,
				  "control reply: op 0x%04x does not answer "
				  "op %u",
				  h.op, op);
	/* A refusal (op 0) carries an error only; read it as op's reply. */
	out->op = is_refusal ? 0 : op;
	ul_ctl_iter_init(&it, (const uint8_t *)frame + UL_CTL_HDR_SIZE, h.len);
	while ((rc = ul_ctl_iter_next(&it, &a, err)) > 0) {
		if (a.type == UL_CTL_A_RC)
			has_rc = true;
		rc = dec_reply_attr(&a, out, flags, err);
		if (rc)
			break;
	}
	if (!rc && !has_rc)
		rc = ul_err_set(err, -EPROTO, "control reply: no return code");
	if (!rc && (out->rc > 0 || (is_refusal && out->rc == 0)))
		rc = ul_err_set(err, -EPROTO,
				"control reply: return code %d in a%s reply",
				out->rc, is_refusal ? " refusal" : "n op's");
	out->op = op;
	if (rc) {
		ul_ctl_reply_fini(out);
		return rc;
	}
	return 0;
}

void ul_ctl_reply_fini(struct ul_ctl_reply *r)
{
	ul_ytree_free(r->doc);
	free(r->doc_raw);
	switch (r->op) {
	case UL_CTL_OP_PING:
		free(r->ping.nis);
		break;
	case UL_CTL_OP_PERF_PUT:
		free(r->perf.rails);
		break;
	default:
		break;
	}
	memset(r, 0, sizeof(*r));
}
