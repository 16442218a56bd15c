/* Numeric range expression lists; see expr.h for the syntax. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nid/expr.h"
#include "nid/strbuf.h"

static int range_parse(const char *s, size_t len, uint32_t min, uint32_t max,
		       struct ul_range *r, const char *whole, size_t wlen,
		       struct ul_err *err)
{
	const char *dash, *slash;

	s = ul_str_trim(s, &len);
	if (len == 0)
		return ul_err_set(err, -EINVAL, "empty range in '%.*s'",
				  (int)wlen, whole);
	r->stride = 1;
	if (len == 1 && s[0] == '*') {
		r->lo = min;
		r->hi = max;
		return 0;
	}
	dash = memchr(s, '-', len);
	if (!dash) {
		if (ul_num_parse(s, len, min, max, &r->lo))
			goto bad_number;
		r->hi = r->lo;
		return 0;
	}
	if (ul_num_parse(s, (size_t)(dash - s), min, max, &r->lo))
		goto bad_number;
	len -= (size_t)(dash - s) + 1;
	s = dash + 1;
	slash = memchr(s, '/', len);
	if (ul_num_parse(s, slash ? (size_t)(slash - s) : len, min, max,
			 &r->hi))
		goto bad_number;
	if (slash) {
		len -= (size_t)(slash - s) + 1;
		s = slash + 1;
		if (ul_num_parse(s, len, 0, max, &r->stride))
			return ul_err_set(err, -EINVAL,
					  "invalid stride '%.*s' in '%.*s'",
					  (int)len, s, (int)wlen, whole);
		if (r->stride == 0)
			return ul_err_set(err, -EINVAL,
					  "stride 0 in '%.*s' is not allowed",
					  (int)wlen, whole);
	}
	if (r->lo > r->hi)
		return ul_err_set(err, -EINVAL,
				  "range %u-%u in '%.*s' is in the wrong order",
				  r->lo, r->hi, (int)wlen, whole);
	return 0;

bad_number:
	return ul_err_set(err, -EINVAL,
			  "invalid number or range in '%.*s' (values %u-%u)",
			  (int)wlen, whole, min, max);
}

int ul_expr_parse(const char *s, size_t len, uint32_t min, uint32_t max,
		  struct ul_expr **out, struct ul_err *err)
{
	const char *whole, *end, *comma;
	struct ul_expr *e;
	size_t wlen, n, i;
	int rc;

	whole = s = ul_str_trim(s, &len);
	wlen = len;
	if (len == 0)
		return ul_err_set(err, -EINVAL, "empty expression");
	if (s[0] != '[' || s[len - 1] != ']') {
		if (memchr(s, '[', len) || memchr(s, ']', len))
			return ul_err_set(err, -EINVAL,
					  "unbalanced brackets in '%.*s'",
					  (int)wlen, whole);
		n = 1;
	} else {
		s++;
		len -= 2;
		if (memchr(s, '[', len) || memchr(s, ']', len))
			return ul_err_set(err, -EINVAL,
					  "nested brackets in '%.*s'",
					  (int)wlen, whole);
		for (n = 1, i = 0; i < len; i++)
			n += s[i] == ',';
		if (n > UL_EXPR_MAX_RANGES)
			return ul_err_set(err, -EINVAL,
					  "more than %u ranges in '%.*s'",
					  UL_EXPR_MAX_RANGES, (int)wlen, whole);
	}
	e = malloc(sizeof(*e) + n * sizeof(e->r[0]));
	if (!e)
		return ul_err_set(err, -ENOMEM, "out of memory");
	e->nr = (unsigned int)n;
	if (n == 1 && whole[0] != '[') {
		/* Outside brackets only a number or '*' is allowed. */
		if (memchr(s, '-', len) || memchr(s, ',', len) ||
		    memchr(s, '/', len)) {
			rc = ul_err_set(err, -EINVAL,
					"a range must be in brackets: '%.*s'",
					(int)wlen, whole);
			goto free_expr;
		}
		rc = range_parse(s, len, min, max, &e->r[0], whole, wlen, err);
		if (rc)
			goto free_expr;
		*out = e;
		return 0;
	}
	end = s + len;
	for (i = 0; i < n; i++) {
		comma = memchr(s, ',', (size_t)(end - s));
		if (!comma)
			comma = end;
		rc = range_parse(s, (size_t)(comma - s), min, max, &e->r[i],
				 whole, wlen, err);
		if (rc)
			goto free_expr;
		s = comma + 1;
	}
	*out = e;
	return 0;

