#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

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
