/*
 * The discovery state table (src/core/discovery_sm.h): every move from
 * every state is checked against the expected table, a refused move is
 * logged and changes nothing, and the peer state word lnetctl shows is
 * derived from the state (reference/discovery.md §6). Rows are
 * numbered so a failure names its case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/discovery_sm.h"
#include "util/log.h"

#define I UL_DISC_STATE_IDLE
#define Q UL_DISC_STATE_QUEUED
#define P UL_DISC_STATE_PING_SENT
#define U UL_DISC_STATE_UP_TO_DATE
#define F UL_DISC_STATE_FAILED
#define PQ UL_DISC_STATE_PUSH_QUEUED
#define PS UL_DISC_STATE_PUSH_SENT

/* legal[from][to]: the life cycle drawn in discovery_sm.h. */
static const bool legal[UL_DISC_STATE_NR][UL_DISC_STATE_NR] = {
	/*           I      Q      P      U      F      PQ     PS  */
	[I] = { true, true, false, true, false, false, false },
	[Q] = { false, true, true, false, true, false, false },
	[P] = { false, true, true, true, true, true, false },
	[U] = { true, true, false, true, false, true, false },
	[F] = { true, true, false, true, true, false, false },
	[PQ] = { false, false, false, false, true, true, true },
	[PS] = { false, false, false, true, true, true, true },
};

struct log_sink {
	int nlines;
	char last[256];
};

static void sink_fn(void *ctx, const char *line)
{
	struct log_sink *s = ctx;

	s->nlines++;
	snprintf(s->last, sizeof(s->last), "%s", line);
}

static void disc_sm_guard_refuses_illegal_moves(void **state)
{
	struct log_sink sink = { 0 };
	struct ul_log lg = { sink_fn, &sink, UL_D_ERROR, NULL };
	struct ul_peer p;
	int row = 0;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(
		ulnet_nid_parse("10.0.0.2@tcp", &p.primary_nid, NULL, 0), 0);
	for (int f = 0; f < UL_DISC_STATE_NR; f++) {
		for (int t = 0; t < UL_DISC_STATE_NR; t++, row++) {
			int before = sink.nlines;
			bool moved;

			p.disc_state = (enum ul_disc_state)f;
			moved = ul_disc_set_state(&lg, &p,
						  (enum ul_disc_state)t);
			print_message("row %d: %s -> %s\n", row,
				      ul_disc_state_name(f),
				      ul_disc_state_name(t));
			assert_int_equal(moved, legal[f][t]);
			assert_int_equal(ul_disc_is_allowed(f, t), legal[f][t]);
			assert_int_equal(p.disc_state, moved ? t : f);
			assert_int_equal(sink.nlines, before + !moved);
		}
	}
	/* The refusal names the peer and the move. */
	p.disc_state = UL_DISC_STATE_IDLE;
	assert_false(ul_disc_set_state(&lg, &p, UL_DISC_STATE_PING_SENT));
	assert_non_null(strstr(sink.last, "10.0.0.2@tcp"));
	assert_non_null(strstr(sink.last, "idle -> ping_sent refused"));
}

static void disc_sm_state_bits_follow_state(void **state)
{
	static const struct {
		enum ul_disc_state st;
		uint32_t bits; /* with MULTI_RAIL and DISCOVERED */
	} rows[] = {
		/* 0 */ { UL_DISC_STATE_IDLE, 0x11 },
		/* 1 */ { UL_DISC_STATE_QUEUED, 0x51 },
		/* 2 */ { UL_DISC_STATE_PING_SENT, 0x251 },
		/* 3 */ { UL_DISC_STATE_UP_TO_DATE, 0x111 }, /* 273 */
		/* 4 */ { UL_DISC_STATE_FAILED, 0x31 },
		/* 5 */ { UL_DISC_STATE_PUSH_QUEUED, 0x151 },
		/* 6 */ { UL_DISC_STATE_PUSH_SENT, 0x551 },
	};
	struct ul_peer p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.is_mr = true;
	p.is_discovered = true;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		print_message("row %zu\n", i);
		p.disc_state = rows[i].st;
		assert_int_equal(ul_disc_state_bits(&p), rows[i].bits);
	}
	/* FORCE_PUSH is shown while the push is owed (§6 bit 14). */
	p.is_push_forced = true;
	assert_int_equal(ul_disc_state_bits(&p), 0x4551);
	p.is_push_forced = false;
	/* The stage part of up to date is UP_TO_DATE alone (§6). */
	p.disc_state = UL_DISC_STATE_UP_TO_DATE;
	assert_true(ul_disc_is_uptodate(&p));
	p.disc_state = UL_DISC_STATE_FAILED;
	assert_false(ul_disc_is_uptodate(&p));
	p.disc_state = UL_DISC_STATE_PUSH_QUEUED;
	assert_false(ul_disc_is_uptodate(&p));
	assert_true(ul_disc_is_busy(&p));
}

