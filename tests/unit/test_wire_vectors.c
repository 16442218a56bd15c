/*
 * The wire codec against tests/vectors/frames.txt (reference/wire.md §13):
 * every field of every block decodes to the value the file gives, every
 * block encodes back to its exact bytes, replies built from the requests
 * they answer match theirs, and the per-direction streams split into the
 * same units whatever chunks they arrive in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helper_vectors.h"
#include "wire/wire.h"

#define NVECTORS 15

enum stage { STAGE_ACR, STAGE_HELLO, STAGE_KSOCK };

/* Everything any stage can decode to, with the ping info of a payload. */
struct decoded {
	enum stage stage;
	struct ul_wire_acr acr;
	struct ul_wire_hello hello;
	struct ul_wire_ksock_msg msg;
	bool has_ping;
	struct ul_wire_ping_info pi;
	struct ul_wire_ping_ni nis[8];
};

static int setup(void **state)
{
	if (hv_setup(state))
		return -1;
	return hv_vectors.nblocks == NVECTORS ? 0 : -1;
}

static enum stage stage_of(const struct hv_block *b)
{
	if (strncmp(b->label, "acceptor-", 9) == 0)
		return STAGE_ACR;
	if (strncmp(b->label, "hello-", 6) == 0)
		return STAGE_HELLO;
	return STAGE_KSOCK;
}

static uint64_t nid4_of(const struct ulnet_nid *nid)
{
	uint64_t v = 0;

	assert_int_equal(ul_wire_nid_to_nid4(nid, &v, NULL), 0);
	return v;
}

static void decode_block(const struct hv_block *b, struct decoded *d)
{
	struct ul_err err = { 0 };
	int rc;

	memset(d, 0, sizeof(*d));
	d->stage = stage_of(b);
	switch (d->stage) {
	case STAGE_ACR:
		rc = ul_wire_acr_decode(b->bytes, b->length, &d->acr, &err);
		break;
	case STAGE_HELLO:
		rc = ul_wire_hello_decode(b->bytes, b->length, &d->hello, &err);
		break;
	default:
		rc = ul_wire_ksock_msg_decode(b->bytes, b->length,
					      UL_WIRE_PROTO_V3, false, &d->msg,
					      &err);
		if (rc > 0 && hv_field(b, "payload.pi_magic")) {
			int prc = ul_wire_ping_info_decode(
				d->msg.payload, d->msg.hdr.payload_length,
				&d->pi, d->nis, 8, &err);

			if (prc < 0)
				fail_msg("block %d ping info: %s", b->index,
					 err.msg);
			assert_int_equal(prc, d->msg.hdr.payload_length);
			d->has_ping = true;
		}
		break;
	}
	if (rc < 0)
		fail_msg("block %d %s: rc %d: %s", b->index, b->label, rc,
			 err.msg);
	assert_int_equal(rc, b->length);
}

static bool handle_field(const char *rest, const struct ul_wire_handle *wh,
			 uint64_t *v)
{
	if (strcmp(rest, "wh_interface_cookie") == 0)
		*v = wh->wh_interface_cookie;
	else if (strcmp(rest, "wh_object_cookie") == 0)
		*v = wh->wh_object_cookie;
	else
		return false;
	return true;
}

