/*
 * The wire codec on broken input, for the forms the vectors lack
 * (reference/wire.md §5, §6, §11): V1, V2 and V4 hellos, V4 messages with
 * 96-byte headers, big-endian V2/V3/V4 streams and hellos, and ping infos
 * with LARGE_ADDR entries and METADATA blocks. Each form is built from a
 * vector's decoded values by the encoder, checked to decode whole, then
 * cut at every offset and changed one field at a time, as
 * test_wire_malformed.c does for the vectors themselves.
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
#include "wire/bytes.h"
#include "wire/wire.h"

#define MAX_FORMS 64
#define FORM_MAX (24 + 96 + 512)

enum kind { KIND_HELLO, KIND_KSOCK, KIND_PING };

struct form {
	char name[HV_NAME_SIZE + 16];
	enum kind kind;
	uint32_t version; /* KIND_KSOCK: the stream's version */
	bool is_swapped;  /* host-order fields are big-endian */
	size_t len;
	uint8_t bytes[FORM_MAX];
};

static struct form forms[MAX_FORMS];
static size_t nforms;

static const struct ulnet_nid nid_a6 = { 12, 2, 0, { 0x20010db8, 0, 0, 1 } };
static const struct ulnet_nid nid_b6 = { 12, 2, 0, { 0x20010db8, 0, 0, 2 } };

