/*
 * The message layer's bookkeeping between nodes over the mock LND:
 * credits (queues, at most peer_credits in flight), each health status
 * of a failed send (reference/health.md §4.1/§4.2 as numbered rows),
 * response timeouts (§6), stale answers, shutdown with messages in
 * flight, re-entrant calls from handlers, and link down/up.
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
#include "util/err.h"
#include "helper_mocklnd.h"
#include "lnd/lolnd.h"

#define SEC UINT64_C(1000000000)

static const char *const a_nids[] = { "10.0.0.1@tcp", "10.0.0.11@tcp" };
static const char *const b_nids[] = { "10.0.0.2@tcp", "10.0.0.3@tcp" };
static const char *const c_nids[] = { "10.0.0.4@tcp" };

/* Every test gets one of these; recorders outlive the body. */
struct fx {
	struct mock_fabric f;
	struct mock_rec r[4];
	uint8_t buf[4][256];
};

static int fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	mock_fabric_init(&x->f);
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

static struct ulnet_process_id pid_of(const char *nid)
{
	struct ulnet_process_id id = { mock_nid(nid), ULNET_PID_LUSTRE };

	return id;
}

static void peer_credits_bound_what_is_in_flight(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 2, 0);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_ni_info info;
	struct ul_peer_ni *lpni;
	struct ulnet_handle h;
	size_t n;

	mock_peer_known(a, b_nids[0]); /* no discovery ping first */
	mock_attach(b, 4, 1, x->buf[1], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[1]);
	h = mock_bind(a, x->buf[0], 16, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		      &x->r[0]);
	x->f.is_hold = true;
	for (int i = 0; i < 10; i++)
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to,
					     4, 1, 0, 0),
				 0);
	mock_run(&x->f, 1000);
	/* Two with the LND, eight waiting: credits count them (< 0). */
	assert_int_equal(x->f.in_flight, 2);
	lpni = ul_peer_ni_find(ul_node_core(a), &to.nid);
	assert_non_null(lpni);
	assert_int_equal(lpni->txcredits, -8);
	assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
	assert_int_equal(info.tx_credits, 256 - 2);
	assert_int_equal(info.peer_tx_credits, 2);
	mock_release(&x->f);
	mock_run(&x->f, 1000);
	assert_int_equal(x->f.max_in_flight, 2);
	assert_int_equal(mock_rec_count(&x->r[0], ULNET_EVENT_SEND), 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(x->r[0].ev[i].status, 0);
	assert_int_equal(mock_rec_count(&x->r[1], ULNET_EVENT_PUT), 10);
	assert_int_equal(lpni->txcredits, 2);
	assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
	assert_int_equal(info.tx_credits, 256);
	assert_int_equal(info.stats.send_count[UL_MSG_PUT], 10);
	assert_int_equal(info.stats.send_bytes[UL_MSG_PUT], 160);
	assert_int_equal(lpni->msgs->stats.send_count[UL_MSG_PUT], 10);
}

static void ni_credits_bound_what_is_in_flight(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 3, 3);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ul_node *c = mock_node(&x->f, c_nids, 1, 0, 0);
	struct ulnet_process_id to[2] = { pid_of(b_nids[0]),
					  pid_of(c_nids[0]) };
	struct ulnet_handle h;

	mock_peer_known(a, b_nids[0]); /* no discovery pings first */
	mock_peer_known(a, c_nids[0]);
	mock_attach(b, 4, 1, x->buf[1], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[1]);
	mock_attach(c, 4, 1, x->buf[2], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[2]);
	h = mock_bind(a, x->buf[0], 16, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		      &x->r[0]);
	x->f.is_hold = true;
	for (int i = 0; i < 10; i++)
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ,
					     &to[i % 2], 4, 1, 0, 0),
				 0);
	mock_run(&x->f, 1000);
	assert_int_equal(x->f.in_flight, 3);
	mock_release(&x->f);
	mock_run(&x->f, 1000);
	assert_int_equal(x->f.max_in_flight, 3);
	assert_int_equal(mock_rec_count(&x->r[0], ULNET_EVENT_SEND), 10);
	assert_int_equal(mock_rec_count(&x->r[1], ULNET_EVENT_PUT), 5);
	assert_int_equal(mock_rec_count(&x->r[2], ULNET_EVENT_PUT), 5);
}

/* health.md §4.1 and §4.2, one failed PUT each toward a 2-NI MR peer. */
struct hs_row {
	enum ul_hstatus hs;
	int ni_healthv;	     /* our NI after */
	int peer_deficit;    /* 2000 - sum of the peer's NI health */
	size_t ni_counter;   /* offsetof in ul_ni_hstats, or -1 */
	size_t peer_counter; /* offsetof in ul_peer_ni_msgs, or -1 */
	size_t global;	     /* offsetof in ul_counters */
	uint32_t attempts;   /* 1 + resends (health.md §4.1, §7) */
};

