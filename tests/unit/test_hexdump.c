/*
 * Hex text reading for "ulnetctl debug decode": which inputs make which
 * frames, and which lines are refused with a reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/hexdump.h"

#define FRAMES_MAX 4

struct read_case {
	const char *text;
	int nframes;			/* frames read before the end */
	const char *frames[FRAMES_MAX]; /* each as a hex run */
	int err_at;			/* -1, or the call that fails */
	const char *err_part;		/* text the error must contain */
};

static const struct read_case cases[] = {
	/* 0: pairs, and a run in one token */
	{ "00 71 ce ac\n0071CEAC\n", 1, { "0071ceac0071ceac" }, -1, NULL },
	/* 1: blank lines separate frames; comments are skipped */
	{ "# hello\n00 11\n\n# x\n22\n33 44\n",
	  2,
	  { "0011", "223344" },
	  -1,
	  NULL },
	/* 2: 0x prefixes */
	{ "0x00 0x71\n", 1, { "0071" }, -1, NULL },
	/* 3: hexdump -C with its ASCII column and closing offset */
	{ "00000000  00 71 ce ac 01 00 00 00  02 00 12 c6 00 00 02 00  "
	  "|.q..............|\n"
	  "00000010  aa bb                                             |..|\n"
	  "00000012\n",
	  1,
	  { "0071ceac01000000020012c600000200aabb" },
	  -1,
	  NULL },
	/* 4: hexdump -C "*" repeats the line above */
	{ "00000000  01 02 03 04 05 06 07 08  09 0a 0b 0c 0d 0e 0f 10  "
	  "|................|\n"
	  "*\n"
	  "00000030  ff                                                |.|\n"
	  "00000031\n",
	  1,
	  { "0102030405060708090a0b0c0d0e0f10"
	    "0102030405060708090a0b0c0d0e0f10"
	    "0102030405060708090a0b0c0d0e0f10ff" },
	  -1,
	  NULL },
	/* 5: tshark -x */
	{ "0000  c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00   "
	  "................\n"
	  "0010  00 00 00 00 00 00 00 00                           ........\n",
	  1,
	  { "c0000000000000000000000000000000"
	    "0000000000000000" },
	  -1,
	  NULL },
	/* 6: xxd with groups of four digits and an ASCII column */
	{ "00000000: 0071 ceac 0100 0000  .q......\n"
	  "00000008: 0200 12c6            ....\n",
	  1,
	  { "0071ceac01000000020012c6" },
	  -1,
	  NULL },
	/* 7: a four-digit group with one blank after it is data, not an offset */
	{ "0071ceac 01 00\n", 1, { "0071ceac0100" }, -1, NULL },
	/* 8: an odd digit count is refused and named */
	{ "00 11 2\n\n33\n", 1, { "33" }, 0, "odd number of hex digits" },
	/* 9: a token that is not hex is refused, quoted */
	{ "00 zz\n", 0, { NULL }, 0, "'zz' is not hex" },
	/* 10: an offset that does not follow on */
	{ "0000: 00 11\n0004: 22\n", 0, { NULL }, 0, "offset 0x4" },
	/* 11: the vectors format: only hex sections, one frame per block */
	{ "# header\n=== 1 x ===\ndesc: d\nlength: 2\nhex:\n  0000  ab cd\n"
	  "fields:\n  0 2 bytes f abcd\n=== end ===\n\n=== 2 y ===\nlength: 1\n"
	  "hex:\n  0000  ef\nfields:\n=== end ===\n",
	  2,
	  { "abcd", "ef" },
	  -1,
	  NULL },
	/* 12: a vectors block whose hex disagrees with its length */
	{ "=== 1 x ===\nlength: 3\nhex:\n  0000  ab cd\nfields:\n=== end ===\n",
	  0,
	  { NULL },
	  0,
	  "says length 3" },
	/* 13: a field line with a large offset is not taken as hex */
	{ "=== 1 x ===\nlength: 1\nhex:\n  0000  ab\nfields:\n  1040 16 bytes "
	  "x 0\n"
	  "=== end ===\n",
	  1,
	  { "ab" },
	  -1,
	  NULL },
};

static void to_hex(const struct ul_hexframe *f, char *out)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		sprintf(out + 2 * i, "%02x", f->data[i]);
	out[2 * f->len] = '\0';
}

static void hexreader_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct read_case *c = &cases[i];
		FILE *in = fmemopen((void *)c->text, strlen(c->text), "r");
		struct ul_hexreader r;
		struct ul_hexframe f;
		int call = 0, got = 0, rc;

		assert_non_null(in);
		ul_hexreader_init(&r, in);
		ul_hexframe_init(&f);
		for (;;) {
			struct ul_err err = { 0 };
			char hex[512];

			rc = ul_hexreader_next(&r, &f, &err);
			if (rc == 0)
				break;
			if (rc < 0) {
				if (call != c->err_at ||
				    !strstr(err.msg, c->err_part))
					fail_msg("row %zu: call %d failed: %s",
						 i, call, err.msg);
				call++;
				continue;
			}
			if (got >= c->nframes)
				fail_msg("row %zu: more than %d frames", i,
					 c->nframes);
			to_hex(&f, hex);
			if (strcmp(hex, c->frames[got]) != 0)
				fail_msg("row %zu frame %d: %s, want %s", i,
					 got, hex, c->frames[got]);
			got++;
			call++;
		}
		if (got != c->nframes)
			fail_msg("row %zu: %d frames, want %d", i, got,
				 c->nframes);
		if (c->err_at >= 0 && call <= c->err_at)
			fail_msg("row %zu: the error never came", i);
		ul_hexframe_fini(&f);
		ul_hexreader_fini(&r);
		fclose(in);
	}
}

static void hexreader_first_line_names_the_frame_start(void **state)
{
	const char *text = "# c\n\n00 11\n22\n\n\n33\n";
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct ul_hexreader r;
	struct ul_hexframe f;

	(void)state;
	ul_hexreader_init(&r, in);
	ul_hexframe_init(&f);
	assert_int_equal(ul_hexreader_next(&r, &f, NULL), 1);
	assert_int_equal(f.first_line, 3);
	assert_int_equal(ul_hexreader_next(&r, &f, NULL), 1);
	assert_int_equal(f.first_line, 7);
	assert_int_equal(ul_hexreader_next(&r, &f, NULL), 0);
	ul_hexframe_fini(&f);
	ul_hexreader_fini(&r);
	fclose(in);
}

/* One line of 1 MiB + 120 bytes (a whole PUT from tshark) is one frame. */
static void hexreader_takes_a_megabyte_line(void **state)
{
	size_t n = (1u << 20) + 120, i;
	char *text = malloc(2 * n + 2);
	FILE *in;
	struct ul_hexreader r;
	struct ul_hexframe f;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		memcpy(text + 2 * i, "5a", 2);
	memcpy(text + 2 * n, "\n", 2);
	in = fmemopen(text, 2 * n + 1, "r");
	ul_hexreader_init(&r, in);
	ul_hexframe_init(&f);
	assert_int_equal(ul_hexreader_next(&r, &f, NULL), 1);
	assert_int_equal(f.len, n);
	assert_int_equal(f.data[n - 1], 0x5a);
	ul_hexframe_fini(&f);
	ul_hexreader_fini(&r);
	fclose(in);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hexreader_cases),
		cmocka_unit_test(hexreader_first_line_names_the_frame_start),
		cmocka_unit_test(hexreader_takes_a_megabyte_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
