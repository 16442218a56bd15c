/*
 * Matching at the target (reference/wire.md §7.4, LNet's
 * lnet_try_match_md) on an MD table: one numbered row per rule (match
 * and ignore bits, pid, NID, portal, operation, truncation, remote and
 * local offsets, MAX_SIZE, threshold), then the sequences: threshold
 * exhaustion, auto-unlink, insert before/after, a drop that ends the
 * search, and iov slices.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/md.h"
#include "helper_mocklnd.h"

#define ANY_NID "any"

struct row {
	/* the MD and its ME */
	uint32_t options;
	int threshold;
	uint32_t length;
	uint32_t max_size;
	uint32_t local_offset; /* running offset before the request */
	const char *me_nid;
	uint32_t me_pid;
	uint64_t me_bits, me_ignore;
	uint32_t me_portal;
	/* the request */
	uint32_t portal, opc;
	const char *nid;
	uint32_t pid;
	uint64_t bits;
	uint32_t rlength, roffset;
	/* expected */
	enum ul_md_match_result result;
	uint32_t offset, mlength;
};

#define PUT ULNET_MD_OP_PUT
#define GET ULNET_MD_OP_GET
#define TR ULNET_MD_TRUNCATE
#define MR ULNET_MD_MANAGE_REMOTE
#define MS ULNET_MD_MAX_SIZE
#define INF ULNET_MD_THRESH_INF
#define A "10.0.0.1@tcp"
#define B "10.0.0.2@tcp"
#define LU ULNET_PID_LUSTRE
#define PANY ULNET_PID_ANY
#define OK UL_MD_MATCH_OK
#define NONE UL_MD_MATCH_NONE
#define DROP UL_MD_MATCH_DROP

static const struct row rows[] = {
	/* 0: exact match bits */
	{ PUT, INF, 100, 0,  0, ANY_NID, PANY, 7,  0, 4,
	  4,   PUT, A,	 LU, 7, 60,	 0,    OK, 0, 60 },
	/* 1: match bits differ */
	{ PUT, INF, 100, 0,  0, ANY_NID, PANY, 7,    0, 4,
	  4,   PUT, A,	 LU, 6, 60,	 0,    NONE, 0, 0 },
	/* 2: they differ only in ignored bits */
	{ PUT, INF, 100, 0,  0,	   ANY_NID, PANY, 0xf0, 0x0f, 4,
	  4,   PUT, A,	 LU, 0xf5, 60,	    0,	  OK,	0,    60 },
	/* 3: pid differs */
	{ PUT, INF, 100, 0,  0, ANY_NID, LU, 7,	   0, 4,
	  4,   PUT, A,	 99, 7, 60,	 0,  NONE, 0, 0 },
	/* 4: pid equal */
	{ PUT, INF, 100, 0,  0, ANY_NID, LU, 7,	 0, 4,
	  4,   PUT, A,	 LU, 7, 60,	 0,  OK, 0, 60 },
	/* 5: NID differs */
	{ PUT, INF, 100, 0,  0, B,  PANY, 7,	0, 4,
	  4,   PUT, A,	 LU, 7, 60, 0,	  NONE, 0, 0 },
	/* 6: NID equal */
	{ PUT, INF, 100, 0,  0, A,  PANY, 7,  0, 4,
	  4,   PUT, A,	 LU, 7, 60, 0,	  OK, 0, 60 },
	/* 7: portal 64 is invalid */
	{ PUT, INF, 100, 0,  0, ANY_NID, PANY, 7,    0, 4,
	  64,  PUT, A,	 LU, 7, 60,	 0,    NONE, 0, 0 },
	/* 8: another portal */
	{ PUT, INF, 100, 0,  0, ANY_NID, PANY, 7,    0, 4,
	  5,   PUT, A,	 LU, 7, 60,	 0,    NONE, 0, 0 },
	/* 9: a GET on a PUT-only MD */
	{ PUT, INF, 100, 0,  0, ANY_NID, PANY, 7,    0, 4,
	  4,   GET, A,	 LU, 7, 60,	 0,    NONE, 0, 0 },
	/* 10: too long, no TRUNCATE: dropped */
	{ PUT, INF, 100, 0,  0, ANY_NID, PANY, 7,    0, 4,
	  4,   PUT, A,	 LU, 7, 101,	 0,    DROP, 0, 0 },
	/* 11: too long with TRUNCATE: cut to the MD */
	{ PUT | TR, INF, 100, 0,  0, ANY_NID, PANY, 7,	0, 4,
	  4,	    PUT, A,   LU, 7, 101,     0,    OK, 0, 100 },
	/* 12: MANAGE_REMOTE takes the header offset */
	{ PUT | MR, INF, 100, 0,  0, ANY_NID, PANY, 7,	0,  4,
	  4,	    PUT, A,   LU, 7, 50,      50,   OK, 50, 50 },
	/* 13: MANAGE_REMOTE, the rest does not fit, no TRUNCATE */
	{ PUT | MR, INF, 100, 0,  0, ANY_NID, PANY, 7,	  0, 4,
	  4,	    PUT, A,   LU, 7, 51,      50,   DROP, 0, 0 },
	/* 14: MANAGE_REMOTE past the end with TRUNCATE: nothing taken */
	{ PUT | MR | TR, INF, 100, 0, 0,  ANY_NID, PANY, 7,   0, 4, 4,
	  PUT,		 A,   LU,  7, 10, 500,	   OK,	 100, 0 },
	/* 15: local offset, the header offset ignored */
	{ PUT, INF, 100, 0,  30, ANY_NID, PANY, 7,  0,	4,
	  4,   PUT, A,	 LU, 7,	 20,	  90,	OK, 30, 20 },
	/* 16: MAX_SIZE 40, 100 asked, no TRUNCATE: dropped */
	{ PUT | MS, INF, 100, 40, 0, ANY_NID, PANY, 7,	  0, 4,
	  4,	    PUT, A,   LU, 7, 100,     0,    DROP, 0, 0 },
	/* 17: MAX_SIZE 40, 30 asked */
	{ PUT | MS, INF, 100, 40, 0, ANY_NID, PANY, 7,	0, 4,
	  4,	    PUT, A,   LU, 7, 30,      0,    OK, 0, 30 },
	/* 18: MAX_SIZE 40 with TRUNCATE: 40 */
	{ PUT | MS | TR, INF, 100, 40, 0,   ANY_NID, PANY, 7, 0, 4, 4,
	  PUT,		 A,   LU,  7,  100, 0,	     OK,   0, 40 },
	/* 19: MAX_SIZE 40 and only 30 left: exhausted, skipped */
	{ PUT | MS, INF, 100, 40, 70, ANY_NID, PANY, 7,	   0, 4,
	  4,	    PUT, A,   LU, 7,  10,      0,    NONE, 0, 0 },
	/* 20: threshold 0: exhausted, skipped */
	{ PUT, 0,   100, 0,  0, ANY_NID, PANY, 7,    0, 4,
	  4,   PUT, A,	 LU, 7, 10,	 0,    NONE, 0, 0 },
	/* 21: GET: sink length is the request */
	{ GET, INF, 100, 0,  0, ANY_NID, PANY, 7,  0, 4,
	  4,   GET, A,	 LU, 7, 64,	 0,    OK, 0, 64 },
};

