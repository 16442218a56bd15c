/* ulnet_strerror() and ulnet_err_name(), generated from ULNET_ERRNO_MAP. */
#include "ulnet/common.h"

const char *ulnet_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
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
	if (err < 0)
		err = -err;
	switch (err) {
#define XX(name, text)                                                         \
	case name:                                                             \
		return #name;
		ULNET_ERRNO_MAP(XX)
#undef XX
	default:
		return "UNKNOWN";
	}
}
