/* Hex text to frames; the accepted forms are in hexdump.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/hexdump.h"

/* Longest token quoted in an error message. */
#define QUOTE_MAX 24

/* What one input line turned out to be. */
enum line_kind {
	LINE_SEPARATOR, /* blank: ends a frame */
	LINE_IGNORED,	/* a comment, or outside a vectors hex section */
	LINE_HEX,	/* bytes appended (possibly none) */
	LINE_FRAME_END, /* vectors: a block's hex section ended */
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static size_t toklen(const char *s)
{
	size_t n = 0;

	while (s[n] && !isspace((unsigned char)s[n]))
		n++;
	return n;
}

static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return false;
	return n > 0;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

void ul_hexframe_init(struct ul_hexframe *f)
{
	memset(f, 0, sizeof(*f));
}

void ul_hexframe_fini(struct ul_hexframe *f)
{
	free(f->data);
	ul_hexframe_init(f);
}

void ul_hexreader_init(struct ul_hexreader *r, FILE *in)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->vector_length = -1;
}

void ul_hexreader_fini(struct ul_hexreader *r)
{
	free(r->text);
	r->text = NULL;
}

static int frame_put(struct ul_hexframe *f, const unsigned char *b, size_t n,
		     unsigned int line, struct ul_err *err)
{
	if (n > UL_HEXFRAME_MAX - f->len)
		return ul_err_set(err, -EMSGSIZE,
				  "line %u: the frame grows past %u bytes",
				  line, UL_HEXFRAME_MAX);
	if (f->len + n > f->cap) {
		size_t cap = f->cap ? f->cap : 256;
		unsigned char *d;

		while (cap < f->len + n)
			cap *= 2;
		d = realloc(f->data, cap);
		if (!d)
			return ul_err_set(err, -ENOMEM, "out of memory");
		f->data = d;
		f->cap = cap;
	}
	memcpy(f->data + f->len, b, n);
	f->len += n;
	return 0;
}

/* Append the bytes of hex digits s[0..n), n even and all hex. */
static int put_digits(struct ul_hexreader *r, struct ul_hexframe *f,
		      const char *s, size_t n, struct ul_err *err)
{
	unsigned char chunk[256];
	size_t i, k = 0;
	int rc;

	for (i = 0; i < n; i += 2) {
		/* The caller checked every digit: neither value is -1. */
		unsigned int hi = (unsigned int)hexval((unsigned char)s[i]);
		unsigned int lo = (unsigned int)hexval((unsigned char)s[i + 1]);

		chunk[k++] = (unsigned char)(hi << 4 | lo);
		if (k == sizeof(chunk) || i + 2 == n) {
			rc = frame_put(f, chunk, k, r->line, err);
			if (rc < 0)
				return rc;
			k = 0;
		}
	}
	return 0;
}

static int bad_token(const struct ul_hexreader *r, const char *tok, size_t n,
		     const char *why, struct ul_err *err)
{
	return ul_err_set(err, -EINVAL, "line %u: '%.*s%s' %s", r->line,
			  (int)(n > QUOTE_MAX ? QUOTE_MAX : n), tok,
			  n > QUOTE_MAX ? "..." : "", why);
}

/* Remember a line's bytes for a later hexdump "*". */
static void remember(struct ul_hexreader *r, const struct ul_hexframe *f,
		     size_t start)
{
	size_t n = f->len - start;

	r->last_len = n <= UL_HEXLINE_REPEAT_MAX ? n : 0;
	if (r->last_len)
		memcpy(r->last, f->data + start, n);
}

/*
 * An offset column: "XXXX:" or four or more digits then two blanks or the
 * end of the line. Returns true with *value when it is one.
 */
static bool offset_token(const char *s, size_t n, size_t *value)
{
	const char *after = s + n;
	size_t digits = n, i;

	if (n >= 2 && s[n - 1] == ':')
		digits = n - 1;
	else if (n < 4 || !(*after == '\0' || *after == '\n' ||
			    (isspace((unsigned char)after[0]) &&
			     isspace((unsigned char)after[1]))))
		return false;
	if (digits > 12 || !all_hex(s, digits))
		return false;
	*value = 0;
	for (i = 0; i < digits; i++)
		*value = *value << 4 | (size_t)hexval((unsigned char)s[i]);
	return true;
}

/*
 * The offset form. Byte pairs (hexdump -C, tshark -x, frames.txt) run until
 * the first token that is not a pair: the ASCII column. Groups of more
 * digits (xxd) run until a gap of two blanks, which precedes xxd's ASCII.
 */
static int parse_offset_line(struct ul_hexreader *r, struct ul_hexframe *f,
			     const char *s, size_t offset, struct ul_err *err)
{
	bool pairs = toklen(s) == 2;
	size_t start, n;
	int rc;

	if (r->repeat_pending && offset > f->len) {
		/* hexdump's "*": the last line again until this offset. */
		while (r->last_len && f->len < offset) {
			rc = frame_put(f, r->last, r->last_len, r->line, err);
			if (rc < 0)
				return rc;
		}
	}
	r->repeat_pending = false;
	if (offset != f->len)
		return ul_err_set(
			err, -EINVAL,
			"line %u: offset 0x%zx, but the frame holds %zu bytes",
			r->line, offset, f->len);
	start = f->len;
	while (*s && *s != '\n') {
		n = toklen(s);
		if (pairs && (n != 2 || !all_hex(s, 2)))
			break;
		if (!pairs && (n % 2 || !all_hex(s, n))) {
			if (f->len == start)
				return bad_token(r, s, n, "is not hex", err);
			break;
		}
		rc = put_digits(r, f, s, n, err);
		if (rc < 0)
			return rc;
		s += n;
		if (!pairs && isspace((unsigned char)s[0]) &&
		    isspace((unsigned char)s[1]))
			break;
		s = skip_space(s);
	}
	if (f->len > start)
		remember(r, f, start);
	return LINE_HEX;
}

