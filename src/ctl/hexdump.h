/*
 * Reading frames given as hex text, for "ulnetctl debug decode".
 *
 * A frame is a run of consecutive hex lines; any other line (blank, a
 * comment starting with '#', a "key: value" line) ends it. A hex line is:
 *  - plain hex, in byte pairs or in one run: "00 71 ce ac", "0071ceac",
 *    optionally with 0x prefixes (what `xxd -p` and
 *    `tshark -T fields -e tcp.payload` print); or
 *  - an offset column, then byte pairs: "0010  0a 0b 0c" or "0010: 0a 0b";
 *    the offset is a first token of 4 or more hex digits (or one ending in
 *    ':') followed by a two-digit token. After the pairs, anything else on
 *    the line (an ASCII column, as `hexdump -C` and `tshark -x` print) is
 *    ignored.
 * So frames.txt of the test vectors, a hexdump -C listing and a file of
 * tcp.payload fields all read as they are.
 */
#ifndef UL_CTL_HEXDUMP_H
#define UL_CTL_HEXDUMP_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* Largest frame read: a 1 MiB LNet payload with every header, and room. */
#define UL_HEXFRAME_MAX (4u << 20)

struct ul_hexframe {
	unsigned char *data; /* owned; freed by ul_hexframe_fini() */
	size_t len;	     /* bytes in data */
	size_t cap;
	unsigned int first_line; /* 1-based input line the frame starts on */
};

/*
 * Parse one line. Returns the number of bytes it holds (>= 1) and writes
 * them to out (capacity cap), 0 if it is not a hex line, or -ENOSPC if it
 * holds more than cap bytes.
 */
int ul_hexline_parse(const char *line, unsigned char *out, size_t cap);

void ul_hexframe_init(struct ul_hexframe *f);
void ul_hexframe_fini(struct ul_hexframe *f);

/*
 * Read the next frame from in, counting lines in *lineno. Returns 1 with
 * the frame in f (its previous bytes replaced), 0 at end of input, or a
 * negative errno (-ENOMEM, -EMSGSIZE for a frame over UL_HEXFRAME_MAX)
 * with detail in err.
 */
int ul_hexframe_read(FILE *in, struct ul_hexframe *f, unsigned int *lineno,
		     struct ul_err *err);

#endif /* UL_CTL_HEXDUMP_H */
