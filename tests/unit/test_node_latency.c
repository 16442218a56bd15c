/*
 * Latency samples of the message layer (lnetctl.md §18 "Statistics"), as
 * net show -v and peer show -v print them: PUT egress (commit to send
 * completion), GET round trip (to the REPLY) and PUT round trip (to the
 * ACK), on the local NI and the peer NI, over the mock LND with a fixed
 * one-way delay on the virtual clock.
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
#include "core/peer.h"
#include "helper_mocklnd.h"

#define DELAY_NS 1000u /* one way, send to arrival */

struct two {
	struct mock_fabric f;
	struct ul_node *a, *b;
	struct ulnet_nid a_nid, b_nid;
	struct ulnet_process_id to_b;
	struct mock_rec ri, rt;
	uint8_t src[256], dst[256];
};

static int two_setup(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	struct two *t = calloc(1, sizeof(*t));

	mock_fabric_init(&t->f);
	t->f.delay_ns = DELAY_NS;
	t->a = mock_node(&t->f, an, 1, 0, 0);
	t->b = mock_node(&t->f, bn, 1, 0, 0);
	assert_non_null(t->a);
	assert_non_null(t->b);
	t->a_nid = mock_nid(an[0]);
	t->b_nid = mock_nid(bn[0]);
	/* Discovered earlier: no discovery ping in the samples. */
	mock_peer_known(t->a, bn[0]);
	t->to_b.nid = t->b_nid;
	t->to_b.pid = ULNET_PID_LUSTRE;
	mock_attach(t->b, 5, 1, t->dst, sizeof(t->dst),
		    ULNET_MD_OP_PUT | ULNET_MD_OP_GET | ULNET_MD_MANAGE_REMOTE,
		    ULNET_MD_THRESH_INF, &t->rt);
	*state = t;
	return 0;
}

static int two_teardown(void **state)
{
	struct two *t = *state;

	mock_fabric_fini(&t->f);
	free(t);
	return 0;
}

static const struct ul_lat *ni_lat(struct ul_node *n,
				   const struct ulnet_nid *nid)
{
	struct ul_ni *ni = ul_ni_find(ul_node_core(n), nid);

	assert_non_null(ni);
	return ni->lat;
}

/* The peer NI's samples, as node n sees nid. */
static const struct ul_lat *lpni_lat(struct ul_node *n,
				     const struct ulnet_nid *nid)
{
	struct ul_peer_ni *lpni = ul_peer_ni_find(ul_node_core(n), nid);

	assert_non_null(lpni);
	assert_non_null(lpni->msgs);
	return lpni->msgs->lat;
}

static void assert_lat(const struct ul_lat *l, uint64_t samples,
		       uint64_t min_ns, uint64_t max_ns, uint64_t avg_ns)
{
	assert_int_equal(l->samples, samples);
	assert_int_equal(l->min_ns, min_ns);
	assert_int_equal(l->max_ns, max_ns);
	assert_int_equal(ul_lat_avg_ns(l), avg_ns);
}

static void put(struct two *t, enum ulnet_ack_req ack, uint32_t options)
{
	struct ulnet_handle h = mock_bind(t->a, t->src, sizeof(t->src), options,
					  ULNET_MD_THRESH_INF, ULNET_RETAIN,
					  &t->ri);

	assert_int_equal(ul_node_put(t->a, NULL, h, ack, &t->to_b, 5, 1, 0, 0),
			 0);
	mock_run(&t->f, 10 * DELAY_NS);
	assert_int_equal(ul_node_md_unlink(t->a, h), 0);
	mock_run(&t->f, 0);
}

static void put_with_ack_times_egress_and_round_trip(void **state)
{
	struct two *t = *state;
	const struct ul_lat *l;

	put(t, ULNET_ACK_REQ, 0);
	assert_int_equal(mock_rec_count(&t->ri, ULNET_EVENT_ACK), 1);
	/* Sent at once, completed on arrival; the ACK is one delay more. */
	l = ni_lat(t->a, &t->a_nid);
	assert_lat(&l[UL_LAT_PUT_EGRESS], 1, DELAY_NS, DELAY_NS, DELAY_NS);
	assert_lat(&l[UL_LAT_PUT_ACK], 1, 2 * DELAY_NS, 2 * DELAY_NS,
		   2 * DELAY_NS);
	assert_lat(&l[UL_LAT_GET_RTT], 0, 0, 0, 0);
	l = lpni_lat(t->a, &t->b_nid);
	assert_lat(&l[UL_LAT_PUT_EGRESS], 1, DELAY_NS, DELAY_NS, DELAY_NS);
	assert_lat(&l[UL_LAT_PUT_ACK], 1, 2 * DELAY_NS, 2 * DELAY_NS,
		   2 * DELAY_NS);
	/* The target sent an ACK, which is no PUT: nothing timed there. */
	l = ni_lat(t->b, &t->b_nid);
	for (int op = 0; op < UL_LAT_NR; op++)
		assert_lat(&l[op], 0, 0, 0, 0);
}

