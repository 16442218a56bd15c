/*
 * The generic ops of the control protocol (src/ctl/proto.h): a request's
 * struct ul_ctl_args survives encode then decode field for field, with
 * presence kept; a reply document built by the server decodes into the
 * tree the client prints, in each of lnetctl's output engines exactly;
 * malformed requests and documents are refused with -EPROTO (numbered
 * rows), never crash and never leak (ASan).
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

static struct ul_ctl_req *roundtrip(const struct ul_ctl_req *in)
{
	struct ul_ctl_req *out = malloc(sizeof(*out));
	struct ul_err err = { 0 };
	struct ul_ctl_msg m;

	assert_non_null(out);
	assert_int_equal(ul_ctl_req_encode(in, &m), 0);
	memset(out, 0xa5, sizeof(*out));
	assert_int_equal(ul_ctl_req_decode(m.buf, m.len, out, &err), 0);
	ul_ctl_msg_fini(&m);
	return out;
}

static void args_roundtrip_every_field(void **state)
{
	static const uint8_t block[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ul_ctl_req *in = calloc(1, sizeof(*in)), *out;
	struct ul_ctl_args *a = &in->args;

	(void)state;
	assert_non_null(in);
	in->op = UL_CTL_OP_NET_ADD;
	a->has = UL_CTL_ARG_VERBOSE | UL_CTL_ARG_NID | UL_CTL_ARG_NID2 |
		 UL_CTL_ARG_LOCAL_NID | UL_CTL_ARG_NET | UL_CTL_ARG_NAME |
		 UL_CTL_ARG_CPT | UL_CTL_ARG_VALUE | UL_CTL_ARG_PEER_TIMEOUT |
		 UL_CTL_ARG_PEER_CREDITS | UL_CTL_ARG_PEER_BUF_CREDITS |
		 UL_CTL_ARG_CREDITS | UL_CTL_ARG_CONNS_PER_PEER |
		 UL_CTL_ARG_TOS | UL_CTL_ARG_LND_TIMEOUT | UL_CTL_ARG_HEALTH |
		 UL_CTL_ARG_HOP | UL_CTL_ARG_PRIORITY | UL_CTL_ARG_IDX |
		 UL_CTL_ARG_STATE | UL_CTL_ARG_RATE | UL_CTL_ARG_INTERVAL |
		 UL_CTL_ARG_LATENCY | UL_CTL_ARG_MSG_MASK |
		 UL_CTL_ARG_HEALTH_MASK | UL_CTL_ARG_PTL_MASK |
		 UL_CTL_ARG_TIMEOUT_MS | UL_CTL_ARG_UDSP_BLOCK |
		 UL_CTL_ARG_NIDS | UL_CTL_ARG_IFS;
	a->flags = UL_CTL_ARGF_ALL | UL_CTL_ARGF_LOCK_PRIM;
	a->verbose = 4;
	a->nid = ht_nid("192.168.1.20@tcp");
	a->nid2 = ht_nid("2001:db8::1@tcp1");
	a->local_nid = ht_nid("10.0.0.1@o2ib");
	strcpy(a->net, "tcp7");
	strcpy(a->name, "retry_count");
	strcpy(a->cpt, "[0,1]");
	a->value = -12345678901LL;
	a->peer_timeout = -1;
	a->peer_credits = 8;
	a->peer_buffer_credits = 0;
	a->credits = 256;
	a->conns_per_peer = 127;
	a->tos = -1;
	a->lnd_timeout = 50;
	a->health = 0;
	a->hop = 255;
	a->priority = 3;
	a->idx = 7;
	a->state = 1048585;
	a->rate = 10;
	a->interval = 2;
	a->latency = 5;
	a->msg_mask = 0xf;
	a->health_mask = 0x3ff;
	a->ptl_mask = 1ULL << 63;
	a->timeout_ms = 4000;
	a->udsp_block = block;
	a->udsp_len = sizeof(block);
	a->nnids = 2;
	a->nids[0] = ht_nid("4.4.4.1@tcp");
	a->nids[1] = ht_nid("4.4.4.2@tcp");
	a->nifs = 2;
	strcpy(a->ifs[0], "eth0[0,1]");
	strcpy(a->ifs[1], "eth1");
	out = roundtrip(in);
	assert_int_equal(out->op, UL_CTL_OP_NET_ADD);
	assert_int_equal(out->args.has, a->has);
	assert_int_equal(out->args.flags, a->flags);
	assert_int_equal(out->args.verbose, 4);
	assert_true(ulnet_nid_same(&out->args.nid, &a->nid));
	assert_true(ulnet_nid_same(&out->args.nid2, &a->nid2));
	assert_true(ulnet_nid_same(&out->args.local_nid, &a->local_nid));
	assert_string_equal(out->args.net, "tcp7");
	assert_string_equal(out->args.name, "retry_count");
	assert_string_equal(out->args.cpt, "[0,1]");
	assert_true(out->args.value == -12345678901LL);
	assert_int_equal(out->args.peer_timeout, -1);
	assert_int_equal(out->args.peer_credits, 8);
	assert_int_equal(out->args.peer_buffer_credits, 0);
	assert_int_equal(out->args.credits, 256);
	assert_int_equal(out->args.conns_per_peer, 127);
	assert_int_equal(out->args.tos, -1);
	assert_int_equal(out->args.lnd_timeout, 50);
	assert_int_equal(out->args.health, 0);
	assert_int_equal(out->args.hop, 255);
	assert_int_equal(out->args.priority, 3);
	assert_int_equal(out->args.idx, 7);
	assert_int_equal(out->args.state, 1048585);
	assert_int_equal(out->args.rate, 10);
	assert_int_equal(out->args.interval, 2);
	assert_int_equal(out->args.latency, 5);
	assert_int_equal(out->args.msg_mask, 0xf);
	assert_int_equal(out->args.health_mask, 0x3ff);
	assert_true(out->args.ptl_mask == 1ULL << 63);
	assert_int_equal(out->args.timeout_ms, 4000);
	/* The block is borrowed from the frame, gone with it: compare len. */
	assert_int_equal(out->args.udsp_len, sizeof(block));
	assert_int_equal(out->args.nnids, 2);
	assert_true(ulnet_nid_same(&out->args.nids[1], &a->nids[1]));
	assert_int_equal(out->args.nifs, 2);
	assert_string_equal(out->args.ifs[0], "eth0[0,1]");
	assert_string_equal(out->args.ifs[1], "eth1");
	free(out);
	free(in);
}