/* §7.3 needs_push, one row per rule; our sequence is 5. */
static void disc_sm_needs_push_rules(void **state)
{
	static const struct {
		bool is_mr, is_forced, has_nodisc, is_disc_on;
		enum ul_disc_state st;
		uint32_t node_seqno;
		bool needs;
	} rows[] = {
		/* 0: MR, ours not ACKed */
		{ true, false, false, true, UL_DISC_STATE_UP_TO_DATE, 4, true },
		/* 1: it has ours */
		{ true, false, false, true, UL_DISC_STATE_UP_TO_DATE, 5,
		  false },
		/* 2: never pushed to */
		{ true, false, false, true, UL_DISC_STATE_IDLE, 0, true },
		/* 3: not MR: never, even forced */
		{ false, true, false, true, UL_DISC_STATE_UP_TO_DATE, 0,
		  false },
		/* 4: a push is out */
		{ true, true, false, true, UL_DISC_STATE_PUSH_SENT, 0, false },
		/* 5: it has discovery off */
		{ true, false, true, true, UL_DISC_STATE_UP_TO_DATE, 0, false },
		/* 6: we have discovery off */
		{ true, false, false, false, UL_DISC_STATE_UP_TO_DATE, 0,
		  false },
		/* 7: forced beats both discovery checks and the sequence */
		{ true, true, true, false, UL_DISC_STATE_UP_TO_DATE, 5, true },
	};
	struct ul_peer p;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		print_message("row %zu\n", i);
		memset(&p, 0, sizeof(p));
		p.is_mr = rows[i].is_mr;
		p.is_push_forced = rows[i].is_forced;
		p.has_no_discovery = rows[i].has_nodisc;
		p.disc_state = rows[i].st;
		p.node_seqno = rows[i].node_seqno;
		assert_int_equal(ul_disc_needs_push(&p, 5, rows[i].is_disc_on),
				 rows[i].needs);
	}
}

/* §5, §8.2: which pushes are stale; the peer's sequence is 7. */
static void disc_sm_stale_push_rules(void **state)
{
	static const struct {
		enum ul_disc_state st;
		uint32_t seq;
		bool is_from_primary, is_stale;
	} rows[] = {
		/* 0: newer: always taken */
		{ UL_DISC_STATE_UP_TO_DATE, 8, true, false },
		/* 1: the same, NIDs current: nothing new */
		{ UL_DISC_STATE_UP_TO_DATE, 7, true, true },
		/* 2: the same, NIDs not current: taken */
		{ UL_DISC_STATE_IDLE, 7, true, false },
		/* 3: older from its primary: stale even if not current */
		{ UL_DISC_STATE_IDLE, 6, true, true },
		/* 4: older, another primary (it changed), not current */
		{ UL_DISC_STATE_FAILED, 6, false, false },
		/* 5: older, another primary, current */
		{ UL_DISC_STATE_PUSH_SENT, 6, false, true },
		/* 6: a push owed counts as current NIDs */
		{ UL_DISC_STATE_PUSH_QUEUED, 7, false, true },
		/* 7: a ping under way: NIDs not current */
		{ UL_DISC_STATE_PING_SENT, 7, true, false },
	};
	struct ul_peer p;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		print_message("row %zu\n", i);
		memset(&p, 0, sizeof(p));
		p.peer_seqno = 7;
		p.disc_state = rows[i].st;
		assert_int_equal(ul_disc_push_is_stale(&p, rows[i].seq,
						       rows[i].is_from_primary),
				 rows[i].is_stale);
	}
}

static void disc_sm_admin_and_merge_leave_rounds_alone(void **state)
{
	struct ul_peer p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.disc_state = UL_DISC_STATE_PING_SENT;
	ul_disc_invalidate(&p);
	ul_disc_on_merged(&p);
	ul_disc_set_stage_bits(&p, UL_PEER_STATE_NIDS_UPTODATE);
	assert_int_equal(p.disc_state, UL_DISC_STATE_PING_SENT);
	p.disc_state = UL_DISC_STATE_FAILED;
	ul_disc_set_stage_bits(&p, UL_PEER_STATE_NIDS_UPTODATE);
	assert_int_equal(p.disc_state, UL_DISC_STATE_UP_TO_DATE);
	ul_disc_invalidate(&p);
	assert_int_equal(p.disc_state, UL_DISC_STATE_IDLE);
	ul_disc_on_merged(&p);
	assert_int_equal(p.disc_state, UL_DISC_STATE_UP_TO_DATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(disc_sm_guard_refuses_illegal_moves),
		cmocka_unit_test(disc_sm_state_bits_follow_state),
		cmocka_unit_test(disc_sm_admin_and_merge_leave_rounds_alone),
		cmocka_unit_test(disc_sm_needs_push_rules),
		cmocka_unit_test(disc_sm_stale_push_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
