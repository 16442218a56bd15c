/*
 * ulnetctl route add / del / show and routing show (reference/lnetctl.md
 * §8) over the control socket. Gateway lists are NID ranges expanded
 * here; each NID becomes one route, and a list longer than one request
 * holds goes in several.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "ctl/ytree.h"
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

/*
 * The most NIDs one gateway list may expand to. lnetctl has no limit (one
 * route per NID); this one only bounds ulnetctl's memory (1.3 MB). Lists
 * longer than one request holds go in several, in order.
 */
#define ROUTE_GW_MAX 65536

/* Expand a --gateway list; on failure print D1 "<op>: - route:". */
static int gateways(const char *list, const char *op, struct ulnet_nid **out,
		    size_t *n)
{
	struct ul_err err = { 0 };
	int rc;

	*out = calloc(ROUTE_GW_MAX, sizeof(**out));
	if (!*out)
		return ulnetctl_d1(op, "route", -ENOMEM, "out of memory");
	rc = ulnetctl_nidlist_expand(list, *out, ROUTE_GW_MAX, n, &err);
	if (rc) {
		free(*out);
		*out = NULL;
		return ulnetctl_d1(op, "route", rc == -E2BIG ? rc : -EINVAL,
				   err.msg);
	}
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

/* Put nids[off..] (at most one request's worth) in a; how many. */
static size_t gw_chunk(struct ul_ctl_args *a, const struct ulnet_nid *nids,
		       size_t n, size_t off)
{
	size_t k = n - off < UL_CTL_ARGS_NIDS_MAX ? n - off
						  : UL_CTL_ARGS_NIDS_MAX;

	if (k && nids)
		memcpy(a->nids, nids + off, k * sizeof(*nids));
	a->nnids = k;
	a->has |= UL_CTL_ARG_NIDS;
	return k;
}

/* The "route" sequence of a show reply, or NULL when it matched none. */
static struct ul_ynode *route_seq(struct ul_ynode *doc)
{
	return doc ? (struct ul_ynode *)ul_doc_get(doc, "route") : NULL;
}

/*
 * The routes of every reply as one "route" list. The replies' trees
 * live in their arenas (ctl/ytree.h), so the list points into them and
 * is printed before they are freed.
 */
static int print_routes(struct ul_ctl_reply *r, size_t n)
{
	struct ul_ynode key = { 0 }, seq = { 0 }, root = { 0 };
	struct ul_ynode *root_kids[2] = { &key, &seq };
	struct ul_ynode *one;
	size_t i, k, total = 0;
	int rc;

	for (i = 0; i < n; i++)
		if ((one = route_seq(r[i].doc)))
			total += one->nr;
	if (!total)
		return 0; /* no gateway had a route: nothing, as LNet */
	seq.type = UL_YNODE_SEQ;
	seq.kids = malloc(total * sizeof(struct ul_ynode *));
	if (!seq.kids)
		return ulnetctl_d1("show", "route", -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if ((one = route_seq(r[i].doc)))
			for (k = 0; k < one->nr; k++)
				seq.kids[seq.nr++] = one->kids[k];
	key.type = UL_YNODE_SCALAR;
	key.str = (char *)"route";
	root.type = UL_YNODE_MAP;
	root.kids = root_kids;
	root.nr = 2;
	rc = ul_doc_print(stdout, &root, UL_DOC_A) ? -EIO : 0;
	free(seq.kids);
	return rc;
}

/*
 * route show --gateway: LNet lists the routes of each gateway of the
 * list in turn, so the replies of consecutive requests make one list.
 */
static int route_show_gws(struct ul_ctl_args *a, const struct ulnet_nid *nids,
			  size_t n)
{
	struct ul_ctl_reply *replies = NULL, *more;
	struct ul_err err = { 0 };
	size_t off = 0, nr = 0, i;
	int rc = 0;

	while (off < n && !rc) {
		off += gw_chunk(a, nids, n, off);
		more = realloc(replies, (nr + 1) * sizeof(*replies));
		if (!more) {
			rc = ulnetctl_d1("show", "route", -ENOMEM,
					 "out of memory");
			break;
		}
		replies = more;
		rc = ulnetctl_call(UL_CTL_OP_ROUTE_SHOW, a,
				   ULNETCTL_CTL_TIMEOUT_MS, &replies[nr], &err);
		if (rc) {
			rc = ulnetctl_d1("show", "route", rc, err.msg);
			break;
		}
		if (replies[nr].rc)
			rc = ulnetctl_d1("show", "route", replies[nr].rc,
					 replies[nr].err_msg);
		nr++;
	}
	if (!rc)
		rc = print_routes(replies, nr);
	for (i = 0; i < nr; i++)
		ul_ctl_reply_fini(&replies[i]);
	free(replies);
	return rc;
}

enum route_verb { ROUTE_ADD, ROUTE_DEL, ROUTE_SHOW };

/* lnetctl's options of each verb: add has no --verbose, del only two. */
static const struct option add_opts[] = {
	{ "net", required_argument, NULL, 'n' },
	{ "gateway", required_argument, NULL, 'g' },
	{ "hop", required_argument, NULL, 'c' },
	{ "hop-count", required_argument, NULL, 'c' },
	{ "priority", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

static const struct option del_opts[] = {
	{ "net", required_argument, NULL, 'n' },
	{ "gateway", required_argument, NULL, 'g' },
	{ NULL, 0, NULL, 0 },
};

static const struct option show_opts[] = {
	{ "net", required_argument, NULL, 'n' },
	{ "gateway", required_argument, NULL, 'g' },
	{ "hop-count", required_argument, NULL, 'c' },
	{ "hop", required_argument, NULL, 'c' },
	{ "priority", required_argument, NULL, 'p' },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

static int route_cmd(int argc, char **argv, enum route_verb verb)
{
	static const char *const names[] = { "add", "del", "show" };
	static const char *const shorts[] = { "n:g:c:p:", "n:g:", "c:n:g:p:v" };
	static const struct option *const longs[] = { add_opts, del_opts,
						      show_opts };
	static const uint16_t ops[] = { UL_CTL_OP_ROUTE_ADD,
					UL_CTL_OP_ROUTE_DEL };
	const char *gw = NULL, *word = names[verb];
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ulnet_nid *nids = NULL;
	size_t n = 0, off = 0;
	int32_t v;
	int opt, rc = 0;

	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc);
	optind = 0;
	while ((opt = getopt_long(argc, argv, shorts[verb], longs[verb],
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			snprintf(a->net, sizeof(a->net), "%s", optarg);
			a->has |= UL_CTL_ARG_NET;
			break;
		case 'g':
			gw = optarg;
			break;
		case 'c':
			/* -1 is lnetctl's "not given": no filter on show */
			if (int_opt(optarg, &v) && v != -1) {
				a->hop = v;
				a->has |= UL_CTL_ARG_HOP;
			}
			break;
		case 'p':
			if (int_opt(optarg, &v) && v != -1) {
				a->priority = v;
				a->has |= UL_CTL_ARG_PRIORITY;
			}
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
		rc = gateways(gw, word, &nids, &n);
		if (rc)
			goto out;
	}
	if (verb == ROUTE_SHOW) {
		rc = gw ? route_show_gws(a, nids, n)
			: ulnetctl_do(UL_CTL_OP_ROUTE_SHOW, a, word, "route",
				      UL_DOC_A);
		goto out;
	}
	/*
	 * One route per gateway NID, in order, as lnetctl's one request: the
	 * first failure stops the rest and those before it stay (lnetctl.md
	 * §8.1; routing.md §2.2 describes the old ioctl path, which went on
	 * past "already exists").
	 */
	while (off < n && !rc) {
		off += gw_chunk(a, nids, n, off);
		rc = ulnetctl_do(ops[verb], a, word, "route", -1);
	}
out:
	free(nids);
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
	char descr[128];
	struct ul_ctl_reply reply;
	struct ul_cyaml_errs t;
	int rc;

	(void)argv;
	if (!a)
		return -ENOMEM;
	ulnetctl_with_diagnostics(argc); /* no options, as in lnetctl */
	rc = ulnetctl_call(UL_CTL_OP_ROUTING_SHOW, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	ul_cyaml_errs_init(&t, stderr);
	if (rc) {
		ul_cyaml_err_add(&t, "show", "routing", rc, err.msg);
		return rc;
	}
	rc = reply.rc;
	if (rc) {
		/* lustre_lnet_show_routing()'s words, from the errno */
		snprintf(descr, sizeof(descr),
			 "\"cannot get routing information: %s\"",
			 strerror(-rc));
		ul_cyaml_err_add(&t, "show", "routing", rc, descr);
	} else if (ul_doc_print(stdout, reply.doc, UL_DOC_C))
		rc = -EIO;
	ul_ctl_reply_fini(&reply);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_route_cmds[] = {
	{ "add", route_add, NULL,
	  "add a route to a remote network\n"
	  "\t--net: the remote network (e.g. tcp1)\n"
	  "\t--gateway: gateway NIDs, a NID range list\n"
	  "\t--hop|hop-count: hops to the remote network (1 to 255)\n"
	  "\t--priority: route priority, 0 is the highest\n" },
	{ "del", route_del, NULL,
	  "delete routes\n"
	  "\t--net: the remote network\n"
	  "\t--gateway: gateway NIDs, a NID range list\n" },
	{ "show", route_show, NULL,
	  "show routes\n"
	  "\t--net: only routes to this network\n"
	  "\t--gateway: only routes through these gateways\n"
	  "\t--hop|hop-count: only routes with this hop count\n"
	  "\t--priority: only routes with this priority\n"
	  "\t--verbose: hop, priority, state and type too\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_routing_cmds[] = {
	{ "show", routing_show, NULL, "show the router buffer pools\n" },
	{ NULL, NULL, NULL, NULL },
};