static struct ulnet_nid nid_of(const char *s)
{
	struct ulnet_nid n;

	if (strcmp(s, ANY_NID) == 0)
		ulnet_nid_set_any(&n);
	else
		n = mock_nid(s);
	return n;
}

static struct ul_md *make(struct ul_md_table *t, void *buf, uint32_t options,
			  int threshold, uint32_t length, uint32_t max_size,
			  uint32_t portal, const struct ulnet_process_id *id,
			  uint64_t bits, uint64_t ignore, enum ulnet_unlink ul,
			  enum ulnet_ins_pos pos)
{
	struct ulnet_md umd = {
		.start = buf,
		.length = length,
		.threshold = threshold,
		.max_size = max_size,
		.options = options,
		.numa_node = -1,
	};
	struct ul_md *md;

	assert_int_equal(ul_md_create(t, &umd, ul, true, portal, id, bits,
				      ignore, pos, &md),
			 0);
	return md;
}

static void match_rows(void **state)
{
	static uint8_t buf[100];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct ul_md_table t;
		struct ulnet_process_id id = { nid_of(r->me_nid), r->me_pid };
		struct ul_md_match_req req = {
			.opc = r->opc,
			.initiator = { mock_nid(r->nid), r->pid },
			.match_bits = r->bits,
			.rlength = r->rlength,
			.roffset = r->roffset,
		};
		struct ul_md *md, *got = NULL;
		uint32_t off = 0, len = 0;
		enum ul_md_match_result res;

		print_message("row %zu\n", i);
		assert_int_equal(ul_md_table_init(&t), 0);
		md = make(&t, buf, r->options, r->threshold, r->length,
			  r->max_size, r->me_portal, &id, r->me_bits,
			  r->me_ignore, ULNET_RETAIN, ULNET_INS_AFTER);
		md->offset = r->local_offset;
		res = ul_md_match(&t, r->portal, &req, &got, &off, &len);
		assert_int_equal(res, r->result);
		if (res == UL_MD_MATCH_OK) {
			assert_ptr_equal(got, md);
			assert_int_equal(off, r->offset);
			assert_int_equal(len, r->mlength);
			assert_int_equal(md->nmsgs, 1);
			assert_int_equal(md->offset, off + len);
			ul_md_detach_msg(md);
		} else {
			assert_int_equal(md->nmsgs, 0);
		}
		ul_md_table_fini(&t);
	}
}