static struct form *new_form(const char *name, enum kind kind, uint32_t version,
			     bool is_swapped)
{
	struct form *f;

	if (nforms == MAX_FORMS)
		abort();
	f = &forms[nforms++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->kind = kind;
	f->version = version;
	f->is_swapped = is_swapped;
	return f;
}

static int hello_form(const char *name, const struct ul_wire_hello *h)
{
	struct form *f = new_form(name, KIND_HELLO, h->version, h->is_swapped);
	int n = ul_wire_hello_encode(h, f->bytes, sizeof(f->bytes), NULL);

	if (n < 0)
		return -1;
	f->len = (size_t)n;
	return 0;
}

static int make_hellos(void)
{
	const struct hv_block *b = hv_find(&hv_vectors, 2);
	struct ul_wire_hello h;

	if (!b || ul_wire_hello_decode(b->bytes, b->length, &h, NULL) < 0)
		return -1;
	h.nips = 2;
	h.ips[0] = 0xc6120001;
	h.ips[1] = 0xc6120101;
	h.version = UL_WIRE_PROTO_V1;
	memset(&h.dst_nid, 0, sizeof(h.dst_nid)); /* not on the V1 wire */
	h.dst_incarnation = 0;
	if (hello_form("hello/v1", &h))
		return -1;
	if (ul_wire_hello_decode(b->bytes, b->length, &h, NULL) < 0)
		return -1;
	h.nips = 2;
	h.ips[0] = 0xc6120001;
	h.ips[1] = 0xc6120101;
	h.version = UL_WIRE_PROTO_V2;
	if (hello_form("hello/v2", &h))
		return -1;
	h.is_swapped = true;
	if (hello_form("hello/v2-be", &h))
		return -1;
	h.version = UL_WIRE_PROTO_V3;
	h.nips = 0;
	if (hello_form("hello/v3-be", &h))
		return -1;
	h.version = UL_WIRE_PROTO_V4;
	h.is_swapped = false;
	if (hello_form("hello/v4", &h))
		return -1;
	h.is_swapped = true;
	if (hello_form("hello/v4-be", &h))
		return -1;
	h.src_nid = nid_a6;
	h.dst_nid = nid_b6;
	return hello_form("hello/v4-ipv6-be", &h);
}

/* The ping info of a payload, re-encoded in the other byte order. */
static int swap_ping(const uint8_t *in, size_t len, uint8_t *out)
{
	struct ul_wire_ping_info pi;
	struct ul_wire_ping_ni nis[8];
	int n;

	n = ul_wire_ping_info_decode(in, len, &pi, nis, 8, NULL);
	if (n < 0 || (size_t)n != len)
		return -1;
	pi.is_swapped = !pi.is_swapped;
	n = ul_wire_ping_info_encode(&pi, nis, pi.nnis + pi.nlarge, out, len,
				     NULL);
	return n == (int)len ? 0 : -1;
}

static int ksock_form(int index, uint32_t version, bool is_swapped,
		      const char *variant)
{
	const struct hv_block *b = hv_find(&hv_vectors, index);
	uint8_t payload[512];
	struct ul_wire_ksock_msg m;
	char name[HV_NAME_SIZE + 16];
	struct form *f;
	int n;

	if (!b ||
	    ul_wire_ksock_msg_decode(b->bytes, b->length, UL_WIRE_PROTO_V3,
				     false, &m, NULL) != (int)b->length)
		return -1;
	/* A big-endian sender's ping info is big-endian too (§6). */
	if (is_swapped && m.ksh.type == UL_WIRE_KSOCK_LNET &&
	    ul_wire_is_ping_info(m.payload, m.hdr.payload_length)) {
		if (m.hdr.payload_length > sizeof(payload) ||
		    swap_ping(m.payload, m.hdr.payload_length, payload))
			return -1;
		m.payload = payload;
	}
	snprintf(name, sizeof(name), "%s/%s", b->label, variant);
	f = new_form(name, KIND_KSOCK, version, is_swapped);
	n = ul_wire_ksock_msg_encode(&m, version, is_swapped, f->bytes,
				     sizeof(f->bytes), NULL);
	if (n < 0)
		return -1;
	f->len = (size_t)n;
	return 0;
}

static int make_ksocks(void)
{
	static const int msgs[] = { 4, 5, 6, 7, 8, 9, 10, 11, 15 };
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (ksock_form(msgs[i], UL_WIRE_PROTO_V2, true, "v2-be") ||
		    ksock_form(msgs[i], UL_WIRE_PROTO_V3, true, "v3-be") ||
		    ksock_form(msgs[i], UL_WIRE_PROTO_V4, false, "v4") ||
		    ksock_form(msgs[i], UL_WIRE_PROTO_V4, true, "v4-be"))
			return -1;
	return 0;
}

/*
 * 0@lo and 198.18.0.2@tcp (48 bytes), with is_large also 2001:db8::1@tcp
 * (72 bytes, the large entry at 48); with nmeta, then a METADATA block of
 * nmeta entries.
 */
static int ping_form(const char *name, bool is_swapped, bool is_large,
		     uint32_t nmeta)
{
	struct ul_wire_ping_info pi = { .is_swapped = is_swapped,
					.features = 0x1e,
					.pid = 12345 };
	struct ul_wire_ping_ni nis[3];
	struct form *f = new_form(name, KIND_PING, 0, is_swapped);
	size_t n = is_large ? 3 : 2;
	int rc;

	memset(nis, 0, sizeof(nis));
	if (ul_wire_nid4_to_nid(UL_WIRE_NID4_LO, &nis[0].nid, NULL) ||
	    ul_wire_nid4_to_nid(UINT64_C(0x00020000c6120002), &nis[1].nid,
				NULL))
		return -1;
	nis[0].status = 5;
	nis[1].status = UL_WIRE_NI_STATUS_UP;
	nis[2].nid = nid_a6;
	nis[2].status = UL_WIRE_NI_STATUS_DOWN;
	rc = ul_wire_ping_info_encode(&pi, nis, n, f->bytes, sizeof(f->bytes),
				      NULL);
	if (rc < 0)
		return -1;
	f->len = (size_t)rc;
	if (nmeta) {
		ul_put_host32(f->bytes + 4,
			      ul_get_host32(f->bytes + 4, is_swapped) |
				      UL_WIRE_PING_FEAT_METADATA,
			      is_swapped);
		ul_put_host32(f->bytes + f->len, nmeta, is_swapped);
		memset(f->bytes + f->len + 4, 0x5a,
		       nmeta * UL_WIRE_PING_META_ENTRY_SIZE);
		f->len += 4 + nmeta * UL_WIRE_PING_META_ENTRY_SIZE;
	}
	return 0;
}

static int make_pings(void)
{
	return ping_form("ping/be", true, false, 0) ||
	       ping_form("ping/large", false, true, 0) ||
	       ping_form("ping/large-be", true, true, 0) ||
	       ping_form("ping/meta", false, false, 2) ||
	       ping_form("ping/meta-be", true, false, 2) ||
	       ping_form("ping/large-meta", false, true, 1) ||
	       ping_form("ping/large-meta-be", true, true, 1);
}

static int decode_form(const struct form *f, const uint8_t *p, size_t len,
		       struct ul_err *err)
{
	struct ul_wire_ping_info pi;
	struct ul_wire_ksock_msg m;
	struct ul_wire_hello h;

	switch (f->kind) {
	case KIND_HELLO:
		return ul_wire_hello_decode(p, len, &h, err);
	case KIND_KSOCK:
		return ul_wire_ksock_msg_decode(p, len, f->version,
						f->is_swapped, &m, err);
	default:
		return ul_wire_ping_info_check(p, len, &pi, err);
	}
}

/* 1 for a form with no frame function (ping info). */
static int frame_form(const struct form *f, const uint8_t *p, size_t len,
		      size_t *size)
{
	switch (f->kind) {
	case KIND_HELLO:
		return ul_wire_hello_frame(p, len, size, NULL);
	case KIND_KSOCK:
		return ul_wire_ksock_msg_frame(p, len, f->version,
					       f->is_swapped, size, NULL);
	default:
		return 1;
	}
}

static int setup(void **state)
{
	if (hv_setup(state))
		return -1;
	nforms = 0;
	if (make_hellos() || make_ksocks() || make_pings()) {
		fprintf(stderr, "cannot build form %zu\n", nforms);
		return -1;
	}
	return 0;
}

static const struct form *form_named(const char *name)
{
	size_t i;

	for (i = 0; i < nforms; i++)
		if (strcmp(forms[i].name, name) == 0)
			return &forms[i];
	fail_msg("no form %s", name);
	return NULL;
}

static uint8_t *form_copy(const struct form *f, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, f->bytes, len);
	return p;
}

