/*
 * The control protocol's serializer (src/ctl/proto.h): every request and
 * reply of version 1 survives encode then decode unchanged, the frame
 * layout is the one proto.h documents, and a numbered table of malformed
 * frames is each rejected with the documented code and no crash (ASan
 * checks the no-crash part and that nothing leaks).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctl/doc_yaml.h"
#include "ctl/proto.h"
#include "ctl/proto_doc.h"
#include "ctl/ytree.h"
#include "helper_topo.h"
#include "util/err.h"
#include "wire/bytes.h"

static struct ul_ctl_req req_roundtrip(const struct ul_ctl_req *in)
{
	struct ul_ctl_msg m;
	struct ul_ctl_req out;
	struct ul_err err = { 0 };

	assert_int_equal(ul_ctl_req_encode(in, &m), 0);
	memset(&out, 0xa5, sizeof(out));
	assert_int_equal(ul_ctl_req_decode(m.buf, m.len, &out, &err), 0);
	ul_ctl_msg_fini(&m);
	return out;
}

static void req_ping_roundtrip(void **state)
{
	struct ul_ctl_req in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.op = UL_CTL_OP_PING;
	in.ping.target = ht_nid("192.168.1.20@tcp");
	out = req_roundtrip(&in);
	assert_int_equal(out.op, UL_CTL_OP_PING);
	assert_true(ulnet_nid_same(&out.ping.target, &in.ping.target));
	assert_false(out.ping.has_src);
	assert_false(out.ping.has_timeout);

	in.ping.target = ht_nid("2001:db8::1@tcp1");
	in.ping.has_src = true;
	in.ping.src = ht_nid("10.1.0.1@o2ib");
	in.ping.has_timeout = true;
	in.ping.timeout_ms = 5000;
	out = req_roundtrip(&in);
	assert_true(ulnet_nid_same(&out.ping.target, &in.ping.target));
	assert_true(out.ping.has_src);
	assert_true(ulnet_nid_same(&out.ping.src, &in.ping.src));
	assert_true(out.ping.has_timeout);
	assert_int_equal(out.ping.timeout_ms, 5000);
}

static void req_show_roundtrip(void **state)
{
	struct ul_ctl_req in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.op = UL_CTL_OP_NET_SHOW;
	out = req_roundtrip(&in);
	assert_int_equal(out.op, UL_CTL_OP_NET_SHOW);
	assert_false(out.net_show.has_net);
	assert_int_equal(out.net_show.verbose, 0);

	in.net_show.has_net = true;
	snprintf(in.net_show.net, sizeof(in.net_show.net), "tcp1");
	in.net_show.verbose = 4;
	out = req_roundtrip(&in);
	assert_true(out.net_show.has_net);
	assert_string_equal(out.net_show.net, "tcp1");
	assert_int_equal(out.net_show.verbose, 4);

	memset(&in, 0, sizeof(in));
	in.op = UL_CTL_OP_PEER_SHOW;
	out = req_roundtrip(&in);
	assert_int_equal(out.op, UL_CTL_OP_PEER_SHOW);
	assert_false(out.peer_show.has_nid);

	in.peer_show.has_nid = true;
	in.peer_show.nid = ht_nid("10.0.0.5@tcp1");
	in.peer_show.verbose = 3;
	out = req_roundtrip(&in);
	assert_true(out.peer_show.has_nid);
	assert_true(ulnet_nid_same(&out.peer_show.nid, &in.peer_show.nid));
	assert_int_equal(out.peer_show.verbose, 3);
	assert_false(out.peer_show.has_cursor);
	/* a page of the table: from peer 7 on */
	in.peer_show.has_nid = false;
	in.peer_show.has_cursor = true;
	in.peer_show.cursor = 7;
	out = req_roundtrip(&in);
	assert_true(out.peer_show.has_cursor);
	assert_int_equal(out.peer_show.cursor, 7);
}