#define NI_C(f) offsetof(struct ul_ni_hstats, f)
#define PEER_C(f) offsetof(struct ul_peer_ni_msgs, f)
#define G_C(f) offsetof(struct ul_counters, f)
#define NONE_C ((size_t)-1)

static const struct hs_row hs_rows[] = {
	/* 0 */ { UL_HSTATUS_LOCAL_INTERRUPT, 900, 0, NI_C(interrupts), NONE_C,
		  G_C(local_interrupt_count), 1 },
	/* 1 */
	{ UL_HSTATUS_LOCAL_DROPPED, 900, 0, NI_C(dropped), NONE_C,
	  G_C(local_dropped_count), 1 },
	/* 2 */
	{ UL_HSTATUS_LOCAL_ABORTED, 900, 0, NI_C(aborted), NONE_C,
	  G_C(local_aborted_count), 1 },
	/* 3 */
	{ UL_HSTATUS_LOCAL_NO_ROUTE, 900, 0, NI_C(no_route), NONE_C,
	  G_C(local_no_route_count), 1 },
	/* 4 */
	{ UL_HSTATUS_LOCAL_ERROR, 900, 0, NI_C(error), NONE_C,
	  G_C(local_error_count), 1 },
	/* 5 */
	{ UL_HSTATUS_LOCAL_TIMEOUT, 900, 0, NI_C(timeouts), NONE_C,
	  G_C(local_timeout_count), 1 },
	/* 6 */
	{ UL_HSTATUS_REMOTE_ERROR, 1000, 100, NONE_C, PEER_C(hs_error),
	  G_C(remote_error_count), 1 },
	/* 7 */
	{ UL_HSTATUS_REMOTE_DROPPED, 1000, 300, NONE_C, PEER_C(hs_dropped),
	  G_C(remote_dropped_count), 3 },
	/* 8 */
	{ UL_HSTATUS_REMOTE_TIMEOUT, 1000, 100, NONE_C, PEER_C(hs_timeout),
	  G_C(remote_timeout_count), 1 },
	/* 9 */
	{ UL_HSTATUS_NETWORK_TIMEOUT, 900, 100, NONE_C,
	  PEER_C(hs_network_timeout), G_C(network_timeout_count), 1 },
};

static uint32_t u32_at(const void *base, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

static void each_hstatus_moves_the_right_health(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hs_rows) / sizeof(hs_rows[0]); i++) {
		const struct hs_row *r = &hs_rows[i];
		struct fx *x = calloc(1, sizeof(*x));
		struct ul_node *a, *b;
		struct ul_core *core;
		struct ul_peer *peer;
		struct ul_peer_ni *l2, *l3, *used;
		struct ulnet_nid n2 = mock_nid(b_nids[0]);
		struct ulnet_nid n3 = mock_nid(b_nids[1]);
		struct ulnet_process_id to = { n2, ULNET_PID_LUSTRE };
		struct ulnet_handle h;
		struct ulnet_ni_info info;
		size_t n;
		struct ul_counters before;

		print_message("row %zu: %s\n", i, ul_hstatus_name(r->hs));
		mock_fabric_init(&x->f);
		a = mock_node(&x->f, a_nids, 1, 0, 0);
		b = mock_node(&x->f, b_nids, 2, 0, 0);
		assert_non_null(b);
		core = ul_node_core(a);
		assert_int_equal(
			ul_peer_add(core, &n2, true, false, &peer, NULL), 0);
		assert_int_equal(ul_peer_ni_add(core, peer, &n3, NULL, NULL),
				 0);
		before = core->counters;
		h = mock_bind(a, x->buf[0], 10, 0, 1, ULNET_UNLINK, &x->r[0]);
		x->f.fail_status = -EIO;
		x->f.fail_hstatus = r->hs;
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to,
					     1, 0, 0, 0),
				 0);
		mock_run(&x->f, 1000);
		/* Exactly one event, the SEND with the LND's error. */
		assert_int_equal(x->r[0].n, 1);
		assert_int_equal(x->r[0].ev[0].type, ULNET_EVENT_SEND);
		assert_int_equal(x->r[0].ev[0].status, -EIO);
		assert_true(x->r[0].ev[0].unlinked);
		assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
		assert_int_equal(info.healthv, r->ni_healthv);
		/* lnet_msg_decommit_tx: a failed send is not a drop. */
		assert_int_equal(info.stats.drop_count[UL_MSG_PUT], 0);
		assert_int_equal(info.stats.send_count[UL_MSG_PUT], 0);
		assert_int_equal(core->counters.drop_count, before.drop_count);
		l2 = ul_peer_ni_find(core, &n2);
		l3 = ul_peer_ni_find(core, &n3);
		assert_int_equal(2000 - l2->healthv - l3->healthv,
				 r->peer_deficit);
		used = l2->msgs ? l2 : l3;
		assert_non_null(used->msgs);
		if (r->ni_counter != NONE_C) {
			struct ul_ni *ni = ul_ni_find(core, &info.nid);

			assert_int_equal(u32_at(&ni->hstats, r->ni_counter), 1);
		}
		if (r->peer_counter != NONE_C)
			assert_int_equal(
				(l2->msgs ? u32_at(l2->msgs, r->peer_counter)
					  : 0) +
					(l3->msgs ? u32_at(l3->msgs,
							   r->peer_counter)
						  : 0),
				r->attempts);
		assert_int_equal(u32_at(&core->counters, r->global),
				 u32_at(&before, r->global) + r->attempts);
		/* A 2-NI peer: remote_dropped is resent, then given up. */
		assert_int_equal(core->counters.resend_count,
				 before.resend_count + r->attempts - 1);
		assert_int_equal(core->counters.failed_resends,
				 before.failed_resends +
					 (r->attempts > 1 ? 1 : 0));
		mock_fabric_fini(&x->f);
		free(x);
	}
}

