/*
 * The message layer between two nodes over the mock LND: PUT with and
 * without ACK, GET and REPLY (truncation, a sink shorter than the
 * source), events in order with their fields, payloads byte for byte,
 * loopback through lolnd, and the synchronous errors of the API.
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

struct two {
	struct mock_fabric f;
	struct ul_node *a, *b;
	struct ulnet_nid a_nid, b_nid;
	/* Event records outlive the test body: teardown still delivers. */
	struct mock_rec ri, rt;
};

static int two_setup(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	struct two *t = calloc(1, sizeof(*t));

	mock_fabric_init(&t->f);
	t->a = mock_node(&t->f, an, 1, 0, 0);
	t->b = mock_node(&t->f, bn, 1, 0, 0);
	assert_non_null(t->a);
	assert_non_null(t->b);
	t->a_nid = mock_nid(an[0]);
	t->b_nid = mock_nid(bn[0]);
	/* Discovered earlier: these tests count their own messages. */
	mock_peer_known(t->a, bn[0]);
	mock_peer_known(t->a, an[0]);
	mock_peer_known(t->b, an[0]);
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

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void put_with_ack_gives_send_put_ack(void **state)
{
	struct two *t = *state;
	uint8_t src[300], dst[1024] = { 0 };
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_handle sh, th;

	fill(src, sizeof(src), 3);
	th = mock_attach(t->b, 5, 0xabcd, dst, sizeof(dst), ULNET_MD_OP_PUT,
			 ULNET_MD_THRESH_INF, &t->rt);
	sh = mock_bind(t->a, src, sizeof(src), 0, 2, ULNET_UNLINK, &t->ri);
	assert_int_equal(ul_node_put(t->a, NULL, sh, ULNET_ACK_REQ, &to, 5,
				     0xabcd, 0, 0x1122334455667788ULL),
			 0);
	/* Nothing from inside the call. */
	assert_int_equal(t->ri.n, 0);
	mock_run(&t->f, 1000);
	/* Target: one PUT event with everything the header said. */
	assert_int_equal(t->rt.n, 1);
	assert_int_equal(t->rt.ev[0].type, ULNET_EVENT_PUT);
	assert_int_equal(t->rt.ev[0].status, 0);
	assert_false(t->rt.ev[0].unlinked);
	assert_int_equal(t->rt.ev[0].md_handle.cookie, th.cookie);
	assert_int_equal(t->rt.ev[0].mlength, 300);
	assert_int_equal(t->rt.ev[0].rlength, 300);
	assert_int_equal(t->rt.ev[0].offset, 0);
	assert_int_equal(t->rt.ev[0].pt_index, 5);
	assert_int_equal(t->rt.ev[0].match_bits, 0xabcd);
	assert_true(t->rt.ev[0].hdr_data == 0x1122334455667788ULL);
	assert_true(ulnet_nid_same(&t->rt.ev[0].initiator.nid, &t->a_nid));
	assert_int_equal(t->rt.ev[0].initiator.pid, ULNET_PID_LUSTRE);
	assert_true(ulnet_nid_same(&t->rt.ev[0].sender, &t->a_nid));
	assert_true(ulnet_nid_same(&t->rt.ev[0].source, &t->b_nid));
	assert_memory_equal(dst, src, sizeof(src));
	assert_int_equal(dst[300], 0);
	/* Initiator: SEND then ACK, the ACK last and unlinking. */
	assert_int_equal(t->ri.n, 2);
	assert_int_equal(t->ri.ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[0].status, 0);
	assert_false(t->ri.ev[0].unlinked);
	assert_int_equal(t->ri.ev[0].md_handle.cookie, sh.cookie);
	assert_int_equal(t->ri.ev[1].type, ULNET_EVENT_ACK);
	assert_int_equal(t->ri.ev[1].status, 0);
	assert_true(t->ri.ev[1].unlinked);
	assert_int_equal(t->ri.ev[1].mlength, 300);
	assert_int_equal(t->ri.ev[1].match_bits, 0xabcd);
	/* The MD is gone: a second put is refused. */
	assert_int_equal(ul_node_put(t->a, NULL, sh, ULNET_NOACK_REQ, &to, 5, 0,
				     0, 0),
			 -ENOENT);
	assert_int_equal(ul_node_core(t->a)->counters.rst_alloc, 0);
}

static void put_without_ack_gives_one_send(void **state)
{
	struct two *t = *state;
	uint8_t src[64], dst[64] = { 0 };
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_handle sh;

	fill(src, sizeof(src), 9);
	mock_attach(t->b, 7, 1, dst, sizeof(dst), ULNET_MD_OP_PUT,
		    ULNET_MD_THRESH_INF, &t->rt);
	sh = mock_bind(t->a, src, sizeof(src), 0, 1, ULNET_UNLINK, &t->ri);
	assert_int_equal(ul_node_put(t->a, NULL, sh, ULNET_NOACK_REQ, &to, 7, 1,
				     0, 0),
			 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->ri.n, 1);
	assert_int_equal(t->ri.ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[0].status, 0);
	assert_true(t->ri.ev[0].unlinked);
	assert_int_equal(t->rt.n, 1);
	assert_memory_equal(dst, src, sizeof(src));
	/* No ACK went back: b sent nothing. */
	assert_int_equal(t->f.nsent, 1);
}

static void get_reply_truncates_to_sink(void **state)
{
	struct two *t = *state;
	uint8_t src[500], sink[100] = { 0 };
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_handle sh;

	fill(src, sizeof(src), 1);
	/* Source 500 bytes; the sink takes 100 from offset 0. */
	mock_attach(t->b, 9, 42, src, sizeof(src), ULNET_MD_OP_GET,
		    ULNET_MD_THRESH_INF, &t->rt);
	sh = mock_bind(t->a, sink, sizeof(sink), 0, 2, ULNET_UNLINK, &t->ri);
	assert_int_equal(ul_node_get(t->a, NULL, sh, &to, 9, 42, 0), 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.n, 1);
	assert_int_equal(t->rt.ev[0].type, ULNET_EVENT_GET);
	assert_int_equal(t->rt.ev[0].mlength, 100);
	assert_int_equal(t->rt.ev[0].rlength, 100);
	assert_int_equal(t->ri.n, 2);
	assert_int_equal(t->ri.ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[1].type, ULNET_EVENT_REPLY);
	assert_int_equal(t->ri.ev[1].status, 0);
	assert_int_equal(t->ri.ev[1].mlength, 100);
	assert_true(t->ri.ev[1].unlinked);
	assert_memory_equal(sink, src, sizeof(sink));
}

static void get_sink_longer_than_source_gets_what_there_is(void **state)
{
	struct two *t = *state;
	uint8_t src[40], sink[100];
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_handle sh;

	memset(sink, 0xee, sizeof(sink));
	fill(src, sizeof(src), 77);
	/* Needs TRUNCATE at the target: the GET asks 100, it holds 40. */
	mock_attach(t->b, 9, 43, src, sizeof(src),
		    ULNET_MD_OP_GET | ULNET_MD_TRUNCATE, ULNET_MD_THRESH_INF,
		    &t->rt);
	sh = mock_bind(t->a, sink, sizeof(sink), 0, 2, ULNET_UNLINK, &t->ri);
	assert_int_equal(ul_node_get(t->a, NULL, sh, &to, 9, 43, 0), 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->ri.n, 2);
	assert_int_equal(t->ri.ev[1].type, ULNET_EVENT_REPLY);
	assert_int_equal(t->ri.ev[1].mlength, 40);
	assert_int_equal(t->ri.ev[1].rlength, 40);
	assert_memory_equal(sink, src, sizeof(src));
	assert_int_equal(sink[40], 0xee);
}

static void get_with_remote_offset_reads_from_there(void **state)
{
	struct two *t = *state;
	uint8_t src[200], sink[50] = { 0 };
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_handle sh;

	fill(src, sizeof(src), 5);
	mock_attach(t->b, 10, 1, src, sizeof(src),
		    ULNET_MD_OP_GET | ULNET_MD_MANAGE_REMOTE,
		    ULNET_MD_THRESH_INF, &t->rt);
	sh = mock_bind(t->a, sink, sizeof(sink), 0, 2, ULNET_UNLINK, &t->ri);
	assert_int_equal(ul_node_get(t->a, NULL, sh, &to, 10, 1, 120), 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.ev[0].offset, 120);
	assert_int_equal(t->ri.ev[1].mlength, 50);
	assert_memory_equal(sink, src + 120, sizeof(sink));
}

static void put_to_0lo_goes_over_lolnd(void **state)
{
	struct two *t = *state;
	uint8_t src[80], dst[160] = { 0 };
	struct ulnet_process_id to = { mock_nid("0@lo"), ULNET_PID_LUSTRE };
	struct ulnet_handle sh;
	uint32_t sent = t->f.nsent;

	fill(src, sizeof(src), 11);
	mock_attach(t->a, 3, 8, dst, sizeof(dst), ULNET_MD_OP_PUT,
		    ULNET_MD_THRESH_INF, &t->rt);
	sh = mock_bind(t->a, src, sizeof(src), 0, ULNET_MD_THRESH_INF,
		       ULNET_RETAIN, &t->ri);
	assert_int_equal(
		ul_node_put(t->a, NULL, sh, ULNET_ACK_REQ, &to, 3, 8, 0, 7), 0);
	assert_int_equal(
		ul_node_put(t->a, NULL, sh, ULNET_ACK_REQ, &to, 3, 8, 0, 7), 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->f.nsent, sent); /* the mock saw nothing */
	assert_int_equal(t->rt.n, 2);
	assert_int_equal(t->rt.ev[0].type, ULNET_EVENT_PUT);
	assert_int_equal(t->rt.ev[1].offset, 80); /* running local offset */
	assert_int_equal(t->rt.ev[1].mlength, 80);
	assert_int_equal(t->ri.n, 4);
	assert_int_equal(t->ri.ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[1].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[2].type, ULNET_EVENT_ACK);
	assert_int_equal(t->ri.ev[3].type, ULNET_EVENT_ACK);
	assert_memory_equal(dst, src, sizeof(src));
	assert_memory_equal(dst + 80, src, sizeof(src));
	/* No peer for 0@lo, and 0@lo counts what it carried. */
	assert_null(ul_peer_find(ul_node_core(t->a), &to.nid));
	assert_int_equal(ul_core_lo_ni(ul_node_core(t->a))->stats.send_count[1],
			 2);
}

/*
 * One of our own NIDs is a peer like any other (selection.md §6.9 keeps
 * only 0@lo off the LND): the PUT goes through the LND to ourselves, a
 * peer is created for the NID, and the NI and peer NI count it.
 */
static void put_to_own_nid_goes_through_the_lnd(void **state)
{
	struct two *t = *state;
	uint8_t src[80], dst[80] = { 0 };
	struct ulnet_process_id to = { t->a_nid, ULNET_PID_LUSTRE };
	struct ul_core *core = ul_node_core(t->a);
	struct ul_peer_ni *lpni;
	struct ulnet_handle sh;
	uint32_t sent = t->f.nsent;

	fill(src, sizeof(src), 13);
	mock_attach(t->a, 3, 8, dst, sizeof(dst), ULNET_MD_OP_PUT,
		    ULNET_MD_THRESH_INF, &t->rt);
	sh = mock_bind(t->a, src, sizeof(src), 0, 2, ULNET_UNLINK, &t->ri);
	assert_int_equal(
		ul_node_put(t->a, NULL, sh, ULNET_ACK_REQ, &to, 3, 8, 0, 7), 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->f.nsent, sent + 2); /* the PUT and its ACK */
	assert_int_equal(mock_rec_count(&t->rt, ULNET_EVENT_PUT), 1);
	assert_int_equal(mock_rec_count(&t->ri, ULNET_EVENT_ACK), 1);
	assert_memory_equal(dst, src, sizeof(src));
	lpni = ul_peer_ni_find(core, &t->a_nid);
	assert_non_null(lpni);
	assert_non_null(lpni->msgs);
	assert_int_equal(lpni->msgs->stats.send_count[1], 1); /* PUT */
	assert_int_equal(lpni->msgs->stats.recv_count[1], 1);
	assert_int_equal(ul_ni_find(core, &t->a_nid)->stats.send_count[1], 1);
	assert_int_equal(ul_ni_find(core, &t->a_nid)->stats.recv_count[1], 1);
}

/*
 * min_tx_credits (peer show -v) is the lowest the peer NI's credits went
 * (lpni_mintxcredits): with 2 peer credits, three PUTs at once take it
 * to -1 (one waited); it stays there once the credits are back.
 */
static void peer_ni_keeps_its_credit_low_water_mark(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	struct ulnet_process_id to = { mock_nid(bn[0]), ULNET_PID_LUSTRE };
	uint8_t src[32], dst[32];
	struct mock_rec ri = { 0 }, rt = { 0 };
	struct mock_fabric f;
	struct ul_peer_ni *lpni;
	struct ulnet_handle sh;
	struct ul_node *a, *b;
	int i;

	(void)state;
	mock_fabric_init(&f);
	f.delay_ns = 1000;
	a = mock_node(&f, an, 1, 2, 0);
	b = mock_node(&f, bn, 1, 0, 0);
	assert_non_null(a);
	assert_non_null(b);
	mock_peer_known(a, bn[0]);
	mock_attach(b, 5, 1, dst, sizeof(dst),
		    ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE,
		    ULNET_MD_THRESH_INF, &rt);
	sh = mock_bind(a, src, sizeof(src), 0, ULNET_MD_THRESH_INF,
		       ULNET_RETAIN, &ri);
	for (i = 0; i < 3; i++)
		assert_int_equal(ul_node_put(a, NULL, sh, ULNET_NOACK_REQ, &to,
					     5, 1, 0, 0),
				 0);
	lpni = ul_peer_ni_find(ul_node_core(a), &to.nid);
	assert_non_null(lpni);
	assert_int_equal(lpni->txcredits, -1);
	mock_run(&f, 10000);
	assert_int_equal(mock_rec_count(&rt, ULNET_EVENT_PUT), 3);
	assert_int_equal(lpni->txcredits, 2);
	assert_int_equal(lpni->mintxcredits, -1);
	assert_int_equal(ul_node_md_unlink(a, sh), 0);
	mock_run(&f, 10);
	mock_fabric_fini(&f);
}

/* A PUT stream to ourselves: every ACK sends the next PUT at once. */
struct lo_stream {
	struct ul_node *n;
	struct ulnet_handle md;
	int nacks;
	int nsent;
};

static void lo_stream_event(struct ulnet *u, const struct ulnet_event *ev)
{
	struct lo_stream *st = ev->md_user_ptr;
	struct ulnet_process_id to = { mock_nid("0@lo"), ULNET_PID_LUSTRE };

	(void)u;
	if (ev->type != ULNET_EVENT_ACK)
		return;
	st->nacks++;
	/* Bounded, so that a regression fails the test instead of hanging. */
	if (st->nsent < 1000000 &&
	    ul_node_put(st->n, NULL, st->md, ULNET_ACK_REQ, &to, 4, 9, 0, 0) ==
		    0)
		st->nsent++;
}

/*
 * Each round of a 0@lo ping-pong waits for the next timer run, so the
 * driver (the loop thread: its clock, its other clients) gets control
 * back in between; a stream once held the loop for ever.
 */
static void lo_ping_pong_gives_the_driver_back(void **state)
{
	struct two *t = *state;
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_process_id to = { mock_nid("0@lo"), ULNET_PID_LUSTRE };
	static uint8_t src[64], dst[64];
	struct lo_stream st = { .n = t->a };
	struct ulnet_md tmd = { .start = dst,
				.length = sizeof(dst),
				.threshold = ULNET_MD_THRESH_INF,
				.options = ULNET_MD_OP_PUT |
					   ULNET_MD_MANAGE_REMOTE,
				.numa_node = -1 };
	struct ulnet_md smd = { .start = src,
				.length = sizeof(src),
				.threshold = ULNET_MD_THRESH_INF,
				.user_ptr = &st,
				.handler = lo_stream_event,
				.numa_node = -1 };
	struct ulnet_handle th;
	int first;

	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_node_md_attach(t->a, 4, &any, 9, 0, ULNET_INS_AFTER,
					   &tmd, ULNET_RETAIN, &th),
			 0);
	assert_int_equal(ul_node_md_bind(t->a, &smd, ULNET_RETAIN, &st.md), 0);
	assert_int_equal(ul_node_put(t->a, NULL, st.md, ULNET_ACK_REQ, &to, 4,
				     9, 0, 0),
			 0);
	/* 100 virtual ns: a round per ns at most, and the stream goes on. */
	mock_run(&t->f, 100);
	first = st.nacks;
	assert_in_range(first, 2, 101);
	mock_run(&t->f, 100);
	assert_in_range(st.nacks - first, 2, 101);
	assert_int_equal(ul_node_md_unlink(t->a, st.md), 0);
	assert_int_equal(ul_node_md_unlink(t->a, th), 0);
	mock_run(&t->f, 10);
}