/* Only what has says travels: absent fields decode as zero. */
static void args_absent_fields_stay_absent(void **state)
{
	struct ul_ctl_req *in = calloc(1, sizeof(*in)), *out;

	(void)state;
	assert_non_null(in);
	in->op = UL_CTL_OP_SET;
	in->args.has = UL_CTL_ARG_NAME | UL_CTL_ARG_VALUE;
	strcpy(in->args.name, "discovery");
	in->args.value = 0;
	in->args.peer_credits = 99; /* not announced: not sent */
	out = roundtrip(in);
	assert_int_equal(out->args.has, UL_CTL_ARG_NAME | UL_CTL_ARG_VALUE);
	assert_string_equal(out->args.name, "discovery");
	assert_int_equal(out->args.peer_credits, 0);
	assert_int_equal(out->args.nnids, 0);
	free(out);
	free(in);
}

/* A hand-made generic request: header + the attributes given. */
struct raw {
	uint8_t buf[512];
	size_t len;
};

static void raw_init(struct raw *r, uint16_t op)
{
	memset(r, 0, sizeof(*r));
	ul_put_le32(r->buf, UL_CTL_MAGIC);
	ul_put_le16(r->buf + 4, UL_CTL_VERSION);
	ul_put_le16(r->buf + 6, op);
	r->len = UL_CTL_HDR_SIZE;
}