static void req_perf_roundtrip(void **state)
{
	struct ul_ctl_req in, out;
	struct ul_ctl_msg m;
	struct ul_err err = { 0 };
	uint32_t i;

	(void)state;
	/* perf put's request: one target, a PUT unchecked (no op, no check) */
	memset(&in, 0, sizeof(in));
	in.op = UL_CTL_OP_PERF_PUT;
	in.perf.ntargets = 1;
	in.perf.targets[0] = ht_nid("10.0.0.2@tcp");
	in.perf.size = 1u << 20;
	in.perf.duration_ms = 5000;
	in.perf.inflight = 8;
	out = req_roundtrip(&in);
	assert_int_equal(out.perf.ntargets, 1);
	assert_true(ulnet_nid_same(&out.perf.targets[0], &in.perf.targets[0]));
	assert_int_equal(out.perf.size, 1u << 20);
	assert_int_equal(out.perf.duration_ms, 5000);
	assert_int_equal(out.perf.inflight, 8);
	assert_int_equal(out.perf.op, 0);
	assert_int_equal(out.perf.check, 0);

	/* selftest's: a checked read from three targets in turn */
	in.perf.op = 1;
	in.perf.check = 2;
	in.perf.ntargets = 3;
	in.perf.targets[1] = ht_nid("10.0.0.3@tcp");
	in.perf.targets[2] = ht_nid("10.0.0.4@tcp1");
	out = req_roundtrip(&in);
	assert_int_equal(out.perf.op, 1);
	assert_int_equal(out.perf.check, 2);
	assert_int_equal(out.perf.ntargets, 3);
	for (i = 0; i < 3; i++)
		assert_true(ulnet_nid_same(&out.perf.targets[i],
					   &in.perf.targets[i]));

	/* More targets than the server takes: refused whole. */
	in.perf.ntargets = UL_CTL_PERF_TARGETS_MAX;
	for (i = 0; i < UL_CTL_PERF_TARGETS_MAX; i++)
		in.perf.targets[i] = ht_nid("10.0.0.9@tcp");
	assert_int_equal(ul_ctl_req_encode(&in, &m), 0);
	ul_ctl_put_nid(&m, UL_CTL_A_PERF_TARGET, &in.perf.targets[0]);
	assert_int_equal(ul_ctl_msg_finish(&m), 0);
	assert_int_equal(ul_ctl_req_decode(m.buf, m.len, &out, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "more than 64 perf targets"));
	ul_ctl_msg_fini(&m);

	/* A target NID of 4 bytes (the fuzzer's find): refused, not read. */
	in.perf.ntargets = 1;
	assert_int_equal(ul_ctl_req_encode(&in, &m), 0);
	ul_ctl_put_u32(&m, UL_CTL_A_PERF_TARGET, 0x7fffff00);
	assert_int_equal(ul_ctl_msg_finish(&m), 0);
	assert_int_equal(ul_ctl_req_decode(m.buf, m.len, &out, &err), -EPROTO);
	ul_ctl_msg_fini(&m);
}

