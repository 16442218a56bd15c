/* ulnet_version() and ulnet_version_number() (ulnet/ulnet.h). */
#include "ulnet/ulnet.h"

const char *ulnet_version(void)
{
	return ULNET_VERSION_STRING;
}

unsigned int ulnet_version_number(void)
{
	return ULNET_VERSION_HEX;
}