/* The decoded value of an integer field, by its frames.txt name. */
static bool lookup(const struct decoded *d, const char *name, uint64_t *v)
{
	const struct ul_wire_hello *h = &d->hello;
	const struct ul_wire_ksock_msg *m = &d->msg;
	const struct ul_wire_lnet_hdr *hdr = &m->hdr;
	unsigned int i;
	char rest[64];

	/* Magics are not kept: a decode that succeeded saw the right one. */
	if (!strcmp(name, "acr_magic"))
		*v = UL_WIRE_ACCEPTOR_MAGIC;
	else if (!strcmp(name, "acr_version"))
		*v = d->acr.version;
	else if (!strcmp(name, "acr_nid"))
		*v = nid4_of(&d->acr.nid);
	else if (!strcmp(name, "kshm_magic"))
		*v = UL_WIRE_PROTO_MAGIC;
	else if (!strcmp(name, "kshm_version"))
		*v = h->version;
	else if (!strcmp(name, "kshm_src_nid"))
		*v = nid4_of(&h->src_nid);
	else if (!strcmp(name, "kshm_dst_nid"))
		*v = nid4_of(&h->dst_nid);
	else if (!strcmp(name, "kshm_src_pid"))
		*v = h->src_pid;
	else if (!strcmp(name, "kshm_dst_pid"))
		*v = h->dst_pid;
	else if (!strcmp(name, "kshm_src_incarnation"))
		*v = h->src_incarnation;
	else if (!strcmp(name, "kshm_dst_incarnation"))
		*v = h->dst_incarnation;
	else if (!strcmp(name, "kshm_ctype"))
		*v = h->ctype;
	else if (!strcmp(name, "kshm_nips"))
		*v = h->nips;
	else if (!strcmp(name, "ksm.type"))
		*v = m->ksh.type;
	else if (!strcmp(name, "ksm.csum"))
		*v = m->ksh.csum;
	else if (!strcmp(name, "ksm.zc_cookies[0]"))
		*v = m->ksh.zc_cookies[0];
	else if (!strcmp(name, "ksm.zc_cookies[1]"))
		*v = m->ksh.zc_cookies[1];
	else if (!strcmp(name, "hdr.dest_nid"))
		*v = nid4_of(&hdr->dest_nid);
	else if (!strcmp(name, "hdr.src_nid"))
		*v = nid4_of(&hdr->src_nid);
	else if (!strcmp(name, "hdr.dest_pid"))
		*v = hdr->dest_pid;
	else if (!strcmp(name, "hdr.src_pid"))
		*v = hdr->src_pid;
	else if (!strcmp(name, "hdr.type"))
		*v = hdr->type;
	else if (!strcmp(name, "hdr.payload_length"))
		*v = hdr->payload_length;
	else if (sscanf(name, "put.ack_wmd.%63s", rest) == 1)
		return hdr->type == UL_WIRE_MSG_PUT &&
		       handle_field(rest, &hdr->msg.put.ack_wmd, v);
	else if (sscanf(name, "get.return_wmd.%63s", rest) == 1)
		return hdr->type == UL_WIRE_MSG_GET &&
		       handle_field(rest, &hdr->msg.get.return_wmd, v);
	else if (sscanf(name, "ack.dst_wmd.%63s", rest) == 1)
		return hdr->type == UL_WIRE_MSG_ACK &&
		       handle_field(rest, &hdr->msg.ack.dst_wmd, v);
	else if (sscanf(name, "reply.dst_wmd.%63s", rest) == 1)
		return hdr->type == UL_WIRE_MSG_REPLY &&
		       handle_field(rest, &hdr->msg.reply.dst_wmd, v);
	else if (!strncmp(name, "put.", 4) && hdr->type == UL_WIRE_MSG_PUT) {
		if (!strcmp(name, "put.match_bits"))
			*v = hdr->msg.put.match_bits;
		else if (!strcmp(name, "put.hdr_data"))
			*v = hdr->msg.put.hdr_data;
		else if (!strcmp(name, "put.ptl_index"))
			*v = hdr->msg.put.ptl_index;
		else if (!strcmp(name, "put.offset"))
			*v = hdr->msg.put.offset;
		else
			return false;
	} else if (!strncmp(name, "get.", 4) && hdr->type == UL_WIRE_MSG_GET) {
		if (!strcmp(name, "get.match_bits"))
			*v = hdr->msg.get.match_bits;
		else if (!strcmp(name, "get.ptl_index"))
			*v = hdr->msg.get.ptl_index;
		else if (!strcmp(name, "get.src_offset"))
			*v = hdr->msg.get.src_offset;
		else if (!strcmp(name, "get.sink_length"))
			*v = hdr->msg.get.sink_length;
		else
			return false;
	} else if (!strncmp(name, "ack.", 4) && hdr->type == UL_WIRE_MSG_ACK) {
		if (!strcmp(name, "ack.match_bits"))
			*v = hdr->msg.ack.match_bits;
		else if (!strcmp(name, "ack.mlength"))
			*v = hdr->msg.ack.mlength;
		else
			return false;
	} else if (!strncmp(name, "payload.", 8) && d->has_ping) {
		const char *p = name + 8;

		if (!strcmp(p, "pi_magic"))
			*v = UL_WIRE_PING_MAGIC;
		else if (!strcmp(p, "pi_features"))
			*v = d->pi.features;
		else if (!strcmp(p, "pi_pid"))
			*v = d->pi.pid;
		else if (!strcmp(p, "pi_nnis"))
			*v = d->pi.nnis;
		else if (sscanf(p, "pi_ni[%u].%63s", &i, rest) == 2 &&
			 i < d->pi.nnis) {
			if (!strcmp(rest, "ns_nid"))
				*v = nid4_of(&d->nis[i].nid);
			else if (!strcmp(rest, "ns_status"))
				*v = d->nis[i].status;
			else if (!strcmp(rest, "ns_msg_size"))
				*v = d->nis[i].msg_size;
			else
				return false;
		} else {
			return false;
		}
	} else {
		return false;
	}
	return true;
}

