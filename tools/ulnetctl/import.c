/*
 * ulnetctl import (reference/lnetctl.md §16, §17): the options, the
 * file, and lnetctl's way of printing what happens. The document is read
 * with the parser ulnetd uses (ctl/conf.h) in the dialect the options ask
 * for, then --add and --del go through the import engine ulnetd applies
 * its --config with (ctl/conf_import.h), its requests sent over the
 * control socket; --show and --exec are import_show.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "ctl/conf_import.h"
#include "ctl/cyaml_err.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"
#include "import.h"

/*
 * The engine's requests, over the socket. A request that got no reply
 * is lost: err names the socket (ulnetctl_call()).
 */
static int call(void *ctx, uint16_t op, const struct ul_ctl_args *a,
		struct ul_err *err, bool *is_lost)
{
	struct ul_ctl_reply reply;
	int rc;

	(void)ctx;
	rc = ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, &reply, err);
	if (rc) {
		*is_lost = true;
		return rc;
	}
	rc = reply.rc;
	if (rc)
		ul_err_set(err, rc, "%s", reply.err_msg);
	ul_ctl_reply_fini(&reply);
	return rc;
}

/* What the engine's ops work with: the errors printed, the batch. */
struct import_ctx {
	struct ul_cyaml_errs errs;
	struct ul_ctl_msg items; /* the batch being built */
	uint32_t nitems;
	uint16_t op;
};

static int batch_add(void *ctx, uint16_t op, const struct ul_ctl_args *a)
{
	struct import_ctx *ic = ctx;

	if (ic->nitems &&
	    (ic->nitems == UL_CTL_BATCH_MAX || op != ic->op ||
	     ic->items.len + UL_CTL_BATCH_ITEM_ROOM > UL_CTL_MAX_PAYLOAD))
		return -ENOSPC;
	if (!ic->nitems)
		ul_ctl_batch_init(&ic->items);
	ic->op = op;
	ul_ctl_batch_add(&ic->items, a);
	ic->nitems++;
	return 0;
}

/*
 * The batch in one request. A reply whose count does not fit what was
 * sent is no answer (lost), as a malformed reply is.
 */
static int batch_send(void *ctx, size_t *done, struct ul_err *err,
		      bool *is_lost, bool *is_unsupported)
{
	struct import_ctx *ic = ctx;
	struct ul_ctl_reply reply;
	struct ul_ctl_req *req = calloc(1, sizeof(*req));
	uint32_t n = ic->nitems;
	int rc;

	*done = 0;
	if (!req) {
		rc = ul_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	req->op = UL_CTL_OP_BATCH;
	req->batch.op = ic->op;
	ul_ctl_batch_items(&ic->items, n, &req->batch);
	rc = ic->items.err ? ul_err_set(err, ic->items.err,
					"cannot build the request: %s",
					strerror(-ic->items.err))
			   : ulnetctl_ctl_call(req, ULNETCTL_CTL_TIMEOUT_MS,
					       &reply, err);
	free(req);
	if (rc) {
		*is_lost = true;
		goto out;
	}
	rc = reply.rc;
	if (rc == -EOPNOTSUPP && !reply.has_batch_done) {
		*is_unsupported = true; /* no batches, or not of this op */
	} else if (rc < 0 && !reply.has_batch_done) {
		/* refused whole (malformed): the daemon closes after it */
		ul_err_set(err, rc, "ulnetd at %s refused a batch: %s",
			   ulnetctl_ctl_path(), reply.err_msg);
		*is_lost = true;
	} else if (!reply.has_batch_done || reply.batch_done > n ||
		   (rc ? reply.batch_done == n : reply.batch_done != n)) {
		rc = ul_err_set(err, -EPROTO,
				"bad reply from ulnetd at %s: a batch of %u "
				"with %u done and status %d",
				ulnetctl_ctl_path(), n, reply.batch_done, rc);
		*is_lost = true;
	} else {
		*done = reply.batch_done;
		if (rc)
			ul_err_set(err, rc, "%s", reply.err_msg);
	}
	ul_ctl_reply_fini(&reply);
out:
	ul_ctl_msg_fini(&ic->items);
	ic->nitems = 0;
	return rc;
}

/*
 * An error as lnetctl prints it: D1 on stderr, or a D2 tree entry; one
 * lnetctl reports without a word, not at all.
 */
static void report(void *ctx, const struct ul_conf_report *r)
{
	struct ul_cyaml_errs *errs = &((struct import_ctx *)ctx)->errs;
	const char *descr = r->descr && r->descr[0] ? r->descr
						    : strerror(-r->errnum);

	if (r->is_silent)
		return;
	if (!r->d2_op) {
		ulnetctl_d1(r->op, r->object, r->errnum, descr);
		return;
	}
	ul_cyaml_err_add_seq(errs, r->d2_op, r->object, r->seq_no, r->errnum,
			     descr);
}

/*
 * A note of the file: lnetctl's own line as it prints it, and what ulnet
 * does not apply with its line; what lnetctl skips without a word, ulnet
 * skips so too.
 */
static void note(void *ctx, const struct ul_conf_warning *w)
{
	(void)ctx;
	if (w->kind == UL_CONF_NOTE_LNETCTL)
		fprintf(stderr, "%s\n", w->text);
	else if (w->kind == UL_CONF_NOTE_NOT_APPLIED)
		fprintf(stderr, "ulnetctl import: line %u: %s\n", w->line,
			w->text);
}

static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap + 1), *nb;

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		nb = cap > UL_CONF_MAX_BYTES ? NULL : realloc(buf, cap * 2 + 1);
		if (!nb) {
			free(buf);
			return -EFBIG;
		}
		buf = nb;
		cap *= 2;
	}
	if (!buf)
		return -ENOMEM;
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/*
 * The text of the file (path NULL: stdin). A file that cannot be opened
 * is lnetctl's D2 "yaml: - builder:" with -errno as the status; one that
 * cannot be read (a directory) fails as an unreadable YAML stream does,
 * with 234.
 */
