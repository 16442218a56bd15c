/*
 * ulnetctl udsp add / del / show (reference/lnetctl.md §12, udsp.md §1).
 * A rule is built and checked here as lnetctl builds it, then sent as
 * the kernel's binary rule block (wire/udsp_block.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/udsp.h"
#include "wire/udsp_block.h"
#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

static void d2(const char *op, int errnum, const char *descr)
{
	struct ul_cyaml_errs t;

	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, op, "udsp", errnum, descr);
}

/*
 * The index of del and show: as lnetctl, a C-style number from -1 ("every
 * rule") up; on error lnetctl's stdout text and -EINVAL.
 */
static int parse_any_idx(const char *s, int *out)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < -1 || v > INT32_MAX) {
		printf("Invalid index \"%s\"\n", s);
		return ULNETCTL_RC_BAD_PARAM;
	}
	*out = (int)v;
	return 0;
}

static int udsp_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "rte", required_argument, NULL, 'r' },
		{ "priority", required_argument, NULL, 'p' },
		{ "idx", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *src = NULL, *dst = NULL, *rte = NULL;
	struct ul_udsp_rule *rule = NULL;
	struct ul_ctl_args *a = NULL;
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	bool has_prio = false;
	uint8_t *block = NULL;
	char descr[UL_CTL_STR_MAX + 64];
	uint32_t prio = 0;
	int opt, idx = -1, rc = 0;
	size_t len;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:d:r:p:i:", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 's':
			src = optarg;
			break;
		case 'd':
			dst = optarg;
			break;
		case 'r':
			rte = optarg;
			break;
		case 'p':
			if (ul_udsp_parse_priority(optarg, &prio, &err)) {
				printf("%s\n", err.msg);
				return ULNETCTL_RC_BAD_PARAM;
			}
			has_prio = true;
			break;
		case 'i':
			if (ul_udsp_parse_idx(optarg, &idx, &err)) {
				printf("%s\n", err.msg);
				return ULNETCTL_RC_BAD_PARAM;
			}
			break;
		default:
			ulnetctl_print_help(ulnetctl_udsp_cmds, "udsp", "add");
			return 0;
		}
	}
	if (!src && !dst && !rte) {
		/* lnetctl.md §12.1: help, nothing added, status 0. */
		ulnetctl_print_help(ulnetctl_udsp_cmds, "udsp", "add");
		return 0;
	}
	rc = ul_udsp_rule_from_strings(src, dst, rte, has_prio, prio, idx,
				       &rule, &err);
	if (rc) {
		/* lnetctl quotes its own messages (lnetctl.md §12.1). */
		snprintf(descr, sizeof(descr), "\"%s\"", err.msg);
		d2("add", rc, descr);
		return rc;
	}
	len = ul_udsp_rule_block_size(rule);
	block = malloc(len);
	a = calloc(1, sizeof(*a));
	rc = -ENOMEM;
	if (!block || !a)
		goto out;
	rc = ul_udsp_rule_encode(rule, block, len, &err);
	if (rc) {
		d2("add", rc, err.msg);
		goto out;
	}
	a->has = UL_CTL_ARG_UDSP_BLOCK;
	a->udsp_block = block;
	a->udsp_len = len;
	rc = ulnetctl_call(UL_CTL_OP_UDSP_ADD, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	if (rc) {
		d2("add", rc, err.msg);
		goto out;
	}
	rc = reply.rc;
	if (rc) {
		/* lnetctl.md §12.1 Quirk: the positive errno, as status too. */
		snprintf(descr, sizeof(descr), "\"cannot add udsp: %s\"",
			 strerror(-rc));
		d2("add", -rc, descr);
		rc = -rc;
	}
	ul_ctl_reply_fini(&reply);
out:
	free(a);
	free(block);
	ul_udsp_rule_free(rule);
	return rc;
}

static int udsp_del(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "idx", required_argument, NULL, 'i' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a;
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	bool has_idx = false, all = false;
	int opt, idx = -1, rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "ai:", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			rc = parse_any_idx(optarg, &idx);
			if (rc)
				return rc;
			has_idx = true;
			break;
		case 'a':
			all = true;
			break;
		default:
			ulnetctl_print_help(ulnetctl_udsp_cmds, "udsp", "del");
			return 0;
		}
	}
	if (has_idx == all) {
		printf("%s\n", all ? "Cannot combine --all with --idx"
				   : "Must specify --idx or --all");
		return ULNETCTL_RC_BAD_PARAM;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	if (all || idx < 0) {
		a->flags = UL_CTL_ARGF_ALL; /* --idx -1 is --all (udsp.md §7) */
	} else {
		a->has = UL_CTL_ARG_IDX;
		a->idx = idx;
	}
	rc = ulnetctl_call(UL_CTL_OP_UDSP_DEL, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	if (rc) {
		d2("add", rc, err.msg);
		return rc;
	}
	rc = reply.rc;
	if (rc) {
		/* lnetctl.md §12.2: reported under "add", errno -1, 255. */
		char descr[UL_CTL_STR_MAX + 64];

		snprintf(descr, sizeof(descr), "\"cannot del udsp: %s\"",
			 strerror(-rc));
		d2("add", -1, descr);
		rc = -1;
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

static int udsp_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "idx", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int opt, idx, rc;

	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "i:", opts, NULL)) != -1) {
		if (opt != 'i') {
			/* lnetctl.md §1.2 quirk: lnetctl prints net show's
			 * help here, and exits 0 */
			ulnetctl_print_help(ulnetctl_net_cmds, "net", "show");
			free(a);
			return 0;
		}
		rc = parse_any_idx(optarg, &idx);
		if (rc) {
			free(a);
			return rc;
		}
		if (idx >= 0) {
			a->has = UL_CTL_ARG_IDX;
			a->idx = idx;
		}
	}
	rc = ulnetctl_call(UL_CTL_OP_UDSP_SHOW, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	if (rc) {
		d2("show", rc, err.msg);
		return rc;
	}
	rc = reply.rc;
	if (rc) {
		/* lustre_lnet_show_udsp's words; the status is -errno */
		char descr[128];

		snprintf(descr, sizeof(descr), "\"cannot get udsp: %s\"",
			 strerror(-rc));
		d2("show", rc, descr);
	} else if (ul_doc_print(stdout, reply.doc, UL_DOC_C)) {
		rc = -EIO;
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_udsp_cmds[] = {
	{ "add", udsp_add, NULL,
	  "add a user-defined selection policy rule\n"
	  "\t--src: local NIDs or net the rule applies to\n"
	  "\t--dst: peer NIDs or net the rule applies to\n"
	  "\t--rte: routers the rule applies to\n"
	  "\t--priority: the priority to give, 0 is the highest\n"
	  "\t--idx: where to insert the rule (default: last)\n" },
	{ "del", udsp_del, NULL,
	  "delete rules\n"
	  "\t--idx: the rule at this index\n"
	  "\t--all: every rule\n" },
	{ "show", udsp_show, NULL,
	  "show the rules\n"
	  "\t--idx: only the rule at this index\n" },
	{ NULL, NULL, NULL, NULL },
};
