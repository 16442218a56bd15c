/* ulnet_strerror() and ulnet_err_name(), generated from ULNET_ERRNO_MAP. */
#include <limits.h>

#include "ulnet/common.h"

/* |err| without overflow: INT_MIN has no positive int (-1: none). */
static int magnitude(int err)
{
	return err == INT_MIN ? -1 : (err < 0 ? -err : err);
}

const char *ulnet_strerror(int err)
{
	err = magnitude(err);
	switch (err) {
	case 0:
		return "success";
#define XX(name, text)                                                         \
	case name:                                                             \
		return text;
		ULNET_ERRNO_MAP(XX)
#undef XX
	default:
		return "unknown error";
	}
}

const char *ulnet_err_name(int err)
{
	err = magnitude(err);
	switch (err) {
	case 0:
		return "SUCCESS";
#define XX(name, text)                                                         \
	case name:                                                             \
		return #name;
		ULNET_ERRNO_MAP(XX)
#undef XX
	default:
		return "UNKNOWN";
	}
}
