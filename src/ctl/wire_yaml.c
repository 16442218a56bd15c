/* socklnd frames to YAML; see wire_yaml.h. Field names are the header
 * files' names (wire.md §5), so they read like frames.txt and LNet's debug
 * log; values are decoded the right way round (pids and ACK handles are
 * not swapped as Wireshark's dissector shows them, wire.md §12). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/wire_yaml.h"
#include "wire/wire.h"

/* Payload bytes shown in hex before the rest is only counted. */
#define PAYLOAD_SHOW_MAX 64

void ul_decode_state_init(struct ul_decode_state *st)
{
	memset(st, 0, sizeof(*st));
	st->version = UL_WIRE_PROTO_V3;
}

static void kv_nid(struct ul_yemit *y, const char *key,
		   const struct ulnet_nid *nid)
{
	char buf[ULNET_NIDSTR_SIZE];

	ul_yemit_kv(y, key, "%s", ulnet_nid_format(nid, buf, sizeof(buf)));
}

static void kv_hex(struct ul_yemit *y, const char *key, uint64_t v)
{
	ul_yemit_kv(y, key, "0x%llx", (unsigned long long)v);
}

/* "NAME" when the value has a name, else the number in hex. */
static void kv_named(struct ul_yemit *y, const char *key, const char *name,
		     uint32_t v)
{
	if (name)
		ul_yemit_kv(y, key, "%s", name);
	else
		ul_yemit_kv(y, key, "0x%x", v);
}

static void kv_order(struct ul_yemit *y, bool is_swapped)
{
	ul_yemit_kv(y, "byte order", "%s",
		    is_swapped ? "big-endian" : "little-endian");
}

static void emit_handle(struct ul_yemit *y, const char *key,
			const struct ul_wire_handle *h)
{
	ul_yemit_str(y, key);
	ul_yemit_map_start(y);
	kv_hex(y, "wh_interface_cookie", h->wh_interface_cookie);
	kv_hex(y, "wh_object_cookie", h->wh_object_cookie);
	if (h->wh_interface_cookie == UL_WIRE_HANDLE_COOKIE_NONE &&
	    h->wh_object_cookie == UL_WIRE_HANDLE_COOKIE_NONE)
		ul_yemit_kv(y, "meaning", "none");
	ul_yemit_map_end(y);
}

static void unit_start(struct ul_yemit *y, struct ul_decode_state *st,
		       unsigned int line, size_t off, size_t size)
{
	st->units++;
	ul_yemit_map_start(y);
	ul_yemit_kv(y, "frame", "%u", st->frame);
	if (line)
		ul_yemit_kv(y, "line", "%u", line);
	ul_yemit_kv(y, "offset", "%zu", off);
	ul_yemit_kv(y, "length", "%zu", size);
}

static int do_acr(struct ul_decode_state *st, struct ul_yemit *y,
		  const uint8_t *b, size_t n, unsigned int line, size_t off,
		  struct ul_err *err)
{
	struct ul_wire_acr acr;
	int rc = ul_wire_acr_decode(b, n, &acr, err);

	if (rc < 0)
		return rc;
	unit_start(y, st, line, off, (size_t)rc);
	ul_yemit_str(y, "acceptor request");
	ul_yemit_map_start(y);
	kv_hex(y, "acr_magic", UL_WIRE_ACCEPTOR_MAGIC);
	kv_order(y, acr.is_swapped);
	ul_yemit_kv(y, "acr_version", "%u", acr.version);
	kv_nid(y, "acr_nid", &acr.nid);
	ul_yemit_map_end(y);
	ul_yemit_map_end(y);
	return rc;
}

static int do_hello(struct ul_decode_state *st, struct ul_yemit *y,
		    const uint8_t *b, size_t n, unsigned int line, size_t off,
		    struct ul_err *err)
{
	struct ul_wire_hello h;
	uint32_t i;
	int rc = ul_wire_hello_decode(b, n, &h, err);

