/*
 * ulnetctl debug: offline helpers that need no running instance.
 *
 *   debug nidlist NIDLIST [NID]   parse a nidlist as LNet does, print its
 *                                 canonical form, optionally match a NID
 *   debug decode [FILE|-]         decode hex dumps of socklnd frames to YAML
 *   debug select --config FILE --dst NID ...
 *                                 dry run of pathway selection (select.c)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ulnet/nid.h"
#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "nid/nidlist.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"
#include "decode.h"
#include "select.h"

/*
 * Output and exit codes are lnetctl's (reference/lnetctl.md §14.3): the
 * parse failure line and the match lines are the same text. Two departures,
 * both in docs/lnetctl-differences.md: the canonical list is printed whole
 * (lnetctl cuts it at the length of the input), and a parse failure adds a
 * second stderr line saying what is wrong and where.
 */
static int debug_nidlist(int argc, char **argv)
{
	struct ul_nidlist *nl = NULL;
	struct ul_err err = { 0 };
	char *buf;
	int len;

	if (argc < 2) {
		fprintf(stderr, "Missing nidlist argument\n");
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (argc > 3) {
		fprintf(stderr, "Too many arguments\n");
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (ul_nidlist_parse(argv[1], &nl, &err) < 0) {
		fprintf(stderr, "Unable to parse nidlist from: %s\n", argv[1]);
		if (err.msg[0])
			fprintf(stderr, "reason: %s\n", err.msg);
		return ULNETCTL_RC_BAD_PARAM;
	}
	len = ul_nidlist_format(nl, NULL, 0);
	buf = malloc((size_t)len + 1);
	if (!buf) {
		ul_nidlist_free(nl);
		fprintf(stderr, "Cannot allocate memory for buffer\n");
		return -12;
	}
	ul_nidlist_format(nl, buf, (size_t)len + 1);
	if (len > 0)
		printf("nidlist parsed to: %s\n", buf);
	free(buf);

	if (argc == 3) {
		struct ulnet_nid nid;

		if (ulnet_nid_parse(argv[2], &nid, NULL, 0) < 0) {
			fprintf(stderr, "Invalid nid for matching %s\n",
				argv[2]);
			ul_nidlist_free(nl);
			return ULNETCTL_RC_BAD_PARAM;
		}
		if (ul_nidlist_match(nl, &nid))
			printf("%s matches nidlist %s\n", argv[2], argv[1]);
		else
			printf("%s does not match nidlist %s\n", argv[2],
			       argv[1]);
	}
	ul_nidlist_free(nl);
	return 0;
}

static int debug_decode(int argc, char **argv)
{
	struct ul_cyaml_errs errs;
	FILE *in = stdin;
	int rc;

	if (argc > 2) {
		fprintf(stderr, "Too many arguments\n");
		return ULNETCTL_RC_BAD_PARAM;
	}
	ul_cyaml_errs_init(&errs, stderr);
	if (argc == 2 && strcmp(argv[1], "-") != 0) {
		in = fopen(argv[1], "r");
		if (!in) {
			char descr[512];
			int e = errno;

			snprintf(descr, sizeof(descr), "cannot open '%s': %s",
				 argv[1], strerror(e));
			ul_cyaml_err_add(&errs, "debug", "decode", -e, descr);
			return ULNETCTL_RC_BAD_PARAM;
		}
	}
	rc = ulnetctl_decode_stream(in, stdout, &errs);
	if (in != stdin)
		fclose(in);
	return rc;
}

/* debug recovery --local | --peer (lnetctl.md §14.1), engine A. */
static int debug_recovery(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "local", no_argument, NULL, 'l' },
		{ "peer", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int opt, rc;

	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "lp", opts, NULL)) != -1) {
		/* The last of --local / --peer wins, as in lnetctl. */
		if (opt == 'l') {
			a->flags = UL_CTL_ARGF_LOCAL;
		} else if (opt == 'p') {
			a->flags = UL_CTL_ARGF_PEER;
		} else {
			free(a); /* lnetctl: an unknown option does nothing */
			return 0;
		}
	}
	/* Neither: nothing printed, 234, as lnetctl. */
	rc = a->flags ? ulnetctl_do(UL_CTL_OP_DEBUG_RECOVERY, a, "show",
				    "recovery", UL_DOC_A)
		      : ULNETCTL_RC_BAD_PARAM;
	free(a);
	return rc;
}

/* debug peer --nid NID (lnetctl.md §14.2): the peer's state to the log. */
static int debug_peer(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nid", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_cyaml_errs t;
	struct ul_ctl_reply reply;
	struct ul_err err = { 0 };
	char descr[160];
	int opt, rc = 0;

	if (!a)
		return -ENOMEM;
	ul_cyaml_errs_init(&t, stderr);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "k:", opts, NULL)) != -1) {
		if (opt != 'k')
			goto out; /* lnetctl: an unknown option does nothing */
		if (ulnet_nid_parse(optarg, &a->nid, NULL, 0)) {
			snprintf(descr, sizeof(descr),
				 "\"badly formatted primary NID: %s\"", optarg);
			ul_cyaml_err_add(&t, "debug", "peer", -EINVAL, descr);
			rc = ULNETCTL_RC_BAD_PARAM;
			goto out;
		}
		a->has |= UL_CTL_ARG_NID;
	}
	if (!(a->has & UL_CTL_ARG_NID)) {
		ul_cyaml_err_add(&t, "debug", "peer", -EINVAL,
				 "--nid must be specified");
		rc = ULNETCTL_RC_BAD_PARAM;
		goto out;
	}
	rc = ulnetctl_call(UL_CTL_OP_DEBUG_PEER, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	if (rc) {
		ul_cyaml_err_add(&t, "debug", "peer", rc, err.msg);
		goto out;
	}
	/* lnetctl says "Error" for any refusal of LNet's (its default). */
	rc = reply.rc;
	if (rc)
		ul_cyaml_err_add(&t, "debug", "peer", rc, "Error");
	ul_ctl_reply_fini(&reply);
out:
	free(a);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_debug_cmds[] = {
	{ "recovery", debug_recovery, NULL,
	  "list the NIs on a recovery queue\n"
	  "\t--local: local NIs\n"
	  "\t--peer: peer NIs\n" },
	{ "peer", debug_peer, NULL,
	  "write a peer's state to the daemon's log\n"
	  "\t--nid: a NID of the peer\n" },
	{ "nidlist", debug_nidlist, NULL,
	  "debug nidlist parsing\n"
	  "\t<nidlist>: the nidlist to parse, e.g. \"192.168.1.[1-10]@tcp "
	  "*@o2ib\"\n"
	  "\t<nid>: optional NID to match against the list\n" },
	{ "decode", debug_decode, NULL,
	  "decode socklnd frames given as hex and print their fields as YAML\n"
	  "\t<file>: hex dumps, frames separated by blank lines "
	  "(default or \"-\": stdin)\n" },
	{ "select", ulnetctl_debug_select, NULL, ULNETCTL_SELECT_HELP },
	{ NULL, NULL, NULL, NULL },
};