static void api_errors_are_synchronous_and_eventless(void **state)
{
	struct two *t = *state;
	uint8_t buf[8];
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_process_id far = { mock_nid("10.9.9.9@o2ib"),
					ULNET_PID_LUSTRE };
	struct ulnet_nid notours = mock_nid("10.0.0.77@tcp");
	struct ulnet_handle sh, bogus = { 0x999999 };

	sh = mock_bind(t->a, buf, sizeof(buf), 0, ULNET_MD_THRESH_INF,
		       ULNET_RETAIN, &t->ri);
	assert_int_equal(ul_node_put(t->a, NULL, bogus, ULNET_NOACK_REQ, &to, 1,
				     0, 0, 0),
			 -ENOENT);
	assert_int_equal(ul_node_put(t->a, NULL, sh, ULNET_NOACK_REQ, &to, 64,
				     0, 0, 0),
			 -EINVAL);
	assert_int_equal(ul_node_put(t->a, &notours, sh, ULNET_NOACK_REQ, &to,
				     1, 0, 0, 0),
			 -EINVAL);
	mock_run(&t->f, 1000);
	assert_int_equal(t->ri.n, 0);
	/*
	 * No route: as in LNet, the GET waits for the discovery of its
	 * peer, whose ping cannot leave; its one event carries the error.
	 */
	assert_int_equal(ul_node_get(t->a, NULL, sh, &far, 1, 0, 0), 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->ri.n, 1);
	assert_int_equal(t->ri.ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[0].status, -EHOSTUNREACH);
	assert_int_equal(ul_node_md_unlink(t->a, sh), 0);
	assert_int_equal(ul_node_md_unlink(t->a, sh), -ENOENT);
	assert_int_equal(t->ri.n, 1); /* queued, not delivered inside */
	mock_run(&t->f, 1000);
	assert_int_equal(t->ri.n, 2);
	assert_int_equal(t->ri.ev[1].type, ULNET_EVENT_UNLINK);
	assert_true(t->ri.ev[1].unlinked);
}

