/*
 * ulnetctl debug decode: read hex frames (ctl/hexdump.h says which forms),
 * decode each (ctl/wire_yaml.h) and print one YAML sequence, an item per
 * unit, with libyaml at its default indent like lnetctl's ping output.
 * A bad frame is reported on stderr in lnetctl's cYAML error form and the
 * next frame is decoded anyway; the exit status says whether any failed.
 *
 * Each frame is rendered on its own into memory and then written out, so
 * the items of a frame reach stdout before the error that ends it reaches
 * stderr, and a frame with no good unit prints nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl/hexdump.h"
#include "ctl/wire_yaml.h"
#include "ctl/yemit.h"

#include "cmd.h"
#include "decode.h"

/* Decode one frame and print its units; 0 or the decoder's errno. */
static int decode_one(struct ul_decode_state *st, const struct ul_hexframe *f,
		      FILE *out, struct ul_err *err)
{
	unsigned int units = st->units;
	struct ul_yemit y;
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	int rc;

	mem = open_memstream(&text, &size);
	if (!mem)
		return ul_err_set(err, -ENOMEM, "out of memory");
	rc = ul_yemit_open(&y, mem, 2, false);
	if (rc < 0) {
		fclose(mem);
		free(text);
		return ul_err_set(err, rc, "out of memory");
	}
	ul_yemit_seq_start(&y);
	rc = ul_decode_frame(st, &y, f->data, f->len, f->first_line, err);
	ul_yemit_seq_end(&y);
	if (ul_yemit_close(&y) < 0 && rc == 0)
		rc = ul_err_set(err, -EIO, "cannot render the YAML output");
	if (fclose(mem) != 0 && rc == 0)
		rc = ul_err_set(err, -ENOMEM, "out of memory");
	if (st->units > units && fwrite(text, 1, size, out) != size && rc == 0)
		rc = ul_err_set(err, -EIO, "cannot write the output");
	free(text);
	return rc;
}

int ulnetctl_decode_stream(FILE *in, FILE *out, struct ul_cyaml_errs *errs)
{
	struct ul_decode_state st;
	struct ul_hexreader r;
	struct ul_hexframe f;
	unsigned int frames = 0;
	bool any_bad = false;
	char descr[UL_ERR_MSG_SIZE + 32];
	int rc;

	ul_decode_state_init(&st);
	ul_hexreader_init(&r, in);
	ul_hexframe_init(&f);
	for (;;) {
		struct ul_err err = { 0 };

		rc = ul_hexreader_next(&r, &f, &err);
		if (rc == 0)
			break;
		if (rc < 0) {
			ul_cyaml_err_add(errs, "debug", "decode", err.code,
					 err.msg);
			any_bad = true;
			if (rc == -ENOMEM || rc == -EIO)
				break;
			continue;
		}
		frames++;
		if (decode_one(&st, &f, out, &err) < 0) {
			fflush(out);
			snprintf(descr, sizeof(descr), "%s (input line %u)",
				 err.msg, f.first_line);
			ul_cyaml_err_add(errs, "debug", "decode", err.code,
					 descr);
			any_bad = true;
		}
	}
	if (frames == 0 && !any_bad) {
		ul_cyaml_err_add(errs, "debug", "decode", -ENODATA,
				 "no frame found: the input holds no hex");
		any_bad = true;
	}
	ul_hexframe_fini(&f);
	ul_hexreader_fini(&r);
	return any_bad ? ULNETCTL_RC_BAD_PARAM : 0;
}
