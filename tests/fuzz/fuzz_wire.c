/*
 * Fuzz target: every socklnd decoder on untrusted bytes. Whatever decodes
 * must encode again, and decode to the same values: the codec may not
 * accept what it cannot represent.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/wire.h"

#define BUF_MAX (2 * UL_WIRE_LNET_MTU)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[BUF_MAX];

/* Field by field: struct padding is not part of the value. */
static bool acr_same(const struct ul_wire_acr *a, const struct ul_wire_acr *b)
{
	return a->version == b->version && a->is_swapped == b->is_swapped &&
	       ulnet_nid_same(&a->nid, &b->nid);
}

static bool hello_same(const struct ul_wire_hello *a,
		       const struct ul_wire_hello *b)
{
	uint32_t i;

	if (a->version != b->version || a->is_swapped != b->is_swapped ||
	    !ulnet_nid_same(&a->src_nid, &b->src_nid) ||
	    !ulnet_nid_same(&a->dst_nid, &b->dst_nid) ||
	    a->src_pid != b->src_pid || a->dst_pid != b->dst_pid ||
	    a->src_incarnation != b->src_incarnation ||
	    a->dst_incarnation != b->dst_incarnation || a->ctype != b->ctype ||
	    a->nips != b->nips)
		return false;
	for (i = 0; i < a->nips && i < UL_WIRE_INTERFACES_NUM; i++)
		if (a->ips[i] != b->ips[i])
			return false;
	return true;
}

static void check_acr(const uint8_t *d, size_t n)
{
	struct ul_wire_acr a, b;
	enum ul_wire_acr_verdict v;
	size_t sz;
	int rc;

	ul_wire_acr_classify(d, n, &v, &sz);
	if (ul_wire_acr_decode(d, n, &a, NULL) < 0)
		return;
	rc = ul_wire_acr_encode(&a, out, sizeof(out), NULL);
	if (rc < 0 || ul_wire_acr_decode(out, (size_t)rc, &b, NULL) != rc ||
	    !acr_same(&a, &b))
		abort();
}

static void check_hello(const uint8_t *d, size_t n)
{
	struct ul_wire_hello a, b;
	size_t sz;
	int rc;

	ul_wire_hello_frame(d, n, &sz, NULL);
	if (ul_wire_hello_decode(d, n, &a, NULL) < 0)
		return;
	rc = ul_wire_hello_encode(&a, out, sizeof(out), NULL);
	if (rc < 0 || ul_wire_hello_decode(out, (size_t)rc, &b, NULL) != rc ||
	    !hello_same(&a, &b))
		abort();
}

static void check_msgs(const uint8_t *d, size_t n, uint32_t version,
		       bool swapped)
{
	size_t off = 0;

	/* Walk the stream as a receiver would, message by message. */
	while (off < n) {
		struct ul_wire_ksock_msg m;
		size_t sz;
		int rc;

		if (ul_wire_ksock_msg_frame(d + off, n - off, version, swapped,
					    &sz, NULL) < 0)
			return;
		if (sz > n - off)
			abort();
		rc = ul_wire_ksock_msg_decode(d + off, sz, version, swapped, &m,
					      NULL);
		if (rc < 0)
			return;
		if ((size_t)rc != sz)
			abort();
		if (m.ksh.type == UL_WIRE_KSOCK_LNET && m.hdr.payload_length) {
			struct ul_wire_ping_info pi;

			ul_wire_ping_info_check(m.payload, m.hdr.payload_length,
						&pi, NULL);
		}
		if (ul_wire_ksock_msg_encode(&m, version, swapped, out,
					     sizeof(out), NULL) != rc)
			abort();
		off += sz;
	}
}

static void check_ping(const uint8_t *d, size_t n)
{
	struct ul_wire_ping_info pi, pi2;
	struct ul_wire_ping_ni *nis, *nis2;
	size_t count;
	int rc;

	if (ul_wire_ping_info_check(d, n, &pi, NULL) < 0)
		return;
	count = (size_t)pi.nnis + pi.nlarge;
	nis = calloc(count, sizeof(*nis));
	nis2 = calloc(count, sizeof(*nis2));
	if (!nis || !nis2)
		abort();
	if (ul_wire_ping_info_decode(d, n, &pi, nis, count, NULL) < 0)
		abort(); /* check() said yes */
	rc = ul_wire_ping_info_encode(&pi, nis, count, out, sizeof(out), NULL);
	if (rc > 0 && ul_wire_ping_info_decode(out, (size_t)rc, &pi2, nis2,
					       count, NULL) < 0)
		abort();
	free(nis);
	free(nis2);
}

/* A connection's bytes as an acceptor reads them: request, hello, stream. */
static void check_connection(const uint8_t *d, size_t n)
{
	struct ul_wire_acr acr;
	struct ul_wire_hello h;
	int rc;

	rc = ul_wire_acr_decode(d, n, &acr, NULL);
	if (rc > 0) {
		d += rc;
		n -= (size_t)rc;
	}
	rc = ul_wire_hello_decode(d, n, &h, NULL);
	if (rc < 0 || h.version == UL_WIRE_PROTO_V1)
		return;
	check_msgs(d + rc, n - (size_t)rc, h.version, h.is_swapped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_acr(data, size);
	check_hello(data, size);
	check_msgs(data, size, UL_WIRE_PROTO_V3, false);
	check_msgs(data, size, UL_WIRE_PROTO_V4, false);
	check_msgs(data, size, UL_WIRE_PROTO_V2, true);
	check_ping(data, size);
	check_connection(data, size);
	return 0;
}
