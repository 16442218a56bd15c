/*
 * snprintf-like appending for the nid printers: text past the buffer is
 * dropped but still counted, so a printer returns the length it needs.
 */
#ifndef UL_NID_STRBUF_H
#define UL_NID_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct ul_strbuf {
	char *buf;  /* may be NULL when len is 0 */
	size_t len; /* size of buf */
	size_t off; /* characters wanted so far, may exceed len */
};

static inline void ul_strbuf_init(struct ul_strbuf *sb, char *buf, size_t len)
{
	sb->buf = buf;
	sb->len = buf ? len : 0;
	sb->off = 0;
	if (sb->len)
		buf[0] = '\0';
}

static inline __attribute__((format(printf, 2, 3))) void
ul_strbuf_add(struct ul_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (sb->off < sb->len)
		n = vsnprintf(sb->buf + sb->off, sb->len - sb->off, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->off += (size_t)n;
}

/* The snprintf-style result: the length wanted, clamped to int. */
static inline int ul_strbuf_result(const struct ul_strbuf *sb)
{
	return sb->off > 0x7fffffff ? 0x7fffffff : (int)sb->off;
}

#endif /* UL_NID_STRBUF_H */
