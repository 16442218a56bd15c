/*
 * ulnetctl export [--backup] [FILE] (reference/lnetctl.md §15): the
 * instance's configuration as one YAML document, sections in lnetctl's
 * order (net, route, peer, routing and buffers, global, udsp), each
 * omitted when empty. With --backup only what `import` needs to rebuild
 * the node, so that export, import, export gives the same bytes (but
 * during routing's start or stop wait: lnetctl.md §8.4, §16). Exits 0
 * also when a section cannot be read (it is reported and skipped: the
 * netlink sections' D1 on stderr, the routing and udsp D2 into the
 * output, as lnetctl's cYAML functions write them); only a FILE that
 * cannot be created fails (-1, as lnetctl).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* net or peer show at a level (UL_CTL_SHOW_BACKUP for --backup). */
static void typed_section(FILE *out, uint16_t op, uint32_t verbose,
			  const char *object)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;

	memset(&req, 0, sizeof(req));
	req.op = op;
	if (op == UL_CTL_OP_NET_SHOW)
		req.net_show.verbose = verbose;
	else
		req.peer_show.verbose = verbose;
	if (ulnetctl_ctl_call(&req, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err)) {
		ulnetctl_d1("show", object, err.code, err.msg);
		return;
	}
	if (reply.rc)
		ulnetctl_d1("show", object, reply.rc, reply.err_msg);
	else
		ul_doc_print(out, reply.doc, UL_DOC_A);
	ul_ctl_reply_fini(&reply);
}

/* A generic show printed in an engine. */
static void doc_section(FILE *out, uint16_t op, struct ul_ctl_args *a,
			const char *object, enum ul_doc_engine e)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;

	if (ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err)) {
		ulnetctl_d1("show", object, err.code, err.msg);
		return;
	}
	if (reply.rc)
		ulnetctl_d1("show", object, reply.rc, reply.err_msg);
	else
		ul_doc_print(out, reply.doc, e);
	ul_ctl_reply_fini(&reply);
}

/*
 * A section lnetctl's export gets from a cYAML function (routing, udsp):
 * asked for now; LNet's refusal is that function's D2, which lnetctl
 * writes into the output stream at once ("<what>: <strerror>"). The
 * section itself goes into lnetctl's tree of shows, printed later: 0 and
 * the reply for the caller to print (and free), or -1 (nothing to print).
 * No daemon at all is ulnetctl's D1 on stderr, naming the socket.
 */
static int cyaml_section(FILE *out, uint16_t op, struct ul_ctl_args *a,
			 const char *object, const char *what,
			 struct ul_ctl_reply *reply)
{
	char descr[UL_CTL_STR_MAX + 128];
	struct ul_err err = { 0 };
	struct ul_cyaml_errs t;

	if (ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, reply, &err)) {
		ulnetctl_d1("show", object, err.code, err.msg);
		return -1;
	}
	if (!reply->rc)
		return 0;
	snprintf(descr, sizeof(descr), "\"%s: %s\"", what,
		 strerror(-reply->rc));
	ul_cyaml_errs_init(&t, out);
	ul_cyaml_err_add(&t, "show", object, reply->rc, descr);
	ul_ctl_reply_fini(reply);
	return -1;
}

int ulnetctl_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backup", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_reply routing, global, udsp;
	struct ul_ctl_args *a;
	bool is_backup = false, has_routing, has_global, has_udsp;
	const char *path = NULL;
	FILE *out = stdout;
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "bh", opts, NULL)) != -1) {
		if (opt == 'b') {
			is_backup = true;
			continue;
		}
		printf("export > FILE.yaml : export configuration\n"
		       "\t--backup: export only what's necessary for "
		       "reconfig\n"
		       "\t--help: display this help\n");
		return 0;
	}
	/*
	 * lnetctl takes the word after "export" (after "--backup" with it;
	 * getopt has moved the options first) as the file.
	 */
	if (is_backup && argc >= 3)
		path = argv[2];
	else if (!is_backup && argc >= 2)
		path = argv[1];
	if (path) {
		out = fopen(path, "w");
		if (!out) {
			fprintf(stderr, "cannot open '%s': %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		goto out;
	typed_section(out, UL_CTL_OP_NET_SHOW,
		      is_backup ? UL_CTL_SHOW_BACKUP : 2, "net");
	a->verbose = 1;
	a->has = UL_CTL_ARG_VERBOSE;
	a->flags = is_backup ? UL_CTL_ARGF_BACKUP : 0;
	doc_section(out, UL_CTL_OP_ROUTE_SHOW, a, "route", UL_DOC_A);
	/*
	 * lnetctl's order (jt_export): routing is asked for before the
	 * peers, then the global values, then udsp, each error written at
	 * once; the routing, global and udsp sections come last.
	 */
	memset(a, 0, sizeof(*a));
	a->flags = is_backup ? UL_CTL_ARGF_BACKUP : 0;
	has_routing = !cyaml_section(out, UL_CTL_OP_ROUTING_SHOW, a, "routing",
				     "cannot get routing information",
				     &routing);
	typed_section(out, UL_CTL_OP_PEER_SHOW,
		      is_backup ? UL_CTL_SHOW_BACKUP : 3, "peer");
	memset(a, 0, sizeof(*a));
	has_global = ulnetctl_global_export(out, &global);
	has_udsp = !cyaml_section(out, UL_CTL_OP_UDSP_SHOW, a, "udsp",
				  "cannot get udsp", &udsp);
	if (has_routing) {
		ul_doc_print(out, routing.doc, UL_DOC_C);
		ul_ctl_reply_fini(&routing);
	}
	if (has_global) {
		ul_doc_print(out, global.doc, UL_DOC_C);
		ul_ctl_reply_fini(&global);
	}
	if (has_udsp) {
		ul_doc_print(out, udsp.doc, UL_DOC_C);
		ul_ctl_reply_fini(&udsp);
	}
	free(a);
out:
	if (out != stdout)
		fclose(out);
	return 0;
}