static int parse_plain_line(struct ul_hexreader *r, struct ul_hexframe *f,
			    const char *s, struct ul_err *err)
{
	size_t start = f->len, n;
	int rc;

	while (*s) {
		n = toklen(s);
		if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			s += 2;
			n -= 2;
		}
		if (!all_hex(s, n))
			return bad_token(r, s, n, "is not hex", err);
		if (n % 2)
			return bad_token(r, s, n,
					 "has an odd number of hex digits",
					 err);
		rc = put_digits(r, f, s, n, err);
		if (rc < 0)
			return rc;
		s = skip_space(s + n);
	}
	remember(r, f, start);
	return LINE_HEX;
}

static int parse_hex_line(struct ul_hexreader *r, struct ul_hexframe *f,
			  const char *s, struct ul_err *err)
{
	size_t n = toklen(s), offset;

	if (n == 1 && *s == '*') {
		r->repeat_pending = true;
		return LINE_HEX;
	}
	if (offset_token(s, n, &offset) &&
	    (offset == f->len || r->repeat_pending || s[n - 1] == ':'))
		return parse_offset_line(r, f, skip_space(s + n), offset, err);
	return parse_plain_line(r, f, s, err);
}

/* frames.txt: only the lines of a "hex:" section are bytes. */
static int vectors_line(struct ul_hexreader *r, struct ul_hexframe *f,
			const char *s, struct ul_err *err)
{
	if (strncmp(s, "===", 3) == 0) {
		bool was_in_hex = r->in_hex;

		r->in_hex = false;
		if (strncmp(s, "=== end", 7) != 0)
			r->vector_length = -1;
		return was_in_hex ? LINE_FRAME_END : LINE_IGNORED;
	}
	if (strncmp(s, "length:", 7) == 0) {
		r->vector_length = strtol(s + 7, NULL, 10);
		return LINE_IGNORED;
	}
	if (strncmp(s, "hex:", 4) == 0) {
		r->in_hex = true;
		return LINE_IGNORED;
	}
	if (strncmp(s, "fields:", 7) == 0) {
		bool was_in_hex = r->in_hex;

		r->in_hex = false;
		return was_in_hex ? LINE_FRAME_END : LINE_IGNORED;
	}
	if (!r->in_hex)
		return LINE_IGNORED;
	return parse_hex_line(r, f, s, err);
}

static int classify_line(struct ul_hexreader *r, struct ul_hexframe *f,
			 const char *s, struct ul_err *err)
{
	s = skip_space(s);
	if (!r->is_vectors && strncmp(s, "=== ", 4) == 0)
		r->is_vectors = true;
	if (*s == '#')
		return LINE_IGNORED;
	if (r->is_vectors)
		return vectors_line(r, f, s, err);
	if (*s == '\0')
		return LINE_SEPARATOR;
	return parse_hex_line(r, f, s, err);
}

/* A vectors block must hold the bytes its "length:" line promised. */
static int check_vector_length(struct ul_hexreader *r,
			       const struct ul_hexframe *f, struct ul_err *err)
{
	if (r->vector_length >= 0 && (size_t)r->vector_length != f->len)
		return ul_err_set(err, -EINVAL,
				  "line %u: the block says length %ld, its hex "
				  "holds %zu bytes",
				  f->first_line, r->vector_length, f->len);
	return 1;
}

int ul_hexreader_next(struct ul_hexreader *r, struct ul_hexframe *f,
		      struct ul_err *err)
{
	f->len = 0;
	f->first_line = 0;
	r->repeat_pending = false;
	r->last_len = 0;
	while (getline(&r->text, &r->text_cap, r->in) >= 0) {
		int kind;

		r->line++;
		if (r->skipping) {
			/* Resume after a blank line, or at the next block. */
			const char *s = skip_space(r->text);

			if (*s == '\0') {
				r->skipping = false;
				continue;
			}
			if (strncmp(s, "===", 3) != 0)
				continue;
			r->skipping = false;
		}
		kind = classify_line(r, f, r->text, err);
		if (kind < 0) {
			r->skipping = true;
			r->in_hex = false;
			return kind;
		}
		if (kind == LINE_HEX && f->len > 0 && f->first_line == 0)
			f->first_line = r->line;
		if ((kind == LINE_SEPARATOR || kind == LINE_FRAME_END) &&
		    f->len > 0)
			return kind == LINE_FRAME_END
				       ? check_vector_length(r, f, err)
				       : 1;
	}
	if (ferror(r->in))
		return ul_err_set(err, -EIO, "line %u: read error", r->line);
	return f->len > 0 ? 1 : 0;
}
