/*
 * `set <name> <value>`, `global show`, `stats show`, `stats reset`
 * (reference/lnetctl.md §9, §10). The value is parsed here as lnetctl
 * parses it (strtol base 0, nothing after it); the instance applies LNet's
 * checks. Errors are lnetctl's cYAML error tree (D2) on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/cyaml_err.h"
#include "ctl/doc_yaml.h"
#include "ctl/ytree.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

/*
 * How lnetctl words each parameter: in "cannot parse <parse> value", in
 * "cannot configure <what>: <strerror>", and the entity of the error.
 */
struct param {
	const char *name;
	const char *parse;
	const char *what;
	const char *entity;
	long long min; /* lnetctl's own checks, before asking LNet */
	const char *min_msg;
	long long max;
	const char *max_msg;
};

static const struct param params[] = {
	{ "numa_range", "numa_range", NULL, "numa_range", 0, NULL, 0, NULL },
	{ "max_interfaces", "max_interfaces", "max interfaces",
	  "max_interfaces", 0, NULL, 0, NULL },
	{ "discovery", "discovery", "discovery", "discovery", 0, NULL, 0,
	  NULL },
	{ "drop_asym_route", "drop_asym_route", "drop asym route",
	  "drop_asym_route", 0, NULL, 0, NULL },
	{ "retry_count", "retry_count", "retry count", "retry_count", 0, NULL,
	  0, NULL },
	{ "transaction_timeout", "transaction timeout", "transaction timeout",
	  "transaction_timeout", 0, NULL, 0, NULL },
	{ "health_sensitivity", "health sensitivity", "health sensitivity",
	  "health_sensitivity", 0, NULL, 0, NULL },
	{ "recovery_interval", "recovery interval", "recovery interval",
	  "recovery_interval", 0, NULL, 0, NULL },
	{ "router_sensitivity", "router sensitivity",
	  "router health sensitivity", "router_sensitivity", 0, NULL, 0, NULL },
	{ "response_tracking", "response_tracking", "response tracking",
	  "response_tracking", 0, "\"Valid values are: 0, 1, 2, or 3\"", 3,
	  "\"Valid values are: 0, 1, 2, or 3\"" },
	{ "recovery_limit", "recovery_limit", "recovery limit",
	  "recovery_limit", 0, "\"Must be greater than or equal to 0\"", 0,
	  NULL },
	{ "max_recovery_ping_interval", "maximum recovery interval",
	  "maximum recovery ping interval", "maximum recovery ping interval", 1,
	  "\"must be strictly positive\"", 0, NULL },
	/* lnetctl's routing parse error spans two lines, as here */
	{ "routing", "routing value.\nmust be 0 for disable or 1 for enable",
	  NULL, "routing", 0, NULL, 0, NULL },
	{ "tiny_buffers", "tiny_buffers", "buffers", "buf", 0, NULL, 0, NULL },
	{ "small_buffers", "small_buffers", "buffers", "buf", 0, NULL, 0,
	  NULL },
	{ "large_buffers", "large_buffers", "buffers", "buf", 0, NULL, 0,
	  NULL },
};

static const struct param *param_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (strcmp(params[i].name, name) == 0)
			return &params[i];
	return NULL;
}

static int d2(const char *op, const char *entity, int errnum, const char *descr)
{
	struct ul_cyaml_errs t;

	ul_cyaml_errs_init(&t, stderr);
	ul_cyaml_err_add(&t, op, entity, errnum, descr);
	return errnum;
}

/*
 * An integer as lnetctl's strtol(..., 0) check takes it: nothing may
 * follow it, but an empty word passes as 0.
 */
