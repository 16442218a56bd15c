/*
 * The message health status (reference/health.md §4.1): what a failed
 * attempt is blamed on, which decides whose health drops and whether it
 * is resent. The LNDs classify their failures into it (core/lnd.h), the
 * fault rules simulate it, the completion funnel (health.c) acts on it.
 */
#ifndef UL_CORE_HSTATUS_H
#define UL_CORE_HSTATUS_H

/* Message health status (LNet's enum lnet_msg_hstatus, same values). */
enum ul_hstatus {
	UL_HSTATUS_OK = 0,
	UL_HSTATUS_LOCAL_INTERRUPT = 1,
	UL_HSTATUS_LOCAL_DROPPED = 2,
	UL_HSTATUS_LOCAL_ABORTED = 3,
	UL_HSTATUS_LOCAL_NO_ROUTE = 4,
	UL_HSTATUS_LOCAL_ERROR = 5,
	UL_HSTATUS_LOCAL_TIMEOUT = 6,
	UL_HSTATUS_REMOTE_ERROR = 7,
	UL_HSTATUS_REMOTE_DROPPED = 8,
	UL_HSTATUS_REMOTE_TIMEOUT = 9,
	UL_HSTATUS_NETWORK_TIMEOUT = 10,
};

/* LNet's name for a health status ("local_error", ...). */
const char *ul_hstatus_name(enum ul_hstatus hs);

#endif /* UL_CORE_HSTATUS_H */
