#include "util/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	uint32_t mask;
} mask_names[] = {
	{ "net", UL_D_NET },	     { "neterror", UL_D_NETERROR },
	{ "console", UL_D_CONSOLE }, { "warning", UL_D_WARNING },
	{ "error", UL_D_ERROR },     { "info", UL_D_INFO },
	{ "all", UL_LOG_ALL_MASK },
};

static int mask_of(const char *name, size_t len, uint32_t *out)
{
	for (size_t i = 0; i < sizeof(mask_names) / sizeof(mask_names[0]); i++)
		if (strlen(mask_names[i].name) == len &&
		    strncmp(mask_names[i].name, name, len) == 0) {
			*out = mask_names[i].mask;
			return 0;
		}
	return -EINVAL;
}

int ul_log_mask_parse(const char *s, uint32_t base, uint32_t *out, char *bad,
		      size_t cap)
{
	uint32_t mask = base, m;
	bool is_first = true;

	if (bad && cap)
		bad[0] = '\0';
	for (;;) {
		size_t len;
		char sign = 0;

		s += strspn(s, " ,");
		if (!*s)
			break;
		if (*s == '+' || *s == '-')
			sign = *s++;
		len = strcspn(s, " ,");
		if (!len || mask_of(s, len, &m) < 0) {
			if (bad && cap)
				snprintf(bad, cap, "%.*s", (int)len, s);
			return -EINVAL;
		}
		if (!sign && is_first)
			mask = 0;
		if (sign == '-')
			mask &= ~m;
		else
			mask |= m;
		is_first = false;
		s += len;
	}
	if (is_first) {
		if (bad && cap)
			snprintf(bad, cap, "(empty)");
		return -EINVAL;
	}
	*out = mask;
	return 0;
}

static const char *mask_name(uint32_t mask)
{
	if (mask & UL_D_ERROR)
		return "error";
	if (mask & UL_D_WARNING)
		return "warning";
	if (mask & UL_D_NETERROR)
		return "neterror";
	if (mask & UL_D_CONSOLE)
		return "console";
	if (mask & UL_D_INFO)
		return "info";
	return "net";
}

void ul_log_emit(const struct ul_log *lg, uint32_t mask, const char *fmt, ...)
{
	char line[512];
	int n;
	va_list ap;

	n = snprintf(line, sizeof(line), "%s: ", mask_name(mask));
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	lg->fn(lg->ctx, line);
}
