/*
 * ulnetctl ping (reference/lnetctl.md §11.1): each target, a NID range
 * list, is expanded here and every NID pinged in turn by the instance;
 * the answers print under "ping:", the failures under "manage:".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "ctl/show_yaml.h"
#include "ctl/yemit.h"
#include "ctl/ytree.h"
#include "nid/nidrange.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/* NIDs one ping command may reach, over all its targets. */
#define PING_MAX_NIDS 1024

static void usage(void)
{
	printf("ping nid[,nid,...]\n"
	       "\t --source: source nid\n"
	       "\t --timeout: ping timeout\n"
	       "\t --help: display this help\n");
}

/* Expand every target into nids; D1 manage/ping on a bad one. */
static int expand(int argc, char **argv, struct ulnet_nid *nids, size_t *count)
{
	struct ul_err err = { 0 };
	size_t n = 0, got;

	for (; optind < argc; optind++) {
		if (ul_nidrange_expand(argv[optind], nids + n,
				       PING_MAX_NIDS - n, &got, &err)) {
			ul_show_yaml_err(stderr, "manage", "ping", -EINVAL,
					 err.msg);
			return ULNETCTL_RC_BAD_PARAM;
		}
		n += got;
	}
	*count = n;
	return 0;
}

static int ping_all(const struct ul_ctl_req *proto,
		    const struct ulnet_nid *nids, size_t n,
		    struct ul_ctl_reply *replies)
{
	uint32_t wait_ms = ULNETCTL_CTL_TIMEOUT_MS + 180000u;
	struct ul_err err = { 0 };
	struct ul_ctl_req req = *proto;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		req.ping.target = nids[i];
		rc = ulnetctl_ctl_call(&req, wait_ms, &replies[i], &err);
		if (rc) {
			ul_show_yaml_err(stderr, "manage", "ping", rc, err.msg);
			while (i--)
				ul_ctl_reply_fini(&replies[i]);
			return -1;
		}
	}
	return 0;
}

int ulnetctl_ping(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct ul_ctl_reply **views = NULL;
	struct ul_ctl_reply *replies = NULL;
	struct ulnet_nid *nids = NULL;
	struct ul_ctl_req req;
	size_t n = 0, i;
	int opt, rc;
	long sec;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PING;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hs:t:", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			/* lnetctl fails silently on a bad source. */
			if (ulnet_nid_parse(optarg, &req.ping.src, NULL, 0))
				return ULNETCTL_RC_BAD_PARAM;
			req.ping.has_src = true;
			break;
		case 't':
			/* atoi semantics; 1 s is never sent (§11.1 Quirk). */
			sec = strtol(optarg, NULL, 10);
			if (sec != 1) {
				req.ping.has_timeout = true;
				req.ping.timeout_ms =
					sec > 0 && sec < 180
						? (uint32_t)sec * 1000
						: 0;
			}
			break;
		default:
			usage();
			return 0;
		}
	}
	nids = calloc(PING_MAX_NIDS, sizeof(*nids));
	if (!nids)
		return -ENOMEM;
	rc = expand(argc, argv, nids, &n);
	if (rc || n == 0) {
		if (!rc)
			usage();
		free(nids);
		return rc;
	}
	rc = -ENOMEM;
	replies = calloc(n, sizeof(*replies));
	views = calloc(n, sizeof(const struct ul_ctl_reply *));
	if (!replies || !views)
		goto out;
	rc = ping_all(&req, nids, n, replies);
	if (rc)
		goto out;
	for (i = 0; i < n; i++) {
		views[i] = &replies[i];
		if (replies[i].rc)
			rc = -1;
	}
	if (ul_show_yaml_ping(stdout, views, n) && !rc)
		rc = -EIO;
	for (i = 0; i < n; i++)
		ul_ctl_reply_fini(&replies[i]);
out:
	free(views);
	free(replies);
	free(nids);
	return rc;
}

/*
 * discover's output (lnetctl.md §11.2), engine B: the peers found under
 * "discover:", then the failures under "manage:" as ping prints them.
 */
