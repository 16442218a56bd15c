/*
 * `param get [NAME...]` and `param set NAME=VALUE...` (ulnet's own): the
 * kernel's module parameters as /sys/module/{lnet,ksocklnd}/parameters
 * shows them and lets an operator write the 0644 ones, on a running
 * ulnetd (runtime/params.h has the table). Names are "lnet.NAME",
 * "ksocklnd.NAME" or "ulnet.NAME"; a bare lnet NAME is taken too. Output
 * is YAML ("param:" and one "name: value" each); a failure is lnetctl's
 * error YAML on stderr, exit status 234, and stops at the first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

static int param_get(int argc, char **argv)
{
	struct ul_ctl_args *a;
	int i, rc = 0;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	if (argc < 2)
		rc = ulnetctl_do(UL_CTL_OP_PARAM_GET, a, "param", "get",
				 UL_DOC_C);
	for (i = 1; i < argc && rc == 0; i++) {
		memset(a, 0, sizeof(*a));
		if (strlen(argv[i]) >= sizeof(a->name)) {
			rc = ulnetctl_d1("param", "get", -EINVAL,
					 "parameter name too long");
			break;
		}
		a->has = UL_CTL_ARG_NAME;
		snprintf(a->name, sizeof(a->name), "%s", argv[i]);
		rc = ulnetctl_do(UL_CTL_OP_PARAM_GET, a, "param", "get",
				 UL_DOC_C);
	}
	free(a);
	return rc;
}

static int param_set(int argc, char **argv)
{
	struct ul_ctl_args *a;
	char msg[160];
	int i, rc = 0;

	if (argc < 2)
		return ulnetctl_d1("param", "set", -EINVAL,
				   "missing NAME=VALUE");
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (i = 1; i < argc && rc == 0; i++) {
		const char *eq = strchr(argv[i], '=');
		long v;

		memset(a, 0, sizeof(*a));
		if (!eq || eq == argv[i] ||
		    (size_t)(eq - argv[i]) >= sizeof(a->name)) {
			snprintf(msg, sizeof(msg),
				 "bad argument '%.100s': NAME=VALUE", argv[i]);
			rc = ulnetctl_d1("param", "set", -EINVAL, msg);
			break;
		}
		if (!*(eq + 1) || !ulnetctl_parse_long(eq + 1, &v)) {
			snprintf(msg, sizeof(msg), "bad value '%.100s'",
				 eq + 1);
			rc = ulnetctl_d1("param", "set", -EINVAL, msg);
			break;
		}
		memcpy(a->name, argv[i], (size_t)(eq - argv[i]));
		a->name[eq - argv[i]] = '\0';
		a->value = v;
		a->has = UL_CTL_ARG_NAME | UL_CTL_ARG_VALUE;
		rc = ulnetctl_do(UL_CTL_OP_PARAM_SET, a, "param", "set",
				 UL_DOC_C);
	}
	free(a);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_param_cmds[] = {
	{ "get", param_get, NULL,
	  "show module parameters\n"
	  "\tNAME: lnet.NAME, ksocklnd.NAME or ulnet.NAME (none: all)\n" },
	{ "set", param_set, NULL,
	  "set module parameters the kernel lets an operator write\n"
	  "\tNAME=VALUE: e.g. lnet.alive_router_check_interval=10\n" },
	{ NULL, NULL, NULL, NULL },
};