/*
 * A network timeout is never resent (health.md §4.1), unless the LND
 * says the peer cannot have taken the message: then it is resent like a
 * resendable failure, both ends' health dropping at each try.
 */
static void undelivered_network_timeout_is_resent(void **state)
{
	for (int undelivered = 0; undelivered <= 1; undelivered++) {
		struct fx *x = calloc(1, sizeof(*x));
		struct ul_node *a;
		struct ul_core *core;
		struct ul_peer *peer;
		struct ulnet_nid n2 = mock_nid(b_nids[0]);
		struct ulnet_nid n3 = mock_nid(b_nids[1]);
		struct ulnet_process_id to = { n2, ULNET_PID_LUSTRE };
		struct ulnet_handle h;

		(void)state;
		mock_fabric_init(&x->f);
		a = mock_node(&x->f, a_nids, 2, 0, 0);
		assert_non_null(mock_node(&x->f, b_nids, 2, 0, 0));
		core = ul_node_core(a);
		assert_int_equal(
			ul_peer_add(core, &n2, true, false, &peer, NULL), 0);
		assert_int_equal(ul_peer_ni_add(core, peer, &n3, NULL, NULL),
				 0);
		h = mock_bind(a, x->buf[0], 10, 0, 1, ULNET_UNLINK, &x->r[0]);
		x->f.fail_status = -ETIMEDOUT;
		x->f.fail_hstatus = UL_HSTATUS_NETWORK_TIMEOUT;
		x->f.fail_undelivered = undelivered;
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to,
					     1, 0, 0, 0),
				 0);
		mock_run(&x->f, 1000);
		assert_int_equal(x->r[0].n, 1);
		assert_int_equal(x->r[0].ev[0].status, -ETIMEDOUT);
		assert_int_equal(core->counters.resend_count,
				 undelivered ? 2 : 0);
		assert_int_equal(core->counters.network_timeout_count,
				 undelivered ? 3 : 1);
		mock_fabric_fini(&x->f);
		free(x);
	}
}

static void single_ni_peer_keeps_its_health(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(c_nids[0]);
	struct ul_peer_ni *lpni;
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, c_nids, 1, 0, 0));
	h = mock_bind(a, x->buf[0], 10, 0, 1, ULNET_UNLINK, &x->r[0]);
	x->f.fail_status = -EIO;
	x->f.fail_hstatus = UL_HSTATUS_REMOTE_DROPPED;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 1, 0, 0, 0), 0);
	mock_run(&x->f, 1000);
	lpni = ul_peer_ni_find(ul_node_core(a), &to.nid);
	/* health.md §4.1: only the counters move for a 1-NI peer. */
	assert_int_equal(lpni->healthv, 1000);
	assert_int_equal(lpni->msgs->hs_dropped, 1);
	assert_int_equal(x->r[0].n, 1);
}