static void every_form_decodes_and_frames_whole(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < nforms; i++) {
		const struct form *f = &forms[i];
		struct ul_err err = { 0 };
		uint8_t *p = form_copy(f, f->len);
		size_t size = 0;
		int rc;

		rc = decode_form(f, p, f->len, &err);
		if (rc != (int)f->len)
			fail_msg("%s: decode rc %d of %zu (%s)", f->name, rc,
				 f->len, err.msg);
		rc = frame_form(f, p, f->len, &size);
		if (rc != 1 && (rc != 0 || size != f->len))
			fail_msg("%s: frame rc %d size %zu of %zu", f->name, rc,
				 size, f->len);
		free(p);
	}
}

/*
 * The frame contract on a cut-short unit: never "complete", and ask for
 * more bytes than are there but no more than the unit holds.
 */
static void truncation_at_every_offset_needs_more_bytes(void **state)
{
	size_t i;
	size_t len;

	(void)state;
	for (i = 0; i < nforms; i++) {
		const struct form *f = &forms[i];

		for (len = 0; len < f->len; len++) {
			struct ul_err err = { 0 };
			uint8_t *p = form_copy(f, len);
			size_t size = 0;
			int rc;

			rc = decode_form(f, p, len, &err);
			if (rc != -ENOMSG || err.msg[0] == '\0')
				fail_msg("%s cut at %zu: rc %d (%s)", f->name,
					 len, rc, err.msg);
			rc = frame_form(f, p, len, &size);
			if (rc != 1 &&
			    (rc != -ENOMSG || size <= len || size > f->len))
				fail_msg("%s cut at %zu: frame rc %d size %zu",
					 f->name, len, rc, size);
			free(p);
		}
	}
}

enum order { ORDER_HOST, ORDER_LE, ORDER_BE };

/* Numbered table: one changed field of a form, and what it gives. */
struct mutation {
	const char *form;
	size_t offset;
	int width; /* 1, 2, 4 or 8 */
	enum order order;
	uint64_t value;
	int want_decode;
	int want_frame; /* 1 = don't care */
	const char *what;
};

#define MTU1 (UL_WIRE_LNET_MTU + 1)

