/*
 * Fuzz target: "ulnetctl debug decode" end to end below the CLI: hex text
 * read into frames, frames decoded and printed as YAML (to /dev/null).
 */
#include <stdint.h>
#include <stdio.h>

#include "ctl/hexdump.h"
#include "ctl/wire_yaml.h"
#include "ctl/yemit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in, *sink;
	struct ul_decode_state st;
	struct ul_hexframe f;
	struct ul_yemit y;
	unsigned int line = 0;

	if (size == 0)
		return 0;
	in = fmemopen((void *)data, size, "r");
	sink = fopen("/dev/null", "w");
	if (!in || !sink)
		return 0;
	ul_decode_state_init(&st);
	ul_hexframe_init(&f);
	if (ul_yemit_open(&y, sink, 2, false) == 0) {
		ul_yemit_seq_start(&y);
		while (ul_hexframe_read(in, &f, &line, NULL) > 0)
			ul_decode_frame(&st, &y, f.data, f.len, f.first_line,
					NULL);
		ul_yemit_seq_end(&y);
		ul_yemit_close(&y);
	}
	ul_hexframe_fini(&f);
	fclose(in);
	fclose(sink);
	return 0;
}