/* Check one field line against the decoded block; fail if unmapped. */
static void check_field(const struct hv_block *b, const struct decoded *d,
			const struct hv_field *f)
{
	uint64_t v = 0;
	size_t i;

	if (!strcmp(f->kind, "bytes")) {
		if (!strcmp(f->name, "payload")) {
			assert_int_equal(d->stage, STAGE_KSOCK);
			assert_int_equal(d->msg.hdr.payload_length, f->size);
			assert_memory_equal(d->msg.payload, f->bytes, f->size);
		} else if (!strcmp(f->name, "hdr.msg.(unused)")) {
			/* Unused union bytes: we write and expect zeros. */
			for (i = 0; i < f->size; i++)
				assert_int_equal(f->bytes[i], 0);
		} else {
			fail_msg("block %d: unmapped bytes field %s", b->index,
				 f->name);
		}
		return;
	}
	if (!lookup(d, f->name, &v))
		fail_msg("block %d: unmapped field %s", b->index, f->name);
	if (v != f->value)
		fail_msg("block %d field %s: decoded 0x%llx, expected 0x%llx",
			 b->index, f->name, (unsigned long long)v,
			 (unsigned long long)f->value);
}

static void vectors_decode_every_field(void **state)
{
	struct decoded d;
	size_t i;
	size_t j;

	(void)state;
	for (i = 0; i < hv_vectors.nblocks; i++) {
		const struct hv_block *b = &hv_vectors.blocks[i];

		decode_block(b, &d);
		for (j = 0; j < b->nfields; j++)
			check_field(b, &d, &b->fields[j]);
	}
}

/* Encode what a block decoded to; the bytes must be the block's. */
static void vectors_encode_to_exact_bytes(void **state)
{
	struct ul_err err = { 0 };
	uint8_t out[HV_MAX_BYTES];
	uint8_t pout[512];
	struct decoded d;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < hv_vectors.nblocks; i++) {
		const struct hv_block *b = &hv_vectors.blocks[i];

		decode_block(b, &d);
		memset(out, 0xa5, sizeof(out));
		switch (d.stage) {
		case STAGE_ACR:
			rc = ul_wire_acr_encode(&d.acr, out, sizeof(out), &err);
			break;
		case STAGE_HELLO:
			rc = ul_wire_hello_encode(&d.hello, out, sizeof(out),
						  &err);
			break;
		default:
			rc = ul_wire_ksock_msg_encode(&d.msg, UL_WIRE_PROTO_V3,
						      false, out, sizeof(out),
						      &err);
			break;
		}
		if (rc < 0)
			fail_msg("block %d: encode rc %d: %s", b->index, rc,
				 err.msg);
		assert_int_equal(rc, b->length);
		assert_memory_equal(out, b->bytes, b->length);

		if (!d.has_ping)
			continue;
		/* Ping info from its list of NIDs and statuses. */
		rc = ul_wire_ping_info_encode(&d.pi, d.nis, d.pi.nnis, pout,
					      sizeof(pout), &err);
		assert_int_equal(rc, d.msg.hdr.payload_length);
		assert_memory_equal(pout, d.msg.payload, (size_t)rc);
	}
}

static void encode_msg_equals_block(const struct ul_wire_ksock_msg *m,
				    int index)
{
	const struct hv_block *b = hv_find(&hv_vectors, index);
	struct ul_err err = { 0 };
	uint8_t out[HV_MAX_BYTES];
	int rc;

	assert_non_null(b);
	rc = ul_wire_ksock_msg_encode(m, UL_WIRE_PROTO_V3, false, out,
				      sizeof(out), &err);
	if (rc < 0)
		fail_msg("vector %d: %s", index, err.msg);
	assert_int_equal(rc, b->length);
	assert_memory_equal(out, b->bytes, b->length);
}

/* Vectors 5 and 11: ACKs built from the PUTs 4 and 10 they answer. */
static void ack_built_from_put_copies_handle_and_match_bits(void **state)
{
	static const int pairs[][2] = { { 4, 5 }, { 10, 11 } };
	struct ul_wire_ksock_msg ack;
	struct decoded put;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		decode_block(hv_find(&hv_vectors, pairs[i][0]), &put);
		memset(&ack, 0, sizeof(ack));
		ack.ksh.type = UL_WIRE_KSOCK_LNET;
		ul_wire_ack_init(&ack.hdr, &put.msg.hdr, UL_WIRE_PID_LUSTRE,
				 put.msg.hdr.payload_length);
		encode_msg_equals_block(&ack, pairs[i][1]);
	}
}

