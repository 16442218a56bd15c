/* Reader for tests/vectors/frames.txt; see helper_vectors.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper_vectors.h"

enum section { SEC_NONE, SEC_HEAD, SEC_HEX, SEC_FIELDS };

struct reader {
	const char *path;
	int line;
	char *errbuf;
	size_t errlen;
};

static int fail(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->errbuf && r->errlen)
		snprintf(r->errbuf, r->errlen, "%s:%d: %s", r->path, r->line,
			 msg);
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "  0010  00 11 22 ..." : offset, then up to 16 bytes. */
static int parse_hex_line(struct reader *r, struct hv_block *b, size_t *n,
			  const char *s)
{
	unsigned long off;
	char *end;
	int hi;
	int lo;

	errno = 0;
	off = strtoul(s, &end, 16);
	if (end == s || errno || off != *n)
		return fail(r, "hex offset does not follow on");
	s = end;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '\n' || *s == '\r')
			return 0;
		hi = hexval((unsigned char)s[0]);
		lo = hi < 0 ? -1 : hexval((unsigned char)s[1]);
		if (lo < 0)
			return fail(r, "bad hex byte");
		if (*n >= HV_MAX_BYTES)
			return fail(r, "block longer than %d bytes",
				    HV_MAX_BYTES);
		b->bytes[(*n)++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
}

static uint64_t load_le(const uint8_t *p, size_t size)
{
	uint64_t v = 0;

	while (size--)
		v = v << 8 | p[size];
	return v;
}

static int parse_field_line(struct reader *r, struct hv_block *b, const char *s)
{
	struct hv_field *f;
	char value[2 * HV_MAX_BYTES + 8];
	size_t want;
	size_t i;
	char *end;

	if (b->nfields >= HV_MAX_FIELDS)
		return fail(r, "more than %d fields", HV_MAX_FIELDS);
	f = &b->fields[b->nfields];
	memset(f, 0, sizeof(*f));
	/* Widths are bounded by the buffer sizes in the format string. */
	if (sscanf(s, "%zu %zu %7s %63s %8199s", &f->offset, &f->size, f->kind,
		   f->name, value) != 5)
		return fail(r, "malformed field line");
	want = b->nfields ? b->fields[b->nfields - 1].offset +
				    b->fields[b->nfields - 1].size
			  : 0;
	if (f->offset != want || f->size == 0 || f->size > b->length ||
	    f->offset > b->length - f->size)
		return fail(r, "field %s does not tile the block", f->name);
	f->bytes = b->bytes + f->offset;
	if (strcmp(f->kind, "bytes") == 0) {
		if (strlen(value) != 2 * f->size)
			return fail(r, "field %s: %zu hex digits for %zu bytes",
				    f->name, strlen(value), f->size);
		for (i = 0; i < f->size; i++) {
			int hi = hexval((unsigned char)value[2 * i]);
			int lo = hexval((unsigned char)value[2 * i + 1]);

			if (hi < 0 || lo < 0 ||
			    f->bytes[i] != (uint8_t)(hi << 4 | lo))
				return fail(r,
					    "field %s: value differs from "
					    "hex",
					    f->name);
		}
	} else {
		if ((strcmp(f->kind, "u8") == 0 && f->size != 1) ||
		    (strcmp(f->kind, "u16le") == 0 && f->size != 2) ||
		    (strcmp(f->kind, "u32le") == 0 && f->size != 4) ||
		    (strcmp(f->kind, "u64le") == 0 && f->size != 8) ||
		    (f->kind[0] != 'u'))
			return fail(r, "field %s: kind %s, size %zu", f->name,
				    f->kind, f->size);
		errno = 0;
		f->value = strtoull(value, &end, 16);
		if (strncmp(value, "0x", 2) != 0 || *end || errno)
			return fail(r, "field %s: bad value %s", f->name,
				    value);
		if (f->value != load_le(f->bytes, f->size))
			return fail(r, "field %s: value differs from hex",
				    f->name);
	}
	b->nfields++;
	return 0;
}

static int finish_block(struct reader *r, struct hv_block *b, size_t nhex)
{
	const struct hv_field *last;

	if (nhex != b->length)
		return fail(r, "block %d: %zu hex bytes, length %zu", b->index,
			    nhex, b->length);
	last = b->nfields ? &b->fields[b->nfields - 1] : NULL;
	if (!last || last->offset + last->size != b->length)
		return fail(r, "block %d: fields do not cover it", b->index);
	return 0;
}