static void raw_attr(struct raw *r, uint16_t type, const void *v, uint32_t n)
{
	ul_put_le16(r->buf + r->len, type);
	ul_put_le16(r->buf + r->len + 2, 0);
	ul_put_le32(r->buf + r->len + 4, n);
	memcpy(r->buf + r->len + 8, v, n);
	r->len += 8 + ((n + 3u) & ~3u);
	ul_put_le32(r->buf + 8, (uint32_t)(r->len - UL_CTL_HDR_SIZE));
}

/* A 20-byte NID attribute as LNet lays it out (wire.md §3.2). */
static void raw_nid(struct raw *r, uint16_t type, uint8_t size, uint8_t lnd,
		    uint16_t num, uint32_t addr0)
{
	uint8_t v[20] = { size, lnd, (uint8_t)(num >> 8), (uint8_t)num };

	v[4] = (uint8_t)(addr0 >> 24);
	v[5] = (uint8_t)(addr0 >> 16);
	v[6] = (uint8_t)(addr0 >> 8);
	v[7] = (uint8_t)addr0;
	raw_attr(r, type, v, sizeof(v));
}

static void malformed_generic_requests(void **state)
{
	struct ul_ctl_req *out = malloc(sizeof(*out));
	uint8_t has[8], u32[4] = { 1, 0, 0, 0 };
	char longname[200];
	struct raw r;
	int row;

	(void)state;
	assert_non_null(out);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	for (row = 1; row <= 8; row++) {
		struct ul_err err = { 0 };

		raw_init(&r, UL_CTL_OP_PEER_ADD);
		switch (row) {
		case 1: /* announces a NID it does not send */
			ul_put_le64(has, UL_CTL_ARG_NID);
			raw_attr(&r, UL_CTL_A_ARG_HAS, has, 8);
			break;
		case 2: /* sends a field it did not announce */
			ul_put_le64(has, 0);
			raw_attr(&r, UL_CTL_A_ARG_HAS, has, 8);
			raw_attr(&r, UL_CTL_A_ARG_HOP, u32, 4);
			break;
		case 3: /* a net name past its field */
			ul_put_le64(has, UL_CTL_ARG_NET);
			raw_attr(&r, UL_CTL_A_ARG_HAS, has, 8);
			raw_attr(&r, UL_CTL_A_ARG_NET, longname,
				 (uint32_t)sizeof(longname));
			break;
		case 4: /* a u32 field of the wrong size */
			raw_attr(&r, UL_CTL_A_ARG_HOP, u32, 2);
			break;
		case 5: /* a NID of an LND that does not exist */
			ul_put_le64(has, UL_CTL_ARG_NID);
			raw_attr(&r, UL_CTL_A_ARG_HAS, has, 8);
			raw_nid(&r, UL_CTL_A_ARG_NID, 0, 107, 3, 0x0a000001);
			break;
		case 6: /* an IPv6-sized NID on o2ib */
			ul_put_le64(has, UL_CTL_ARG_NID);
			raw_attr(&r, UL_CTL_A_ARG_HAS, has, 8);
			raw_nid(&r, UL_CTL_A_ARG_NID, 12, ULNET_LND_O2IB, 0, 1);
			break;
		case 7: /* an address size that is neither 4 nor 16 */
			ul_put_le64(has, UL_CTL_ARG_NID);
			raw_attr(&r, UL_CTL_A_ARG_HAS, has, 8);
			raw_nid(&r, UL_CTL_A_ARG_NID, 3, ULNET_LND_SOCK, 0, 1);
			break;
		case 8: /* in a NID list, 1@lo */
			raw_nid(&r, UL_CTL_A_ARG_NIDS, 0, ULNET_LND_LO, 0, 1);
			break;
		}
		print_message("row %d\n", row);
		assert_int_equal(ul_ctl_req_decode(r.buf, r.len, out, &err),
				 -EPROTO);
		assert_true(err.msg[0] != '\0');
		if (row >= 5 && !strstr(err.msg, "not a NID"))
			fail_msg("row %d: %s", row, err.msg);
	}
	free(out);
}

