/*
 * Reading frames given as hex text, for "ulnetctl debug decode".
 *
 * Plain input: frames are separated by blank lines; lines starting with
 * '#' are comments and are skipped. Every other line must be hex, in one
 * of these forms:
 *  - bytes as hex, in pairs or in runs of any even length, optionally with
 *    0x prefixes: "00 71 ce ac", "0071ceac" (what `xxd -p` and
 *    `tshark -T fields -e tcp.payload` print, one segment per line);
 *  - an offset column, then byte pairs, then optionally anything else (an
 *    ASCII column): "00000010  0a 0b |..|" (`hexdump -C`), "0010  0a 0b"
 *    (`tshark -x`), "00000010: 0a0b" (xxd). The first token is an offset
 *    when it ends in ':' or has four or more digits followed by two spaces
 *    (or nothing), and its value is the number of bytes the frame holds so
 *    far; a line holding only such an offset (hexdump's last line) adds
 *    nothing, and hexdump's "*" (repeat the line above) is expanded.
 * A line that fits none of these is an error that names the line and the
 * token; the rest of that frame is skipped.
 *
 * The test vectors' frames.txt is read as it is: once a "=== n label ==="
 * block header is seen, only the lines between "hex:" and "fields:" are
 * read, each block is one frame, and its byte count must equal the
 * block's "length:".
 */
#ifndef UL_CTL_HEXDUMP_H
#define UL_CTL_HEXDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* Largest frame read: a 1 MiB LNet payload with every header, and room. */
#define UL_HEXFRAME_MAX (4u << 20)
/* Longest hexdump line that "*" may repeat. */
#define UL_HEXLINE_REPEAT_MAX 64

struct ul_hexframe {
	unsigned char *data;	 /* owned; freed by ul_hexframe_fini() */
	size_t len;		 /* bytes in data */
	size_t cap;		 /* bytes allocated */
	unsigned int first_line; /* 1-based input line the frame starts on */
};

struct ul_hexreader {
	FILE *in;	   /* not owned */
	unsigned int line; /* lines read so far */
	char *text;	   /* getline() buffer, owned */
	size_t text_cap;
	bool is_vectors;     /* frames.txt block format seen */
	bool in_hex;	     /* vectors: inside a "hex:" section */
	bool skipping;	     /* after an error: skip to the next frame */
	bool repeat_pending; /* a "*" line waits for the next offset */
	long vector_length;  /* vectors: the block's "length:", or -1 */
	unsigned char last[UL_HEXLINE_REPEAT_MAX]; /* bytes of the last line */
	size_t last_len;
};

void ul_hexframe_init(struct ul_hexframe *f);
void ul_hexframe_fini(struct ul_hexframe *f);

void ul_hexreader_init(struct ul_hexreader *r, FILE *in);
void ul_hexreader_fini(struct ul_hexreader *r);

/*
 * Read the next frame into f (its previous bytes replaced). Returns 1 with
 * a frame, 0 at end of input, or a negative errno with err naming the
 * input line: -EINVAL for a line that is not hex (the rest of that frame
 * is then skipped; call again for the next one), -EMSGSIZE for a frame
 * over UL_HEXFRAME_MAX, -ENOMEM.
 */
int ul_hexreader_next(struct ul_hexreader *r, struct ul_hexframe *f,
		      struct ul_err *err);

#endif /* UL_CTL_HEXDUMP_H */