/* The frame of "ping 0@lo" as proto.h lays it out, byte for byte. */
static void req_ping_frame_layout(void **state)
{
	static const uint8_t want[] = {
		0x54, 0x43, 0x4c, 0x55, /* magic, little-endian */
		0x01, 0x00,		/* version 1 */
		0x01, 0x00,		/* op PING */
		0x1c, 0x00, 0x00, 0x00, /* payload: 8 + 20 bytes */
		0x05, 0x00, 0x00, 0x00, /* UL_CTL_A_NID, no flags */
		0x14, 0x00, 0x00, 0x00, /* 20 bytes */
		0x00, 0x09, 0x00, 0x00, /* 0@lo: size 0, type lo, net 0 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct ul_ctl_req in;
	struct ul_ctl_msg m;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.op = UL_CTL_OP_PING;
	in.ping.target = ht_nid("0@lo");
	assert_int_equal(ul_ctl_req_encode(&in, &m), 0);
	assert_int_equal(m.len, sizeof(want));
	assert_memory_equal(m.buf, want, sizeof(want));
	ul_ctl_msg_fini(&m);
}

static struct ul_ctl_reply *reply_roundtrip(const struct ul_ctl_reply *in)
{
	struct ul_ctl_reply *out = malloc(sizeof(*out));
	struct ul_err err = { 0 };
	struct ul_ctl_msg m;

	assert_non_null(out);
	assert_int_equal(ul_ctl_reply_encode(in, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, in->op, out, &err),
			 0);
	ul_ctl_msg_fini(&m);
	return out;
}

static void free_reply(struct ul_ctl_reply *r)
{
	ul_ctl_reply_fini(r);
	free(r);
}

static void reply_ping_roundtrip(void **state)
{
	struct ul_ctl_ping_ni nis[2];
	struct ul_ctl_reply in, *out;

	(void)state;
	memset(&in, 0, sizeof(in));
	memset(nis, 0, sizeof(nis));
	in.op = UL_CTL_OP_PING;
	in.ping.primary = ht_nid("192.168.1.20@tcp");
	in.ping.pid = 12345;
	in.ping.features = 0x1b;
	in.ping.is_mr = true;
	nis[0].nid = ht_nid("192.168.1.20@tcp");
	nis[0].status = UL_CTL_NI_STATUS_UP;
	nis[1].nid = ht_nid("192.168.2.20@tcp");
	nis[1].status = UL_CTL_NI_STATUS_DOWN;
	in.ping.nnis = 2;
	in.ping.nis = nis;
	out = reply_roundtrip(&in);
	assert_int_equal(out->rc, 0);
	assert_string_equal(out->err_msg, "");
	assert_true(ulnet_nid_same(&out->ping.primary, &in.ping.primary));
	assert_int_equal(out->ping.pid, 12345);
	assert_int_equal(out->ping.features, 0x1b);
	assert_true(out->ping.is_mr);
	assert_int_equal(out->ping.nnis, 2);
	assert_memory_equal(out->ping.nis, nis, sizeof(nis));
	free_reply(out);
}

static void reply_perf_roundtrip(void **state)
{
	struct ul_ctl_perf_rail rails[1];
	struct ul_ctl_reply in, *out;

	(void)state;
	memset(&in, 0, sizeof(in));
	memset(rails, 0, sizeof(rails));
	in.op = UL_CTL_OP_PERF_PUT;
	in.perf.started = 12;
	in.perf.puts = 7;
	in.perf.failed = 5;
	in.perf.bytes = 7 * 4096;
	in.perf.elapsed_ns = 151000000000u;
	in.perf.send_ns = 1000000000u;
	in.perf.send_bytes = 6 * 4096;
	in.perf.check_errors = 3;
	in.perf.nfails = 2;
	in.perf.fails[0].status = -ETIMEDOUT;
	in.perf.fails[0].count = 3;
	in.perf.fails[1].status = -ECONNRESET;
	in.perf.fails[1].count = 2;
	rails[0].nid = ht_nid("192.168.1.10@tcp");
	rails[0].puts = 12;
	rails[0].bytes = 12 * 4096;
	in.perf.nrails = 1;
	in.perf.rails = rails;
	out = reply_roundtrip(&in);
	assert_int_equal(out->perf.started, 12);
	assert_int_equal(out->perf.puts, 7);
	assert_int_equal(out->perf.failed, 5);
	assert_int_equal(out->perf.bytes, 7 * 4096);
	assert_int_equal(out->perf.elapsed_ns, 151000000000u);
	assert_int_equal(out->perf.send_ns, 1000000000u);
	assert_int_equal(out->perf.send_bytes, 6 * 4096);
	assert_int_equal(out->perf.check_errors, 3);
	/* The statuses in order, each with its count. */
	assert_int_equal(out->perf.nfails, 2);
	assert_int_equal(out->perf.fails[0].status, -ETIMEDOUT);
	assert_int_equal(out->perf.fails[0].count, 3);
	assert_int_equal(out->perf.fails[1].status, -ECONNRESET);
	assert_int_equal(out->perf.fails[1].count, 2);
	assert_int_equal(out->perf.nrails, 1);
	assert_memory_equal(out->perf.rails, rails, sizeof(rails));
	free_reply(out);
}

/* A peer show document: one peer of two peer NIs, at -v 1. */
static void peer_doc(struct ul_ctl_msg *d)
{
	const char *nids[] = { "10.0.0.5@tcp1", "10.0.1.5@tcp1" };
	struct ulnet_nid nid = ht_nid(nids[0]);
	size_t i;

	ul_ctl_doc_init(d);
	ul_ctl_doc_seq(d, "peer");
	ul_ctl_doc_map(d, NULL);
	ul_ctl_doc_nid(d, "primary nid", &nid);
	ul_ctl_doc_bool(d, "Multi-Rail", true);
	ul_ctl_doc_seq(d, "peer ni");
	for (i = 0; i < 2; i++) {
		nid = ht_nid(nids[i]);
		ul_ctl_doc_map(d, NULL);
		ul_ctl_doc_nid(d, "nid", &nid);
		ul_ctl_doc_str(d, "state", "NA");
		ul_ctl_doc_int(d, "min_tx_credits", -3);
		ul_ctl_doc_uint(d, "tx_q_num_of_buf", UINT64_MAX);
		ul_ctl_doc_end(d);
	}
	ul_ctl_doc_end(d);
	ul_ctl_doc_end(d);
	ul_ctl_doc_end(d);
}

/*
 * net show and peer show answer with a document, as the generic ops do:
 * what the server built is what the client reads, every scalar as text.
 */
static void reply_show_carries_document(void **state)
{
	const struct ul_ynode *peers, *pni;
	struct ul_ctl_reply out;
	struct ul_ctl_msg d, m;

	(void)state;
	peer_doc(&d);
	assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_PEER_SHOW, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_PEER_SHOW,
					     &out, NULL),
			 0);
	assert_int_equal(out.rc, 0);
	peers = ul_doc_get(out.doc, "peer");
	assert_non_null(peers);
	assert_int_equal(peers->nr, 1);
	assert_string_equal(ul_doc_get(peers->kids[0], "primary nid")->str,
			    "10.0.0.5@tcp1");
	assert_string_equal(ul_doc_get(peers->kids[0], "Multi-Rail")->str,
			    "true");
	pni = ul_doc_get(peers->kids[0], "peer ni");
	assert_int_equal(pni->nr, 2);
	assert_string_equal(ul_doc_get(pni->kids[1], "nid")->str,
			    "10.0.1.5@tcp1");
	assert_string_equal(ul_doc_get(pni->kids[0], "min_tx_credits")->str,
			    "-3");
	assert_string_equal(ul_doc_get(pni->kids[0], "tx_q_num_of_buf")->str,
			    "18446744073709551615");
	ul_ctl_reply_fini(&out);
	ul_ctl_msg_fini(&m);
	/* The same bytes as a net show reply. */
	assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_NET_SHOW, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_NET_SHOW,
					     &out, NULL),
			 0);
	assert_non_null(ul_doc_get(out.doc, "peer"));
	ul_ctl_reply_fini(&out);
	ul_ctl_msg_fini(&m);
	ul_ctl_msg_fini(&d);
}