/* Vectors 7 and 9: REPLYs built from the GETs 6 and 8. */
static void reply_built_from_get_copies_handle(void **state)
{
	static const int pairs[][2] = { { 6, 7 }, { 8, 9 } };
	struct ul_wire_ksock_msg reply;
	struct decoded get;
	struct decoded want;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		decode_block(hv_find(&hv_vectors, pairs[i][0]), &get);
		decode_block(hv_find(&hv_vectors, pairs[i][1]), &want);
		memset(&reply, 0, sizeof(reply));
		reply.ksh.type = UL_WIRE_KSOCK_LNET;
		ul_wire_reply_init(&reply.hdr, &get.msg.hdr, UL_WIRE_PID_LUSTRE,
				   want.msg.hdr.payload_length);
		reply.payload = want.msg.payload;
		encode_msg_equals_block(&reply, pairs[i][1]);
	}
}

/* Vectors 8 and 10 from the ping GET and push PUT builders. */
static void ping_get_and_push_put_builders_match_vectors(void **state)
{
	struct ul_wire_ksock_msg m;
	struct decoded d;
	uint8_t info[64];
	struct ul_err err = { 0 };
	int n;

	(void)state;
	decode_block(hv_find(&hv_vectors, 8), &d);
	memset(&m, 0, sizeof(m));
	m.ksh.type = UL_WIRE_KSOCK_LNET;
	ul_wire_ping_get_init(&m.hdr, &d.msg.hdr.dest_nid, &d.msg.hdr.src_nid,
			      UL_WIRE_PID_LUSTRE, &d.msg.hdr.msg.get.return_wmd,
			      UL_WIRE_PING_INFO_MIN_SIZE);
	encode_msg_equals_block(&m, 8);

	decode_block(hv_find(&hv_vectors, 10), &d);
	n = ul_wire_ping_info_encode(&d.pi, d.nis, d.pi.nnis, info,
				     sizeof(info), &err);
	assert_int_equal(n, 48);
	memset(&m, 0, sizeof(m));
	m.ksh.type = UL_WIRE_KSOCK_LNET;
	ul_wire_push_put_init(&m.hdr, &d.msg.hdr.dest_nid, &d.msg.hdr.src_nid,
			      UL_WIRE_PID_LUSTRE, &d.msg.hdr.msg.put.ack_wmd,
			      (uint32_t)n);
	m.payload = info;
	encode_msg_equals_block(&m, 10);
}

/* Vectors 3 and 14: passive hellos built from the active ones. */
static void passive_hello_inverts_active_ctype(void **state)
{
	static const int pairs[][2] = { { 2, 3 }, { 13, 14 } };
	const struct hv_block *want;
	struct ul_wire_hello h;
	struct decoded d;
	uint8_t out[128];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < 2; i++) {
		decode_block(hv_find(&hv_vectors, pairs[i][0]), &d);
		want = hv_find(&hv_vectors, pairs[i][1]);
		memset(&h, 0, sizeof(h));
		h.version = d.hello.version;
		h.src_nid = d.hello.dst_nid;
		h.dst_nid = d.hello.src_nid;
		h.src_pid = UL_WIRE_PID_LUSTRE;
		h.src_incarnation = UINT64_C(0x18a1b2c3d4e5f607);
		h.ctype = ul_wire_conn_type_inverse(d.hello.ctype);
		rc = ul_wire_hello_encode(&h, out, sizeof(out), NULL);
		assert_int_equal(rc, want->length);
		assert_memory_equal(out, want->bytes, want->length);
	}
}

/* ---- Streams --------------------------------------------------------- */

struct stream {
	const char *name;
	bool has_acr; /* the connector's direction starts with one */
	int blocks[8];
	size_t nblocks;
};

static const struct stream streams[] = {
	{ "conn 1 A>B", true, { 1, 2, 4, 6, 8, 10 }, 6 },
	{ "conn 1 B>A", false, { 3, 5, 7, 9, 11 }, 5 },
	{ "conn 2 A>B", true, { 12, 13 }, 2 },
	{ "conn 2 B>A", false, { 14, 15 }, 2 },
};

/*
 * A receiver as socklnd will run one: buffer what arrives, ask the
 * codec how long the next unit is, and take it when it is all there.
 */
