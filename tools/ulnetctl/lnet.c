/*
 * ulnetctl lnet configure / unconfigure and cpt-of-nid (reference/
 * lnetctl.md §5, §14.4) over the control socket.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "nid/lnd.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/*
 * lnet configure/unconfigure failures: D1 "configure: - lnet:" with
 * "LNet configure error: <msg>", and the errno itself as the status.
 */
static int lnet_op(uint16_t op, struct ul_ctl_args *a)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	char descr[UL_CTL_STR_MAX + 64];
	int rc;

	rc = ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	if (rc) {
		snprintf(descr, sizeof(descr), "LNet configure error: %s",
			 err.msg);
		ulnetctl_d1("configure", "lnet", rc, descr);
		return rc;
	}
	rc = reply.rc;
	if (rc) {
		snprintf(descr, sizeof(descr), "LNet configure error: %s",
			 reply.err_msg[0] ? reply.err_msg : strerror(-rc));
		ulnetctl_d1("configure", "lnet", rc, descr);
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

static int lnet_configure(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "large", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int opt, rc;

	if (!a)
		return -ENOMEM;
	/*
	 * lnetctl's check_cmd() leaves getopt's diagnostics on only for a
	 * single argument: "configure: invalid option -- 'x'" for `-x`,
	 * nothing for `-x --all`.
	 */
	opterr = argc <= 2;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "al", opts, NULL)) != -1) {
		if (opt == 'a') {
			a->flags |= UL_CTL_ARGF_ALL;
		} else if (opt == 'l') {
			a->flags |= UL_CTL_ARGF_LARGE;
		} else {
			free(a); /* lnetctl: an unknown option does nothing */
			return 0;
		}
	}
	rc = lnet_op(UL_CTL_OP_LNET_CONFIGURE, a);
	free(a);
	return rc;
}

static int lnet_unconfigure(int argc, char **argv)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int rc;

	(void)argc;
	(void)argv;
	if (!a)
		return -ENOMEM;
	rc = lnet_op(UL_CTL_OP_LNET_UNCONFIGURE, a);
	free(a);
	return rc;
}

/* cpt-of-nid's help, as lnetctl prints it for a top-level command. */
static const struct ulnetctl_cmd cpt_of_nid_help[] = {
	{ "cpt-of-nid", NULL, NULL,
	  "Calculate the CPTs associated with NIDs\n"
	  " usage:\n\tulnetctl cpt-of-nid nid[ nid ...]\n" },
	{ NULL, NULL, NULL, NULL },
};

int ulnetctl_cpt_of_nid(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a;
	int i, rc;

	/* lnetctl: no NID is the help and -EINVAL; "-h" alone, 1. */
	if (argc < 2) {
		ulnetctl_print_help(cpt_of_nid_help, "", "cpt-of-nid");
		return ULNETCTL_RC_BAD_PARAM;
	}
	optind = 0;
	while ((rc = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		ulnetctl_print_help(cpt_of_nid_help, "", "cpt-of-nid");
		return argc == 2 && rc == 'h' ? 1 : 0;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	/* LNet parses the NIDs and refuses the request at a bad one. */
	for (i = optind; i < argc; i++) {
		if (a->nnids == UL_CTL_ARGS_NIDS_MAX ||
		    ul_nid_parse_lnet(argv[i], &a->nids[a->nnids])) {
			rc = ulnetctl_d1("show", "cpt-of-nid", -EINVAL,
					 "invalid NID");
			free(a);
			return rc;
		}
		a->nnids++;
	}
	a->has |= UL_CTL_ARG_NIDS;
	rc = ulnetctl_do(UL_CTL_OP_CPT_OF_NID, a, "show", "cpt-of-nid",
			 UL_DOC_B);
	free(a);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_lnet_cmds[] = {
	{ "configure", lnet_configure, NULL,
	  "bring LNet up\n"
	  "\t--all: also configure what the daemon's --config file says\n"
	  "\t--large: accepted; the socklnd has no IPv6 NIs to allow\n" },
	{ "unconfigure", lnet_unconfigure, NULL,
	  "remove every NI, peer, route and rule and take LNet down\n" },
	{ NULL, NULL, NULL, NULL },
};