	if (rc < 0)
		return rc;
	unit_start(y, st, line, off, (size_t)rc);
	ul_yemit_str(y, "hello");
	ul_yemit_map_start(y);
	kv_hex(y, "kshm_magic",
	       h.version == UL_WIRE_PROTO_V1 ? UL_WIRE_TCP_MAGIC
					     : UL_WIRE_PROTO_MAGIC);
	ul_yemit_kv(y, "kshm_version", "%u", h.version);
	kv_order(y, h.is_swapped);
	kv_nid(y, "kshm_src_nid", &h.src_nid);
	if (h.version != UL_WIRE_PROTO_V1)
		kv_nid(y, "kshm_dst_nid", &h.dst_nid);
	ul_yemit_kv(y, "kshm_src_pid", "%u", h.src_pid);
	ul_yemit_kv(y, "kshm_dst_pid", "%u", h.dst_pid);
	kv_hex(y, "kshm_src_incarnation", h.src_incarnation);
	if (h.version != UL_WIRE_PROTO_V1)
		kv_hex(y, "kshm_dst_incarnation", h.dst_incarnation);
	kv_named(y, "kshm_ctype", ul_wire_conn_type_name(h.ctype), h.ctype);
	ul_yemit_kv(y, "kshm_nips", "%u", h.nips);
	if (h.nips) {
		ul_yemit_str(y, "kshm_ips");
		ul_yemit_seq_start(y);
		for (i = 0; i < h.nips; i++)
			ul_yemit_strf(y, "%u.%u.%u.%u", h.ips[i] >> 24,
				      (h.ips[i] >> 16) & 0xff,
				      (h.ips[i] >> 8) & 0xff, h.ips[i] & 0xff);
		ul_yemit_seq_end(y);
	}
	ul_yemit_map_end(y);
	ul_yemit_map_end(y);
	/* The ksock messages that follow are framed by this hello. */
	st->version = h.version;
	st->is_swapped = h.is_swapped;
	return rc;
}

static void emit_lnet_union(struct ul_yemit *y,
			    const struct ul_wire_lnet_hdr *hdr)
{
	switch (hdr->type) {
	case UL_WIRE_MSG_PUT:
		ul_yemit_str(y, "put");
		ul_yemit_map_start(y);
		emit_handle(y, "ack_wmd", &hdr->msg.put.ack_wmd);
		kv_hex(y, "match_bits", hdr->msg.put.match_bits);
		kv_hex(y, "hdr_data", hdr->msg.put.hdr_data);
		ul_yemit_kv(y, "ptl_index", "%u", hdr->msg.put.ptl_index);
		ul_yemit_kv(y, "offset", "%u", hdr->msg.put.offset);
		ul_yemit_map_end(y);
		break;
	case UL_WIRE_MSG_GET:
		ul_yemit_str(y, "get");
		ul_yemit_map_start(y);
		emit_handle(y, "return_wmd", &hdr->msg.get.return_wmd);
		kv_hex(y, "match_bits", hdr->msg.get.match_bits);
		ul_yemit_kv(y, "ptl_index", "%u", hdr->msg.get.ptl_index);
		ul_yemit_kv(y, "src_offset", "%u", hdr->msg.get.src_offset);
		ul_yemit_kv(y, "sink_length", "%u", hdr->msg.get.sink_length);
		ul_yemit_map_end(y);
		break;
	case UL_WIRE_MSG_ACK:
		ul_yemit_str(y, "ack");
		ul_yemit_map_start(y);
		emit_handle(y, "dst_wmd", &hdr->msg.ack.dst_wmd);
		kv_hex(y, "match_bits", hdr->msg.ack.match_bits);
		ul_yemit_kv(y, "mlength", "%u", hdr->msg.ack.mlength);
		ul_yemit_map_end(y);
		break;
	case UL_WIRE_MSG_REPLY:
		ul_yemit_str(y, "reply");
		ul_yemit_map_start(y);
		emit_handle(y, "dst_wmd", &hdr->msg.reply.dst_wmd);
		ul_yemit_map_end(y);
		break;
	default:
		break;
	}
}