struct receiver {
	uint8_t buf[HV_MAX_BYTES * 8];
	size_t len;
	int stage; /* 0 acceptor request, 1 hello, 2 ksock messages */
	size_t nunits;
	size_t units[16];   /* lengths of the units taken */
	size_t offsets[16]; /* and where they started */
	size_t consumed;
};

static void receiver_take(struct receiver *r)
{
	enum ul_wire_acr_verdict verdict;
	struct ul_err err = { 0 };
	struct ul_wire_ksock_msg m;
	struct ul_wire_hello h;
	struct ul_wire_acr a;
	size_t size = 0;
	int rc;

	for (;;) {
		if (r->stage == 0) {
			rc = ul_wire_acr_classify(r->buf, r->len, &verdict,
						  &size);
			if (rc == 0)
				assert_int_equal(verdict, UL_WIRE_ACR_OK);
		} else if (r->stage == 1) {
			rc = ul_wire_hello_frame(r->buf, r->len, &size, &err);
		} else {
			rc = ul_wire_ksock_msg_frame(r->buf, r->len,
						     UL_WIRE_PROTO_V3, false,
						     &size, &err);
		}
		if (rc == -ENOMSG) {
			assert_true(size > r->len);
			return;
		}
		if (rc < 0)
			fail_msg("stream: rc %d: %s", rc, err.msg);
		if (size > r->len)
			return;
		if (r->stage == 0)
			rc = ul_wire_acr_decode(r->buf, size, &a, &err);
		else if (r->stage == 1)
			rc = ul_wire_hello_decode(r->buf, size, &h, &err);
		else
			rc = ul_wire_ksock_msg_decode(r->buf, size,
						      UL_WIRE_PROTO_V3, false,
						      &m, &err);
		if (rc < 0)
			fail_msg("stream decode: rc %d: %s", rc, err.msg);
		assert_int_equal(rc, size);
		assert_true(r->nunits < 16);
		r->offsets[r->nunits] = r->consumed;
		r->units[r->nunits++] = size;
		r->consumed += size;
		memmove(r->buf, r->buf + size, r->len - size);
		r->len -= size;
		if (r->stage < 2)
			r->stage++;
	}
}

/* xorshift32: fixed seed, the same chunks on every run and platform. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void run_stream(const struct stream *st, size_t max_chunk, uint32_t seed)
{
	static uint8_t all[HV_MAX_BYTES * 8];
	static struct receiver r;
	size_t total = 0;
	size_t off = 0;
	size_t i;

	for (i = 0; i < st->nblocks; i++) {
		const struct hv_block *b = hv_find(&hv_vectors, st->blocks[i]);

		assert_non_null(b);
		memcpy(all + total, b->bytes, b->length);
		total += b->length;
	}
	memset(&r, 0, sizeof(r));
	r.stage = st->has_acr ? 0 : 1;
	while (off < total) {
		size_t n = max_chunk == 1 ? 1
					  : 1 + next_rand(&seed) % max_chunk;

		if (n > total - off)
			n = total - off;
		memcpy(r.buf + r.len, all + off, n);
		r.len += n;
		off += n;
		receiver_take(&r);
	}
	if (r.len != 0 || r.nunits != st->nblocks)
		fail_msg("%s, chunks <= %zu: %zu units, %zu bytes left",
			 st->name, max_chunk, r.nunits, r.len);
	for (i = 0; i < st->nblocks; i++) {
		const struct hv_block *b = hv_find(&hv_vectors, st->blocks[i]);

		assert_int_equal(r.units[i], b->length);
		assert_memory_equal(all + r.offsets[i], b->bytes, b->length);
	}
}

static void stream_splits_same_units_in_any_chunking(void **state)
{
	static const size_t chunks[] = { 1, 2, 3, 7, 24, 64, 200, 100000 };
	size_t i;
	size_t j;

	(void)state;
	for (i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		for (j = 0; j < sizeof(chunks) / sizeof(chunks[0]); j++)
			run_stream(&streams[i], chunks[j],
				   0x5eed + (uint32_t)j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vectors_decode_every_field),
		cmocka_unit_test(vectors_encode_to_exact_bytes),
		cmocka_unit_test(
			ack_built_from_put_copies_handle_and_match_bits),
		cmocka_unit_test(reply_built_from_get_copies_handle),
		cmocka_unit_test(ping_get_and_push_put_builders_match_vectors),
		cmocka_unit_test(passive_hello_inverts_active_ctype),
		cmocka_unit_test(stream_splits_same_units_in_any_chunking),
	};

	return cmocka_run_group_tests(tests, setup, hv_teardown);
}
