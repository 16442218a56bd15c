/*
 * A rail fails in the middle of a PUT stream and comes back
 * (reference/health.md §7, §5, §13): A and B have two rails each, A
 * keeps 8 ACKed PUTs in flight; A0's cable is pulled without the link
 * monitor telling the node, so only the failed sends say so. Every PUT
 * ends in exactly one final event and none fails: the sends that fail on
 * A0 are resent over A1, and B's ACKs toward A0 are resent toward A1.
 * After the cable is plugged back, recovery pings bring A0 back to full
 * health and it carries its share again.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helper_health.h"

#define PORTAL 5
#define INFLIGHT 8
#define TAG_SRC 1
#define TAG_SINK 2

struct stream {
	struct hh *h;
	struct ulnet_handle md;
	struct ulnet_process_id to;
	unsigned int started, acked, failed, sends, to_start;
	size_t seen; /* A's recorded events already counted */
};

static void put_more(struct stream *s)
{
	while (s->to_start && s->started - s->acked - s->failed < INFLIGHT) {
		assert_int_equal(ul_node_put(s->h->a->node, NULL, s->md,
					     ULNET_ACK_REQ, &s->to, PORTAL, 0,
					     0, 0),
				 0);
		s->started++;
		s->to_start--;
	}
}

/* Count final events from the recorded ones, then top the window up. */
static void pump(struct stream *s, uint64_t until_ns)
{
	while (s->h->sim->heap.now_ns < until_ns) {
		struct sim_node *a = s->h->a;

		sim_run(s->h->sim, s->h->sim->heap.now_ns + HH_MS);
		for (; s->seen < a->nevs; s->seen++) {
			const struct ulnet_event *ev = &a->evs[s->seen].ev;

			if ((uintptr_t)ev->md_user_ptr != TAG_SRC)
				continue;
			if (ev->type == ULNET_EVENT_SEND) {
				s->sends++;
				if (ev->status)
					s->failed++;
			} else if (ev->type == ULNET_EVENT_ACK) {
				assert_int_equal(ev->status, 0);
				s->acked++;
			} else {
				/* a response timeout ends a PUT too */
				s->failed++;
			}
		}
		put_more(s);
	}
}

static uint64_t sent_on(struct hh *h, const char *nid)
{
	return sim_ni_info(h->a, nid).stats.send_count[1]; /* PUT */
}

static void failover_mid_stream(void **state)
{
	struct hh h;
	struct stream s = { 0 };
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_nid a0 = sim_nid("10.0.0.1@tcp");
	struct ul_simlink_props p = {
		.bandwidth = 2u << 20, /* 2 MiB/s per link: 128 PUTs/s */
		.latency_ns = 50 * 1000,
		.is_up = true,
	};
	static char src[16 << 10], sink[16 << 10];
	struct ulnet_handle hd;
	struct ulnet_md md;
	uint64_t a0_before;

	(void)state;
	hh_init(&h, true, "    transaction_timeout: 10\n");
	ul_simfab_default_set(h.sim->fab, &p);
	ulnet_nid_set_any(&any.nid);
	md = sim_md(h.b, sink, sizeof(sink), ULNET_MD_THRESH_INF,
		    ULNET_MD_OP_PUT | ULNET_MD_MANAGE_REMOTE, TAG_SINK);
	assert_int_equal(ul_node_md_attach(h.b->node, PORTAL, &any, 0, 0,
					   ULNET_INS_AFTER, &md, ULNET_RETAIN,
					   &hd),
			 0);
	md = sim_md(h.a, src, sizeof(src), ULNET_MD_THRESH_INF, 0, TAG_SRC);
	assert_int_equal(ul_node_md_bind(h.a->node, &md, ULNET_RETAIN, &s.md),
			 0);
	s.h = &h;
	s.to = sim_pid("10.0.0.2@tcp");
	s.to_start = 3000;
	put_more(&s);
	pump(&s, h.sim->heap.now_ns + 200 * HH_MS);
	/* both rails carry the stream */
	assert_true(sent_on(&h, "10.0.0.1@tcp") > 10);
	assert_true(sent_on(&h, "10.0.1.1@tcp") > 10);

	/* A0's cable goes, mid-stream; nobody tells the node */
	assert_int_equal(ul_simfab_ni_set_up(h.sim->fab, &a0, false), 0);
	pump(&s, h.sim->heap.now_ns + 2 * HH_SEC);
	assert_int_equal(s.failed, 0);
	assert_true(hh_cnt(h.a)->resend_count > 0);
	assert_true(hh_ni_health(h.a, "10.0.0.1@tcp") < 1000);
	assert_true(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
	a0_before = sent_on(&h, "10.0.0.1@tcp");
	pump(&s, h.sim->heap.now_ns + HH_SEC);
	/* the dead rail is left alone: only recovery pings try it */
	assert_int_equal(sent_on(&h, "10.0.0.1@tcp"), a0_before);

	/* plugged back: recovery heals A0 and it carries PUTs again */
	assert_int_equal(ul_simfab_ni_set_up(h.sim->fab, &a0, true), 0);
	s.to_start += 20000; /* keep streaming while it heals */
	pump(&s, h.sim->heap.now_ns + 60 * HH_SEC);
	assert_int_equal(hh_ni_health(h.a, "10.0.0.1@tcp"), 1000);
	assert_false(hh_recq_has(h.a, true, "10.0.0.1@tcp"));
	assert_true(sent_on(&h, "10.0.0.1@tcp") > a0_before + 100);

	/* drain: every PUT ended once, none failed */
	s.to_start = 0;
	pump(&s, h.sim->heap.now_ns + 20 * HH_SEC);
	assert_int_equal(s.failed, 0);
	assert_int_equal(s.acked, s.started);
	assert_int_equal(s.sends, s.started);
	assert_int_equal(hh_cnt(h.a)->failed_resends, 0);
	assert_int_equal(ul_node_md_unlink(h.b->node, hd), 0);
	assert_int_equal(ul_node_md_unlink(h.a->node, s.md), 0);
	hh_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(failover_mid_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