int hv_load(const char *path, struct hv_set *set, char *errbuf, size_t errlen)
{
	struct reader r = { path, 0, errbuf, errlen };
	enum section sec = SEC_NONE;
	struct hv_block *blocks;
	struct hv_block *b = NULL;
	size_t nblocks = 0;
	size_t nhex = 0;
	char line[16384];
	FILE *f;
	int rc = -1;

	blocks = calloc(HV_MAX_BLOCKS, sizeof(*blocks));
	if (!blocks)
		return fail(&r, "out of memory");
	f = fopen(path, "r");
	if (!f) {
		fail(&r, "cannot open: %s", strerror(errno));
		goto out_free;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *s = line;

		r.line++;
		if (!strchr(line, '\n') && !feof(f)) {
			fail(&r, "line too long");
			goto out_close;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (sec == SEC_NONE) {
			if (*s == '#' || *s == '\n' || *s == '\r' || !*s)
				continue;
			if (nblocks >= HV_MAX_BLOCKS) {
				fail(&r, "more than %d blocks", HV_MAX_BLOCKS);
				goto out_close;
			}
			b = &blocks[nblocks];
			if (sscanf(s, "=== %d %63s ===", &b->index, b->label) !=
			    2) {
				fail(&r, "expected a block header");
				goto out_close;
			}
			sec = SEC_HEAD;
			nhex = 0;
		} else if (strncmp(s, "=== end ===", 11) == 0) {
			if (finish_block(&r, b, nhex))
				goto out_close;
			nblocks++;
			sec = SEC_NONE;
		} else if (strncmp(s, "desc:", 5) == 0) {
			continue;
		} else if (strncmp(s, "conn:", 5) == 0) {
			if (sscanf(s, "conn: %d dir: %7s", &b->conn, b->dir) !=
			    2) {
				fail(&r, "bad conn line");
				goto out_close;
			}
		} else if (strncmp(s, "length:", 7) == 0) {
			if (sscanf(s, "length: %zu", &b->length) != 1 ||
			    b->length > HV_MAX_BYTES) {
				fail(&r, "bad length");
				goto out_close;
			}
		} else if (strncmp(s, "hex:", 4) == 0) {
			sec = SEC_HEX;
		} else if (strncmp(s, "fields:", 7) == 0) {
			sec = SEC_FIELDS;
		} else if (sec == SEC_HEX) {
			if (parse_hex_line(&r, b, &nhex, s))
				goto out_close;
		} else if (sec == SEC_FIELDS) {
			if (nhex != b->length) {
				fail(&r, "fields before all hex");
				goto out_close;
			}
			if (parse_field_line(&r, b, s))
				goto out_close;
		} else {
			fail(&r, "unexpected line");
			goto out_close;
		}
	}
	if (sec != SEC_NONE) {
		fail(&r, "file ends inside a block");
		goto out_close;
	}
	set->blocks = blocks;
	set->nblocks = nblocks;
	blocks = NULL;
	rc = 0;
out_close:
	fclose(f);
out_free:
	free(blocks);
	return rc;
}

void hv_free(struct hv_set *set)
{
	if (!set)
		return;
	free(set->blocks);
	set->blocks = NULL;
	set->nblocks = 0;
}

const struct hv_block *hv_find(const struct hv_set *set, int index)
{
	size_t i;

	for (i = 0; i < set->nblocks; i++)
		if (set->blocks[i].index == index)
			return &set->blocks[i];
	return NULL;
}

const struct hv_field *hv_field(const struct hv_block *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nfields; i++)
		if (strcmp(b->fields[i].name, name) == 0)
			return &b->fields[i];
	return NULL;
}

struct hv_set hv_vectors;

int hv_setup(void **state)
{
	char err[256];

	(void)state;
	if (hv_load(ULNET_VECTORS_DIR "/frames.txt", &hv_vectors, err,
		    sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

int hv_teardown(void **state)
{
	(void)state;
	hv_free(&hv_vectors);
	return 0;
}

uint8_t *hv_copy(int index, size_t len)
{
	const struct hv_block *b = hv_find(&hv_vectors, index);
	uint8_t *p;

	if (!b || len > b->length) {
		fprintf(stderr, "hv_copy: no vector %d of %zu bytes\n", index,
			len);
		abort();
	}
	p = malloc(len ? len : 1);
	if (!p)
		abort();
	memcpy(p, b->bytes, len);
	return p;
}