/* An error reply carries rc and text and no data, even if data is set. */
static void reply_error_roundtrip(void **state)
{
	struct ul_ctl_reply in, *out;

	(void)state;
	ul_ctl_reply_error(&in, UL_CTL_OP_NET_SHOW, -ENETDOWN,
			   "Network is down");
	out = reply_roundtrip(&in);
	assert_int_equal(out->rc, -ENETDOWN);
	assert_string_equal(out->err_msg, "Network is down");
	assert_null(out->doc);
	free_reply(out);
}

/* A reply for another op than the one asked is refused. */
static void reply_wrong_op_is_eproto(void **state)
{
	struct ul_ctl_reply in, out;
	struct ul_ctl_msg m;

	(void)state;
	ul_ctl_reply_error(&in, UL_CTL_OP_NET_SHOW, 0, NULL);
	assert_int_equal(ul_ctl_reply_encode(&in, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_PEER_SHOW,
					     &out, NULL),
			 -EPROTO);
	/* A request frame is not a reply either. */
	ul_ctl_msg_fini(&m);
	ul_ctl_msg_init(&m, UL_CTL_OP_NET_SHOW);
	ul_ctl_put_s32(&m, UL_CTL_A_RC, 0);
	assert_int_equal(ul_ctl_msg_finish(&m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_NET_SHOW,
					     &out, NULL),
			 -EPROTO);
	ul_ctl_msg_fini(&m);
}