static void unanswered_put_unlinks_after_transaction_timeout(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ul_core *core = ul_node_core(a);
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	mock_peer_known(a, b_nids[0]); /* its ping would be dropped too */
	h = mock_bind(a, x->buf[0], 10, 0, 2, ULNET_UNLINK, &x->r[0]);
	x->f.is_drop = true;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_ACK_REQ, &to, 1, 0, 0, 0), 0);
	assert_int_equal(core->counters.rst_alloc, 1);
	/* expiry passes every transaction_timeout / 2 (75 s): the one at
	 * 150 s finds the deadline not yet past, the one at 225 s acts */
	mock_run(&x->f, 224 * SEC);
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(x->r[0].ev[0].status, 0);
	assert_false(x->r[0].ev[0].unlinked);
	mock_run(&x->f, 2 * SEC);
	assert_int_equal(x->r[0].n, 2);
	assert_int_equal(x->r[0].ev[1].type, ULNET_EVENT_UNLINK);
	/* ulnet.h: a response timeout is never status 0. */
	assert_int_equal(x->r[0].ev[1].status, -ETIMEDOUT);
	assert_true(x->r[0].ev[1].unlinked);
	assert_int_equal(core->counters.response_timeout_count, 1);
	assert_int_equal(core->counters.rst_alloc, 0);
	/* The next hop takes a remote failure, even with one NI (§6). */
	assert_int_equal(ul_peer_ni_find(core, &to.nid)->healthv, 900);
}

static void failed_send_leaves_no_tracker_behind(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	h = mock_bind(a, x->buf[0], 10, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		      &x->r[0]);
	x->f.fail_status = -EIO;
	x->f.fail_hstatus = UL_HSTATUS_LOCAL_ERROR;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_ACK_REQ, &to, 1, 0, 0, 0), 0);
	mock_run(&x->f, 200 * SEC);
	/* The SEND error is final; the retained MD stays usable. */
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].status, -EIO);
	assert_int_equal(ul_node_core(a)->counters.rst_alloc, 0);
	assert_int_equal(ul_node_core(a)->counters.response_timeout_count, 0);
	x->f.fail_status = 0;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 1, 0, 0, 0), 0);
}

static void timeout_with_send_in_flight_fails_the_send(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	mock_peer_known(a, b_nids[0]); /* its ping would be held too */
	h = mock_bind(a, x->buf[0], 10, 0, 2, ULNET_UNLINK, &x->r[0]);
	x->f.is_hold = true;
	assert_int_equal(ul_node_get(a, NULL, h, &to, 1, 0, 0), 0);
	/* past the expiry pass that finds the deadline gone (225 s) */
	mock_run(&x->f, 226 * SEC);
	assert_int_equal(x->r[0].n, 0); /* the SEND is still out */
	x->f.is_drop = true;
	mock_release(&x->f);
	mock_run(&x->f, 1000);
	/* health.md §6: its event is the last, and -ETIMEDOUT. */
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(x->r[0].ev[0].status, -ETIMEDOUT);
	assert_true(x->r[0].ev[0].unlinked);
}

static void stale_ack_is_dropped_silently(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ulnet_nid an = mock_nid(a_nids[0]), bn = mock_nid(b_nids[0]);
	struct ul_wire_lnet_hdr hdr = { 0 };
	struct ulnet_ni_info info;
	struct ulnet_handle h;
	bool is_taken;
	size_t n;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	h = mock_bind(a, x->buf[0], 10, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		      &x->r[0]);
	hdr.type = UL_WIRE_MSG_ACK;
	hdr.dest_nid = an;
	hdr.src_nid = bn;
	hdr.dest_pid = hdr.src_pid = ULNET_PID_LUSTRE;
	hdr.msg.ack.mlength = 10;
	/* 0: a previous incarnation's interface cookie */
	hdr.msg.ack.dst_wmd.wh_interface_cookie = a->opts.interface_cookie + 1;
	hdr.msg.ack.dst_wmd.wh_object_cookie = h.cookie;
	assert_int_equal(
		mock_inject(&x->f, NULL, &hdr, &bn, NULL, 0, &is_taken), 0);
	assert_false(is_taken);
	/* 1: our cookie, an MD that does not exist */
	hdr.msg.ack.dst_wmd.wh_interface_cookie = a->opts.interface_cookie;
	hdr.msg.ack.dst_wmd.wh_object_cookie = h.cookie + 1000;
	assert_int_equal(
		mock_inject(&x->f, NULL, &hdr, &bn, NULL, 0, &is_taken), 0);
	assert_false(is_taken);
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[0].n, 0);
	assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
	assert_int_equal(info.stats.drop_count[UL_MSG_ACK], 2);
	assert_int_equal(ul_node_core(a)->counters.drop_count, 2);
	/* 2: the right handle is taken: an ACK event. */
	hdr.msg.ack.dst_wmd.wh_object_cookie = h.cookie;
	assert_int_equal(
		mock_inject(&x->f, NULL, &hdr, &bn, NULL, 0, &is_taken), 0);
	assert_true(is_taken);
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].type, ULNET_EVENT_ACK);
	assert_int_equal(x->r[0].ev[0].mlength, 10);
}

