/* Client-side NID range expansion; syntax and departures in nidrange.h. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nid/expr.h"
#include "nid/num.h"
#include "nid/nidlist.h"
#include "nid/nidrange.h"

#define MSG_PREFIX "Unable to parse nidlist: "
#define LNETCTL_MSG(text) "\"" MSG_PREFIX text "\""

/* One bracket group of an item: its ranges and where it sits. */
struct group {
	size_t start, end; /* '[' and ']' offsets in the item */
	struct ul_range *r;
	size_t nr;
	size_t ri;    /* odometer: current range */
	uint32_t cur; /* odometer: current value */
};

struct item {
	const char *s; /* not NUL-terminated */
	size_t len;
	size_t at;   /* offset of the last '@' */
	bool is_hex; /* item holds ':': numbers are hex */
	struct group *g;
	size_t ng;
};

static int fail(struct ul_err *err, int code, const char *msg)
{
	return ul_err_set(err, code, "%s", msg);
}

/* Character rules of lnetctl's scan, checked before any number is read. */
static int group_check_chars(const char *s, size_t len, struct ul_err *err)
{
	size_t i;
	char c, next;

	for (i = 0; i < len; i++) {
		c = s[i];
		next = i + 1 < len ? s[i + 1] : '\0';
		if (isxdigit((unsigned char)c))
			continue;
		if (c == '-' && !isxdigit((unsigned char)next))
			return fail(err, -EINVAL,
				    LNETCTL_MSG("range needs number after -"));
		if (c == '/' && !isdigit((unsigned char)next))
			return fail(err, -EINVAL,
				    LNETCTL_MSG("range needs number after /"));
		if (c == ',' && !isxdigit((unsigned char)next))
			return fail(err, -EINVAL,
				    LNETCTL_MSG("range needs number after ,"));
		if (c != '-' && c != '/' && c != ',')
			return fail(err, -EINVAL,
				    LNETCTL_MSG("invalid character in range"));
	}
	return 0;
}

/* The whole of s[0..len): bare decimal digits, or hex ones in hex items. */
static int number(const char *s, size_t len, bool is_hex, uint32_t *v,
		  struct ul_err *err)
{
	size_t pos = 0;
	int rc;

	rc = ul_num_scan(s, len, &pos, is_hex ? 16 : 10, UINT32_MAX, v);
	if (rc == -ERANGE)
		return fail(err, -EINVAL,
			    LNETCTL_MSG("number too large in range"));
	if (rc || pos != len)
		return fail(err, -EINVAL,
			    LNETCTL_MSG("invalid character in range"));
	return 0;
}

/* "a", "a-b" or "a-b/s" */
static int range_parse(const char *s, size_t len, bool is_hex,
		       struct ul_range *r, struct ul_err *err)
{
	const char *dash = memchr(s, '-', len);
	const char *slash = memchr(s, '/', len);
	const char *end = s + len;
	int rc;

	r->stride = 1;
	if (!dash) {
		if (slash)
			return fail(err, -EINVAL,
				    LNETCTL_MSG("invalid character in range"));
		rc = number(s, len, is_hex, &r->lo, err);
		r->hi = r->lo;
		return rc;
	}
	if (memchr(dash + 1, '-', (size_t)(end - dash - 1)) ||
	    (slash && slash < dash))
		return fail(err, -EINVAL,
			    LNETCTL_MSG("invalid character in range"));
	rc = number(s, (size_t)(dash - s), is_hex, &r->lo, err);
	if (!rc)
		rc = number(dash + 1,
			    (size_t)((slash ? slash : end) - dash - 1), is_hex,
			    &r->hi, err);
	if (!rc && slash)
		rc = number(slash + 1, (size_t)(end - slash - 1), false,
			    &r->stride, err);
	if (rc)
		return rc;
	if (r->stride == 0)
		return fail(err, -EINVAL,
			    LNETCTL_MSG("range stride must not be 0"));
	if (r->lo > r->hi)
		return fail(err, -EINVAL, LNETCTL_MSG("range is wrong order"));
	return 0;
}

static int group_parse(struct item *it, struct group *g, struct ul_err *err)
{
	const char *s = it->s + g->start + 1;
	size_t len = g->end - g->start - 1, n = 1, i;
	const char *comma;
	int rc;

	if (len == 0)
		return fail(err, -EINVAL, LNETCTL_MSG("empty range"));
	rc = group_check_chars(s, len, err);
	if (rc)
		return rc;
	for (i = 0; i < len; i++)
		n += s[i] == ',';
	g->r = calloc(n, sizeof(*g->r));
	if (!g->r)
		return fail(err, -ENOMEM, LNETCTL_MSG("allocation failed"));
	for (g->nr = 0; g->nr < n; g->nr++) {
		comma = memchr(s, ',', len);
		i = comma ? (size_t)(comma - s) : len;
		rc = range_parse(s, i, it->is_hex, &g->r[g->nr], err);
		if (rc)
			return rc;
		s += i + 1;
		len -= comma ? i + 1 : i;
	}
	return 0;
}

