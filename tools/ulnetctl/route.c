/*
 * ulnetctl route add / del / show and routing show (reference/lnetctl.md
 * §8) over the control socket. Gateway lists are NID ranges expanded
 * here; each NID becomes one route.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "nid/nidrange.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* lnetctl's stdout line for missing options, with status 234. */
static int missing(bool has_net, bool has_gw)
{
	printf("missing mandatory parameters:'%s'\n", !has_net && !has_gw
							      ? "net , gateway"
						      : !has_net ? "net"
								 : "gateway");
	return ULNETCTL_RC_BAD_PARAM;
}

static int gateways(const char *list, const char *op, struct ul_ctl_args *a)
{
	struct ul_err err = { 0 };
	size_t got = 0;

	if (ulnetctl_nidlist_expand(list, a->nids, UL_CTL_ARGS_NIDS_MAX, &got,
				    &err))
		return ulnetctl_d1(op, "route", -EINVAL, err.msg);
	a->nnids = got;
	a->has |= UL_CTL_ARG_NIDS;
	return 0;
}

/* An integer option; unparsable values are ignored as lnetctl does. */
static bool int_opt(const char *s, int32_t *out)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*end || end == s || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

enum route_verb { ROUTE_ADD, ROUTE_DEL, ROUTE_SHOW };

static int route_cmd(int argc, char **argv, enum route_verb verb)
{
	static const struct option opts[] = {
		{ "net", required_argument, NULL, 'n' },
		{ "gateway", required_argument, NULL, 'g' },
		{ "hop", required_argument, NULL, 'c' },
		{ "hop-count", required_argument, NULL, 'c' },
		{ "priority", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const names[] = { "add", "del", "show" };
	static const uint16_t ops[] = { UL_CTL_OP_ROUTE_ADD,
					UL_CTL_OP_ROUTE_DEL,
					UL_CTL_OP_ROUTE_SHOW };
	const char *gw = NULL, *word = names[verb];
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int opt, rc = 0;

	if (!a)
		return -ENOMEM;
	optind = 0;
	while ((opt = getopt_long(argc, argv,
				  verb == ROUTE_SHOW ? "n:g:c:p:vh"
						     : "n:g:c:p:h",
				  opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		case 'g':
			gw = optarg;
			break;
		case 'c':
			if (verb != ROUTE_DEL && int_opt(optarg, &a->hop))
				a->has |= UL_CTL_ARG_HOP;
			break;
		case 'p':
			if (verb != ROUTE_DEL && int_opt(optarg, &a->priority))
				a->has |= UL_CTL_ARG_PRIORITY;
			break;
		case 'v':
			a->verbose = 1;
			a->has |= UL_CTL_ARG_VERBOSE;
			break;
		default:
			/* lnetctl.md §1.2 Quirk: help, nothing done, 0. */
			ulnetctl_print_help(ulnetctl_route_cmds, "route", word);
			goto out;
		}
	}
	if (verb != ROUTE_SHOW && (!(a->has & UL_CTL_ARG_NET) || !gw)) {
		rc = missing(a->has & UL_CTL_ARG_NET, gw);
		goto out;
	}
	if (gw) {
		rc = gateways(gw, word, a);
		if (rc)
			goto out;
	}
	rc = ulnetctl_do(ops[verb], a, word, "route",
			 verb == ROUTE_SHOW ? UL_DOC_A : -1);
out:
	free(a);
	return rc;
}

static int route_add(int argc, char **argv)
{
	return route_cmd(argc, argv, ROUTE_ADD);
}

static int route_del(int argc, char **argv)
{
	return route_cmd(argc, argv, ROUTE_DEL);
}

static int route_show(int argc, char **argv)
{
	return route_cmd(argc, argv, ROUTE_SHOW);
}

static int routing_show(int argc, char **argv)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_cyaml_errs t;
	int rc;

	(void)argc;
	(void)argv;
	if (!a)
		return -ENOMEM;
	rc = ulnetctl_call(UL_CTL_OP_ROUTING_SHOW, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	ul_cyaml_errs_init(&t, stderr);
	if (rc) {
		ul_cyaml_err_add(&t, "show", "routing", rc, err.msg);
		return rc;
	}
	rc = reply.rc;
	if (rc)
		ul_cyaml_err_add(&t, "show", "routing", rc, reply.err_msg);
	else if (ul_doc_print(stdout, reply.doc, UL_DOC_C))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_route_cmds[] = {
	{ "add", route_add, NULL,
	  "add a route to a remote network\n"
	  "\t--net: the remote network (e.g. tcp1)\n"
	  "\t--gateway: gateway NIDs, a NID range list\n"
	  "\t--hop: hops to the remote network (1 to 255)\n"
	  "\t--priority: route priority, 0 is the highest\n" },
	{ "del", route_del, NULL,
	  "delete routes\n"
	  "\t--net: the remote network\n"
	  "\t--gateway: gateway NIDs, a NID range list\n" },
	{ "show", route_show, NULL,
	  "show routes\n"
	  "\t--net: only routes to this network\n"
	  "\t--gateway: only routes through these gateways\n"
	  "\t--hop: only routes with this hop count\n"
	  "\t--priority: only routes with this priority\n"
	  "\t--verbose: hop, priority, state and type too\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_routing_cmds[] = {
	{ "show", routing_show, NULL, "show the router buffer pools\n" },
	{ NULL, NULL, NULL, NULL },
};