static void iovec_put_lands_byte_exact_at_a_remote_offset(void **state)
{
	struct two *t = *state;
	uint8_t s0[7], s1[100], s2[33], d0[50], d1[200];
	uint8_t want[140], got[250];
	struct iovec src[3] = { { s0, 7 }, { s1, 100 }, { s2, 33 } };
	struct iovec dst[2] = { { d0, 50 }, { d1, 200 } };
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_md tmd = {
		.start = dst,
		.length = 2,
		.threshold = 1,
		.options = ULNET_MD_OP_PUT | ULNET_MD_IOVEC |
			   ULNET_MD_MANAGE_REMOTE,
		.user_ptr = &t->rt,
		.handler = mock_record,
		.numa_node = -1,
	};
	struct ulnet_md smd = {
		.start = src,
		.length = 3,
		.threshold = 1,
		.options = ULNET_MD_IOVEC,
		.user_ptr = &t->ri,
		.handler = mock_record,
		.numa_node = -1,
	};
	struct ulnet_handle th, sh;

	fill(s0, sizeof(s0), 1);
	fill(s1, sizeof(s1), 2);
	fill(s2, sizeof(s2), 3);
	memcpy(want, s0, 7);
	memcpy(want + 7, s1, 100);
	memcpy(want + 107, s2, 33);
	memset(d0, 0, sizeof(d0));
	memset(d1, 0, sizeof(d1));
	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_node_md_attach(t->b, 6, &any, 2, 0, ULNET_INS_AFTER,
					   &tmd, ULNET_UNLINK, &th),
			 0);
	assert_int_equal(ul_node_md_bind(t->a, &smd, ULNET_UNLINK, &sh), 0);
	assert_int_equal(ul_node_put(t->a, NULL, sh, ULNET_NOACK_REQ, &to, 6, 2,
				     45, 0),
			 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.n, 1);
	assert_int_equal(t->rt.ev[0].offset, 45);
	assert_int_equal(t->rt.ev[0].mlength, 140);
	assert_true(t->rt.ev[0].unlinked); /* threshold 1, UNLINK */
	assert_ptr_equal(t->rt.ev[0].md_start, d0);
	memcpy(got, d0, 50);
	memcpy(got + 50, d1, 200);
	assert_memory_equal(got + 45, want, 140);
	assert_int_equal(got[44], 0);
	assert_int_equal(got[185], 0);
	assert_int_equal(t->ri.n, 1);
	assert_true(t->ri.ev[0].unlinked);
}