static int load(const struct ulnetctl_import *im, const char *path, char **text,
		size_t *len)
{
	struct ul_cyaml_errs errs;
	struct ul_err err = { 0 };
	int rc;

	ul_cyaml_errs_init(&errs, stderr);
	if (!path) {
		rc = read_all(stdin, text, len);
		if (rc)
			ul_err_set(&err, rc, "cannot read stdin: %s",
				   strerror(-rc));
	} else {
		rc = ul_conf_load_file(path, text, len, &err);
		if (rc && strncmp(err.msg, "cannot open", 11) == 0) {
			ul_cyaml_err_add(&errs, "yaml", "builder", -1, err.msg);
			return rc;
		}
	}
	if (!rc)
		return 0;
	if (im->is_old_api)
		ul_cyaml_err_add(&errs, "yaml", "builder", -1, err.msg);
	else
		ulnetctl_d1(im->is_del ? "del" : "add", "import", rc, err.msg);
	return -EINVAL;
}

/* --add or --del. */
static int import_apply(const struct ulnetctl_import *im,
			const struct ul_conf *conf)
{
	struct ul_conf_hostaddr *addrs = NULL;
	struct ul_conf_import_opts o = { 0 };
	struct import_ctx ic = { 0 };
	size_t n = 0;
	int rc;

	ul_cyaml_errs_init(&ic.errs, stderr);
	rc = ul_conf_host_addrs(&addrs, &n);
	if (rc)
		return ulnetctl_d1(im->is_del ? "del" : "add", "import", rc,
				   "cannot read interfaces");
	o.is_del = im->is_del;
	o.addrs = addrs;
	o.nr_addrs = n;
	o.ops.call = call;
	o.ops.batch_add = batch_add;
	o.ops.batch_send = batch_send;
	o.ops.report = report;
	o.ops.note = note;
	o.ops.ctx = &ic;
	/* one request per item or batch: one connection for all of them */
	ulnetctl_ctl_keep(true);
	rc = ul_conf_import(conf, &o);
	ulnetctl_ctl_keep(false);
	ul_ctl_msg_fini(&ic.items);
	if (conf->nr_warnings_dropped)
		fprintf(stderr, "ulnetctl import: %zu more notes not kept\n",
			conf->nr_warnings_dropped);
	free(addrs);
	return rc;
}

static void usage(void)
{
	printf("import FILE\n"
	       "import < FILE : import a file\n"
	       "\t--add: add configuration\n"
	       "\t--del: delete configuration\n"
	       "\t--show: show configuration\n"
	       "\t--exec: execute command\n"
	       "\t--old-api: do not use netlink (for tests)\n"
	       "\t--help: display this help\n"
	       "If no command option is given then --add"
	       " is assumed by default\n");
}

int ulnetctl_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "add", no_argument, NULL, 'a' },
		{ "del", no_argument, NULL, 'd' },
		{ "show", no_argument, NULL, 's' },
		{ "exec", no_argument, NULL, 'e' },
		{ "old-api", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ulnetctl_import im = { 0 };
	struct ul_err err = { 0 };
	const char *path = NULL;
	bool is_opt = false;
	struct ul_conf conf;
	char *text = NULL;
	size_t len = 0;
	int opt, rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "adseoh", opts, NULL)) != -1) {
		is_opt = true;
		switch (opt) {
		case 'a':
		case 'd':
		case 's':
		case 'e':
			im.is_del = opt == 'd';
			im.is_show = opt == 's';
			im.is_exec = opt == 'e';
			break;
		case 'o':
			im.is_old_api = true;
			break;
		case 'h':
			usage();
			return 0;
		default:
			/* lnetctl: getopt's complaint only, nothing done. */
			return 0;
		}
	}
	/*
	 * lnetctl: the file is the sole argument, or the third word next to
	 * options (getopt has moved the options first); else stdin.
	 */
	if (is_opt && argc == 3)
		path = argv[2];
	else if (!is_opt && argc == 2)
		path = argv[1];
	rc = load(&im, path, &text, &len);
	if (rc)
		return rc;
	if (im.is_exec) {
		rc = ulnetctl_import_exec(text, len);
		free(text);
		return rc;
	}
	ul_conf_init(&conf);
	rc = ul_conf_read(text, len,
			  im.is_old_api ? UL_CONF_OLD_API : UL_CONF_NETLINK,
			  &conf, &err);
	free(text);
	if (rc) {
		/* not YAML: nothing is applied */
		rc = ulnetctl_import_unreadable(&im, rc, err.msg);
	} else if (im.is_show) {
		rc = ulnetctl_import_show(&conf);
	} else {
		rc = import_apply(&im, &conf);
	}
	ul_conf_fini(&conf);
	return rc;
}

int ulnetctl_import_unreadable(const struct ulnetctl_import *im, int rc,
			       const char *msg)
{
	struct ul_cyaml_errs errs;

	if (!im->is_old_api)
		return ulnetctl_d1(im->is_del	 ? "del"
				   : im->is_show ? "show"
						 : "add",
				   "import", rc, msg);
	/* the legacy parser's tree builder */
	ul_cyaml_errs_init(&errs, stderr);
	ul_cyaml_err_add(&errs, "yaml", "builder", -1, msg);
	return -EINVAL;
}
