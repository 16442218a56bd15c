/*
 * The ping service (reference/discovery.md §2-§5, wire.md §8): ping
 * between nodes and to ourselves over 0@lo, statuses and the sequence
 * number after a link change, the push target's ACK, and the client's
 * contract: one callback, never inside the call, -ETIMEDOUT,
 * -ESHUTDOWN.
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
#include "core/ping.h"
#include "helper_mocklnd.h"

#define MSEC UINT64_C(1000000)

static const char *const a_nids[] = { "10.0.0.1@tcp" };
static const char *const b_nids[] = { "10.0.0.2@tcp", "10.0.0.3@tcp" };

struct pong {
	int ncalls;
	int status;
	struct ulnet_ping_result res;
};

static void on_pong(void *arg, int status, const struct ulnet_ping_result *res)
{
	struct pong *p = arg;

	p->ncalls++;
	p->status = status;
	if (res)
		p->res = *res;
}

struct fx {
	struct mock_fabric f;
	struct ul_node *a, *b;
	struct pong p;
	struct mock_rec r;
	uint8_t buf[512];
};

static int fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	mock_fabric_init(&x->f);
	x->a = mock_node(&x->f, a_nids, 1, 0, 0);
	x->b = mock_node(&x->f, b_nids, 2, 0, 0);
	assert_non_null(x->a);
	assert_non_null(x->b);
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

static void ping_returns_the_peers_nids_and_statuses(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id to = { mock_nid(b_nids[0]), ULNET_PID_ANY };

	assert_int_equal(ul_node_ping(x->a, NULL, &to, 1000, on_pong, &x->p),
			 0);
	assert_int_equal(x->p.ncalls, 0); /* never inside the call */
	mock_run(&x->f, 10 * MSEC);
	assert_int_equal(x->p.ncalls, 1);
	assert_int_equal(x->p.status, 0);
	assert_int_equal(x->p.res.nnis, 2);
	assert_int_equal(x->p.res.nnis_total, 2);
	assert_true(ulnet_nid_same(&x->p.res.nis[0].nid, &to.nid));
	assert_true(ulnet_nid_same(&x->p.res.primary.nid, &to.nid));
	assert_int_equal(x->p.res.primary.pid, ULNET_PID_LUSTRE);
	for (int i = 0; i < 2; i++) {
		struct ulnet_nid want = mock_nid(b_nids[i]);

		assert_true(ulnet_nid_same(&x->p.res.nis[i].nid, &want));
		assert_int_equal(x->p.res.nis[i].status, UL_WIRE_NI_STATUS_UP);
	}
	/*
	 * discovery.md §4: NI_STATUS and MULTI_RAIL, DISCOVERY as the
	 * tunable (on), RTE_DISABLED while routing is off (0x1e with it).
	 */
	assert_int_equal(x->p.res.features,
			 UL_WIRE_PING_FEAT_NI_STATUS |
				 UL_WIRE_PING_FEAT_MULTI_RAIL |
				 UL_WIRE_PING_FEAT_DISCOVERY |
				 UL_WIRE_PING_FEAT_RTE_DISABLED);
	mock_run(&x->f, 10 * MSEC);
	assert_int_equal(x->p.ncalls, 1);
}

static void ping_to_self_goes_over_lo(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id to = { mock_nid("0@lo"), ULNET_PID_LUSTRE };
	struct ulnet_nid me = mock_nid(a_nids[0]);
	uint32_t sent = x->f.nsent;

	assert_int_equal(ul_node_ping(x->a, NULL, &to, 1000, on_pong, &x->p),
			 0);
	mock_run(&x->f, 10 * MSEC);
	assert_int_equal(x->p.ncalls, 1);
	assert_int_equal(x->p.status, 0);
	assert_int_equal(x->p.res.nnis, 1);
	assert_true(ulnet_nid_same(&x->p.res.nis[0].nid, &me));
	assert_int_equal(x->f.nsent, sent);
}

