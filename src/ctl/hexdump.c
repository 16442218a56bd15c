/* Hex text to frames; the accepted forms are in hexdump.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/hexdump.h"

#define LINE_BYTES_MAX 4096

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Length of the token at s (up to whitespace). */
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

/*
 * Is the token at s an offset column? Four or more hex digits, or hex
 * digits ending in ':', followed by a two-digit hex token.
 */
static bool is_offset(const char *s, size_t n)
{
	const char *next = skip_space(s + n);
	size_t nn = toklen(next);

	if (n >= 2 && s[n - 1] == ':' && all_hex(s, n - 1))
		return true;
	return n >= 4 && all_hex(s, n) && nn == 2 && all_hex(next, 2);
}

/* Append the bytes of one hex token; false if it is not one. */
static int put_token(const char *s, size_t n, unsigned char *out, size_t cap,
		     size_t *len)
{
	size_t i;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n % 2 || !all_hex(s, n))
		return 0;
	if (*len + n / 2 > cap)
		return -ENOSPC;
	for (i = 0; i < n; i += 2) {
		/* all_hex() said both digits are hex: neither value is -1. */
		unsigned int hi = (unsigned int)hexval((unsigned char)s[i]);
		unsigned int lo = (unsigned int)hexval((unsigned char)s[i + 1]);

		out[(*len)++] = (unsigned char)(hi << 4 | lo);
	}
	return 1;
}

int ul_hexline_parse(const char *line, unsigned char *out, size_t cap)
{
	const char *s = skip_space(line);
	bool offset_form = false;
	size_t len = 0, n;
	int rc;

	if (*s == '\0' || *s == '#')
		return 0;
	n = toklen(s);
	if (is_offset(s, n)) {
		offset_form = true;
		s = skip_space(s + n);
	}
	while (*s) {
		n = toklen(s);
		if (offset_form && n != 2)
			break; /* the ASCII column, if any */
		rc = put_token(s, n, out, cap, &len);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (offset_form && len > 0)
				break;
			return 0;
		}
		s = skip_space(s + n);
	}
	return (int)len;
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

static int frame_append(struct ul_hexframe *f, const unsigned char *b, size_t n,
			struct ul_err *err)
{
	if (f->len + n > UL_HEXFRAME_MAX)
		return ul_err_set(err, -EMSGSIZE,
				  "frame starting at line %u is over %u bytes",
				  f->first_line, UL_HEXFRAME_MAX);
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

int ul_hexframe_read(FILE *in, struct ul_hexframe *f, unsigned int *lineno,
		     struct ul_err *err)
{
	unsigned char bytes[LINE_BYTES_MAX];
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	f->len = 0;
	while (getline(&line, &cap, in) >= 0) {
		int n;

		(*lineno)++;
		n = ul_hexline_parse(line, bytes, sizeof(bytes));
		if (n < 0) {
			rc = ul_err_set(err, -EMSGSIZE,
					"line %u holds more than %d bytes",
					*lineno, LINE_BYTES_MAX);
			break;
		}
		if (n == 0) {
			if (f->len > 0) {
				rc = 1;
				break;
			}
			continue;
		}
		if (f->len == 0)
			f->first_line = *lineno;
		rc = frame_append(f, bytes, (size_t)n, err);
		if (rc < 0)
			break;
	}
	if (rc == 0 && f->len > 0)
		rc = 1;
	free(line);
	return rc;
}