static int count_final(const struct mock_rec *r)
{
	int k = 0;

	for (int i = 0; i < r->n; i++)
		k += r->ev[i].unlinked;
	return k;
}

static void shutdown_ends_everything_in_flight_once(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 2, 0);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_handle hx, hy, hz;

	mock_attach(b, 4, 1, x->buf[3], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_OP_GET | ULNET_MD_TRUNCATE,
		    ULNET_MD_THRESH_INF, &x->r[3]);
	/* X: PUT with ACK whose ACK never comes. */
	hx = mock_bind(a, x->buf[0], 10, 0, 2, ULNET_UNLINK, &x->r[0]);
	x->f.is_drop = true;
	assert_int_equal(
		ul_node_put(a, NULL, hx, ULNET_ACK_REQ, &to, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	x->f.is_drop = false;
	/* Y: five PUTs, two with the LND and three queued on credits. */
	x->f.is_hold = true;
	hy = mock_bind(a, x->buf[1], 10, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		       &x->r[1]);
	for (int i = 0; i < 5; i++)
		assert_int_equal(ul_node_put(a, NULL, hy, ULNET_NOACK_REQ, &to,
					     4, 1, 0, 0),
				 0);
	/* Z: a GET, queued. */
	hz = mock_bind(a, x->buf[2], 10, 0, 2, ULNET_UNLINK, &x->r[2]);
	assert_int_equal(ul_node_get(a, NULL, hz, &to, 4, 1, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[1].n, 0);
	assert_int_equal(x->r[2].n, 0);
	ul_node_shutdown(a);
	/* Everything delivered before shutdown returned. */
	assert_int_equal(x->r[0].n, 2); /* SEND, then UNLINK */
	assert_int_equal(x->r[0].ev[1].type, ULNET_EVENT_UNLINK);
	assert_int_equal(count_final(&x->r[0]), 1);
	assert_int_equal(mock_rec_count(&x->r[1], ULNET_EVENT_SEND), 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(x->r[1].ev[i].status, -ESHUTDOWN);
	assert_int_equal(count_final(&x->r[1]), 1);
	assert_int_equal(x->r[1].n, 6);
	assert_int_equal(x->r[2].ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(x->r[2].ev[0].status, -ESHUTDOWN);
	assert_int_equal(count_final(&x->r[2]), 1);
	/* After shutdown nothing starts. */
	assert_int_equal(ul_node_put(a, NULL, hy, ULNET_NOACK_REQ, &to, 4, 1, 0,
				     0),
			 -ESHUTDOWN);
	assert_int_equal(ul_node_core(a)->counters.msgs_alloc, 0);
	ul_node_shutdown(a); /* idempotent */
	assert_int_equal(x->r[1].n, 6);
}

/* Re-entrancy: a SEND handler puts again until five are done. */
struct again {
	struct ul_node *n;
	struct ulnet_process_id to;
	struct ulnet_handle h;
	int nput;
};
static struct again again_ctx;

static void put_again(struct mock_rec *r, const struct ulnet_event *ev)
{
	(void)r;
	if (ev->type != ULNET_EVENT_SEND || again_ctx.nput == 5)
		return;
	again_ctx.nput++;
	assert_int_equal(ul_node_put(again_ctx.n, NULL, again_ctx.h,
				     ULNET_NOACK_REQ, &again_ctx.to, 4, 1, 0,
				     0),
			 0);
}

static void unlink_self(struct mock_rec *r, const struct ulnet_event *ev)
{
	if (ev->type == ULNET_EVENT_PUT && r->n == 1)
		assert_int_equal(ul_node_md_unlink(again_ctx.n, ev->md_handle),
				 0);
}

static void handlers_may_call_the_api(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ulnet_handle h2;

	mock_attach(b, 4, 1, x->buf[1], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[1]);
	again_ctx.n = a;
	again_ctx.to = pid_of(b_nids[0]);
	again_ctx.nput = 1;
	again_ctx.h = mock_bind(a, x->buf[0], 10, 0, ULNET_MD_THRESH_INF,
				ULNET_RETAIN, &x->r[0]);
	x->r[0].hook = put_again;
	assert_int_equal(ul_node_put(a, NULL, again_ctx.h, ULNET_NOACK_REQ,
				     &again_ctx.to, 4, 1, 0, 0),
			 0);
	mock_run(&x->f, 1000);
	assert_int_equal(mock_rec_count(&x->r[0], ULNET_EVENT_SEND), 5);
	assert_int_equal(mock_rec_count(&x->r[1], ULNET_EVENT_PUT), 5);
	/* A target handler unlinks its own MD: UNLINK follows, last. */
	again_ctx.n = b;
	mock_attach(b, 5, 1, x->buf[2], 256, ULNET_MD_OP_PUT,
		    ULNET_MD_THRESH_INF, &x->r[2]);
	x->r[2].hook = unlink_self;
	h2 = mock_bind(a, x->buf[3], 10, 0, 1, ULNET_UNLINK, &x->r[3]);
	assert_int_equal(ul_node_put(a, NULL, h2, ULNET_NOACK_REQ,
				     &again_ctx.to, 5, 1, 0, 0),
			 0);
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[2].n, 2);
	assert_int_equal(x->r[2].ev[0].type, ULNET_EVENT_PUT);
	assert_false(x->r[2].ev[0].unlinked);
	assert_int_equal(x->r[2].ev[1].type, ULNET_EVENT_UNLINK);
	assert_true(x->r[2].ev[1].unlinked);
}

static void link_down_moves_traffic_to_the_other_ni(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 2, 0, 0);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_ni_info info[2];
	struct ulnet_handle h;
	size_t n;

	mock_attach(b, 4, 1, x->buf[1], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[1]);
	ul_node_link_change(a, "eth0", false);
	assert_int_equal(x->f.nlink_change, 1);
	assert_int_equal(ul_node_ni_info(a, info, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_false(info[0].is_up);
	assert_true(info[1].is_up);
	h = mock_bind(a, x->buf[0], 10, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		      &x->r[0]);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to,
					     4, 1, 0, 0),
				 0);
	mock_run(&x->f, 1000);
	assert_int_equal(ul_node_ni_info(a, info, 2, &n), 0);
	assert_int_equal(info[0].stats.send_count[UL_MSG_PUT], 0);
	/* The 4 PUTs and the push of the new ping info (discovery.md §9). */
	assert_int_equal(info[1].stats.send_count[UL_MSG_PUT], 5);
	ul_node_link_change(a, "eth0", true);
	assert_int_equal(ul_node_ni_info(a, info, 2, &n), 0);
	assert_true(info[0].is_up);
	assert_int_equal(x->f.nlink_change, 2);
}

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

static void ni_del_fails_its_messages_and_ni_add_shows_in_ping(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_nid old_nid = mock_nid(a_nids[0]);
	struct ulnet_nid new_nid = mock_nid("10.0.0.21@tcp");
	struct ulnet_process_id a_id = { new_nid, ULNET_PID_LUSTRE };
	struct ulnet_ni_info info[2];
	struct pong p = { 0 };
	struct ulnet_handle h;
	size_t n;

	mock_peer_known(a, b_nids[0]); /* the PUT itself is held */
	h = mock_bind(a, x->buf[0], 10, 0, 1, ULNET_UNLINK, &x->r[0]);
	x->f.is_hold = true;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(ul_node_ni_del(a, &old_nid, NULL), 0);
	assert_int_equal(x->r[0].n, 0); /* not inside the call */
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[0].n, 1);
	assert_int_equal(x->r[0].ev[0].status, -ESHUTDOWN);
	assert_true(x->r[0].ev[0].unlinked);
	assert_int_equal(ul_node_ni_info(a, info, 2, &n), 0);
	assert_int_equal(n, 0);
	x->f.is_hold = false;
	assert_int_equal(ul_node_ni_add(a, &new_nid, "eth1", -1, NULL, NULL),
			 0);
	assert_int_equal(ul_node_ping(b, NULL, &a_id, 1000, on_pong, &p), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(p.ncalls, 1);
	assert_int_equal(p.status, 0);
	assert_int_equal(p.res.nnis, 1);
	assert_true(ulnet_nid_same(&p.res.nis[0].nid, &new_nid));
}

static void failures_and_links_are_logged(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	mock_peer_known(a, b_nids[0]); /* the PUT itself fails */
	h = mock_bind(a, x->buf[0], 10, 0, 1, ULNET_UNLINK, &x->r[0]);
	x->f.fail_status = -EIO;
	x->f.fail_hstatus = UL_HSTATUS_REMOTE_DROPPED;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 1, 0, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_non_null(strstr(x->f.last_log, "10.0.0.2@tcp"));
	assert_non_null(strstr(x->f.last_log, "remote_dropped"));
	ul_node_link_change(a, "eth0", false);
	assert_non_null(strstr(x->f.last_log, "link down"));
	assert_non_null(strstr(x->f.last_log, "10.0.0.1@tcp"));
}

static void queued_past_its_deadline_times_out(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 1, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ul_core *core = ul_node_core(a);
	struct ulnet_ni_info info;
	struct ulnet_handle h;
	size_t n;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	mock_peer_known(a, b_nids[0]); /* no discovery ping first */
	h = mock_bind(a, x->buf[0], 10, ULNET_MD_NO_TRACK_RESPONSE,
		      ULNET_MD_THRESH_INF, ULNET_RETAIN, &x->r[0]);
	x->f.is_hold = true;
	for (int i = 0; i < 2; i++)
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to,
					     4, 1, 0, 0),
				 0);
	mock_run(&x->f, 151 * SEC);
	x->f.is_drop = true;
	mock_release(&x->f);
	mock_run(&x->f, 1000);
	/* health.md §3: the first completes late, the second never goes
	 * (both count as late). */
	assert_int_equal(x->r[0].n, 2);
	assert_int_equal(x->r[0].ev[0].status, 0);
	assert_int_equal(x->r[0].ev[1].status, -ETIMEDOUT);
	assert_int_equal(x->f.nsent, 1);
	assert_int_equal(core->counters.late_count, 2);
	assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
	assert_int_equal(info.stats.drop_count[UL_MSG_PUT], 1);
	assert_int_equal(info.healthv, 1000); /* late: no health change */
}