free_expr:
	free(e);
	return rc;
}

struct ul_expr *ul_expr_create(uint32_t lo, uint32_t hi, uint32_t stride)
{
	struct ul_expr *e = malloc(sizeof(*e) + sizeof(e->r[0]));

	if (!e)
		return NULL;
	e->nr = 1;
	e->r[0].lo = lo;
	e->r[0].hi = hi;
	e->r[0].stride = stride;
	return e;
}

bool ul_expr_match(const struct ul_expr *e, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < e->nr; i++) {
		const struct ul_range *r = &e->r[i];

		if (v >= r->lo && v <= r->hi && (v - r->lo) % r->stride == 0)
			return true;
	}
	return false;
}

bool ul_expr_same(const struct ul_expr *a, const struct ul_expr *b)
{
	unsigned int i;

	if (!a || !b)
		return a == b;
	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->r[i].lo != b->r[i].lo || a->r[i].hi != b->r[i].hi ||
		    a->r[i].stride != b->r[i].stride)
			return false;
	return true;
}

static void range_print(struct ul_strbuf *sb, const struct ul_range *r)
{
	if (r->lo == r->hi)
		ul_strbuf_add(sb, "%u", r->lo);
	else if (r->stride == 1)
		ul_strbuf_add(sb, "%u-%u", r->lo, r->hi);
	else
		ul_strbuf_add(sb, "%u-%u/%u", r->lo, r->hi, r->stride);
}

void ul_expr_print(struct ul_strbuf *sb, const struct ul_expr *e)
{
	bool brackets = e->nr > 1 || e->r[0].lo != e->r[0].hi;
	unsigned int i;

	if (brackets)
		ul_strbuf_add(sb, "[");
	for (i = 0; i < e->nr; i++) {
		if (i)
			ul_strbuf_add(sb, ",");
		range_print(sb, &e->r[i]);
	}
	if (brackets)
		ul_strbuf_add(sb, "]");
}

int ul_expr_format(const struct ul_expr *e, char *buf, size_t len)
{
	struct ul_strbuf sb;

	ul_strbuf_init(&sb, buf, len);
	ul_expr_print(&sb, e);
	return ul_strbuf_result(&sb);
}

void ul_expr_free(struct ul_expr *e)
{
	free(e);
}

int ul_expr_parse_octets(const char *s, size_t len, struct ul_expr *oct[4],
			 struct ul_err *err)
{
	struct ul_expr *tmp[4] = { NULL };
	const char *whole = s, *end = s + len, *dot;
	int i, rc;

	for (i = 0; i < 4; i++) {
		dot = memchr(s, '.', (size_t)(end - s));
		if ((i < 3 && !dot) || (i == 3 && dot)) {
			rc = ul_err_set(err, -EINVAL,
					"'%.*s' is not four octet expressions",
					(int)len, whole);
			goto free_octets;
		}
		if (!dot)
			dot = end;
		rc = ul_expr_parse(s, (size_t)(dot - s), 0, UL_EXPR_OCTET_MAX,
				   &tmp[i], err);
		if (rc)
			goto free_octets;
		s = dot + 1;
	}
	memcpy(oct, tmp, sizeof(tmp));
	return 0;

free_octets:
	for (i = 0; i < 4; i++)
		ul_expr_free(tmp[i]);
	return rc;
}

bool ul_expr_match_octets(struct ul_expr *const oct[4], uint32_t addr)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!ul_expr_match(oct[i], (addr >> (24 - 8 * i)) & 0xff))
			return false;
	return true;
}

void ul_expr_print_octets(struct ul_strbuf *sb, struct ul_expr *const oct[4])
{
	int i;

	for (i = 0; i < 4; i++) {
		if (i)
			ul_strbuf_add(sb, ".");
		ul_expr_print(sb, oct[i]);
	}
}