static void count_wake(void *ctx)
{
	(*(int *)ctx)++;
}

/*
 * opts.wake: the node tells its driver when work for ul_node_flush()
 * appears and it had none, once until a flush takes it (a driver of
 * many nodes flushes only those that have some: bench_fabric).
 */
static void wake_tells_the_driver_once_until_flushed(void **state)
{
	struct two *t = *state;
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	uint8_t src[64] = { 0 }, dst[64];
	struct ulnet_handle h[3];
	int wa = 0, wb = 0;

	t->a->opts.wake = count_wake;
	t->a->opts.wake_ctx = &wa;
	t->b->opts.wake = count_wake;
	t->b->opts.wake_ctx = &wb;
	for (int i = 0; i < 3; i++)
		h[i] = mock_bind(t->a, src, sizeof(src), 0, 1, ULNET_RETAIN,
				 &t->ri);
	/* Two UNLINK events queued: one wake. */
	assert_int_equal(ul_node_md_unlink(t->a, h[0]), 0);
	assert_int_equal(ul_node_md_unlink(t->a, h[1]), 0);
	assert_int_equal(wa, 1);
	assert_int_equal(t->ri.n, 0);
	(void)ul_node_flush(t->a);
	assert_int_equal(t->ri.n, 2);
	/* Flushed: the next one wakes again. */
	assert_int_equal(ul_node_md_unlink(t->a, h[2]), 0);
	assert_int_equal(wa, 2);
	(void)ul_node_flush(t->a);
	assert_int_equal(t->ri.n, 3);
	/* Traffic: the target hears of its PUT event too. */
	(void)mock_attach(t->b, 5, 1, dst, sizeof(dst), ULNET_MD_OP_PUT,
			  ULNET_MD_THRESH_INF, &t->rt);
	h[0] = mock_bind(t->a, src, sizeof(src), 0, 1, ULNET_UNLINK, &t->ri);
	assert_int_equal(ul_node_put(t->a, NULL, h[0], ULNET_NOACK_REQ, &to, 5,
				     1, 0, 0),
			 0);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.n, 1);
	assert_true(wb >= 1);
	assert_true(wa >= 3);
	/* the counters die with this frame; teardown still queues work */
	t->a->opts.wake = NULL;
	t->b->opts.wake = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			wake_tells_the_driver_once_until_flushed, two_setup,
			two_teardown),
		cmocka_unit_test_setup_teardown(put_with_ack_gives_send_put_ack,
						two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(put_without_ack_gives_one_send,
						two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(get_reply_truncates_to_sink,
						two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(
			get_sink_longer_than_source_gets_what_there_is,
			two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(
			get_with_remote_offset_reads_from_there, two_setup,
			two_teardown),
		cmocka_unit_test_setup_teardown(put_to_0lo_goes_over_lolnd,
						two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(
			put_to_own_nid_goes_through_the_lnd, two_setup,
			two_teardown),
		cmocka_unit_test(peer_ni_keeps_its_credit_low_water_mark),
		cmocka_unit_test_setup_teardown(
			lo_ping_pong_gives_the_driver_back, two_setup,
			two_teardown),
		cmocka_unit_test_setup_teardown(
			api_errors_are_synchronous_and_eventless, two_setup,
			two_teardown),
		cmocka_unit_test_setup_teardown(
			iovec_put_lands_byte_exact_at_a_remote_offset,
			two_setup, two_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