/* A document as a handler builds one: global show's first keys, a route. */
/* A batch of n peer adds, 10.0.0.<i+1>@tcp, encoded then decoded. */
static int batch_of(uint32_t n, struct ul_ctl_msg *m, struct ul_ctl_req *out,
		    struct ul_err *err)
{
	struct ul_ctl_req *in = calloc(1, sizeof(*in));
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_ctl_msg items;
	uint32_t i;
	int rc;

	assert_non_null(in);
	assert_non_null(a);
	ul_ctl_batch_init(&items);
	for (i = 0; i < n; i++) {
		a->has = UL_CTL_ARG_NID;
		assert_int_equal(
			ulnet_nid_parse("10.0.0.1@tcp", &a->nid, NULL, 0), 0);
		a->nid.nid_addr[0] += i;
		ul_ctl_batch_add(&items, a);
	}
	in->op = UL_CTL_OP_BATCH;
	in->batch.op = UL_CTL_OP_PEER_ADD;
	ul_ctl_batch_items(&items, n, &in->batch);
	assert_int_equal(ul_ctl_req_encode(in, m), 0);
	ul_ctl_msg_fini(&items);
	free(a);
	free(in);
	rc = ul_ctl_req_decode(m->buf, m->len, out, err);
	return rc;
}

static void batch_roundtrip(void **state)
{
	struct ul_ctl_req *out = malloc(sizeof(*out));
	struct ul_ctl_args *a = malloc(sizeof(*a));
	struct ul_err err = { 0 };
	struct ul_ctl_reply r, got;
	struct ul_ctl_iter it;
	struct ul_ctl_msg m;
	uint32_t last = 0x0a000000;
	int rc, n = 0;

	(void)state;
	assert_non_null(out);
	assert_non_null(a);
	assert_int_equal(batch_of(3, &m, out, &err), 0);
	assert_int_equal(out->op, UL_CTL_OP_BATCH);
	assert_int_equal(out->batch.op, UL_CTL_OP_PEER_ADD);
	assert_int_equal(out->batch.n, 3);
	/* the items point into the frame, which is still m's */
	ul_ctl_batch_iter(&out->batch, &it);
	while ((rc = ul_ctl_batch_next(&it, a, &err)) > 0) {
		assert_int_equal(a->has, UL_CTL_ARG_NID);
		assert_int_equal(a->nid.nid_addr[0], ++last);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 3);
	ul_ctl_msg_fini(&m);

	/* the count travels with a refusal too: the item it stopped at */
	ul_ctl_reply_error(&r, UL_CTL_OP_BATCH, -EEXIST, "failed to add peer");
	r.batch_done = 1;
	assert_int_equal(ul_ctl_reply_encode(&r, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_BATCH,
					     &got, &err),
			 0);
	assert_int_equal(got.rc, -EEXIST);
	assert_true(got.has_batch_done);
	assert_int_equal(got.batch_done, 1);
	assert_string_equal(got.err_msg, "failed to add peer");
	ul_ctl_reply_fini(&got);
	ul_ctl_msg_fini(&m);
	/* an "unknown op" refusal of an older daemon has no count */
	ul_ctl_reply_error(&r, 0, -EOPNOTSUPP, "control request: unknown op");
	assert_int_equal(ul_ctl_reply_encode(&r, &m), 0);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_BATCH,
					     &got, &err),
			 0);
	assert_false(got.has_batch_done);
	ul_ctl_reply_fini(&got);
	ul_ctl_msg_fini(&m);
	free(a);
	free(out);
}

/*
 * Each row is refused whole before any item could be applied: -EPROTO,
 * or -EOPNOTSUPP for an op this side does not batch (the client then
 * goes on without batches).
 */
