/*
 * A PUT that matched an MD but cannot be received for want of memory
 * still ends in exactly one event on that MD: a PUT event with -ENOMEM
 * (unlinked when the match used the MD up), the payload skipped and no
 * ACK. The program is linked with --wrap=calloc: the allocation that
 * describes a receive over several fragments (an array of struct iovec)
 * fails once when armed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <cmocka.h>

#include "helper_mocklnd.h"

void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);

static bool fail_iov_array; /* the next iovec array allocation fails */

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (fail_iov_array && size == sizeof(struct iovec) && nmemb >= 2) {
		fail_iov_array = false;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

struct two {
	struct mock_fabric f;
	struct ul_node *a, *b;
	struct ulnet_nid b_nid;
	struct mock_rec ri, rt; /* outlive the body: teardown delivers */
	uint8_t src[64], d0[8], d1[64];
};

static int two_setup(void **state)
{
	static const char *const an[] = { "10.0.0.1@tcp" };
	static const char *const bn[] = { "10.0.0.2@tcp" };
	struct two *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	mock_fabric_init(&t->f);
	t->a = mock_node(&t->f, an, 1, 0, 0);
	t->b = mock_node(&t->f, bn, 1, 0, 0);
	assert_non_null(t->a);
	assert_non_null(t->b);
	t->b_nid = mock_nid(bn[0]);
	*state = t;
	return 0;
}

static int two_teardown(void **state)
{
	struct two *t = *state;

	fail_iov_array = false;
	mock_fabric_fini(&t->f);
	free(t);
	return 0;
}

/* B: portal 5, bits 1, d0 and d1 as two fragments, one operation. */
static void attach_two_fragments(struct two *t, enum ulnet_unlink unlink)
{
	struct iovec dst[2] = { { t->d0, sizeof(t->d0) },
				{ t->d1, sizeof(t->d1) } };
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md md = {
		.start = dst,
		.length = 2,
		.threshold = 1,
		.options = ULNET_MD_OP_PUT | ULNET_MD_IOVEC,
		.user_ptr = &t->rt,
		.handler = mock_record,
		.numa_node = -1,
	};
	struct ulnet_handle h;

	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_node_md_attach(t->b, 5, &any, 1, 0, ULNET_INS_AFTER,
					   &md, unlink, &h),
			 0);
}

/* A: 40 bytes (over both of B's fragments) with an ACK asked for. */
static void put_40(struct two *t)
{
	struct ulnet_process_id to = { t->b_nid, ULNET_PID_LUSTRE };
	struct ulnet_handle h =
		mock_bind(t->a, t->src, 40, 0, 2, ULNET_UNLINK, &t->ri);

	memset(t->src, 0xab, sizeof(t->src));
	assert_int_equal(
		ul_node_put(t->a, NULL, h, ULNET_ACK_REQ, &to, 5, 1, 0, 0), 0);
}

static void put_without_memory_fails_its_event_and_unlinks(void **state)
{
	struct two *t = *state;
	const struct ul_counters *cnt = &ul_node_core(t->b)->counters;
	uint8_t zero[64] = { 0 };

	attach_two_fragments(t, ULNET_UNLINK);
	fail_iov_array = true;
	put_40(t);
	mock_run(&t->f, 1000);
	assert_false(fail_iov_array); /* the receive's array was refused */
	assert_int_equal(t->rt.n, 1);
	assert_int_equal(t->rt.ev[0].type, ULNET_EVENT_PUT);
	assert_int_equal(t->rt.ev[0].status, -ENOMEM);
	assert_true(t->rt.ev[0].unlinked);
	assert_memory_equal(t->d0, zero, sizeof(t->d0));
	assert_memory_equal(t->d1, zero, sizeof(t->d1));
	/* No ACK went back: A has its SEND only, its tracker still waits. */
	assert_int_equal(t->ri.n, 1);
	assert_int_equal(t->ri.ev[0].type, ULNET_EVENT_SEND);
	assert_int_equal(t->ri.ev[0].status, 0);
	/* A receive that fails after the match is not a drop (LNet's
	 * lnet_msg_decommit_rx counts nothing for it). */
	assert_int_equal(cnt->drop_count, 0);
	/* The MD is gone: the next PUT finds nothing and is dropped. */
	put_40(t);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.n, 1);
	assert_int_equal(cnt->drop_count, 1);
	/* Each of A's PUTs ends once: UNLINK when its tracker expires. */
	mock_run(&t->f, 300 * UINT64_C(1000000000));
	assert_int_equal(t->ri.n, 4);
	assert_int_equal(mock_rec_count(&t->ri, ULNET_EVENT_SEND), 2);
	assert_int_equal(t->ri.nfinal[ULNET_EVENT_UNLINK], 2);
}

static void retained_md_is_used_up_with_its_event(void **state)
{
	struct two *t = *state;

	attach_two_fragments(t, ULNET_RETAIN);
	fail_iov_array = true;
	put_40(t);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.n, 1);
	assert_int_equal(t->rt.ev[0].status, -ENOMEM);
	assert_false(t->rt.ev[0].unlinked);
	/* Threshold 1 was used: a second PUT is not taken. */
	put_40(t);
	mock_run(&t->f, 1000);
	assert_int_equal(t->rt.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			put_without_memory_fails_its_event_and_unlinks,
			two_setup, two_teardown),
		cmocka_unit_test_setup_teardown(
			retained_md_is_used_up_with_its_event, two_setup,
			two_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
