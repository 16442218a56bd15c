/*
 * Fuzz target: "ulnetctl debug decode" end to end below the CLI: hex text
 * read into frames, frames decoded and printed as YAML (to /dev/null).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl/hexdump.h"
#include "ctl/wire_yaml.h"
#include "ctl/yemit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Opened once: the sink is not what is being tested. */
	static FILE *sink;
	struct ul_decode_state st;
	struct ul_hexreader r;
	struct ul_hexframe f;
	struct ul_yemit y;
	FILE *in;
	int rc;

	if (size == 0)
		return 0;
	if (!sink)
		sink = fopen("/dev/null", "w");
	in = fmemopen((void *)data, size, "r");
	if (!in || !sink) {
		if (in)
			fclose(in);
		return 0;
	}
	ul_decode_state_init(&st);
	ul_hexreader_init(&r, in);
	ul_hexframe_init(&f);
	if (ul_yemit_open(&y, sink, 2, false) == 0) {
		ul_yemit_seq_start(&y);
		while ((rc = ul_hexreader_next(&r, &f, NULL)) != 0) {
			if (rc == -ENOMEM || rc == -EIO)
				break;
			if (rc > 0)
				ul_decode_frame(&st, &y, f.data, f.len,
						f.first_line, NULL);
		}
		ul_yemit_seq_end(&y);
		ul_yemit_close(&y);
	}
	ul_hexframe_fini(&f);
	ul_hexreader_fini(&r);
	fclose(in);
	return 0;
}