static int parse_value(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int is_buffers(const struct param *p)
{
	return strcmp(p->entity, "buf") == 0;
}

/* Why the instance refused, as lnetctl words each parameter (errno only). */
static int refused(const struct param *p, long long v, int rc)
{
	char descr[UL_CTL_STR_MAX + 128];

	if (strcmp(p->name, "routing") == 0) {
		/* lustre_lnet_config_routing(): no colon before strerror */
		snprintf(descr, sizeof(descr), "\"cannot %s routing %s\"",
			 v ? "enable" : "disable", strerror(-rc));
		return d2(v ? "add" : "del", "routing", rc, descr);
	}
	if (is_buffers(p)) {
		if (rc == -ERANGE)
			snprintf(descr, sizeof(descr),
				 "\"tiny, small and large must be >= 0\"");
		else
			snprintf(descr, sizeof(descr),
				 "\"cannot configure buffers: %s\"",
				 strerror(-rc));
		return d2("add", "buf", rc, descr);
	}
	if (strcmp(p->name, "numa_range") == 0) {
		snprintf(descr, sizeof(descr),
			 "\"cannot configure numa_range to %lld: %s\"", v,
			 strerror(-rc));
		return d2("add", p->entity, rc, descr);
	}
	/* LNet refused the write: -ENODATA (61) as lnetctl reports it. */
	snprintf(descr, sizeof(descr), "\"cannot configure %s: %s\"", p->what,
		 strerror(-rc));
	return d2("add", p->entity, -ENODATA, descr);
}

static int set_param(int argc, char **argv)
{
	const struct param *p = param_of(argv[0]);
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_args *a;
	char descr[128];
	long long v;
	int rc;

	if (!p)
		return -EINVAL;
	/* lnetctl reads the first value and ignores any more (§9) */
	if (argc < 2) {
		ulnetctl_print_help(ulnetctl_set_cmds, "set", argv[0]);
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (parse_value(argv[1], &v) ||
	    (strcmp(p->name, "routing") == 0 && v != 0 && v != 1)) {
		if (strcmp(p->name, "routing") == 0) {
			/*
			 * lnetctl's text has a newline, which the cYAML
			 * printer writes as it is (ul_cyaml_err_add() would
			 * make it a blank): printed here.
			 */
			fprintf(stderr,
				"parser:\n    - set:\n          errno: -1\n"
				"          descr: cannot parse %s\n",
				p->parse);
			return -1;
		}
		snprintf(descr, sizeof(descr), "cannot parse %s value",
			 p->parse);
		return d2("parser", "set", -1, descr);
	}
	/* lnetctl hands the value on as an int */
	v = (int32_t)(uint32_t)(uint64_t)v;
	/*
	 * lnetctl writes these two flags as 0 or 1 whatever was typed
	 * (lustre_lnet_config_discovery, .._drop_asym_route): -1 enables.
	 */
	if (strcmp(p->name, "discovery") == 0 ||
	    strcmp(p->name, "drop_asym_route") == 0)
		v = v != 0;
	if ((p->min_msg && v < p->min) || (p->max_msg && v > p->max))
		return d2("add", p->entity, -EINVAL,
			  v < p->min ? p->min_msg : p->max_msg);
	if (is_buffers(p) && v < -1)
		return d2("add", "buf", -ERANGE,
			  "\"tiny, small and large must be >= 0\"");
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->has = UL_CTL_ARG_NAME | UL_CTL_ARG_VALUE;
	snprintf(a->name, sizeof(a->name), "%s", p->name);
	a->value = v;
	rc = ulnetctl_call(UL_CTL_OP_SET, a, ULNETCTL_CTL_TIMEOUT_MS, &reply,
			   &err);
	free(a);
	if (rc) {
		/* No instance: LNet "not loaded", the parameter missing. */
		d2("add", p->entity, -ENOMSG, err.msg);
		return -ENOMSG;
	}
	rc = reply.rc ? refused(p, v, reply.rc) : 0;
	ul_ctl_reply_fini(&reply);
	return rc;
}

/*
 * A show whose output is cYAML; failures are D2 "show/<entity>", the
 * instance's refusal worded "<what>: <strerror>" when what is given.
 */
static int show_c(uint16_t op, const char *entity, const char *what,
		  int fail_rc)
{
	char descr[UL_CTL_STR_MAX + 128];
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	rc = ulnetctl_call(op, a, ULNETCTL_CTL_TIMEOUT_MS, &reply, &err);
	free(a);
	if (rc) {
		d2("show", entity, rc, err.msg);
		return fail_rc;
	}
	if (reply.rc) {
		if (what)
			snprintf(descr, sizeof(descr), "\"%s: %s\"", what,
				 strerror(-reply.rc));
		else
			snprintf(descr, sizeof(descr), "%s",
				 reply.err_msg[0] ? reply.err_msg
						  : strerror(-reply.rc));
		d2("show", entity, reply.rc, descr);
		rc = fail_rc;
	} else if (ul_doc_print(stdout, reply.doc, UL_DOC_C)) {
		rc = -EIO;
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

/*
 * numa_range comes by an ioctl that needs LNet up, the rest from module
 * parameters: ulnetd leaves numa_range out while LNet is down, and this
 * is lnetctl's error for it (ioctl_show_global_values).
 */
#define NUMA_RANGE_DOWN "\"cannot get numa_range: Network is down\""

static const struct ul_ynode *ymap_get(const struct ul_ynode *n,
				       const char *key)
{
	size_t i;

	if (!n || n->type != UL_YNODE_MAP)
		return NULL;
	for (i = 0; i + 1 < n->nr; i += 2)
		if (n->kids[i]->str && strcmp(n->kids[i]->str, key) == 0)
			return n->kids[i + 1];
	return NULL;
}

static bool has_numa_range(const struct ul_ynode *doc)
{
	return ymap_get(ymap_get(doc, "global"), "numa_range") != NULL;
}

static int global_show(int argc, char **argv)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_args *a;
	int rc;

	(void)argc; /* lnetctl ignores extra words (§9) */
	(void)argv;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	rc = ulnetctl_call(UL_CTL_OP_GLOBAL_SHOW, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	if (rc) {
		d2("show", "global", rc, err.msg);
		return -1;
	}
	if (reply.rc) {
		d2("show", "global", reply.rc,
		   reply.err_msg[0] ? reply.err_msg : strerror(-reply.rc));
		rc = -1;
	} else if (!has_numa_range(reply.doc)) {
		/* jt_show_global stops at its first failure: nothing else */
		rc = d2("show", "global", -ENETDOWN, NUMA_RANGE_DOWN);
	} else if (ul_doc_print(stdout, reply.doc, UL_DOC_C)) {
		rc = -EIO;
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

bool ulnetctl_global_export(FILE *out, struct ul_ctl_reply *reply)
{
	struct ul_err err = { 0 };
	struct ul_cyaml_errs t;
	struct ul_ctl_args *a;
	int rc;

	a = calloc(1, sizeof(*a));
	if (!a)
		return false;
	rc = ulnetctl_call(UL_CTL_OP_GLOBAL_SHOW, a, ULNETCTL_CTL_TIMEOUT_MS,
			   reply, &err);
	free(a);
	if (rc) {
		ulnetctl_d1("show", "global", err.code, err.msg);
		return false;
	}
	if (reply->rc) {
		ulnetctl_d1("show", "global", reply->rc, reply->err_msg);
		ul_ctl_reply_fini(reply);
		return false;
	}
	/*
	 * jt_export prints each failure into its output as it comes, and
	 * the values it could read with the other sections at the end,
	 * numa_range left out.
	 */
	if (!has_numa_range(reply->doc)) {
		ul_cyaml_errs_init(&t, out);
		ul_cyaml_err_add(&t, "show", "global", -ENETDOWN,
				 NUMA_RANGE_DOWN);
	}
	return true;
}

static int stats_show(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	/* lustre_lnet_show_stats() words it so; lnetctl.md §3: 255 */
	return show_c(UL_CTL_OP_STATS_SHOW, "statistics",
		      "cannot get lnet statistics", -1);
}

static int stats_reset(int argc, char **argv)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	int rc;

	(void)argc;
	(void)argv;
	if (!a)
		return -ENOMEM;
	rc = ulnetctl_call(UL_CTL_OP_STATS_RESET, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	/*
	 * lustre_lnet_reset_stats() builds its error under SHOW_CMD, so a
	 * failed reset reads "show: - statistics:"; the status is -errno.
	 */
	if (rc)
		return d2("show", "statistics", rc, err.msg);
	rc = reply.rc;
	if (rc) {
		char descr[128];

		snprintf(descr, sizeof(descr),
			 "\"cannot reset lnet statistics: %s\"", strerror(-rc));
		d2("show", "statistics", rc, descr);
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

#define SET_VERB(n, text)                                                      \
	{                                                                      \
		n, set_param, NULL, text                                       \
	}

const struct ulnetctl_cmd ulnetctl_set_cmds[] = {
	SET_VERB("tiny_buffers", "total tiny router buffers\n"
				 "\tVALUE: 0 for the default, -1 unchanged\n"),
	SET_VERB("small_buffers", "total small router buffers\n"
				  "\tVALUE: 0 for the default, -1 unchanged\n"),
	SET_VERB("large_buffers", "total large router buffers\n"
				  "\tVALUE: 0 for the default, -1 unchanged\n"),
	SET_VERB("routing", "forward messages for other nodes or not\n"
			    "\t0: routing off\n\t1: routing on\n"),
	SET_VERB("numa_range", "NUMA distance below which NIs count as "
			       "equally close\n\tVALUE: 0 or more\n"),
	SET_VERB("max_interfaces", "interfaces a ping buffer has room for\n"
				   "\tVALUE: below 16 means 4096\n"),
	SET_VERB("discovery", "peer discovery\n\t0: off\n\t1: on "
			      "(default)\n"),
	SET_VERB("drop_asym_route", "messages that came over an asymmetric "
				    "route\n\t0: accept (default)\n"
				    "\t1: drop\n"),
	SET_VERB("retry_count", "resends of a failed message\n\t0: none\n"
				"\t>0: at most this many\n"),
	SET_VERB("transaction_timeout", "seconds a message and its response "
					"may take\n\t>0: seconds\n"),
	SET_VERB("health_sensitivity", "health lost per failure\n"
				       "\t0: no health tracking\n"
				       "\t1 to 1000: the step\n"),
	SET_VERB("recovery_interval", "deprecated: accepted, ignored\n"),
	SET_VERB("router_sensitivity", "percent of health a router NI "
				       "needs to be used\n\t0 to 100\n"),
	SET_VERB("response_tracking", "which messages wait for a response\n"
				      "\t0: pings and pushes only\n"
				      "\t1: also GETs\n\t2: also PUTs\n"
				      "\t3: GETs and PUTs (default)\n"),
	SET_VERB("recovery_limit", "seconds an unhealthy NI is recovered\n"
				   "\t0: forever (default)\n"
				   "\t>0: that many seconds\n"),
	SET_VERB("max_recovery_ping_interval", "longest gap between "
					       "recovery pings\n"
					       "\t>0: seconds\n"),
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_global_cmds[] = {
	{ "show", global_show, NULL, "show the global settings\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct ulnetctl_cmd ulnetctl_stats_cmds[] = {
	{ "show", stats_show, NULL, "show the LNet message counters\n" },
	{ "reset", stats_reset, NULL,
	  "clear the message counters and every NI's and peer NI's "
	  "message statistics\n" },
	{ NULL, NULL, NULL, NULL },
};