static const struct ul_md_match_req put_req = {
	.opc = ULNET_MD_OP_PUT,
	.initiator = { { 0, ULNET_LND_SOCK, 0, { 0x0a000001 } },
		       ULNET_PID_LUSTRE },
	.match_bits = 1,
	.rlength = 10,
};

static void threshold_runs_out_and_retain_keeps_the_md(void **state)
{
	static uint8_t buf[100];
	struct ul_md_table t;
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_md *md, *got;
	uint32_t off, len;

	(void)state;
	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_md_table_init(&t), 0);
	md = make(&t, buf, PUT, 2, 100, 0, 1, &any, 1, 0, ULNET_RETAIN,
		  ULNET_INS_AFTER);
	assert_int_equal(ul_md_match(&t, 1, &put_req, &got, &off, &len), OK);
	assert_int_equal(off, 0);
	assert_int_equal(ul_md_match(&t, 1, &put_req, &got, &off, &len), OK);
	assert_int_equal(off, 10);
	assert_int_equal(ul_md_match(&t, 1, &put_req, &got, &off, &len), NONE);
	assert_false(ul_md_detach_msg(md));
	assert_false(ul_md_detach_msg(md));
	assert_ptr_equal(ul_md_lookup(&t, md->cookie), md);
	ul_md_table_fini(&t);
}

static void auto_unlink_on_exhaustion_unlinks_at_once(void **state)
{
	static uint8_t buf[100];
	struct ul_md_table t;
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_md *md, *got;
	uint32_t off, len;

	(void)state;
	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_md_table_init(&t), 0);
	md = make(&t, buf, PUT, 1, 100, 0, 1, &any, 1, 0, ULNET_UNLINK,
		  ULNET_INS_AFTER);
	assert_int_equal(ul_md_match(&t, 1, &put_req, &got, &off, &len), OK);
	/* Off the portal and out of the handle table at once... */
	assert_true(md->is_zombie);
	assert_null(ul_md_lookup(&t, md->cookie));
	assert_int_equal(ul_md_match(&t, 1, &put_req, &got, &off, &len), NONE);
	/* ...and its message's event will be its last. */
	assert_true(ul_md_detach_msg(md));
	ul_md_table_fini(&t);
}

static void insert_before_matches_first(void **state)
{
	static uint8_t buf[3][100];
	struct ul_md_table t;
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_md *a, *b, *c, *got;
	uint32_t off, len;

	(void)state;
	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_md_table_init(&t), 0);
	a = make(&t, buf[0], PUT, 1, 100, 0, 2, &any, 1, 0, ULNET_RETAIN,
		 ULNET_INS_AFTER);
	b = make(&t, buf[1], PUT, 1, 100, 0, 2, &any, 1, 0, ULNET_RETAIN,
		 ULNET_INS_AFTER);
	c = make(&t, buf[2], PUT, 1, 100, 0, 2, &any, 1, 0, ULNET_RETAIN,
		 ULNET_INS_BEFORE);
	assert_int_equal(ul_md_match(&t, 2, &put_req, &got, &off, &len), OK);
	assert_ptr_equal(got, c);
	assert_int_equal(ul_md_match(&t, 2, &put_req, &got, &off, &len), OK);
	assert_ptr_equal(got, a);
	assert_int_equal(ul_md_match(&t, 2, &put_req, &got, &off, &len), OK);
	assert_ptr_equal(got, b);
	/* Handles are never reused: creation order, all distinct. */
	assert_true(a->cookie < b->cookie && b->cookie < c->cookie);
	ul_md_table_fini(&t);
}

