/*
 * Fuzz target: the link monitor's rtnetlink parser (runtime/linkmon.h)
 * on untrusted datagrams. Whatever it reports must be a well-formed
 * link: a positive index, a name that is NUL-terminated and shorter than
 * IFNAMSIZ, and no "up" for a delete.
 */
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/linkmon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_link(void *arg, const struct ul_linkmon_link *link)
{
	size_t *count = arg;

	if (link->ifindex <= 0 || (link->is_del && link->is_up))
		abort();
	if (link->ifname &&
	    (link->ifname[0] == '\0' || strlen(link->ifname) >= IFNAMSIZ))
		abort();
	(*count)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so ASan sees any read past the datagram. */
	uint8_t *buf = malloc(size ? size : 1);
	size_t count = 0;
	bool is_done = false;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	(void)ul_linkmon_parse(buf, size, check_link, &count, &is_done);
	free(buf);
	return 0;
}
