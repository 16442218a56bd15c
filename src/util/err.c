/* Error context; see err.h. */
#include <stdarg.h>
#include <stdio.h>

#include "util/err.h"

void ul_err_fmt(struct ul_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void ul_err_clear(struct ul_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