static void a_drop_ends_the_search(void **state)
{
	static uint8_t buf[2][100];
	struct ul_md_table t;
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ul_md_match_req big = put_req;
	struct ul_md *got = NULL;
	uint32_t off, len;

	(void)state;
	ulnet_nid_set_any(&any.nid);
	assert_int_equal(ul_md_table_init(&t), 0);
	make(&t, buf[0], PUT, INF, 5, 0, 3, &any, 1, 0, ULNET_RETAIN,
	     ULNET_INS_AFTER);
	make(&t, buf[1], PUT, INF, 100, 0, 3, &any, 1, 0, ULNET_RETAIN,
	     ULNET_INS_AFTER);
	big.rlength = 50;
	/* LNet: the first entry that matches decides, even by dropping. */
	assert_int_equal(ul_md_match(&t, 3, &big, &got, &off, &len), DROP);
	assert_null(got);
	ul_md_table_fini(&t);
}

static void bad_mds_are_refused(void **state)
{
	uint8_t buf[10];
	struct iovec iov[ULNET_MAX_IOV + 1];
	struct ul_md_table t;
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md umd = { .start = buf, .length = 10, .numa_node = -1 };
	struct ul_md *md;

	(void)state;
	ulnet_nid_set_any(&any.nid);
	for (size_t i = 0; i < ULNET_MAX_IOV + 1; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = 1;
	}
	assert_int_equal(ul_md_table_init(&t), 0);
	/* 0: bound MDs may not accept PUT or GET (LNet) */
	umd.options = PUT;
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, false, 0, NULL, 0,
				      0, ULNET_INS_AFTER, &md),
			 -EINVAL);
	/* 1: portal 64 */
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, true, 64, &any, 0,
				      0, ULNET_INS_AFTER, &md),
			 -EINVAL);
	/* 2: max_size above the length */
	umd.options = PUT | MS;
	umd.max_size = 11;
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, true, 1, &any, 0,
				      0, ULNET_INS_AFTER, &md),
			 -EINVAL);
	/* 3: 257 fragments */
	umd.options = PUT | ULNET_MD_IOVEC;
	umd.start = iov;
	umd.length = ULNET_MAX_IOV + 1;
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, true, 1, &any, 0,
				      0, ULNET_INS_AFTER, &md),
			 -EINVAL);
	/* 4: 256 fragments are fine */
	umd.length = ULNET_MAX_IOV;
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, true, 1, &any, 0,
				      0, ULNET_INS_AFTER, &md),
			 0);
	assert_int_equal(md->length, ULNET_MAX_IOV);
	/* 5: an unknown option bit */
	umd.options = 1u << 20;
	umd.start = buf;
	umd.length = 10;
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, false, 0, NULL, 0,
				      0, ULNET_INS_AFTER, &md),
			 -EINVAL);
	ul_md_table_fini(&t);
}

static void slices_cut_fragments_at_the_offset(void **state)
{
	uint8_t a[10], b[20], c[30];
	struct iovec iov[3] = { { a, 10 }, { b, 20 }, { c, 30 } };
	struct ulnet_md umd = { .start = iov,
				.length = 3,
				.options = ULNET_MD_IOVEC,
				.numa_node = -1 };
	struct ul_md_table t;
	struct ul_md *md;
	struct iovec one, *v, *alloc;
	uint32_t nv;

	(void)state;
	assert_int_equal(ul_md_table_init(&t), 0);
	assert_int_equal(ul_md_create(&t, &umd, ULNET_RETAIN, false, 0, NULL, 0,
				      0, ULNET_INS_AFTER, &md),
			 0);
	assert_int_equal(md->length, 60);
	/* 5..44: the end of a, all of b, the start of c */
	assert_int_equal(ul_md_slice(md, 5, 40, &one, &v, &nv, &alloc), 0);
	assert_int_equal(nv, 3);
	assert_ptr_equal(v[0].iov_base, a + 5);
	assert_int_equal(v[0].iov_len, 5);
	assert_ptr_equal(v[1].iov_base, b);
	assert_int_equal(v[1].iov_len, 20);
	assert_ptr_equal(v[2].iov_base, c);
	assert_int_equal(v[2].iov_len, 15);
	free(alloc);
	/* 12..17: inside b, no allocation */
	assert_int_equal(ul_md_slice(md, 12, 6, &one, &v, &nv, &alloc), 0);
	assert_int_equal(nv, 1);
	assert_null(alloc);
	assert_ptr_equal(v[0].iov_base, b + 2);
	assert_int_equal(v[0].iov_len, 6);
	ul_md_table_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(match_rows),
		cmocka_unit_test(threshold_runs_out_and_retain_keeps_the_md),
		cmocka_unit_test(auto_unlink_on_exhaustion_unlinks_at_once),
		cmocka_unit_test(insert_before_matches_first),
		cmocka_unit_test(a_drop_ends_the_search),
		cmocka_unit_test(bad_mds_are_refused),
		cmocka_unit_test(slices_cut_fragments_at_the_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