/* A refusal (op 0) answers any op; one without an error is refused. */
static void refusal_answers_any_op(void **state)
{
	struct ul_ctl_reply in, out;
	struct ul_ctl_msg m;

	(void)state;
	ul_ctl_reply_error(&in, 0, -EACCES, "permission denied");
	assert_int_equal(ul_ctl_reply_encode(&in, &m), 0);
	assert_int_equal(ul_get_le16(m.buf + 6), UL_CTL_OP_REPLY);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_PEER_SHOW,
					     &out, NULL),
			 0);
	assert_int_equal(out.op, UL_CTL_OP_PEER_SHOW);
	assert_int_equal(out.rc, -EACCES);
	assert_string_equal(out.err_msg, "permission denied");
	ul_ctl_reply_fini(&out);
	ul_ctl_msg_fini(&m);

	ul_ctl_reply_error(&in, 0, 0, NULL);
	assert_int_equal(ul_ctl_reply_encode(&in, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_PING, &out,
					     NULL),
			 -EPROTO);
	ul_ctl_msg_fini(&m);
}

/* Building: nests must balance, a payload over 1 MiB is -EMSGSIZE. */
static void builder_errors_stick(void **state)
{
	static uint8_t big[64 * 1024];
	struct ul_ctl_msg m;
	int i;

	(void)state;
	ul_ctl_msg_init(&m, UL_CTL_OP_NET_SHOW);
	ul_ctl_nest_start(&m, UL_CTL_A_PING_NI);
	assert_int_equal(ul_ctl_msg_finish(&m), -EINVAL);
	ul_ctl_msg_fini(&m);

	ul_ctl_msg_init(&m, UL_CTL_OP_NET_SHOW);
	ul_ctl_nest_end(&m);
	assert_int_equal(ul_ctl_msg_finish(&m), -EINVAL);
	ul_ctl_msg_fini(&m);

	ul_ctl_msg_init(&m, UL_CTL_OP_NET_SHOW);
	for (i = 0; i < 17; i++)
		ul_ctl_put_bytes(&m, 0x0bff, big, sizeof(big));
	assert_int_equal(ul_ctl_msg_finish(&m), -EMSGSIZE);
	ul_ctl_msg_fini(&m);
}

/*
 * A reply may carry what a request may not: 17 x 64 KiB builds as a
 * reply and its header decodes; past UL_CTL_MAX_REPLY the header does
 * not, and a request header over 1 MiB does not either.
 */
static void replies_have_their_own_limit(void **state)
{
	static uint8_t big[64 * 1024];
	struct ul_ctl_hdr h;
	struct ul_ctl_msg m;
	uint8_t hdr[UL_CTL_HDR_SIZE];
	int i;

	(void)state;
	ul_ctl_msg_init(&m, UL_CTL_OP_PEER_SHOW | UL_CTL_OP_REPLY);
	for (i = 0; i < 17; i++)
		ul_ctl_put_bytes(&m, 0x0bff, big, sizeof(big));
	assert_int_equal(ul_ctl_msg_finish(&m), 0);
	assert_true(m.len > UL_CTL_MAX_PAYLOAD);
	assert_int_equal(ul_ctl_hdr_decode(m.buf, m.len, &h, NULL), 0);
	assert_int_equal(h.len, m.len - UL_CTL_HDR_SIZE);
	ul_ctl_msg_fini(&m);

	ul_ctl_msg_init(&m, UL_CTL_OP_PEER_SHOW | UL_CTL_OP_REPLY);
	assert_int_equal(ul_ctl_msg_finish(&m), 0);
	memcpy(hdr, m.buf, sizeof(hdr));
	ul_ctl_msg_fini(&m);
	ul_put_le32(hdr + 8, UL_CTL_MAX_REPLY);
	assert_int_equal(ul_ctl_hdr_decode(hdr, sizeof(hdr), &h, NULL), 0);
	ul_put_le32(hdr + 8, UL_CTL_MAX_REPLY + 4);
	assert_int_equal(ul_ctl_hdr_decode(hdr, sizeof(hdr), &h, NULL),
			 -EPROTO);
	ul_put_le16(hdr + 6, UL_CTL_OP_PEER_SHOW);
	ul_put_le32(hdr + 8, UL_CTL_MAX_PAYLOAD + 4);
	assert_int_equal(ul_ctl_hdr_decode(hdr, sizeof(hdr), &h, NULL),
			 -EPROTO);
}

