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

/* legal[from][to]: the life cycle drawn in discovery_sm.h. */
static const bool legal[UL_DISC_STATE_NR][UL_DISC_STATE_NR] = {
	/*          I      Q      P      U      F   */
	[I] = { true, true, false, true, false },
	[Q] = { false, true, true, false, true },
	[P] = { false, true, true, true, true },
	[U] = { true, false, false, true, false },
	[F] = { true, true, false, true, true },
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
	struct ul_log lg = { sink_fn, &sink, UL_D_ERROR };
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
	/* Up to date is UP_TO_DATE alone (no push yet, §6). */
	p.disc_state = UL_DISC_STATE_UP_TO_DATE;
	assert_true(ul_disc_is_uptodate(&p));
	p.disc_state = UL_DISC_STATE_FAILED;
	assert_false(ul_disc_is_uptodate(&p));
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
