/*
 * Receiver validation of the LNet header (reference/wire.md §10.5)
 * through the node's parse upcall: the "close" rows return -EPROTO, the
 * "drop" rows return 0 with no message, nothing to deliver, the whole
 * payload to skip, and one drop counted. Numbered tables.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/msg.h"
#include "helper_mocklnd.h"

static const char *const a_nids[] = { "10.0.0.1@tcp", "10.1.0.1@tcp1" };

struct fx {
	struct mock_fabric f;
	struct ul_node *a;
	struct ulnet_handle bound, attached;
	struct mock_rec r[2];
	uint8_t buf[2][64];
};

static int fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	mock_fabric_init(&x->f);
	x->a = mock_node(&x->f, a_nids, 2, 0, 0);
	assert_non_null(x->a);
	x->attached = mock_attach(x->a, 4, 0x77, x->buf[0], 64,
				  ULNET_MD_OP_PUT | ULNET_MD_OP_GET,
				  ULNET_MD_THRESH_INF, &x->r[0]);
	x->bound = mock_bind(x->a, x->buf[1], 64, 0, ULNET_MD_THRESH_INF,
			     ULNET_RETAIN, &x->r[1]);
	*state = x;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;

	mock_fabric_fini(&x->f);
	free(x);
	return 0;
}

enum hdr_kind { K_PUT, K_GET, K_ACK, K_REPLY, K_RAW };

struct prow {
	enum hdr_kind kind;
	uint32_t type; /* K_RAW only */
	uint32_t payload_length;
	const char *dest; /* NULL: the receiving NI */
	const char *from; /* NULL: 10.0.0.2@tcp */
	uint32_t portal;
	uint64_t bits;
	int handle; /* 0 bound, 1 attached, 2 unknown, 3 other iface */
};

static struct ul_wire_lnet_hdr make_hdr(struct fx *x, const struct prow *r)
{
	struct ul_wire_lnet_hdr h;
	struct ul_wire_handle wmd = { x->a->opts.interface_cookie, 0 };

	memset(&h, 0, sizeof(h));
	switch (r->handle) {
	case 0:
		wmd.wh_object_cookie = x->bound.cookie;
		break;
	case 1:
		wmd.wh_object_cookie = x->attached.cookie;
		break;
	case 2:
		wmd.wh_object_cookie = 0xfffff;
		break;
	default:
		wmd.wh_object_cookie = x->bound.cookie;
		wmd.wh_interface_cookie ^= 1;
		break;
	}
	h.dest_nid = mock_nid(r->dest ? r->dest : a_nids[0]);
	h.src_nid = mock_nid(r->from ? r->from : "10.0.0.2@tcp");
	h.dest_pid = h.src_pid = ULNET_PID_LUSTRE;
	h.payload_length = r->payload_length;
	switch (r->kind) {
	case K_PUT:
		h.type = UL_WIRE_MSG_PUT;
		h.msg.put.ptl_index = r->portal;
		h.msg.put.match_bits = r->bits;
		h.msg.put.ack_wmd.wh_interface_cookie =
			UL_WIRE_HANDLE_COOKIE_NONE;
		h.msg.put.ack_wmd.wh_object_cookie = UL_WIRE_HANDLE_COOKIE_NONE;
		break;
	case K_GET:
		h.type = UL_WIRE_MSG_GET;
		h.msg.get.ptl_index = r->portal;
		h.msg.get.match_bits = r->bits;
		h.msg.get.sink_length = 32;
		h.msg.get.return_wmd = wmd;
		break;
	case K_ACK:
		h.type = UL_WIRE_MSG_ACK;
		h.msg.ack.dst_wmd = wmd;
		break;
	case K_REPLY:
		h.type = UL_WIRE_MSG_REPLY;
		h.msg.reply.dst_wmd = wmd;
		break;
	case K_RAW:
		h.type = r->type;
		break;
	}
	return h;
}

static struct ul_lnd_ni *lni_of(struct fx *x)
{
	struct ulnet_nid nid = mock_nid(a_nids[0]);

	return &ul_ni_find(ul_node_core(x->a), &nid)->node_ni->lni;
}

/* wire.md §10.5 rows that close the connection. */
static const struct prow close_rows[] = {
	/* 0: HELLO once connected */
	{ K_RAW, UL_WIRE_MSG_HELLO, 0, NULL, NULL, 0, 0, 0 },
	/* 1: an unknown type */
	{ K_RAW, 7, 0, NULL, NULL, 0, 0, 0 },
	/* 2: an ACK with payload */
	{ K_ACK, 0, 1, NULL, NULL, 0, 0, 0 },
	/* 3: a GET with payload */
	{ K_GET, 0, 8, NULL, NULL, 4, 0x77, 0 },
	/* 4: a PUT above LNET_MTU */
	{ K_PUT, 0, ULNET_MTU + 1, NULL, NULL, 4, 0x77, 0 },
	/* 5: a REPLY above LNET_MTU */
	{ K_REPLY, 0, ULNET_MTU + 1, NULL, NULL, 0, 0, 0 },
	/* 6: for another NID on the receiving NI's net */
	{ K_PUT, 0, 8, "10.0.0.99@tcp", NULL, 4, 0x77, 0 },
	/* 7: for another of our NIs, on another net */
	{ K_PUT, 0, 8, "10.1.0.1@tcp1", NULL, 4, 0x77, 0 },
};

