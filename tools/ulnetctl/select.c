/*
 * ulnetctl debug select: a dry run of LNet's pathway selection, which no
 * LNet tool offers. It loads an lnet.conf into an in-memory instance (no
 * network, nothing started), performs N successive selections toward a
 * destination as N successive sends would, and prints for each the local
 * NI, the peer NI and the gateway, and with --explain every step of the
 * reasoning.
 *
 *   ulnetctl debug select --config FILE --dst NID [--src NID] [--rtr NID]
 *                         [--count N] [--type put|get|ack|reply]
 *                         [--md-numa NODE] [--forward ORIGIN_NID]
 *                         [--explain]
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/node.h"
#include "core/select.h"
#include "core/udsp.h"
#include "ctl/conf.h"
#include "ctl/node_req.h"
#include "ctl/cyaml_err.h"
#include "ctl/select_yaml.h"
#include "ctl/yemit.h"
#include "util/timer.h"

#include "cmd.h"
#include "select.h"
#include "lnd/lolnd.h"

#define COUNT_MAX 100000
#define EXPLAIN_CANDS 512

struct select_args {
	const char *config;
	struct ulnet_nid dst, src, rtr, origin;
	bool has_dst;
	bool is_forward;
	unsigned long count;
	enum ul_msg_type type;
	int md_numa;
	bool explain;
};

__attribute__((format(printf, 2, 3))) static int
bad_arg(struct ul_cyaml_errs *errs, const char *fmt, ...)
{
	char descr[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(descr, sizeof(descr), fmt, ap);
	va_end(ap);
	ul_cyaml_err_add(errs, "debug", "select", -EINVAL, descr);
	return ULNETCTL_RC_BAD_PARAM;
}

static int parse_nid_arg(struct ul_cyaml_errs *errs, const char *opt,
			 const char *v, struct ulnet_nid *nid)
{
	char why[128], descr[256];

	if (ulnet_nid_parse(v, nid, why, sizeof(why)) == 0)
		return 0;
	snprintf(descr, sizeof(descr), "%s: %s", opt, why);
	ul_cyaml_err_add(errs, "debug", "select", -EINVAL, descr);
	return ULNETCTL_RC_BAD_PARAM;
}

static int parse_args(int argc, char **argv, struct select_args *a,
		      struct ul_cyaml_errs *errs)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dst", required_argument, NULL, 'd' },
		{ "src", required_argument, NULL, 's' },
		{ "rtr", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "type", required_argument, NULL, 't' },
		{ "md-numa", required_argument, NULL, 'm' },
		{ "explain", no_argument, NULL, 'e' },
		{ "forward", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int opt, rc;

	memset(a, 0, sizeof(*a));
	ulnet_nid_set_any(&a->src);
	ulnet_nid_set_any(&a->rtr);
	a->count = 1;
	a->type = UL_MSG_PUT;
	a->md_numa = UL_NUMA_ANY;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "c:d:s:r:n:t:m:ef:", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'c':
			a->config = optarg;
			break;
		case 'd':
			rc = parse_nid_arg(errs, "--dst", optarg, &a->dst);
			if (rc)
				return rc;
			a->has_dst = true;
			break;
		case 's':
			rc = parse_nid_arg(errs, "--src", optarg, &a->src);
			if (rc)
				return rc;
			break;
		case 'r':
			rc = parse_nid_arg(errs, "--rtr", optarg, &a->rtr);
			if (rc)
				return rc;
			break;
		case 'n':
			errno = 0;
			v = strtol(optarg, &end, 0);
			if (errno || *end || v < 1 || v > COUNT_MAX)
				return bad_arg(errs,
					       "--count: '%s' is not a number "
					       "of sends (1..100000)",
					       optarg);
			a->count = (unsigned long)v;
			break;
		case 't':
			if (strcmp(optarg, "put") == 0)
				a->type = UL_MSG_PUT;
			else if (strcmp(optarg, "get") == 0)
				a->type = UL_MSG_GET;
			else if (strcmp(optarg, "ack") == 0)
				a->type = UL_MSG_ACK;
			else if (strcmp(optarg, "reply") == 0)
				a->type = UL_MSG_REPLY;
			else
				return bad_arg(errs,
					       "--type: '%s' is not put, get, "
					       "ack or reply",
					       optarg);
			break;
		case 'm':
			errno = 0;
			v = strtol(optarg, &end, 0);
			if (errno || *end || v < -1 || v >= UL_NUMA_MAX_NODES)
				return bad_arg(errs,
					       "--md-numa: '%s' is not a NUMA "
					       "node (-1 for any)",
					       optarg);
			a->md_numa = (int)v;
			break;
		case 'e':
			a->explain = true;
			break;
		case 'f':
			rc = parse_nid_arg(errs, "--forward", optarg,
					   &a->origin);
			if (rc)
				return rc;
			a->is_forward = true;
			break;
		default:
			return bad_arg(errs, "unknown option '%s'",
				       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_arg(errs, "unexpected argument '%s'", argv[optind]);
	if (!a->config)
		return bad_arg(errs, "%s", "--config FILE is required");
	if (!a->has_dst)
		return bad_arg(errs, "%s", "--dst NID is required");
	return 0;
}

/* The instance a dry run loads: a node that never starts. */
struct dry {
	struct ul_timer_heap timers;
	struct ul_node *node;
	struct ul_udsp_set *udsp;
};

