/*
 * Names of the message health statuses, as LNet prints them (lnetctl
 * and the console say "local_error", "remote_dropped", ...).
 */
#include <stddef.h>

#include "core/hstatus.h"

const char *ul_hstatus_name(enum ul_hstatus hs)
{
	static const char *const names[] = {
		[UL_HSTATUS_OK] = "ok",
		[UL_HSTATUS_LOCAL_INTERRUPT] = "local_interrupt",
		[UL_HSTATUS_LOCAL_DROPPED] = "local_dropped",
		[UL_HSTATUS_LOCAL_ABORTED] = "local_aborted",
		[UL_HSTATUS_LOCAL_NO_ROUTE] = "local_no_route",
		[UL_HSTATUS_LOCAL_ERROR] = "local_error",
		[UL_HSTATUS_LOCAL_TIMEOUT] = "local_timeout",
		[UL_HSTATUS_REMOTE_ERROR] = "remote_error",
		[UL_HSTATUS_REMOTE_DROPPED] = "remote_dropped",
		[UL_HSTATUS_REMOTE_TIMEOUT] = "remote_timeout",
		[UL_HSTATUS_NETWORK_TIMEOUT] = "network_timeout",
	};

	if ((unsigned int)hs >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[hs];
}
