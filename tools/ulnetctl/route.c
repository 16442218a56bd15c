/* PLACEHOLDER being replaced in this session. */
#include <errno.h>
#include <stdio.h>

#include "ctl.h"

const struct ulnetctl_cmd ulnetctl_route_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_routing_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};