/*
 * health.md §3: an LND with a timeout of T seconds gives each attempt
 * T * (retry_count + 1) + 1 seconds (10 s and 2 retries: 31 s), not the
 * transaction timeout.
 */
static void lnd_timeout_sets_the_deadline(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 1, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	mock_peer_known(a, b_nids[0]); /* no discovery ping first */
	assert_int_equal(ul_node_lnd_set_timeout(a, ULNET_LND_SOCK, 10), 0);
	assert_int_equal(ul_node_lnd_timeout(a, ULNET_LND_SOCK), 10);
	h = mock_bind(a, x->buf[0], 10, ULNET_MD_NO_TRACK_RESPONSE,
		      ULNET_MD_THRESH_INF, ULNET_RETAIN, &x->r[0]);
	/* One peer credit: the second PUT waits behind the first. */
	for (int round = 0; round < 2; round++) {
		x->f.is_hold = true;
		for (int i = 0; i < 2; i++)
			assert_int_equal(ul_node_put(a, NULL, h,
						     ULNET_NOACK_REQ, &to, 4, 1,
						     0, 0),
					 0);
		/* Released 1 s before the deadline, then 1 s after it. */
		mock_run(&x->f, (round ? 32 : 30) * SEC);
		mock_release(&x->f);
		mock_run(&x->f, 1000);
	}
	assert_int_equal(x->r[0].n, 4);
	assert_int_equal(x->r[0].ev[0].status, 0);
	assert_int_equal(x->r[0].ev[1].status, 0);
	assert_int_equal(x->r[0].ev[2].status, 0);
	assert_int_equal(x->r[0].ev[3].status, -ETIMEDOUT);
	assert_int_equal(x->f.nsent, 3);
}