static const struct mutation mutations[] = {
	/* 0 */ { "hello/v1", 0, 4, ORDER_BE, 0xeebc0ded, -EPROTO, -EPROTO,
		  "V1 magic big-endian (V1 is LE only)" },
	/* 1 */
	{ "hello/v1", 6, 2, ORDER_LE, 1, -EPROTONOSUPPORT, -EPROTONOSUPPORT,
	  "V1 version 1.1" },
	/* 2 */ { "hello/v1", 24, 4, ORDER_LE, 1, -EPROTO, 1, "V1 type PUT" },
	/* 3 */
	{ "hello/v1", 28, 4, ORDER_LE, 6, -EPROTO, -EPROTO,
	  "V1 payload_length not a multiple of 4" },
	/* 4 */
	{ "hello/v1", 28, 4, ORDER_LE, 68, -EPROTO, -EPROTO, "V1 with 17 IPs" },
	/* 5 */ { "hello/v1", 76, 4, ORDER_LE, 0, -EPROTO, 0, "V1 IP[1] 0" },
	/* 6 */
	{ "hello/v1", 15, 1, ORDER_LE, 1, -EPROTO, 0,
	  "V1 src_nid top byte set" },
	/* 7 */
	{ "hello/v2", 4, 4, ORDER_HOST, 5, -EPROTONOSUPPORT, -EPROTONOSUPPORT,
	  "version 5" },
	/* 8 */
	{ "hello/v2", 4, 4, ORDER_HOST, 1, -EPROTONOSUPPORT, -EPROTONOSUPPORT,
	  "version 1 with the V2 magic" },
	/* 9 */
	{ "hello/v2", 52, 4, ORDER_HOST, 17, -EPROTO, -EPROTO, "17 IPs" },
	/* 10 */ { "hello/v2", 56, 4, ORDER_HOST, 0, -EPROTO, 0, "IP[0] 0" },
	/* 11 */
	{ "hello/v2", 23, 1, ORDER_LE, 1, -EPROTO, 0, "dst_nid top byte set" },
	/* 12 */
	{ "hello/v2-be", 52, 4, ORDER_HOST, 17, -EPROTO, -EPROTO,
	  "big-endian, 17 IPs" },
	/* 13 */
	{ "hello/v2-be", 60, 4, ORDER_HOST, 0, -EPROTO, 0,
	  "big-endian, IP[1] 0" },
	/* 14 */
	{ "hello/v2-be", 8, 1, ORDER_LE, 1, -EPROTO, 0,
	  "big-endian, src_nid top byte set" },
	/* 15 */
	{ "hello/v2-be", 4, 4, ORDER_HOST, 6, -EPROTONOSUPPORT,
	  -EPROTONOSUPPORT, "big-endian, version 6" },
	/* 16 */
	{ "hello/v2-be", 52, 4, ORDER_LE, 2, -EPROTO, -EPROTO,
	  "big-endian, nips written little-endian" },
	/* 17 */
	{ "hello/v3-be", 52, 4, ORDER_HOST, 1, -ENOMSG, -ENOMSG,
	  "big-endian, 1 IP announced, none sent" },
	/* 18 */
	{ "hello/v3-be", 0, 4, ORDER_LE, 0x45726964, -EPROTO, -EPROTO,
	  "bad magic" },
	/* 19 */
	{ "hello/v4", 76, 4, ORDER_HOST, 1, -EPROTO, 0, "V4 with nips 1" },
	/* 20 */
	{ "hello/v4", 4, 4, ORDER_HOST, 5, -EPROTONOSUPPORT, -EPROTONOSUPPORT,
	  "version 5" },
	/* 21 */
	{ "hello/v4-be", 76, 4, ORDER_HOST, 1, -EPROTO, 0,
	  "big-endian V4 with nips 1" },
	/* 22 */
	{ "hello/v4-ipv6-be", 8, 1, ORDER_LE, 0xff, 80, 0,
	  "any 20 NID bytes decode: the caller judges them" },
	/* 23 */
	{ "put/v4", 0, 4, ORDER_HOST, 0xc2, -EPROTO, -EPROTO,
	  "V4 ksock type 0xc2" },
	/* 24 */
	{ "put/v4", 24 + 48, 4, ORDER_LE, 4, -EPROTO, 0, "V4 LNet type HELLO" },
	/* 25 */
	{ "put/v4", 24 + 52, 4, ORDER_LE, MTU1, -EPROTO, -EPROTO,
	  "V4 payload_length above LNET_MTU" },
	/* 26 */
	{ "get/v4", 24 + 52, 4, ORDER_LE, 1, -EPROTO, -ENOMSG,
	  "V4 GET with payload_length 1" },
	/* 27 */
	{ "ack/v4-be", 24 + 52, 4, ORDER_LE, 1, -EPROTO, -ENOMSG,
	  "big-endian V4 ACK with payload_length 1" },
	/* 28 */
	{ "noop-keepalive/v4", 8, 8, ORDER_HOST, 5, -EPROTO, 0,
	  "V4 keepalive with zc_cookies[0] 5" },
	/* 29 */
	{ "noop-keepalive/v4-be", 8, 8, ORDER_HOST, 5, -EPROTO, 0,
	  "big-endian V4 keepalive with zc_cookies[0] 5" },
	/* 30 */
	{ "noop-keepalive/v4-be", 0, 4, ORDER_LE, 0xc0, -EPROTO, -EPROTO,
	  "big-endian stream, NOOP type written little-endian" },
	/* 31 */
	{ "noop-keepalive/v2-be", 8, 8, ORDER_HOST, 5, 24, 0,
	  "V2: cookie 1 is not a keepalive" },
	/* 32 */
	{ "noop-keepalive/v3-be", 8, 8, ORDER_HOST, 5, -EPROTO, 0,
	  "big-endian V3 keepalive with zc_cookies[0] 5" },
	/* 33 */
	{ "put/v3-be", 24 + 28, 4, ORDER_BE, 32, -EPROTO, -EPROTO,
	  "LNet header written big-endian (it is always LE)" },
	/* 34 */
	{ "put/v3-be", 0, 4, ORDER_HOST, 0xc2, -EPROTO, -EPROTO,
	  "big-endian ksock type 0xc2" },
	/* 35 */
	{ "ack/v2-be", 24 + 28, 4, ORDER_LE, 1, -EPROTO, -ENOMSG,
	  "big-endian V2 ACK with payload_length 1" },
	/* 36 */
	{ "get/v2-be", 24 + 24, 4, ORDER_LE, 7, -EPROTO, 0,
	  "big-endian V2 LNet type 7" },
	/* 37 */
	{ "ping/large", 52, 1, ORDER_LE, 13, -EPROTO, 1,
	  "large entry with nid_size 13" },
	/* 38 */
	{ "ping/large", 52, 1, ORDER_LE, 0, -EPROTO, 1,
	  "large entry with nid_size 0" },
	/* 39 */
	{ "ping/large", 52, 1, ORDER_LE, 4, -EPROTO, 1,
	  "large entry with nid_size 4: 8 stray bytes after it" },
	/* 40 */
	{ "ping/large", 28, 4, ORDER_HOST, 68, -EPROTO, 1,
	  "ns_msg_size cuts the large entry" },
	/* 41 */
	{ "ping/large", 28, 4, ORDER_HOST, 74, -EPROTO, 1,
	  "ns_msg_size not a multiple of 4" },
	/* 42 */
	{ "ping/large", 28, 4, ORDER_HOST, 44, -EPROTO, 1,
	  "ns_msg_size inside the 64-bit entries" },
	/* 43 */
	{ "ping/large", 28, 4, ORDER_HOST, 76, -ENOMSG, 1,
	  "ns_msg_size beyond the bytes" },
	/* 44 */
	{ "ping/large-be", 52, 1, ORDER_LE, 13, -EPROTO, 1,
	  "big-endian, large entry with nid_size 13" },
	/* 45 */
	{ "ping/large-be", 28, 4, ORDER_LE, 72, -EPROTO, 1,
	  "big-endian, ns_msg_size written little-endian (1.2 GB)" },
	/* 46 */
	{ "ping/large-be", 4, 4, ORDER_HOST, 0x3c, -EPROTO, 1,
	  "big-endian, features without NI_STATUS" },
	/* 47 */
	{ "ping/meta", 48, 4, ORDER_HOST, 4097, -EPROTO, 1,
	  "metadata count 4097" },
	/* 48 */
	{ "ping/meta", 48, 4, ORDER_HOST, 4096, -ENOMSG, 1,
	  "metadata count 4096, bytes for 2" },
	/* 49 */
	{ "ping/meta", 48, 4, ORDER_HOST, 3, -ENOMSG, 1,
	  "metadata count 3, bytes for 2" },
	/* 50 */
	{ "ping/meta", 48, 4, ORDER_HOST, 1, 48 + 4 + 40, 1,
	  "metadata count 1: later bytes are not looked at" },
	/* 51 */
	{ "ping/meta-be", 48, 4, ORDER_HOST, 4097, -EPROTO, 1,
	  "big-endian, metadata count 4097" },
	/* 52 */
	{ "ping/meta-be", 48, 4, ORDER_LE, 2, -EPROTO, 1,
	  "big-endian, metadata count written little-endian" },
	/* 53 */
	{ "ping/large-meta", 72, 4, ORDER_HOST, 4097, -EPROTO, 1,
	  "large and metadata, metadata count 4097" },
	/* 54 */
	{ "ping/large-meta", 28, 4, ORDER_HOST, 76, -EPROTO, 1,
	  "ns_msg_size leaves 4 stray bytes after the large entry" },
	/* 55 */
	{ "ping/large-meta", 52, 1, ORDER_LE, 13, -EPROTO, 1,
	  "large and metadata, nid_size 13" },
	/* 56 */
	{ "ping/large-meta-be", 28, 4, ORDER_HOST, 76, -EPROTO, 1,
	  "big-endian, 4 stray bytes after the large entry" },
	/* 57 */
	{ "ping/large-meta-be", 72, 4, ORDER_HOST, 4097, -EPROTO, 1,
	  "big-endian, large and metadata, metadata count 4097" },
	/* 58 */
	{ "ping/large", 53, 1, ORDER_LE, 0xff, -EPROTO, 1,
	  "large entry of type 0xff: LNet's ANY, which has a 64-bit form" },
};

