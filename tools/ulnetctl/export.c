/*
 * ulnetctl export [--backup] [FILE] (reference/lnetctl.md §15): the
 * instance's configuration as one YAML document, sections in lnetctl's
 * order (net, route, peer, routing and buffers, global, udsp), each
 * omitted when empty. With --backup only what `import` needs to rebuild
 * the node, so that export, import, export gives the same bytes. Exits 0
 * also when a section cannot be read (it is reported and skipped); only
 * a FILE that cannot be created fails (-1, as lnetctl).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* A typed show (net or peer) at a level, printed by show_yaml. */
static void typed_section(FILE *out, uint16_t op, uint32_t verbose,
			  uint32_t level, const char *object)
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
	else if (op == UL_CTL_OP_NET_SHOW)
		ul_show_yaml_net(out, &reply, level);
	else
		ul_show_yaml_peer(out, &reply, level);
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

int ulnetctl_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backup", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_ctl_args *a;
	bool is_backup = false;
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
	typed_section(out, UL_CTL_OP_NET_SHOW, is_backup ? 1 : 2,
		      is_backup ? UL_SHOW_YAML_BACKUP : 2, "net");
	a->verbose = 1;
	a->has = UL_CTL_ARG_VERBOSE;
	a->flags = is_backup ? UL_CTL_ARGF_BACKUP : 0;
	doc_section(out, UL_CTL_OP_ROUTE_SHOW, a, "route", UL_DOC_A);
	typed_section(out, UL_CTL_OP_PEER_SHOW, is_backup ? 0 : 3,
		      is_backup ? UL_SHOW_YAML_BACKUP : 3, "peer");
	memset(a, 0, sizeof(*a));
	a->flags = is_backup ? UL_CTL_ARGF_BACKUP : 0;
	doc_section(out, UL_CTL_OP_ROUTING_SHOW, a, "routing", UL_DOC_C);
	memset(a, 0, sizeof(*a));
	ulnetctl_global_export(out);
	doc_section(out, UL_CTL_OP_UDSP_SHOW, a, "udsp", UL_DOC_C);
	free(a);
out:
	if (out != stdout)
		fclose(out);
	return 0;
}