/* ---- Malformed frames ------------------------------------------------- */

struct frame {
	uint8_t b[256];
	size_t len;
};

static void fb_hdr(struct frame *f, uint32_t magic, uint16_t version,
		   uint16_t op)
{
	memset(f, 0, sizeof(*f));
	ul_put_le32(f->b, magic);
	ul_put_le16(f->b + 4, version);
	ul_put_le16(f->b + 6, op);
	f->len = UL_CTL_HDR_SIZE;
}

/* Append raw attribute bytes: header with the given length, then data. */
static void fb_attr(struct frame *f, uint16_t type, uint16_t flags,
		    uint32_t len, const void *val, size_t vlen)
{
	ul_put_le16(f->b + f->len, type);
	ul_put_le16(f->b + f->len + 2, flags);
	ul_put_le32(f->b + f->len + 4, len);
	f->len += UL_CTL_ATTR_HDR_SIZE;
	if (vlen)
		memcpy(f->b + f->len, val, vlen);
	f->len += vlen;
}

static void fb_done(struct frame *f)
{
	ul_put_le32(f->b + 8, (uint32_t)(f->len - UL_CTL_HDR_SIZE));
}

static const uint8_t zero20[20];
static const uint8_t nid_lo[20] = { 0, 9 };

struct bad_row {
	const char *what;
	int rc;
};

static const struct bad_row bad_rows[] = {
	/* 0 */ { "truncated header", -EPROTO },
	/* 1 */ { "bad magic", -EPROTO },
	/* 2 */ { "bad version", -EPROTO },
	/* 3 */ { "length over the limit", -EPROTO },
	/* 4 */ { "header length disagrees with frame", -EPROTO },
	/* 5 */ { "attribute header truncated", -EPROTO },
	/* 6 */ { "attribute length past the end", -EPROTO },
	/* 7 */ { "nested past parent", -EPROTO },
	/* 8 */ { "wrong size for a known id (u32 as 8 bytes)", -EPROTO },
	/* 9 */ { "NID of 19 bytes", -EPROTO },
	/* 10 */ { "nested flag on a u32 id", -EPROTO },
	/* 11 */ { "nested id without the nested flag", -EPROTO },
	/* 12 */ { "string without NUL", -EPROTO },
	/* 13 */ { "string with a NUL inside", -EPROTO },
	/* 14 */ { "non-zero padding", -EPROTO },
	/* 15 */ { "unknown flag bits", -EPROTO },
	/* 16 */ { "ping without a target", -EPROTO },
	/* 17 */ { "request with the reply bit", -EPROTO },
	/* 18 */ { "unknown op", -EOPNOTSUPP },
	/* 19 */ { "net name longer than a net name", -EPROTO },
	/* 20 */ { "last attribute's padding missing", -EPROTO },
	/* 21 */ { "nesting deeper than the limit", -EPROTO },
	/* 22 */ { "nested child with a wrong size", -EPROTO },
};