static void get_reply_round_trip_is_timed(void **state)
{
	struct two *t = *state;
	struct ulnet_handle h = mock_bind(t->a, t->src, sizeof(t->src), 0, 2,
					  ULNET_UNLINK, &t->ri);
	const struct ul_lat *l;

	assert_int_equal(ul_node_get(t->a, NULL, h, &t->to_b, 5, 1, 0), 0);
	mock_run(&t->f, 10 * DELAY_NS);
	assert_int_equal(mock_rec_count(&t->ri, ULNET_EVENT_REPLY), 1);
	l = ni_lat(t->a, &t->a_nid);
	assert_lat(&l[UL_LAT_GET_RTT], 1, 2 * DELAY_NS, 2 * DELAY_NS,
		   2 * DELAY_NS);
	assert_lat(&l[UL_LAT_PUT_EGRESS], 0, 0, 0, 0);
	assert_lat(&l[UL_LAT_PUT_ACK], 0, 0, 0, 0);
	l = lpni_lat(t->a, &t->b_nid);
	assert_lat(&l[UL_LAT_GET_RTT], 1, 2 * DELAY_NS, 2 * DELAY_NS,
		   2 * DELAY_NS);
}

static void samples_keep_min_max_and_mean(void **state)
{
	struct two *t = *state;
	const struct ul_lat *l;

	put(t, ULNET_ACK_REQ, 0);
	t->f.delay_ns = 3 * DELAY_NS;
	put(t, ULNET_ACK_REQ, 0);
	l = ni_lat(t->a, &t->a_nid);
	assert_lat(&l[UL_LAT_PUT_EGRESS], 2, DELAY_NS, 3 * DELAY_NS,
		   2 * DELAY_NS);
	assert_lat(&l[UL_LAT_PUT_ACK], 2, 2 * DELAY_NS, 6 * DELAY_NS,
		   4 * DELAY_NS);
}

/* Round trips are timed off the response tracker only (health.md §6). */
static void untracked_requests_give_no_round_trip(void **state)
{
	struct two *t = *state;
	const struct ul_lat *l;

	put(t, ULNET_ACK_REQ, ULNET_MD_NO_TRACK_RESPONSE);
	ul_node_core(t->a)->tun.response_tracking = 0;
	put(t, ULNET_ACK_REQ, 0);
	assert_int_equal(mock_rec_count(&t->ri, ULNET_EVENT_ACK), 2);
	l = ni_lat(t->a, &t->a_nid);
	assert_lat(&l[UL_LAT_PUT_ACK], 0, 0, 0, 0);
	assert_lat(&l[UL_LAT_PUT_EGRESS], 2, DELAY_NS, DELAY_NS, DELAY_NS);
}

static void failed_sends_give_no_sample(void **state)
{
	struct two *t = *state;
	const struct ul_lat *l;

	t->f.fail_status = -EIO;
	t->f.fail_hstatus = UL_HSTATUS_LOCAL_ERROR;
	put(t, ULNET_ACK_REQ, 0);
	assert_int_equal(mock_rec_count(&t->ri, ULNET_EVENT_SEND), 1);
	assert_int_not_equal(t->ri.ev[0].status, 0);
	l = ni_lat(t->a, &t->a_nid);
	for (int op = 0; op < UL_LAT_NR; op++)
		assert_lat(&l[op], 0, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			put_with_ack_times_egress_and_round_trip, two_setup,
			two_teardown),
		cmocka_unit_test_setup_teardown(get_reply_round_trip_is_timed,
						two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(samples_keep_min_max_and_mean,
						two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(
			untracked_requests_give_no_round_trip, two_setup,
			two_teardown),
		cmocka_unit_test_setup_teardown(failed_sends_give_no_sample,
						two_setup, two_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
