/* Hex text reading for "ulnetctl debug decode": which lines are hex. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/hexdump.h"

struct line_case {
	const char *line;
	int nbytes;	   /* expected result */
	const char *bytes; /* expected bytes, as a hex run */
};

static const struct line_case line_cases[] = {
	/* 0 */ { "00 71 ce ac", 4, "0071ceac" },
	/* 1 */ { "0071CEAC\n", 4, "0071ceac" },
	/* 2 */ { "  0000  00 71 ce ac 01 00", 6, "0071ceac0100" },
	/* 3 */ { "0010: 0a 0b", 2, "0a0b" },
	/* 4 */ { "0000  45 00 00 34  E..4", 4, "45000034" },
	/* 5 */ { "0x00 0x71", 2, "0071" },
	/* 6 */ { "", 0, "" },
	/* 7 */ { "   \t", 0, "" },
	/* 8 */ { "# 00 11", 0, "" },
	/* 9 */ { "length: 16", 0, "" },
	/* 10 */ { "hex:", 0, "" },
	/* 11 */ { "  16 8 u64le hdr.dest_nid 0x1", 0, "" },
	/* 12 */ { "0 4 u32le acr_magic 0xacce7100", 0, "" },
	/* 13 */ { "abc", 0, "" },
	/* 14 */ { "zz", 0, "" },
	/* 15 */ { "deadbeef cafe", 6, "deadbeefcafe" },
};

static void hexline_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
		const struct line_case *c = &line_cases[i];
		unsigned char out[64];
		char hex[129] = "";
		int n, j;

		n = ul_hexline_parse(c->line, out, sizeof(out));
		if (n != c->nbytes)
			fail_msg("row %zu: '%s' gave %d bytes, want %d", i,
				 c->line, n, c->nbytes);
		for (j = 0; j < n; j++)
			sprintf(hex + 2 * j, "%02x", out[j]);
		if (strcmp(hex, c->bytes) != 0)
			fail_msg("row %zu: bytes %s, want %s", i, hex,
				 c->bytes);
	}
}

static void hexline_reports_overflow(void **state)
{
	unsigned char out[2];

	(void)state;
	assert_int_equal(ul_hexline_parse("00 11 22", out, sizeof(out)),
			 -ENOSPC);
}

static void hexframe_splits_on_non_hex_lines(void **state)
{
	const char *text =
		"=== 1 first ===\nhex:\n  0000  00 71\n  0002  ce ac\n"
		"fields:\n  0 4 u32le x 0x1\n\nc0 00\n\n\n";
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct ul_hexframe f;
	unsigned int line = 0;

	(void)state;
	assert_non_null(in);
	ul_hexframe_init(&f);
	assert_int_equal(ul_hexframe_read(in, &f, &line, NULL), 1);
	assert_int_equal(f.len, 4);
	assert_int_equal(f.first_line, 3);
	assert_memory_equal(f.data, "\x00\x71\xce\xac", 4);
	assert_int_equal(ul_hexframe_read(in, &f, &line, NULL), 1);
	assert_int_equal(f.len, 2);
	assert_int_equal(f.first_line, 8);
	assert_int_equal(ul_hexframe_read(in, &f, &line, NULL), 0);
	ul_hexframe_fini(&f);
	fclose(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hexline_cases),
		cmocka_unit_test(hexline_reports_overflow),
		cmocka_unit_test(hexframe_splits_on_non_hex_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