static void dry_fini(struct dry *d)
{
	ul_udsp_detach(d->udsp);
	ul_node_destroy(d->node);
	ul_timer_heap_fini(&d->timers);
}

/* Notes go to stderr as comments: the YAML on stdout stays clean. */
static void print_note(void *ctx, const struct ul_conf_warning *w)
{
	(void)ctx;
	if (w->line)
		fprintf(stderr, "# line %u: %s\n", w->line, w->text);
	else
		fprintf(stderr, "# %s\n", w->text);
}

/* What the import goes past (an UDSP rule LNet refuses) is a note too. */
static void print_report(void *ctx, const struct ul_conf_report *r)
{
	(void)ctx;
	if (r->is_ignored)
		fprintf(stderr, "# line %u: %s skipped: %s\n", r->line,
			r->object, r->descr ? r->descr : "");
}

/*
 * The file goes in as ulnetd's --config would take it (ctl/node_req.h),
 * as a dry run: nets of any LND, "dev cpt" as the NIs' NUMA node.
 */
static int load(const struct select_args *a, struct dry *d,
		struct ul_cyaml_errs *errs)
{
	struct ul_node_req_apply_ops ops = { print_report, print_note, NULL };
	struct ul_node_req_env env = { 0 };
	struct ul_node_opts nopts = { 0 };
	struct ul_err err = { 0 };
	struct ul_core *c = NULL;
	struct ul_conf conf;
	int rc;

	memset(d, 0, sizeof(*d));
	ul_timer_heap_init(&d->timers);
	ul_conf_init(&conf);
	rc = ul_conf_parse_file(a->config, &conf, &err);
	if (rc < 0)
		goto fail;
	rc = ul_core_create(&c);
	if (rc == 0)
		rc = ul_udsp_attach(c, &d->udsp);
	if (rc < 0) {
		ul_core_destroy(c);
		ul_err_set(&err, rc, "out of memory");
		goto fail;
	}
	/*
	 * Routes keep the file's order. LNet inserts each at a random place
	 * so that nodes spread over equal gateways; a dry run must answer
	 * the same way every time, and in an order the operator can see.
	 */
	ul_core_set_route_append(c, true);
	nopts.timers = &d->timers;
	rc = ul_node_create(c, &nopts, &d->node); /* owns c */
	if (rc < 0) {
		ul_err_set(&err, rc, "out of memory");
		goto fail;
	}
	rc = ul_lolnd_register(d->node);
	if (rc < 0) {
		ul_err_set(&err, rc, "out of memory");
		goto fail;
	}
	ul_node_set_udsp(d->node, d->udsp);
	env.node = d->node;
	env.ncpt = 64; /* any binding LNet takes */
	env.is_dry_run = true;
	rc = ul_node_req_apply(&env, &conf, &ops, &err);
	if (rc < 0)
		goto fail;
	ul_conf_fini(&conf);
	return 0;
fail:
	ul_cyaml_err_add(errs, "debug", "select", rc, err.msg);
	dry_fini(d);
	memset(d, 0, sizeof(*d));
	ul_conf_fini(&conf);
	return ULNETCTL_RC_BAD_PARAM;
}

int ulnetctl_debug_select(int argc, char **argv)
{
	struct ul_explain ex, *exp = NULL;
	struct ul_cyaml_errs errs;
	struct select_args a;
	struct ul_select_req req;
	struct dry d;
	struct ul_core *c;
	struct ul_yemit y;
	unsigned long i;
	int rc, sel_rc = 0;

	ul_cyaml_errs_init(&errs, stderr);
	rc = parse_args(argc, argv, &a, &errs);
	if (rc)
		return rc;
	rc = load(&a, &d, &errs);
	if (rc)
		return rc;
	c = ul_node_core(d.node);
	if (a.explain) {
		if (ul_explain_init(&ex, EXPLAIN_CANDS) < 0) {
			dry_fini(&d);
			ul_cyaml_err_add(&errs, "debug", "select", -ENOMEM,
					 "out of memory");
			return -ENOMEM;
		}
		exp = &ex;
	}
	ul_select_req_init(&req, &a.dst, a.type);
	req.src_nid = a.src;
	req.rtr_nid = a.rtr;
	req.md_numa_node = a.md_numa;
	/* Forwarding: a router passes on the originator's message (§6.8). */
	req.is_forward = a.is_forward;
	if (a.is_forward)
		req.hdr_src_nid = a.origin;
	rc = ul_yemit_open(&y, stdout, 2, false);
	if (rc == 0) {
		ul_yemit_map_start(&y);
		ul_yemit_str(&y, "select");
		ul_yemit_seq_start(&y);
		for (i = 0; i < a.count; i++) {
			struct ul_select_res res;

			sel_rc = ul_select(c, &req, &res, exp);
			ul_select_yaml(&y, (unsigned int)i + 1, sel_rc, &res,
				       exp);
			if (sel_rc < 0)
				break;
		}
		ul_yemit_seq_end(&y);
		ul_yemit_map_end(&y);
		rc = ul_yemit_close(&y);
	}
	ul_explain_fini(exp);
	dry_fini(&d);
	if (rc < 0) {
		ul_cyaml_err_add(&errs, "debug", "select", rc,
				 "cannot write the output");
		return rc;
	}
	return sel_rc;
}
