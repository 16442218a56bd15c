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

#include "ctl/show_yaml.h"
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

/* PLACEHOLDER: replaced in this session. */
int ulnetctl_discover(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -EOPNOTSUPP;
}
