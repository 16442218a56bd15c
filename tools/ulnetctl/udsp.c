/* PLACEHOLDER being replaced in this session. */
#include <errno.h>
#include <stdio.h>

#include "ctl.h"

const struct ulnetctl_cmd ulnetctl_udsp_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};