static void malformed_batches(void **state)
{
	struct ul_ctl_req *out = malloc(sizeof(*out));
	struct ul_ctl_msg m;
	int row;

	(void)state;
	assert_non_null(out);
	for (row = 1; row <= 5; row++) {
		struct ul_err err = { 0 };

		ul_ctl_msg_init(&m, UL_CTL_OP_BATCH);
		switch (row) {
		case 1: /* no op */
			ul_ctl_nest_start(&m, UL_CTL_A_BATCH_ITEM);
			ul_ctl_put_u64(&m, UL_CTL_A_ARG_HAS, 0);
			ul_ctl_nest_end(&m);
			break;
		case 2: /* an op that is no configuration: a show */
			ul_ctl_put_u32(&m, UL_CTL_A_BATCH_OP,
				       UL_CTL_OP_PEER_LIST);
			break;
		case 3: /* an op past u16 */
			ul_ctl_put_u32(&m, UL_CTL_A_BATCH_OP,
				       0x10000u | UL_CTL_OP_PEER_ADD);
			break;
		case 4: /* the second item announces a NID it lacks */
			ul_ctl_put_u32(&m, UL_CTL_A_BATCH_OP,
				       UL_CTL_OP_PEER_ADD);
			ul_ctl_nest_start(&m, UL_CTL_A_BATCH_ITEM);
			ul_ctl_put_u64(&m, UL_CTL_A_ARG_HAS, 0);
			ul_ctl_nest_end(&m);
			ul_ctl_nest_start(&m, UL_CTL_A_BATCH_ITEM);
			ul_ctl_put_u64(&m, UL_CTL_A_ARG_HAS, UL_CTL_ARG_NID);
			ul_ctl_nest_end(&m);
			break;
		case 5: /* something else among the items */
			ul_ctl_put_u32(&m, UL_CTL_A_BATCH_OP,
				       UL_CTL_OP_PEER_ADD);
			ul_ctl_put_u32(&m, UL_CTL_A_VERBOSE, 1);
			break;
		}
		assert_int_equal(ul_ctl_msg_finish(&m), 0);
		print_message("row %d\n", row);
		assert_int_equal(ul_ctl_req_decode(m.buf, m.len, out, &err),
				 row == 2 || row == 3 ? -EOPNOTSUPP : -EPROTO);
		assert_true(err.msg[0] != '\0');
		ul_ctl_msg_fini(&m);
	}
	/* one item more than a batch may hold */
	{
		struct ul_err err = { 0 };

		assert_int_equal(batch_of(UL_CTL_BATCH_MAX, &m, out, &err), 0);
		ul_ctl_msg_fini(&m);
		assert_int_equal(batch_of(UL_CTL_BATCH_MAX + 1, &m, out, &err),
				 -EPROTO);
		assert_non_null(strstr(err.msg, "more than 1024"));
		ul_ctl_msg_fini(&m);
	}
	free(out);
}

static void build_doc(struct ul_ctl_msg *d)
{
	ul_ctl_doc_init(d);
	ul_ctl_doc_seq(d, "route");
	ul_ctl_doc_map(d, NULL);
	ul_ctl_doc_str(d, "net", "tcp1");
	ul_ctl_doc_str(d, "gateway", "192.168.1.1@tcp");
	ul_ctl_doc_int(d, "hop", -1);
	ul_ctl_doc_uint(d, "priority", 0);
	ul_ctl_doc_bool(d, "alive", true);
	ul_ctl_doc_qstr(d, "CPT", "[0,1]");
	ul_ctl_doc_map(d, "action");
	ul_ctl_doc_int(d, "priority", 1);
	ul_ctl_doc_end(d);
	ul_ctl_doc_end(d);
	ul_ctl_doc_end(d);
	ul_ctl_doc_map(d, "global");
	ul_ctl_doc_int(d, "numa_range", 0);
	ul_ctl_doc_end(d);
}