/* Find the bracket groups of the address part and parse them. */
static int item_parse(struct item *it, struct ul_err *err)
{
	size_t i, n = 0, open = 0;
	bool in_group = false;
	int rc;

	for (i = 0; i < it->at; i++)
		n += it->s[i] == '[';
	it->g = calloc(n ? n : 1, sizeof(*it->g));
	if (!it->g)
		return fail(err, -ENOMEM, LNETCTL_MSG("allocation failed"));
	for (i = 0; i < it->at; i++) {
		if (it->s[i] == '[') {
			if (in_group)
				return fail(
					err, -EINVAL,
					LNETCTL_MSG(
						"invalid character in range"));
			in_group = true;
			open = i;
		} else if (it->s[i] == ']') {
			if (!in_group)
				return fail(
					err, -EINVAL,
					it->ng == 0 && n
						? LNETCTL_MSG(
							  "improper bracket "
							  "ordering")
						: LNETCTL_MSG("incomplete "
							      "bracket set"));
			in_group = false;
			it->g[it->ng].start = open;
			it->g[it->ng].end = i;
			rc = group_parse(it, &it->g[it->ng++], err);
			if (rc)
				return rc;
		}
	}
	if (in_group)
		return fail(err, -EINVAL,
			    LNETCTL_MSG("incomplete bracket set"));
	return 0;
}

static void item_fini(struct item *it)
{
	size_t i;

	for (i = 0; it->g && i < it->ng; i++)
		free(it->g[i].r);
	free(it->g);
	it->g = NULL;
	it->ng = 0;
}

static int emit(const char *text, struct ulnet_nid *out, size_t max, size_t *n,
		struct ul_err *err)
{
	struct ulnet_nid nid;

	if (ulnet_nid_parse(text, &nid, NULL, 0))
		return fail(err, -EINVAL, LNETCTL_MSG("invalid NID in nidstr"));
	if (*n >= max)
		return fail(err, -E2BIG,
			    MSG_PREFIX "specifies more NIDs than allowed");
	out[(*n)++] = nid;
	return 0;
}

/* Build the current odometer position's NID text into buf. */
static void item_render(const struct item *it, char *buf)
{
	size_t pos = 0, i, off = 0;

	for (i = 0; i < it->ng; i++) {
		memcpy(buf + off, it->s + pos, it->g[i].start - pos);
		off += it->g[i].start - pos;
		off += (size_t)sprintf(buf + off, it->is_hex ? "%x" : "%u",
				       it->g[i].cur);
		pos = it->g[i].end + 1;
	}
	memcpy(buf + off, it->s + pos, it->len - pos);
	buf[off + it->len - pos] = '\0';
}

/* Step the odometer, rightmost group fastest; false when done. */
static bool item_next(struct item *it)
{
	size_t i = it->ng;
	struct group *g;

	while (i-- > 0) {
		g = &it->g[i];
		if ((uint64_t)g->cur + g->r[g->ri].stride <= g->r[g->ri].hi) {
			g->cur += g->r[g->ri].stride;
			return true;
		}
		if (g->ri + 1 < g->nr) {
			g->cur = g->r[++g->ri].lo;
			return true;
		}
		g->ri = 0;
		g->cur = g->r[0].lo;
	}
	return false;
}

static int item_expand(struct item *it, struct ulnet_nid *out, size_t max,
		       size_t *n, struct ul_err *err)
{
	char *buf;
	size_t i;
	int rc;

	rc = item_parse(it, err);
	if (rc)
		return rc;
	buf = malloc(it->len + 11 * it->ng + 1);
	if (!buf)
		return fail(err, -ENOMEM, LNETCTL_MSG("allocation failed"));
	for (i = 0; i < it->ng; i++) {
		it->g[i].ri = 0;
		it->g[i].cur = it->g[i].r[0].lo;
	}
	/* Each step emits one NID or fails, so at most max + 1 steps run. */
	do {
		item_render(it, buf);
		rc = emit(buf, out, max, n, err);
	} while (rc == 0 && item_next(it));
	free(buf);
	return rc;
}

int ul_nidrange_expand(const char *str, struct ulnet_nid *out, size_t max,
		       size_t *count, struct ul_err *err)
{
	size_t len, i, start, depth = 0, n = 0;
	struct item it;
	int rc;

	if (!str)
		return fail(err, -EINVAL, "supplied nidstr is NULL");
	len = strnlen(str, UL_NIDLIST_MAX_LEN + 1);
	if (len > UL_NIDLIST_MAX_LEN)
		return fail(err, -EINVAL, LNETCTL_MSG("nidstr is too long"));
	if (strchr(str, '*'))
		return fail(err, -EINVAL, "asterisk not allowed in nidstring");
	if (strstr(str, "<?>"))
		return fail(err, -EINVAL,
			    LNETCTL_MSG("LNET_ANY_NID is unsupported"));
	if (!strchr(str, '@'))
		return fail(err, -EINVAL,
			    LNETCTL_MSG("no valid NIDs in string"));
	if (!out)
		max = 0;
	for (start = 0, i = 0; i <= len; i++) {
		if (i < len && str[i] == '[')
			depth++;
		else if (i < len && str[i] == ']' && depth)
			depth--;
		if (i < len && (str[i] != ',' || depth))
			continue;
		memset(&it, 0, sizeof(it));
		it.s = str + start;
		it.len = i - start;
		start = i + 1;
		for (it.at = it.len; it.at > 0 && it.s[it.at - 1] != '@';)
			it.at--;
		if (it.at == 0)
			return fail(err, -EINVAL,
				    LNETCTL_MSG("invalid NID in nidstr"));
		it.at--;
		it.is_hex = memchr(it.s, ':', it.len) != NULL;
		rc = item_expand(&it, out, max, &n, err);
		item_fini(&it);
		if (rc)
			return rc;
	}
	if (n == 0)
		return fail(err, -ENOENT,
			    MSG_PREFIX "did not expand to any nids");
	*count = n;
	return 0;
}
