/*
 * PUTs with ACK and GETs with REPLY between two nodes, payloads from
 * empty to LNet's MTU: every byte arrives intact (checksums), every
 * operation ends in exactly one final event on the initiator (ACK or
 * REPLY after a successful SEND), and the target sees one PUT or GET
 * event with the length moved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helper_sim.h"

#define PORTAL 9

static const char conf_a[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.1@tcp\n"
			     "global:\n"
			     "    discovery: 0\n";

static const char conf_b[] = "net:\n"
			     "  - net type: tcp\n"
			     "    local NI(s):\n"
			     "      - nid: 10.0.0.2@tcp\n"
			     "global:\n"
			     "    discovery: 0\n";

/* Payload sizes, one PUT and one GET each; the row number is the tag. */
static const uint32_t sizes[] = {
	/* 0 */ 0,
	/* 1 */ 1,
	/* 2 */ 4095,
	/* 3 */ 65536,
	/* 4 */ ULNET_MTU,
};
#define NROWS (sizeof(sizes) / sizeof(sizes[0]))

/* Tags: initiator MDs 100 + row (PUT) and 200 + row (GET); target MDs
 * 300 + row (PUT sink) and 400 + row (GET source). */

static void put_ack_get_reply_payloads(void **state)
{
	struct sim *sim = sim_create(1);
	struct sim_node *a = sim_node_add(sim, "a", conf_a);
	struct sim_node *b = sim_node_add(sim, "b", conf_b);
	struct ulnet_process_id target = sim_pid("10.0.0.2@tcp");
	struct ulnet_process_id from_a = sim_pid("10.0.0.1@tcp");
	char *buf[4][NROWS];

	(void)state;
	for (size_t r = 0; r < NROWS; r++) {
		size_t len = sizes[r] ? sizes[r] : 1;
		struct ulnet_handle h;
		struct ulnet_md md;

		for (int k = 0; k < 4; k++) {
			buf[k][r] = calloc(1, len);
			assert_non_null(buf[k][r]);
		}
		sim_fill(buf[0][r], sizes[r], (uint32_t)r + 1);	 /* PUT src */
		sim_fill(buf[3][r], sizes[r], (uint32_t)r + 77); /* GET src */
		/* B: a PUT sink and a GET source per row, by match bits. */
		md = sim_md(b, buf[2][r], sizes[r], 1, ULNET_MD_OP_PUT,
			    300 + r);
		assert_int_equal(ul_node_md_attach(b->node, PORTAL, &from_a, r,
						   0, ULNET_INS_AFTER, &md,
						   ULNET_UNLINK, &h),
				 0);
		md = sim_md(b, buf[3][r], sizes[r], 1, ULNET_MD_OP_GET,
			    400 + r);
		assert_int_equal(ul_node_md_attach(b->node, PORTAL, &from_a,
						   1000 + r, 0, ULNET_INS_AFTER,
						   &md, ULNET_UNLINK, &h),
				 0);
		/* A: the PUT source and the GET sink. */
		md = sim_md(a, buf[0][r], sizes[r], ULNET_MD_THRESH_INF, 0,
			    100 + r);
		assert_int_equal(
			ul_node_md_bind(a->node, &md, ULNET_RETAIN, &h), 0);
		assert_int_equal(ul_node_put(a->node, NULL, h, ULNET_ACK_REQ,
					     &target, PORTAL, r, 0, 0xabc),
				 0);
		md = sim_md(a, buf[1][r], sizes[r], ULNET_MD_THRESH_INF, 0,
			    200 + r);
		assert_int_equal(
			ul_node_md_bind(a->node, &md, ULNET_RETAIN, &h), 0);
		assert_int_equal(ul_node_get(a->node, NULL, h, &target, PORTAL,
					     1000 + r, 0),
				 0);
	}
	/* No event comes from inside a call. */
	assert_int_equal(a->nevs, 0);
	assert_int_equal(b->nevs, 0);
	sim_run(sim, 30ull * 1000000000);

	for (size_t r = 0; r < NROWS; r++) {
		const struct sim_ev *ev;

		print_message("row %zu: %u bytes\n", r, sizes[r]);
		/* PUT: SEND ok, then ACK; B got it all in one PUT event. */
		assert_int_equal(sim_ev_count(a, 100 + r), 2);
		assert_int_equal(
			sim_ev_count_type(a, 100 + r, ULNET_EVENT_SEND), 1);
		ev = sim_ev_last(a, 100 + r);
		assert_int_equal(ev->ev.type, ULNET_EVENT_ACK);
		assert_int_equal(ev->ev.status, 0);
		assert_int_equal(ev->ev.mlength, sizes[r]);
		ev = sim_ev_last(b, 300 + r);
		assert_non_null(ev);
		assert_int_equal(ev->ev.type, ULNET_EVENT_PUT);
		assert_int_equal(ev->ev.status, 0);
		assert_int_equal(ev->ev.mlength, sizes[r]);
		assert_int_equal(ev->ev.hdr_data, 0xabc);
		assert_true(ev->ev.unlinked);
		assert_true(sim_csum(buf[2][r], sizes[r]) ==
			    sim_csum(buf[0][r], sizes[r]));
		/* GET: SEND ok, then REPLY with the bytes of B's MD. */
		assert_int_equal(sim_ev_count(a, 200 + r), 2);
		assert_int_equal(
			sim_ev_count_type(a, 200 + r, ULNET_EVENT_SEND), 1);
		ev = sim_ev_last(a, 200 + r);
		assert_int_equal(ev->ev.type, ULNET_EVENT_REPLY);
		assert_int_equal(ev->ev.status, 0);
		assert_int_equal(ev->ev.mlength, sizes[r]);
		ev = sim_ev_last(b, 400 + r);
		assert_non_null(ev);
		assert_int_equal(ev->ev.type, ULNET_EVENT_GET);
		assert_int_equal(ev->ev.mlength, sizes[r]);
		assert_true(sim_csum(buf[1][r], sizes[r]) ==
			    sim_csum(buf[3][r], sizes[r]));
		if (sizes[r] > 0)
			assert_true(sim_csum(buf[1][r], sizes[r]) !=
				    sim_csum(buf[0][r], sizes[r]));
	}
	sim_destroy(sim);
	for (size_t r = 0; r < NROWS; r++)
		for (int k = 0; k < 4; k++)
			free(buf[k][r]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_ack_get_reply_payloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