static size_t nr_lpni_msgs(struct ul_node *n)
{
	struct ul_peer_ni_msgs *pm;
	size_t k = 0;

	ul_list_for_each_entry(pm, &n->lpni_msgs, link)
		k++;
	return k;
}

/*
 * A deleted peer leaves nothing behind in the message layer: its peer
 * NIs' queues and statistics go with it, at once when idle, or after a
 * message still queued toward it has ended (with its one final event).
 */
static void deleted_peer_leaves_no_message_state(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 1, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_nid b = mock_nid(b_nids[0]);
	struct ul_core *core = ul_node_core(a);
	struct ul_err err = { 0 };
	struct ulnet_handle h;

	assert_non_null(mock_node(&x->f, b_nids, 1, 0, 0));
	mock_peer_known(a, b_nids[0]); /* no discovery ping first */
	h = mock_bind(a, x->buf[0], 10, ULNET_MD_NO_TRACK_RESPONSE,
		      ULNET_MD_THRESH_INF, ULNET_RETAIN, &x->r[0]);
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(nr_lpni_msgs(a), 1);
	assert_int_equal(ul_peer_del(core, &b, true, &err), 0);
	assert_int_equal(nr_lpni_msgs(a), 0);

	/* Again with one PUT in flight and one queued behind it. */
	mock_peer_known(a, b_nids[0]); /* made again, as known */
	x->f.is_hold = true;
	for (int i = 0; i < 2; i++)
		assert_int_equal(ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to,
					     4, 1, 0, 0),
				 0);
	mock_run(&x->f, 1000);
	assert_int_equal(nr_lpni_msgs(a), 1);
	assert_int_equal(ul_peer_del(core, &b, true, &err), 0);
	assert_int_equal(nr_lpni_msgs(a), 1); /* the messages hold it */
	mock_release(&x->f);
	mock_run(&x->f, 1000);
	assert_int_equal(x->r[0].n, 3);
	assert_int_equal(mock_rec_count(&x->r[0], ULNET_EVENT_SEND), 3);
	assert_int_equal(nr_lpni_msgs(a), 0);
}

