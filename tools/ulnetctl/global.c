/* PLACEHOLDER being replaced in this session. */
#include <errno.h>
#include <stdio.h>

#include "ctl.h"

const struct ulnetctl_cmd ulnetctl_set_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_global_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_stats_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};
