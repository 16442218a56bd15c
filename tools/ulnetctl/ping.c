/*
 * ulnetctl ping and discover (reference/lnetctl.md §11). As lnetctl's
 * yaml_lnet_ping(), every target, a NID range list whose host names are
 * resolved (§4.3), is expanded before anything is sent: one that does not
 * parse is a D1 "manage: - ping:" (or discover) error and nothing is
 * pinged. Then each NID is asked of the instance in turn; the answers
 * print under "ping:" or "discover:", the failures under "manage:"
 * (src/ctl/ping_yaml.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "ctl/ping_yaml.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/*
 * NIDs one command may name over all its targets. lnetctl has no limit;
 * this one only keeps a typing slip ("[0-255].[0-255].[0-255].[0-255]")
 * from eating the memory: 2^20 NIDs take 20 MiB.
 */
#define TARGETS_MAX (1u << 20)
#define TARGETS_FIRST 64

/* The lnetctl ping waits up to 180 s for one target, on top of the call. */
#define TARGET_WAIT_MS (ULNETCTL_CTL_TIMEOUT_MS + 180000u)

struct targets {
	struct ulnet_nid *nids;
	size_t n, cap;
};

/* Append word's NIDs to t, growing it up to TARGETS_MAX. */
static int expand_one(struct targets *t, const char *word, struct ul_err *err)
{
	struct ulnet_nid *v;
	size_t got, cap;
	int rc;

	for (;;) {
		rc = ulnetctl_nidlist_expand(word, t->nids + t->n,
					     t->cap - t->n, &got, err);
		if (rc != -E2BIG || t->cap >= TARGETS_MAX)
			break;
		cap = t->cap * 2 < TARGETS_MAX ? t->cap * 2 : TARGETS_MAX;
		v = realloc(t->nids, cap * sizeof(*v));
		if (!v)
			return ul_err_set(err, -ENOMEM, "out of memory");
		t->nids = v;
		t->cap = cap;
	}
	if (rc == 0)
		t->n += got;
	return rc;
}

/*
 * Expand argv[optind..argc) into t. On a bad target print lnetctl's D1
 * "manage: - <object>:" and return its status (234); t is freed by the
 * caller either way.
 */
static int expand_targets(struct targets *t, int argc, char **argv,
			  const char *object)
{
	struct ul_err err = { 0 };
	int i, rc;

	t->nids = calloc(TARGETS_FIRST, sizeof(*t->nids));
	if (!t->nids)
		return -ENOMEM;
	t->cap = TARGETS_FIRST;
	for (i = optind; i < argc; i++) {
		rc = expand_one(t, argv[i], &err);
		if (rc)
			return ulnetctl_d1(
				"manage", object,
				rc == -ENOMEM || rc == -E2BIG ? rc : -EINVAL,
				err.msg);
	}
	return 0;
}

/*
 * A failure of one target carries the instance's "failed to <verb>
 * <nid>"; anything else refused the whole command (LNet down), which
 * lnetctl reports once, as the D1 error of the request.
 */
static bool is_target_failure(const struct ul_ctl_reply *r)
{
	return strncmp(r->err_msg, "failed to ", strlen("failed to ")) == 0;
}

static void ping_usage(void)
{
	printf("ping nid[,nid,...]\n"
	       "\t --source: source nid\n"
	       "\t --timeout: ping timeout\n"
	       "\t --help: display this help\n");
}

/* Ping every target of t in turn, printing as the answers come. */
static int ping_targets(const struct ul_ctl_req *proto, const struct targets *t)
{
	struct ul_ctl_req req = *proto;
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ping_yaml *out;
	int rc, status = 0;
	size_t i;

	rc = ul_ping_yaml_open(&out, stdout, "ping");
	if (rc)
		return rc;
	for (i = 0; i < t->n; i++) {
		req.ping.target = t->nids[i];
		rc = ulnetctl_ctl_call(&req, TARGET_WAIT_MS, &reply, &err);
		if (rc) {
			ul_ping_yaml_abort(out);
			return ulnetctl_d1("manage", "ping", rc, err.msg);
		}
		if (reply.rc && !is_target_failure(&reply)) {
			ul_ping_yaml_abort(out);
			rc = ulnetctl_d1("manage", "ping", reply.rc,
					 reply.err_msg);
			ul_ctl_reply_fini(&reply);
			return rc;
		}
		if (reply.rc) {
			status = -1;
			rc = ul_ping_yaml_fail(out, reply.rc, reply.err_msg);
		} else {
			ul_ping_yaml_ping(out, &reply);
		}
		ul_ctl_reply_fini(&reply);
		if (rc) {
			ul_ping_yaml_abort(out);
			return rc;
		}
	}
	rc = ul_ping_yaml_close(out);
	return rc ? rc : status;
}

int ulnetctl_ping(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct targets t = { 0 };
	struct ul_ctl_req req;
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
		case 'h':
			ping_usage();
			return 0;
		default:
			/* getopt said what is wrong; lnetctl adds nothing */
			return 0;
		}
	}
	rc = expand_targets(&t, argc, argv, "ping");
	if (rc == 0 && t.n == 0)
		ping_usage();
	else if (rc == 0)
		rc = ping_targets(&req, &t);
	free(t.nids);
	return rc;
}

/* Discover every target of t in turn, printing as the answers come. */
static int discover_targets(const struct targets *t, bool is_force)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ping_yaml *out;
	struct ul_ctl_args *a;
	int rc, status = 0;
	size_t i;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	rc = ul_ping_yaml_open(&out, stdout, "discover");
	if (rc) {
		free(a);
		return rc;
	}
	a->has = UL_CTL_ARG_NID;
	if (is_force)
		a->flags |= UL_CTL_ARGF_FORCE;
	for (i = 0; i < t->n && !rc; i++) {
		a->nid = t->nids[i];
		rc = ulnetctl_call(UL_CTL_OP_DISCOVER, a, TARGET_WAIT_MS,
				   &reply, &err);
		if (rc) {
			/* No instance to ask: lnetctl's D1 for the command. */
			ul_ping_yaml_abort(out);
			free(a);
			return ulnetctl_d1("manage", "discover", rc, err.msg);
		}
		if (reply.rc) {
			status = -1;
			rc = ul_ping_yaml_fail(out, reply.rc, reply.err_msg);
		} else {
			ul_ping_yaml_doc(out,
					 ul_doc_get(reply.doc, "discover"));
		}
		ul_ctl_reply_fini(&reply);
	}
	free(a);
	if (rc) {
		ul_ping_yaml_abort(out);
		return rc;
	}
	rc = ul_ping_yaml_close(out);
	return rc ? rc : status;
}

int ulnetctl_discover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct targets t = { 0 };
	bool is_force = false;
	int opt, rc;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			is_force =
				true; /* FORCE_PING (always) and FORCE_PUSH */
			break;
		case 'h':
			printf("discover nid[,nid,...]\n"
			       "\t --force: force discovery\n"
			       "\t --help: display this help\n");
			return 0;
		default:
			/* getopt said what is wrong; lnetctl adds nothing */
			return 0;
		}
	}
	if (optind >= argc) {
		printf("Missing nid argument\n");
		return -1;
	}
	rc = expand_targets(&t, argc, argv, "discover");
	if (rc == 0)
		rc = discover_targets(&t, is_force);
	free(t.nids);
	return rc;
}