/*
 * Ping info in a payload: shown decoded when it is valid; when its magic is
 * there but it is not valid, the reason a kernel would refuse it is shown.
 */
static void emit_ping_info(struct ul_yemit *y, const uint8_t *p, size_t n)
{
	struct ul_wire_ping_ni *nis = NULL;
	struct ul_wire_ping_info pi;
	struct ul_err perr = { 0 };
	uint32_t i, count = 0;
	int rc;

	/* Count first: the array is sized by what the bytes really hold. */
	rc = ul_wire_ping_info_check(p, n, &pi, &perr);
	if (rc >= 0) {
		count = pi.nnis + pi.nlarge;
		nis = calloc(count, sizeof(*nis));
		if (!nis)
			rc = ul_err_set(&perr, -ENOMEM, "out of memory");
	}
	if (rc >= 0)
		rc = ul_wire_ping_info_decode(p, n, &pi, nis, count, &perr);
	ul_yemit_str(y, "ping info");
	ul_yemit_map_start(y);
	if (rc < 0 || !nis) {
		ul_yemit_kv(y, "invalid", "%s", perr.msg);
		ul_yemit_map_end(y);
		free(nis);
		return;
	}
	kv_hex(y, "pi_magic", UL_WIRE_PING_MAGIC);
	kv_order(y, pi.is_swapped);
	kv_hex(y, "pi_features", pi.features);
	ul_yemit_kv(y, "pi_pid", "%u", pi.pid);
	ul_yemit_kv(y, "pi_nnis", "%u", pi.nnis);
	if (pi.nlarge)
		ul_yemit_kv(y, "large entries", "%u", pi.nlarge);
	if (pi.nmeta)
		ul_yemit_kv(y, "metadata entries", "%u", pi.nmeta);
	ul_yemit_str(y, "pi_ni");
	ul_yemit_seq_start(y);
	for (i = 0; i < count; i++) {
		ul_yemit_map_start(y);
		kv_nid(y, "ns_nid", &nis[i].nid);
		if (i == 0) {
			/* Entry 0 (0@lo) carries the ping sequence number. */
			ul_yemit_kv(y, "sequence", "%u", nis[i].status);
			if (nis[i].msg_size)
				ul_yemit_kv(y, "ns_msg_size", "%u",
					    nis[i].msg_size);
		} else {
			kv_named(y, "ns_status",
				 ul_wire_ni_status_name(nis[i].status),
				 nis[i].status);
		}
		ul_yemit_map_end(y);
	}
	ul_yemit_seq_end(y);
	ul_yemit_map_end(y);
	free(nis);
}

static void emit_payload(struct ul_yemit *y, const uint8_t *p, size_t n)
{
	char hex[2 * PAYLOAD_SHOW_MAX + 1];
	size_t i, show = n < PAYLOAD_SHOW_MAX ? n : PAYLOAD_SHOW_MAX;

	if (n == 0)
		return;
	if (ul_wire_is_ping_info(p, n)) {
		emit_ping_info(y, p, n);
		return;
	}
	for (i = 0; i < show; i++)
		sprintf(hex + 2 * i, "%02x", p[i]);
	if (show < n)
		ul_yemit_kv(y, "payload", "%s... (%zu of %zu bytes shown)", hex,
			    show, n);
	else
		ul_yemit_kv(y, "payload", "%s", hex);
}

static int do_ksock(struct ul_decode_state *st, struct ul_yemit *y,
		    const uint8_t *b, size_t n, unsigned int line, size_t off,
		    struct ul_err *err)
{
	struct ul_wire_ksock_msg m;
	size_t size;
	int rc;

