/* PLACEHOLDER being replaced in this session. */
#include <errno.h>
#include <stdio.h>

#include "ctl.h"

int ulnetctl_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -EOPNOTSUPP;
}