static int print_discover(const struct ul_ctl_reply *replies,
			  const bool *is_raw, size_t n)
{
	char descr[UL_CTL_STR_MAX + 128];
	const struct ul_ynode *items;
	size_t i, j, nok = 0;
	struct ul_yemit y;
	int rc;

	for (i = 0; i < n; i++)
		if (replies[i].rc == 0)
			nok++;
	rc = ul_yemit_open(&y, stdout, 2, false);
	if (rc)
		return rc;
	ul_yemit_map_start(&y);
	if (nok) {
		ul_yemit_str(&y, "discover");
		ul_yemit_seq_start(&y);
		for (i = 0; i < n; i++) {
			items = ul_doc_get(replies[i].doc, "discover");
			if (replies[i].rc || !items)
				continue;
			for (j = 0; j < items->nr; j++)
				ul_doc_emit(&y, items->kids[j]);
		}
		ul_yemit_seq_end(&y);
	}
	if (nok < n) {
		ul_yemit_str(&y, "manage");
		ul_yemit_seq_start(&y);
		for (i = 0; i < n; i++) {
			if (!replies[i].rc)
				continue;
			if (is_raw[i])
				snprintf(descr, sizeof(descr), "%s",
					 replies[i].err_msg);
			else
				snprintf(descr, sizeof(descr), "%s: %s",
					 replies[i].err_msg,
					 strerror(-replies[i].rc));
			ul_yemit_map_start(&y);
			ul_yemit_str(&y, "discover");
			ul_yemit_str(&y, "");
			ul_yemit_kv(&y, "errno", "%d", replies[i].rc);
			ul_yemit_str(&y, "descr");
			ul_yemit_quoted(&y, descr, true,
					YAML_SINGLE_QUOTED_SCALAR_STYLE);
			ul_yemit_map_end(&y);
		}
		ul_yemit_seq_end(&y);
	}
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y);
}

/*
 * One target word: its NIDs appended to nids[*n] (replies to come), or,
 * when it does not parse, one failure "cannot parse NID '<x>'" in its
 * place, as lnetctl reports it among the others.
 */
static void discover_expand(const char *word, struct ulnet_nid *nids,
			    struct ul_ctl_reply *replies, bool *is_raw,
			    size_t *n)
{
	struct ul_err err = { 0 };
	size_t got;

	if (ul_nidrange_expand(word, nids + *n, PING_MAX_NIDS - *n, &got,
			       &err) == 0) {
		*n += got;
		return;
	}
	replies[*n].rc = -EINVAL;
	snprintf(replies[*n].err_msg, sizeof(replies[*n].err_msg),
		 "cannot parse NID '%s'", word);
	is_raw[*n] = true;
	(*n)++;
}

int ulnetctl_discover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t wait_ms = ULNETCTL_CTL_TIMEOUT_MS + 180000u;
	struct ul_ctl_reply *replies = NULL;
	struct ulnet_nid *nids = NULL;
	struct ul_err err = { 0 };
	struct ul_ctl_args *a = NULL;
	bool *is_raw = NULL;
	size_t n = 0, i;
	int opt, rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		if (opt == 'f')
			continue; /* ulnet always pings: see lnetctl-differences */
		printf("discover nid[,nid,...]\n"
		       "\t --force: force discovery\n"
		       "\t --help: display this help\n");
		return 0;
	}
	if (optind >= argc) {
		printf("Missing nid argument\n");
		return -1;
	}
	rc = -ENOMEM;
	a = calloc(1, sizeof(*a));
	nids = calloc(PING_MAX_NIDS, sizeof(*nids));
	replies = calloc(PING_MAX_NIDS, sizeof(*replies));
	is_raw = calloc(PING_MAX_NIDS, sizeof(*is_raw));
	if (!a || !nids || !replies || !is_raw)
		goto out;
	for (; optind < argc && n < PING_MAX_NIDS; optind++)
		discover_expand(argv[optind], nids, replies, is_raw, &n);
	rc = 0;
	for (i = 0; i < n; i++) {
		if (is_raw[i]) {
			rc = -1;
			continue;
		}
		a->has = UL_CTL_ARG_NID;
		a->nid = nids[i];
		if (ulnetctl_call(UL_CTL_OP_DISCOVER, a, wait_ms, &replies[i],
				  &err)) {
			/* No instance to ask: lnetctl's D1 for the command. */
			rc = ulnetctl_d1("manage", "discover", err.code,
					 err.msg);
			goto out;
		}
		if (replies[i].rc)
			rc = -1;
	}
	if (print_discover(replies, is_raw, n) && !rc)
		rc = -EIO;
out:
	for (i = 0; replies && i < n; i++)
		ul_ctl_reply_fini(&replies[i]);
	free(is_raw);
	free(replies);
	free(nids);
	free(a);
	return rc;
}