static void build_bad(unsigned int row, struct frame *f)
{
	uint8_t v[64];
	unsigned int i;

	fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_PEER_SHOW);
	switch (row) {
	case 0:
		f->len = 8;
		return;
	case 1:
		fb_hdr(f, 0x43544c55, UL_CTL_VERSION, UL_CTL_OP_PING);
		break;
	case 2:
		fb_hdr(f, UL_CTL_MAGIC, 2, UL_CTL_OP_PING);
		fb_attr(f, UL_CTL_A_NID, 0, 20, nid_lo, 20);
		break;
	case 3:
		ul_put_le32(f->b + 8, UL_CTL_MAX_PAYLOAD + 4);
		return;
	case 4:
		fb_attr(f, UL_CTL_A_VERBOSE, 0, 4, zero20, 4);
		ul_put_le32(f->b + 8, 8);
		return;
	case 5:
		fb_attr(f, UL_CTL_A_VERBOSE, 0, 4, zero20, 4);
		f->len -= 8;
		break;
	case 6:
		fb_attr(f, UL_CTL_A_VERBOSE, 0, 40, zero20, 4);
		break;
	case 7:
		/* Parent says 12 bytes; its child claims 20. */
		fb_attr(f, 0x0bf0, UL_CTL_F_NESTED, 12, NULL, 0);
		fb_attr(f, UL_CTL_A_NID, 0, 20, nid_lo, 4);
		fb_attr(f, UL_CTL_A_VERBOSE, 0, 4, zero20, 4);
		break;
	case 8:
		fb_attr(f, UL_CTL_A_VERBOSE, 0, 8, zero20, 8);
		break;
	case 9:
		fb_attr(f, UL_CTL_A_NID, 0, 19, nid_lo, 20);
		break;
	case 10:
		fb_attr(f, UL_CTL_A_VERBOSE, UL_CTL_F_NESTED, 4, zero20, 4);
		break;
	case 11:
		fb_attr(f, UL_CTL_A_PING_NI, 0, 0, NULL, 0);
		break;
	case 12:
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_NET_SHOW);
		fb_attr(f, UL_CTL_A_NET_NAME, 0, 4, "tcp1", 4);
		break;
	case 13:
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_NET_SHOW);
		fb_attr(f, UL_CTL_A_NET_NAME, 0, 8, "tcp\0tcp", 8);
		break;
	case 14:
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_NET_SHOW);
		fb_attr(f, UL_CTL_A_NET_NAME, 0, 3, "tc\0Z", 4);
		break;
	case 15:
		fb_attr(f, UL_CTL_A_VERBOSE, 0x0100, 4, zero20, 4);
		break;
	case 16:
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_PING);
		fb_attr(f, UL_CTL_A_TIMEOUT_MS, 0, 4, zero20, 4);
		break;
	case 17:
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION,
		       UL_CTL_OP_PEER_SHOW | UL_CTL_OP_REPLY);
		break;
	case 18:
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, 99);
		break;
	case 19:
		memset(v, 'a', sizeof(v));
		v[39] = 0;
		fb_hdr(f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_NET_SHOW);
		fb_attr(f, UL_CTL_A_NET_NAME, 0, 40, v, 40);
		break;
	case 20:
		fb_attr(f, UL_CTL_A_NET_NAME, 0, 3, "ab", 3);
		break;
	case 21:
		for (i = 0; i <= UL_CTL_NEST_MAX; i++)
			fb_attr(f, 0x0bf0, UL_CTL_F_NESTED,
				(UL_CTL_NEST_MAX - i) * UL_CTL_ATTR_HDR_SIZE,
				NULL, 0);
		break;
	case 22:
		fb_attr(f, UL_CTL_A_PING_NI, UL_CTL_F_NESTED, 12, NULL, 0);
		fb_attr(f, UL_CTL_A_STATUS, 0, 2, zero20, 4);
		break;
	default:
		fail();
	}
	fb_done(f);
}