static char *print_engine(const struct ul_ynode *doc, enum ul_doc_engine e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(ul_doc_print(f, doc, e), 0);
	fclose(f);
	return text;
}

/*
 * The reply in m printed in engine e from its decoded tree and from the
 * raw document (UL_CTL_REPLY_RAW_DOC, what peer show prints with): the
 * two texts must be the same; that text.
 */
static char *print_both(const struct ul_ctl_msg *m, uint16_t op,
			enum ul_doc_engine e)
{
	struct ul_ctl_reply tree, raw;
	struct ul_err err = { 0 };
	char *text = NULL, *t;
	size_t len = 0;
	FILE *f;

	assert_int_equal(ul_ctl_reply_decode(m->buf, m->len, op, &tree, &err),
			 0);
	assert_int_equal(ul_ctl_reply_decode_flags(m->buf, m->len, op,
						   UL_CTL_REPLY_RAW_DOC, &raw,
						   &err),
			 0);
	assert_null(raw.doc);
	assert_non_null(raw.doc_raw);
	t = print_engine(tree.doc, e);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(ul_doc_print_raw(f, raw.doc_raw, raw.doc_raw_len, e),
			 0);
	fclose(f);
	assert_string_equal(text, t);
	free(t);
	ul_ctl_reply_fini(&tree);
	ul_ctl_reply_fini(&raw);
	return text;
}

static void doc_roundtrip_and_engines(void **state)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply rep;
	struct ul_ctl_msg d, m;
	char *t;

	(void)state;
	build_doc(&d);
	assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_ROUTE_SHOW, &m), 0);
	ul_ctl_msg_fini(&d);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_ROUTE_SHOW,
					     &rep, &err),
			 0);
	assert_int_equal(rep.rc, 0);
	assert_non_null(rep.doc);
	ul_ctl_reply_fini(&rep);

	t = print_both(&m, UL_CTL_OP_ROUTE_SHOW, UL_DOC_A);
	assert_string_equal(t, "route:\n"
			       "-     net: tcp1\n"
			       "      gateway: 192.168.1.1@tcp\n"
			       "      hop: -1\n"
			       "      priority: 0\n"
			       "      alive: true\n"
			       "      CPT: \"[0,1]\"\n"
			       "      action:\n"
			       "            priority: 1\n"
			       "global:\n"
			       "      numa_range: 0\n");
	free(t);
	t = print_both(&m, UL_CTL_OP_ROUTE_SHOW, UL_DOC_B);
	assert_string_equal(t, "route:\n"
			       "- net: tcp1\n"
			       "  gateway: 192.168.1.1@tcp\n"
			       "  hop: -1\n"
			       "  priority: 0\n"
			       "  alive: true\n"
			       "  CPT: \"[0,1]\"\n"
			       "  action:\n"
			       "    priority: 1\n"
			       "global:\n"
			       "  numa_range: 0\n");
	free(t);
	t = print_both(&m, UL_CTL_OP_ROUTE_SHOW, UL_DOC_C);
	assert_string_equal(t, "route:\n"
			       "    - net: tcp1\n"
			       "      gateway: 192.168.1.1@tcp\n"
			       "      hop: -1\n"
			       "      priority: 0\n"
			       "      alive: true\n"
			       "      CPT: [0,1]\n"
			       "      action:\n"
			       "          priority: 1\n"
			       "global:\n"
			       "    numa_range: 0\n");
	free(t);
	ul_ctl_msg_fini(&m);
}

