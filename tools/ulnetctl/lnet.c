/* PLACEHOLDER being replaced in this session. */
#include <errno.h>
#include <stdio.h>

#include "ctl.h"

const struct ulnetctl_cmd ulnetctl_lnet_cmds[] = {
	{ NULL, NULL, NULL, NULL },
};

int ulnetctl_cpt_of_nid(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -EOPNOTSUPP;
}