static void malformed_requests_rejected(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		struct ul_err err = { 0 };
		struct ul_ctl_req out;
		struct frame f;
		uint8_t *copy;
		int rc;

		build_bad(i, &f);
		/* An exact-size heap copy, so ASan sees any overread. */
		copy = malloc(f.len ? f.len : 1);
		assert_non_null(copy);
		memcpy(copy, f.b, f.len);
		memset(&out, 0x5a, sizeof(out));
		rc = ul_ctl_req_decode(copy, f.len, &out, &err);
		if (rc != bad_rows[i].rc)
			fail_msg("row %u (%s): rc %d, want %d (%s)", i,
				 bad_rows[i].what, rc, bad_rows[i].rc, err.msg);
		assert_true(err.msg[0] != '\0');
		assert_int_equal(((uint8_t *)&out)[0], 0x5a);
		free(copy);
	}
}

/* A version mismatch names both versions. */
static void bad_version_message_names_both(void **state)
{
	struct ul_err err = { 0 };
	struct ul_ctl_req out;
	struct frame f;

	(void)state;
	build_bad(2, &f);
	assert_int_equal(ul_ctl_req_decode(f.b, f.len, &out, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "version 2"));
	assert_non_null(strstr(err.msg, "version 1"));
}

/* Unknown attribute ids are skipped, so newer clients still work. */
static void unknown_attribute_skipped(void **state)
{
	struct ul_ctl_req out;
	struct frame f;

	(void)state;
	fb_hdr(&f, UL_CTL_MAGIC, UL_CTL_VERSION, UL_CTL_OP_PEER_SHOW);
	fb_attr(&f, 0x0bee, 0, 6, "abcdef\0", 8);
	fb_attr(&f, 0x0bef, UL_CTL_F_NESTED, 12, NULL, 0);
	fb_attr(&f, 0x0bee, 0, 4, "wxyz", 4);
	fb_attr(&f, UL_CTL_A_VERBOSE, 0, 4, "\x02\0\0\0", 4);
	fb_done(&f);
	assert_int_equal(ul_ctl_req_decode(f.b, f.len, &out, NULL), 0);
	assert_int_equal(out.op, UL_CTL_OP_PEER_SHOW);
	assert_int_equal(out.peer_show.verbose, 2);
	assert_false(out.peer_show.has_nid);
}

/* Every prefix of a good reply frame is rejected, never overread. */
static void truncated_replies_rejected(void **state)
{
	struct ul_ctl_reply out;
	struct ul_ctl_msg d, m;
	size_t n;

	(void)state;
	peer_doc(&d);
	assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_PEER_SHOW, &m), 0);
	ul_ctl_msg_fini(&d);
	for (n = 0; n < m.len; n++) {
		uint8_t *copy = malloc(n ? n : 1);

		assert_non_null(copy);
		memcpy(copy, m.buf, n);
		if (n >= UL_CTL_HDR_SIZE)
			ul_put_le32(copy + 8, (uint32_t)(n - UL_CTL_HDR_SIZE));
		/* Only the RC alone (a reply without data) is whole. */
		assert_int_equal(ul_ctl_reply_decode(copy, n,
						     UL_CTL_OP_PEER_SHOW, &out,
						     NULL) < 0 ||
					 n == UL_CTL_HDR_SIZE + 12,
				 true);
		if (n == UL_CTL_HDR_SIZE + 12)
			ul_ctl_reply_fini(&out);
		free(copy);
	}
	ul_ctl_msg_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(req_ping_roundtrip),
		cmocka_unit_test(req_show_roundtrip),
		cmocka_unit_test(req_ping_frame_layout),
		cmocka_unit_test(reply_ping_roundtrip),
		cmocka_unit_test(reply_show_carries_document),
		cmocka_unit_test(reply_error_roundtrip),
		cmocka_unit_test(reply_wrong_op_is_eproto),
		cmocka_unit_test(refusal_answers_any_op),
		cmocka_unit_test(builder_errors_stick),
		cmocka_unit_test(replies_have_their_own_limit),
		cmocka_unit_test(malformed_requests_rejected),
		cmocka_unit_test(bad_version_message_names_both),
		cmocka_unit_test(unknown_attribute_skipped),
		cmocka_unit_test(truncated_replies_rejected),
		cmocka_unit_test(reply_perf_roundtrip),
		cmocka_unit_test(req_perf_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