static void link_down_shows_in_the_ping_with_a_new_sequence(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id to = { mock_nid(b_nids[1]), ULNET_PID_LUSTRE };
	uint32_t seq = ul_ping_seq(x->b);

	ul_node_link_change(x->b, "eth0", false);
	assert_true(ul_ping_seq(x->b) > seq);
	assert_int_equal(ul_node_ping(x->a, NULL, &to, 1000, on_pong, &x->p),
			 0);
	mock_run(&x->f, 10 * MSEC);
	assert_int_equal(x->p.status, 0);
	assert_int_equal(x->p.res.nis[0].status, UL_WIRE_NI_STATUS_DOWN);
	assert_int_equal(x->p.res.nis[1].status, UL_WIRE_NI_STATUS_UP);
}

static void lost_ping_times_out_once(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id to = { mock_nid(b_nids[0]), ULNET_PID_ANY };

	x->f.is_drop = true;
	assert_int_equal(ul_node_ping(x->a, NULL, &to, 500, on_pong, &x->p), 0);
	mock_run(&x->f, 499 * MSEC);
	assert_int_equal(x->p.ncalls, 0);
	mock_run(&x->f, 2 * MSEC);
	assert_int_equal(x->p.ncalls, 1);
	assert_int_equal(x->p.status, -ETIMEDOUT);
	mock_run(&x->f, 1000 * MSEC);
	assert_int_equal(x->p.ncalls, 1);
}

static void ping_errors_are_synchronous(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id far = { mock_nid("10.9.0.1@tcp9"),
					ULNET_PID_LUSTRE };
	struct ulnet_nid notours = mock_nid("10.0.0.50@tcp");

	assert_int_equal(ul_node_ping(x->a, NULL, &far, 500, on_pong, &x->p),
			 -EHOSTUNREACH);
	assert_int_equal(ul_node_ping(x->a, &notours, &far, 500, on_pong,
				      &x->p),
			 -EINVAL);
	mock_run(&x->f, 1000 * MSEC);
	assert_int_equal(x->p.ncalls, 0);
}

static void shutdown_ends_a_pending_ping(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id to = { mock_nid(b_nids[0]), ULNET_PID_ANY };

	x->f.is_hold = true;
	assert_int_equal(ul_node_ping(x->a, NULL, &to, 500, on_pong, &x->p), 0);
	mock_run(&x->f, MSEC);
	ul_node_shutdown(x->a);
	assert_int_equal(x->p.ncalls, 1);
	assert_int_equal(x->p.status, -ESHUTDOWN);
	assert_int_equal(ul_node_ping(x->a, NULL, &to, 500, on_pong, &x->p),
			 -ESHUTDOWN);
}

static void push_is_taken_truncated_and_acked(void **state)
{
	struct fx *x = *state;
	struct ulnet_process_id to = { mock_nid(b_nids[0]), ULNET_PID_LUSTRE };
	struct ulnet_handle h;

	h = mock_bind(x->a, x->buf, 300, 0, 2, ULNET_UNLINK, &x->r);
	assert_int_equal(ul_node_put(x->a, NULL, h, ULNET_ACK_REQ, &to, 0,
				     UL_WIRE_PING_MATCHBITS, 0, 0),
			 0);
	mock_run(&x->f, 10 * MSEC);
	assert_int_equal(x->r.n, 2);
	assert_int_equal(x->r.ev[1].type, ULNET_EVENT_ACK);
	/* Cut to the minimum ping size the push target holds. */
	assert_int_equal(x->r.ev[1].mlength, UL_WIRE_PING_INFO_MIN_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			ping_returns_the_peers_nids_and_statuses, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(ping_to_self_goes_over_lo,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			link_down_shows_in_the_ping_with_a_new_sequence,
			fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(lost_ping_times_out_once,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(ping_errors_are_synchronous,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(shutdown_ends_a_pending_ping,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			push_is_taken_truncated_and_acked, fx_setup,
			fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