static void success_restores_health(void **state)
{
	struct fx *x = *state;
	struct ul_node *a = mock_node(&x->f, a_nids, 1, 0, 0);
	struct ul_node *b = mock_node(&x->f, b_nids, 1, 0, 0);
	struct ulnet_process_id to = pid_of(b_nids[0]);
	struct ulnet_process_id back = pid_of(a_nids[0]);
	struct ul_peer_ni *lpni;
	struct ulnet_ni_info info;
	struct ulnet_handle h;
	size_t n;

	mock_attach(a, 4, 1, x->buf[1], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[1]);
	mock_attach(b, 4, 1, x->buf[2], 256,
		    ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &x->r[2]);
	h = mock_bind(a, x->buf[0], 10, 0, ULNET_MD_THRESH_INF, ULNET_RETAIN,
		      &x->r[0]);
	x->f.fail_status = -EIO;
	x->f.fail_hstatus = UL_HSTATUS_LOCAL_ERROR;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
	assert_int_equal(info.healthv, 900);
	/* health.md §4.1 OK: +S for the local NI that sent. */
	x->f.fail_status = 0;
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(ul_node_ni_info(a, &info, 1, &n), 0);
	assert_int_equal(info.healthv, 1000);
	/* A peer NI recovers by what we receive from it, not by sends. */
	lpni = ul_peer_ni_find(ul_node_core(a), &to.nid);
	ul_peer_ni_set_healthv(lpni, 800);
	assert_int_equal(
		ul_node_put(a, NULL, h, ULNET_NOACK_REQ, &to, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(lpni->healthv, 800);
	h = mock_bind(b, x->buf[3], 10, 0, 1, ULNET_UNLINK, &x->r[3]);
	assert_int_equal(
		ul_node_put(b, NULL, h, ULNET_NOACK_REQ, &back, 4, 1, 0, 0), 0);
	mock_run(&x->f, 1000);
	assert_int_equal(lpni->healthv, 900);
}

static void startup_fails_without_an_lnd_and_stops_again(void **state)
{
	static const char *const o2ib[] = { "10.0.0.1@tcp",
					    "192.168.0.1@o2ib" };
	struct fx *x = *state;
	struct ul_core *c;
	struct ul_node *n;
	struct ul_node_opts opts = { .timers = &x->f.timers,
				     .pid = ULNET_PID_LUSTRE,
				     .interface_cookie = 77 };
	struct ul_err err = { 0 };

	assert_int_equal(ul_core_create(&c), 0);
	for (int i = 0; i < 2; i++) {
		struct ulnet_nid nid = mock_nid(o2ib[i]);

		assert_int_equal(ul_ni_add(c, &nid, NULL, -1, NULL, NULL, NULL),
				 0);
	}
	assert_int_equal(ul_node_create(c, &opts, &n), 0);
	assert_int_equal(ul_lolnd_register(n), 0);
	assert_int_equal(ul_node_register_lnd(n, &x->f.lnd), 0);
	assert_int_equal(ul_node_register_lnd(n, &x->f.lnd), -EEXIST);
	assert_int_equal(ul_node_startup(n, &err), -EPROTONOSUPPORT);
	assert_non_null(strstr(err.msg, "192.168.0.1@o2ib"));
	/* The tcp NI it had started is stopped again. */
	assert_true(ul_list_empty(&x->f.nis));
	ul_node_destroy(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			peer_credits_bound_what_is_in_flight, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(
			ni_credits_bound_what_is_in_flight, fx_setup,
			fx_teardown),
		cmocka_unit_test(each_hstatus_moves_the_right_health),
		cmocka_unit_test(undelivered_network_timeout_is_resent),
		cmocka_unit_test_setup_teardown(single_ni_peer_keeps_its_health,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			unanswered_put_unlinks_after_transaction_timeout,
			fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			timeout_with_send_in_flight_fails_the_send, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(
			failed_send_leaves_no_tracker_behind, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(stale_ack_is_dropped_silently,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			shutdown_ends_everything_in_flight_once, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(handlers_may_call_the_api,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			link_down_moves_traffic_to_the_other_ni, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(
			ni_del_fails_its_messages_and_ni_add_shows_in_ping,
			fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(failures_and_links_are_logged,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			queued_past_its_deadline_times_out, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(lnd_timeout_sets_the_deadline,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			deleted_peer_leaves_no_message_state, fx_setup,
			fx_teardown),
		cmocka_unit_test_setup_teardown(success_restores_health,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
			startup_fails_without_an_lnd_and_stops_again, fx_setup,
			fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