/* A reply of a "peer" list holding peers [from, to), raw (RAW_DOC). */
static void peer_page(struct ul_ctl_reply *rep, int from, int to)
{
	struct ul_err err = { 0 };
	struct ul_ctl_msg d, m;
	char nid[32];
	int i;

	ul_ctl_doc_init(&d);
	if (from < to) {
		ul_ctl_doc_seq(&d, "peer");
		for (i = from; i < to; i++) {
			snprintf(nid, sizeof(nid), "10.0.0.%d@tcp", i);
			ul_ctl_doc_map(&d, NULL);
			ul_ctl_doc_str(&d, "primary nid", nid);
			ul_ctl_doc_bool(&d, "Multi-Rail", true);
			ul_ctl_doc_seq(&d, "peer ni");
			ul_ctl_doc_map(&d, NULL);
			ul_ctl_doc_str(&d, "nid", nid);
			ul_ctl_doc_end(&d);
			ul_ctl_doc_end(&d);
			ul_ctl_doc_end(&d);
		}
		ul_ctl_doc_end(&d);
	}
	assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_PEER_SHOW, &m), 0);
	ul_ctl_msg_fini(&d);
	assert_int_equal(
		ul_ctl_reply_decode_flags(m.buf, m.len, UL_CTL_OP_PEER_SHOW,
					  UL_CTL_REPLY_RAW_DOC, rep, &err),
		0);
	ul_ctl_msg_fini(&m);
}

/*
 * A paged peer show (proto.h, CURSOR): pages of 2, 0 and 3 peers print
 * exactly the one list a single reply of the 5 prints, in both libyaml
 * engines; no page with an item prints nothing; a page of another shape
 * is -EPROTO.
 */
static void pages_print_as_one_list(void **state)
{
	static const int cut[] = { 0, 2, 2, 5 };
	enum ul_doc_engine e;
	struct ul_ctl_reply whole, page;
	struct ul_doc_pages pages;
	char *want, *got;
	size_t wlen = 0, glen = 0, i;
	FILE *f;

	(void)state;
	for (e = UL_DOC_A; e <= UL_DOC_B; e++) {
		peer_page(&whole, 0, 5);
		f = open_memstream(&want, &wlen);
		assert_non_null(f);
		assert_int_equal(ul_doc_print_raw(f, whole.doc_raw,
						  whole.doc_raw_len, e),
				 0);
		fclose(f);
		ul_ctl_reply_fini(&whole);
		f = open_memstream(&got, &glen);
		assert_non_null(f);
		ul_doc_pages_init(&pages, f, e);
		for (i = 0; i + 1 < sizeof(cut) / sizeof(cut[0]); i++) {
			peer_page(&page, cut[i], cut[i + 1]);
			assert_int_equal(ul_doc_pages_print(&pages,
							    page.doc_raw,
							    page.doc_raw_len),
					 0);
			ul_ctl_reply_fini(&page);
		}
		assert_int_equal(ul_doc_pages_close(&pages), 0);
		fclose(f);
		assert_non_null(strstr(want, "10.0.0.4@tcp"));
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	/* only empty pages: nothing */
	f = open_memstream(&got, &glen);
	assert_non_null(f);
	ul_doc_pages_init(&pages, f, UL_DOC_A);
	peer_page(&page, 3, 3);
	assert_int_equal(
		ul_doc_pages_print(&pages, page.doc_raw, page.doc_raw_len), 0);
	ul_ctl_reply_fini(&page);
	assert_int_equal(ul_doc_pages_close(&pages), 0);
	fclose(f);
	assert_string_equal(got, "");
	free(got);
	/* a page of two keys is no page */
	{
		struct ul_err err = { 0 };
		struct ul_ctl_msg d, m;

		build_doc(&d);
		assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_PEER_SHOW, &m),
				 0);
		ul_ctl_msg_fini(&d);
		assert_int_equal(ul_ctl_reply_decode_flags(
					 m.buf, m.len, UL_CTL_OP_PEER_SHOW,
					 UL_CTL_REPLY_RAW_DOC, &page, &err),
				 0);
		ul_ctl_msg_fini(&m);
		f = open_memstream(&got, &glen);
		assert_non_null(f);
		ul_doc_pages_init(&pages, f, UL_DOC_A);
		assert_int_equal(ul_doc_pages_print(&pages, page.doc_raw,
						    page.doc_raw_len),
				 -EPROTO);
		assert_int_equal(ul_doc_pages_close(&pages), 0);
		fclose(f);
		free(got);
		ul_ctl_reply_fini(&page);
	}
}

