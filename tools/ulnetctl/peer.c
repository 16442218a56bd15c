/*
 * ulnetctl peer show (reference/lnetctl.md §7.3) over the control
 * socket. The other peer verbs come with their control ops.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl/show_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

static int peer_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nid", required_argument, NULL, 'n' },
		{ "verbose", optional_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;
	int opt, rc;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PEER_SHOW;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hn:v::", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (ulnet_nid_parse(optarg, &req.peer_show.nid, NULL,
					    0))
				return ulnetctl_show_failed("peer", -EINVAL,
							    "invalid NID");
			req.peer_show.has_nid = true;
			break;
		case 'v':
			req.peer_show.verbose =
				ulnetctl_verbose_arg(argc, argv);
			break;
		default:
			ulnetctl_print_help(ulnetctl_peer_cmds, "peer", "show");
			return 0;
		}
	}
	rc = ulnetctl_ctl_call(&req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc)
		return ulnetctl_show_failed("peer", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_show_failed("peer", reply.rc, reply.err_msg);
	else if (ul_show_yaml_peer(stdout, &reply, req.peer_show.verbose))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_peer_cmds[] = {
	{ "show", peer_show, NULL,
	  "show peer information\n"
	  "\t--nid: NID of peer to filter on.\n"
	  "\t--verbose: display detailed output per peer. Optional "
	  "argument of '2' outputs more stats\n" },
	{ NULL, NULL, NULL, NULL },
};