static void put_field(uint8_t *p, const struct mutation *mu, bool is_swapped)
{
	bool be = mu->order == ORDER_BE ||
		  (mu->order == ORDER_HOST && is_swapped);

	switch (mu->width) {
	case 1:
		*p = (uint8_t)mu->value;
		break;
	case 2:
		if (be)
			ul_put_be16(p, (uint16_t)mu->value);
		else
			ul_put_le16(p, (uint16_t)mu->value);
		break;
	case 4:
		ul_put_host32(p, (uint32_t)mu->value, be);
		break;
	default:
		ul_put_host64(p, mu->value, be);
		break;
	}
}

static void mutated_fields_give_the_section_10_answer(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		const struct mutation *mu = &mutations[i];
		const struct form *f = form_named(mu->form);
		struct ul_err err = { 0 };
		uint8_t *p = form_copy(f, f->len);
		size_t size = 0;
		int rc;

		assert_true(mu->offset + (size_t)mu->width <= f->len);
		put_field(p + mu->offset, mu, f->is_swapped);
		rc = decode_form(f, p, f->len, &err);
		if (rc != mu->want_decode)
			fail_msg("case %zu (%s): decode rc %d, want %d (%s)", i,
				 mu->what, rc, mu->want_decode, err.msg);
		if (rc < 0 && err.msg[0] == '\0')
			fail_msg("case %zu (%s): no message", i, mu->what);
		if (mu->want_frame != 1) {
			rc = frame_form(f, p, f->len, &size);
			if (rc != mu->want_frame)
				fail_msg("case %zu (%s): frame rc %d, want %d",
					 i, mu->what, rc, mu->want_frame);
		}
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_form_decodes_and_frames_whole),
		cmocka_unit_test(truncation_at_every_offset_needs_more_bytes),
		cmocka_unit_test(mutated_fields_give_the_section_10_answer),
	};

	return cmocka_run_group_tests(tests, setup, hv_teardown);
}