/* An empty document prints nothing in every engine. */
static void empty_doc_prints_nothing(void **state)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply rep;
	struct ul_ctl_msg d, m;
	char *t;

	(void)state;
	ul_ctl_doc_init(&d);
	assert_int_equal(ul_ctl_doc_reply(&d, UL_CTL_OP_UDSP_SHOW, &m), 0);
	ul_ctl_msg_fini(&d);
	assert_int_equal(ul_ctl_reply_decode(m.buf, m.len, UL_CTL_OP_UDSP_SHOW,
					     &rep, &err),
			 0);
	ul_ctl_reply_fini(&rep);
	t = print_both(&m, UL_CTL_OP_UDSP_SHOW, UL_DOC_C);
	assert_string_equal(t, "");
	free(t);
	t = print_both(&m, UL_CTL_OP_UDSP_SHOW, UL_DOC_A);
	assert_string_equal(t, "");
	free(t);
	ul_ctl_msg_fini(&m);
}

/* Reply documents that break the key/value alternation are -EPROTO. */
static void malformed_documents(void **state)
{
	int row;

	(void)state;
	for (row = 1; row <= 4; row++) {
		struct ul_err err = { 0 };
		struct ul_ctl_reply rep;
		struct ul_ctl_msg m;

		ul_ctl_msg_init(&m, UL_CTL_OP_GLOBAL_SHOW | UL_CTL_OP_REPLY);
		ul_ctl_put_s32(&m, UL_CTL_A_RC, 0);
		ul_ctl_nest_start(&m, UL_CTL_A_Y_MAP);
		switch (row) {
		case 1: /* a key without its value */
			ul_ctl_put_str(&m, UL_CTL_A_Y_KEY, "numa_range");
			break;
		case 2: /* a value where a key belongs */
			ul_ctl_put_s64(&m, UL_CTL_A_Y_INT, 3);
			break;
		case 3: /* two keys in a row */
			ul_ctl_put_str(&m, UL_CTL_A_Y_KEY, "a");
			ul_ctl_put_str(&m, UL_CTL_A_Y_KEY, "b");
			break;
		case 4: /* an attribute of another kind inside */
			ul_ctl_put_str(&m, UL_CTL_A_Y_KEY, "a");
			ul_ctl_put_u32(&m, UL_CTL_A_ARG_HOP, 1);
			break;
		}
		ul_ctl_nest_end(&m);
		assert_int_equal(ul_ctl_msg_finish(&m), 0);
		print_message("row %d\n", row);
		assert_int_equal(ul_ctl_reply_decode(m.buf, m.len,
						     UL_CTL_OP_GLOBAL_SHOW,
						     &rep, &err),
				 -EPROTO);
		assert_null(rep.doc);
		/* kept raw, it is checked all the same */
		assert_int_equal(ul_ctl_reply_decode_flags(
					 m.buf, m.len, UL_CTL_OP_GLOBAL_SHOW,
					 UL_CTL_REPLY_RAW_DOC, &rep, &err),
				 -EPROTO);
		assert_null(rep.doc_raw);
		ul_ctl_msg_fini(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(args_roundtrip_every_field),
		cmocka_unit_test(args_absent_fields_stay_absent),
		cmocka_unit_test(malformed_generic_requests),
		cmocka_unit_test(batch_roundtrip),
		cmocka_unit_test(malformed_batches),
		cmocka_unit_test(doc_roundtrip_and_engines),
		cmocka_unit_test(empty_doc_prints_nothing),
		cmocka_unit_test(pages_print_as_one_list),
		cmocka_unit_test(malformed_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
