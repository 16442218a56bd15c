/*
 * ulnetctl net show (reference/lnetctl.md §6.3) over the control socket;
 * and the verbosity option shared with peer show. The other net verbs
 * (add, del, set) come with their control ops.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/show_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

uint32_t ulnetctl_verbose_arg(int argc, char **argv)
{
	char *end;
	long v;

	/*
	 * lnetctl: "-v" or "--verbose" alone is 1; "-v N" consumes the next
	 * word when it does not start with '-' (a non-number reads as 1);
	 * a value glued to the option ("--verbose=N", "-vN") reads as 1.
	 */
	if (optarg || optind >= argc || argv[optind][0] == '-')
		return 1;
	v = strtol(argv[optind++], &end, 0);
	if (*end || v < 0 || v > UINT32_MAX || end == argv[optind - 1])
		return 1;
	return (uint32_t)v;
}

/* A show failure as lnetctl prints it: D1 on stderr, status 234. */
int ulnetctl_show_failed(const char *object, int rc, const char *descr)
{
	ul_show_yaml_err(stderr, "show", object, rc,
			 descr && descr[0] ? descr : strerror(-rc));
	return ULNETCTL_RC_BAD_PARAM;
}

static int net_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "verbose", optional_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;
	int opt, rc;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_NET_SHOW;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "n:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (strlen(optarg) >= sizeof(req.net_show.net))
				return ulnetctl_show_failed("net", -ENOENT,
							    "cannot parse net");
			req.net_show.has_net = true;
			snprintf(req.net_show.net, sizeof(req.net_show.net),
				 "%s", optarg);
			break;
		case 'v':
			req.net_show.verbose = ulnetctl_verbose_arg(argc, argv);
			break;
		default:
			/* lnetctl: help, and nothing done (§1.2 Quirk). */
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "show");
			return 0;
		}
	}
	rc = ulnetctl_ctl_call(&req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_show_failed("net", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_show_failed("net", reply.rc, reply.err_msg);
	else if (ul_show_yaml_net(stdout, &reply, req.net_show.verbose))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_net_cmds[] = {
	{ "show", net_show, NULL,
	  "show local networks\n"
	  "\t--net: net name (e.g. tcp0) to filter on\n"
	  "\t--verbose: display detailed output per network. Optional "
	  "argument of '2' outputs more stats\n" },
	{ NULL, NULL, NULL, NULL },
};