static void close_rows_return_eproto(void **state)
{
	struct fx *x = *state;
	struct ul_lnd_ni *lni = lni_of(x);

	for (size_t i = 0; i < sizeof(close_rows) / sizeof(close_rows[0]);
	     i++) {
		struct ul_wire_lnet_hdr h = make_hdr(x, &close_rows[i]);
		struct ulnet_nid from = h.src_nid;
		struct ul_lnd_rx rx;

		print_message("close row %zu\n", i);
		assert_int_equal(ul_node_lnd_upcalls.parse(lni, &h, &from, &rx),
				 -EPROTO);
	}
	assert_int_equal(ul_node_core(x->a)->counters.msgs_alloc, 0);
}

/* Rows that drop the message and keep the connection. */
static const struct prow drop_rows[] = {
	/* 0: for a node on another net: forwarding is not implemented */
	{ K_PUT, 0, 8, "10.5.0.1@tcp5", NULL, 4, 0x77, 0 },
	/* 1: portal 64 */
	{ K_PUT, 0, 8, NULL, NULL, 64, 0x77, 0 },
	/* 2: no entry matches the bits */
	{ K_PUT, 0, 8, NULL, NULL, 4, 0x78, 0 },
	/* 3: longer than the MD, no TRUNCATE */
	{ K_PUT, 0, 65, NULL, NULL, 4, 0x77, 0 },
	/* 4: a GET nothing matches */
	{ K_GET, 0, 0, NULL, NULL, 5, 0x77, 0 },
	/* 5: an ACK for an unknown MD */
	{ K_ACK, 0, 0, NULL, NULL, 0, 0, 2 },
	/* 6: an ACK from another incarnation */
	{ K_ACK, 0, 0, NULL, NULL, 0, 0, 3 },
	/* 7: a REPLY into an MD attached to a portal */
	{ K_REPLY, 0, 8, NULL, NULL, 0, 0, 1 },
	/* 8: a REPLY longer than its sink, no TRUNCATE */
	{ K_REPLY, 0, 65, NULL, NULL, 0, 0, 0 },
	/* 9: a sender that cannot be a peer (a lo NID) */
	{ K_PUT, 0, 8, NULL, "0@lo", 4, 0x77, 0 },
};

static void drop_rows_skip_the_payload(void **state)
{
	struct fx *x = *state;
	struct ul_lnd_ni *lni = lni_of(x);
	struct ul_core *core = ul_node_core(x->a);

	for (size_t i = 0; i < sizeof(drop_rows) / sizeof(drop_rows[0]); i++) {
		struct ul_wire_lnet_hdr h = make_hdr(x, &drop_rows[i]);
		struct ulnet_nid from = h.src_nid;
		uint64_t drops = core->counters.drop_count;
		struct ul_lnd_rx rx;

		print_message("drop row %zu\n", i);
		assert_int_equal(ul_node_lnd_upcalls.parse(lni, &h, &from, &rx),
				 0);
		assert_null(rx.msg);
		assert_int_equal(rx.mlen, 0);
		assert_int_equal(rx.rlen, h.payload_length);
		assert_int_equal(core->counters.drop_count, drops + 1);
		ul_node_lnd_upcalls.rx_done(lni, &rx, 0);
	}
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[0].n, 0);
	assert_int_equal(x->r[1].n, 0);
	assert_int_equal(core->counters.msgs_alloc, 0);
}

static void good_rows_are_taken(void **state)
{
	struct fx *x = *state;
	struct ul_lnd_ni *lni = lni_of(x);
	/* 0: a PUT that fits; 1: a REPLY that fits the bound MD */
	static const struct prow good[] = {
		{ K_PUT, 0, 8, NULL, NULL, 4, 0x77, 0 },
		{ K_REPLY, 0, 8, NULL, NULL, 0, 0, 0 },
	};

	for (size_t i = 0; i < 2; i++) {
		struct ul_wire_lnet_hdr h = make_hdr(x, &good[i]);
		struct ulnet_nid from = h.src_nid;
		struct ul_lnd_rx rx;

		assert_int_equal(ul_node_lnd_upcalls.parse(lni, &h, &from, &rx),
				 0);
		assert_non_null(rx.msg);
		assert_int_equal(rx.mlen, 8);
		ul_node_lnd_upcalls.rx_done(lni, &rx, 0);
	}
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].type, ULNET_EVENT_PUT);
	assert_int_equal(x->r[1].n, 1);
	assert_int_equal(x->r[1].ev[0].type, ULNET_EVENT_REPLY);
}

static void failed_receive_ends_with_an_error_event(void **state)
{
	struct fx *x = *state;
	struct ul_lnd_ni *lni = lni_of(x);
	static const struct prow put = { K_PUT, 0, 8, NULL, NULL, 4, 0x77, 0 };
	struct ul_wire_lnet_hdr h = make_hdr(x, &put);
	struct ulnet_nid from = h.src_nid;
	struct ul_lnd_rx rx;

	assert_int_equal(ul_node_lnd_upcalls.parse(lni, &h, &from, &rx), 0);
	ul_node_lnd_upcalls.rx_done(lni, &rx, -ECONNRESET);
	/* A failed receive's event waits for the flush (msg_rx.c). */
	assert_int_equal(x->r[0].n, 0);
	ul_node_flush(x->a);
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].status, -ECONNRESET);
	/* health.md §4.1 REMOTE_ERROR on a 1-NI peer: counters only. */
	assert_int_equal(
		ul_peer_ni_find(ul_node_core(x->a), &from)->msgs->hs_error, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(close_rows_return_eproto,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(drop_rows_skip_the_payload,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(good_rows_are_taken, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(
			failed_receive_ends_with_an_error_event, fx_setup,
			fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