	rc = ul_wire_ksock_msg_frame(b, n, st->version, st->is_swapped, &size,
				     err);
	if (rc == -ENOMSG)
		return ul_err_set(
			err, rc,
			"ksock message: %zu bytes present, it needs %zu", n,
			size);
	if (rc < 0)
		return rc;
	rc = ul_wire_ksock_msg_decode(b, size, st->version, st->is_swapped, &m,
				      err);
	if (rc < 0)
		return rc;
	unit_start(y, st, line, off, size);
	ul_yemit_str(y, "ksock");
	ul_yemit_map_start(y);
	kv_named(y, "ksh_type", ul_wire_ksock_type_name(m.ksh.type),
		 m.ksh.type);
	kv_hex(y, "ksh_csum", m.ksh.csum);
	ul_yemit_str(y, "ksh_zc_cookies");
	ul_yemit_seq_start(y);
	ul_yemit_strf(y, "0x%llx", (unsigned long long)m.ksh.zc_cookies[0]);
	ul_yemit_strf(y, "0x%llx", (unsigned long long)m.ksh.zc_cookies[1]);
	ul_yemit_seq_end(y);
	if (m.ksh.type == UL_WIRE_KSOCK_NOOP &&
	    m.ksh.zc_cookies[1] == UL_WIRE_KEEPALIVE_PING &&
	    st->version >= UL_WIRE_PROTO_V3)
		ul_yemit_kv(y, "meaning", "keepalive");
	ul_yemit_map_end(y);
	if (m.ksh.type == UL_WIRE_KSOCK_LNET) {
		ul_yemit_str(y, "lnet");
		ul_yemit_map_start(y);
		kv_nid(y, "dest_nid", &m.hdr.dest_nid);
		kv_nid(y, "src_nid", &m.hdr.src_nid);
		ul_yemit_kv(y, "dest_pid", "%u", m.hdr.dest_pid);
		ul_yemit_kv(y, "src_pid", "%u", m.hdr.src_pid);
		kv_named(y, "type", ul_wire_msg_type_name(m.hdr.type),
			 m.hdr.type);
		ul_yemit_kv(y, "payload_length", "%u", m.hdr.payload_length);
		emit_lnet_union(y, &m.hdr);
		emit_payload(y, m.payload, m.hdr.payload_length);
		ul_yemit_map_end(y);
	}
	ul_yemit_map_end(y);
	return (int)size;
}

/* Which unit starts at b: by its first four bytes, in either order. */
/* Which unit starts at b: wire tells by its first four bytes. */
static int decode_unit(struct ul_decode_state *st, struct ul_yemit *y,
		       const uint8_t *b, size_t n, unsigned int line,
		       size_t off, struct ul_err *err)
{
	enum ul_wire_unit unit;

	if (ul_wire_unit_classify(b, n, &unit) < 0)
		return ul_err_set(
			err, -ENOMSG,
			"%zu trailing bytes are too few to tell what they are",
			n);
	switch (unit) {
	case UL_WIRE_UNIT_ACR:
		return do_acr(st, y, b, n, line, off, err);
	case UL_WIRE_UNIT_HELLO:
		return do_hello(st, y, b, n, line, off, err);
	case UL_WIRE_UNIT_PING_INFO:
		return ul_err_set(err, -EPROTO,
				  "ping info outside a message: it travels as "
				  "the payload of a REPLY or PUT");
	case UL_WIRE_UNIT_KSOCK:
	case UL_WIRE_UNIT_UNKNOWN:
	default:
		/* The ksock decoder names a bad type precisely. */
		return do_ksock(st, y, b, n, line, off, err);
	}
}

int ul_decode_frame(struct ul_decode_state *st, struct ul_yemit *y,
		    const uint8_t *buf, size_t len, unsigned int first_line,
		    struct ul_err *err)
{
	struct ul_err uerr = { 0 };
	size_t off = 0;

	st->frame++;
	while (off < len) {
		int rc = decode_unit(st, y, buf + off, len - off, first_line,
				     off, &uerr);

		if (rc < 0) {
			if (rc == -ENOMSG)
				return ul_err_set(
					err, -EPROTO,
					"frame %u, offset %zu: truncated: %s",
					st->frame, off, uerr.msg);
			return ul_err_set(err, rc, "frame %u, offset %zu: %s",
					  st->frame, off, uerr.msg);
		}
		off += (size_t)rc;
	}
	return 0;
}
